# instance.sed: scannerd.service.in and scannerd.socket.in → scannerd@.service and scannerd@.socket, the
# templates for one daemon per camera (instance = the camera's /dev/v4l/by-id/ name; docs/kiosk.md).
# `make install` applies it, so the sandbox and every other setting stay written once.
1i # Generated from the singleton unit by systemd/instance.sed: one daemon per camera, %i = its /dev/v4l/by-id/ name.
s|^Description=scannerd: barcodes and typed text from a USB camera$|Description=scannerd on camera %i|
s|^Requires=scannerd\.socket$|Requires=scannerd@%i.socket|
s|^After=scannerd\.socket$|After=scannerd@%i.socket|
# Per camera: its device, and optional settings of its own (SCANNERD_* lines: an HTTP port, a region).
s|^\(ExecStart=.* run --config [^ ]*\)$|EnvironmentFile=-@sysconfdir@/scannerd/%i.env\n\1 --device /dev/v4l/by-id/%i|
s|^Description=scannerd client socket$|Description=scannerd client socket for camera %i|
s|^ListenStream=/run/scannerd/scannerd\.sock$|ListenStream=/run/scannerd/%i.sock|
