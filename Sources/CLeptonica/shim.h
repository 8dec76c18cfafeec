#ifndef SCANNERD_CLEPTONICA_SHIM_H
#define SCANNERD_CLEPTONICA_SHIM_H
/* Leptonica reads PNG, PNM, TIFF, BMP and GIF from memory; JPEG goes through turbojpeg instead. */
#include <leptonica/allheaders.h>

/* Pixel access macros (GET_DATA_BYTE) are not importable; the accessor below is. */
static inline unsigned char clept_get_byte(const l_uint32 *line, int x) { return GET_DATA_BYTE(line, x); }
#endif
