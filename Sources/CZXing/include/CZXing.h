#ifndef SCANNERD_CZXING_H
#define SCANNERD_CZXING_H
/* A C ABI over zxing-cpp (C++), used only for the symbologies zbar cannot decode: zbar's PDF417
   decoder was never finished (github.com/mchehab/zbar/issues/3). Swift imports this header only. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called once per decoded symbol. `utf8` is not NUL-terminated; `corners` are x,y pairs for the
   symbol's own top-left, top-right, bottom-right, bottom-left, in pixels. */
typedef void (*czx_symbol_callback)(void *context, const char *utf8, int32_t length, const int32_t corners[8]);

/* Decodes every PDF417 symbol in an 8-bit gray image whose rows are `stride` bytes apart.
   Returns the number of symbols reported, or -1 if zxing threw. */
int32_t czx_read_pdf417(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                        czx_symbol_callback callback, void *context);

#ifdef __cplusplus
}
#endif
#endif
