#ifndef SCANNERD_CDEMOCLIP_H
#define SCANNERD_CDEMOCLIP_H
/* The bundled demo clip (`scannerd run --source demo`; made by Tests/Fixtures/generate.py), compiled into
   the binary: an installed scannerd finds it with no resource bundle beside it and no build directory
   behind it. Capture imports this header only. */
#include <stddef.h>

/* The clip's MJPEG stream (30 JPEG frames of 640×480, back to back): its first byte, its length in *size. */
const unsigned char *scannerd_demo_clip(size_t *size);

#endif
