#ifndef SCANNERD_CLEPTONICA_H
#define SCANNERD_CLEPTONICA_H
/* Leptonica reads PNG, PNM, TIFF, BMP, GIF and WebP from memory; JPEG goes through turbojpeg instead. */
#include <leptonica/allheaders.h>

/* Pixel access macros (GET_DATA_BYTE) are not importable; the accessor below is. */
static inline unsigned char clept_get_byte(const l_uint32 *line, int x) { return GET_DATA_BYTE(line, x); }

/*
 * Library messages. Leptonica prints through lept_stderr (which leptSetStderrHandler redirects), and
 * libtiff through its own error and warning handlers; both would print straight to stderr, dozens of
 * lines for one damaged file. They are taken here instead, per thread (decoding runs on several
 * threads), so that the caller reports one line per file, and so that a TIFF that libtiff called
 * damaged while reading is refused even when Leptonica still hands back an image.
 * (libpng's messages cannot be taken this way: Leptonica creates its png_struct with libpng's
 * default handlers. The scan command captures stderr around decoding for those.)
 */

/* Installs the handlers (process-wide; idempotent). */
void clept_take_library_messages(void);
/* Forgets this thread's errors (before a decode). */
void clept_reset_errors(void);
/* How many errors Leptonica or libtiff reported on this thread since the reset, and the first one's text. */
int clept_error_count(void);
const char *clept_first_error_text(void);
#endif
