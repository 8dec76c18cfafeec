// libFakeCamera: an emulated USB (UVC-like) V4L2 capture device for tests.
//
//     export FAKECAM_FRAMES=Sources/CDemoClip/demo.mjpeg
//     LD_PRELOAD=.build/debug/libFakeCamera.so .build/debug/scannerd run --device /dev/video0
//
// Loaded with LD_PRELOAD into an unmodified program, the library makes a V4L2 capture device
// exist for that process only. It replaces open/open64/openat/openat64 (and the fortify
// variants __open_2, __open64_2, __openat_2, __openat64_2), close, ioctl, mmap/mmap64,
// poll/ppoll (and __poll_chk/__ppoll_chk), read/write (and __read_chk), and syscall() for
// SYS_open, SYS_openat, SYS_close, SYS_ioctl, SYS_mmap, SYS_read and SYS_write, which is how
// libv4l2 talks to devices. Everything that is not the fake path or a fake descriptor goes to
// the real function unchanged. Without FAKECAM_FRAMES the library does nothing.
//
// Environment (read once, when the library is loaded):
//
//   FAKECAM_FRAMES           required. A directory of JPEG files (names ending .jpg/.jpeg in
//                            any case, used in strcmp order of their names) or a file of
//                            concatenated JPEGs (.mjpeg; any other file is split the same way,
//                            so a single .jpg is a one-frame clip). All frames are loaded at
//                            startup; the size comes from the first one and frames of another
//                            size are skipped with a warning.
//   FAKECAM_DEVICE           path that open() recognises; default /dev/video0. Compared as a
//                            string: only this exact absolute path (openat's dirfd is ignored
//                            for it, relative paths never match).
//   FAKECAM_BY_ID            optional name: /dev/v4l/by-id/<name> opens the same device.
//   FAKECAM_FORMATS          comma list of MJPG, YUYV, GREY in ENUM_FMT order; default MJPG.
//                            The first one is the format of every new open().
//   FAKECAM_FPS              frame rate, 1..1000, default 30. Intervals offered: 1/FPS and,
//                            unless FPS is 15, 1/15 (fastest first).
//   FAKECAM_LOOP             1 (default): the clip repeats forever. 0: after the clip's last
//                            frame nothing is produced any more in this process (poll times
//                            out, a blocking DQBUF blocks), even across STREAMON or replug.
//   FAKECAM_UNPLUG_AFTER     N > 0: right after the N-th DQBUF since the last open/STREAMON
//                            of a descriptor, the device is unplugged: every ioctl on every
//                            open descriptor fails with ENODEV, mmap with ENODEV, read with
//                            ENODEV, poll reports POLLIN|POLLERR|POLLHUP, open() fails with
//                            ENOENT; close() works. Default 0 = never.
//   FAKECAM_REPLUG_AFTER_MS  M > 0: M ms after an unplug, open() succeeds again and gives a
//                            fresh device (controls back to defaults); descriptors from before
//                            stay dead. The unplug repeats after another N frames. The clip
//                            does not restart: frames continue where the last stream stopped.
//                            Default 0 = never comes back.
//   FAKECAM_CORRUPT_EVERY    K > 0: an MJPEG frame whose sequence number s satisfies
//                            (s + 1) % K == 0 (the K-th, 2K-th, ... frame produced since
//                            STREAMON, dropped frames included) has bytesused = half its JPEG
//                            length, so its EOI (FFD9) marker is missing. No error flag is set.
//                            YUYV and GREY frames are never corrupted. Default 0 = never.
//   FAKECAM_LOG              1: one-line traces on stderr. Configuration errors (unreadable
//                            frames, bad values) are always reported on stderr.
//
// What an application sees:
//   - the descriptor is an eventfd, readable exactly while DQBUF has a buffer to return (or the
//     device is gone), so poll/ppoll/select/epoll need no emulation; poll/ppoll additionally
//     report POLLERR|POLLHUP once unplugged and never POLLOUT;
//   - O_NONBLOCK (at open or set later with fcntl) makes DQBUF fail with EAGAIN instead of
//     blocking; O_CLOEXEC is honoured;
//   - while buffers are allocated (REQBUFS .. REQBUFS(0)/close) one more descriptor is open, a
//     memfd named "fakecam-buffers" that holds them; mmap of the camera maps that memfd;
//   - single-planar capture, MMAP streaming only (read()/write() fail with EINVAL), 2..8 buffers;
//     as with uvcvideo, S_FMT fails with EBUSY while buffers are allocated and S_PARM while
//     streaming; REQBUFS(0) is lenient (stops streaming, allowed while buffers are mapped);
//   - format and frame rate belong to the descriptor (each open() starts from the first format
//     and FAKECAM_FPS); control values belong to the device and survive close/open.
//
// Limitations:
//   - only the open() family sees the node: stat(), access(), realpath(), listing /dev and
//     fopen() (which opens inside glibc) do not; /sys/class/video4linux is not emulated;
//   - dup()/F_DUPFD copies of the descriptor are plain eventfds (their ioctls fail with ENOTTY);
//     closing it other than with close()/syscall(SYS_close) (dup2 over it, close_range) leaves
//     its state behind;
//   - a forked child does not inherit the camera: its copies are plain eventfds;
//   - select() and epoll see an unplugged device as readable (then DQBUF fails with ENODEV).
//
// Nothing needs to include this header; it only documents the library and names the variables.
#ifndef FAKECAM_H
#define FAKECAM_H

#define FAKECAM_ENV_FRAMES "FAKECAM_FRAMES"
#define FAKECAM_ENV_DEVICE "FAKECAM_DEVICE"
#define FAKECAM_ENV_BY_ID "FAKECAM_BY_ID"
#define FAKECAM_ENV_FORMATS "FAKECAM_FORMATS"
#define FAKECAM_ENV_FPS "FAKECAM_FPS"
#define FAKECAM_ENV_LOOP "FAKECAM_LOOP"
#define FAKECAM_ENV_UNPLUG_AFTER "FAKECAM_UNPLUG_AFTER"
#define FAKECAM_ENV_REPLUG_AFTER_MS "FAKECAM_REPLUG_AFTER_MS"
#define FAKECAM_ENV_CORRUPT_EVERY "FAKECAM_CORRUPT_EVERY"
#define FAKECAM_ENV_LOG "FAKECAM_LOG"

#define FAKECAM_DEFAULT_DEVICE "/dev/video0"
#define FAKECAM_BY_ID_DIRECTORY "/dev/v4l/by-id/"

#endif
