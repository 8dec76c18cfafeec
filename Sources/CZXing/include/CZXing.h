#ifndef SCANNERD_CZXING_H
#define SCANNERD_CZXING_H
/* A C ABI over zxing-cpp 1.4 (C++): the symbologies zbar cannot decode (PDF417: zbar's decoder was
   never finished, github.com/mchehab/zbar/issues/3; DataMatrix, Aztec, Micro QR), what zbar missed,
   zbar's 1-D readings checked at their place, and the frame at full resolution read first. No C++
   exception and no failed zxing-cpp assertion crosses it (see czx_read). Swift imports this header
   only. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Formats to look for, or-ed together. */
enum {
    CZX_PDF417 = 1,
    CZX_DATAMATRIX = 2,
    CZX_AZTEC = 4,
    CZX_MICROQR = 8,
    /* What zbar also reads: zxing-cpp reads what zbar misses (BarcodeRecognizer). */
    CZX_QRCODE = 16,
    CZX_EAN13 = 32,
    CZX_EAN8 = 64,
    CZX_UPCA = 128,
    CZX_UPCE = 256,
    CZX_CODE128 = 512,
    CZX_CODE39 = 1024,
    CZX_CODE93 = 2048,
    CZX_ITF = 4096,
    CZX_CODABAR = 8192,
};

/* One decoded symbol, valid only during the callback. */
typedef struct czx_symbol {
    int32_t format;            /* one CZX_* value */
    const char *text;          /* UTF-8, not NUL-terminated; GS1 separators (FNC1) as 0x1D */
    int32_t text_length;
    const uint8_t *bytes;      /* the raw data */
    int32_t bytes_length;
    int32_t binary;            /* nonzero: the data is binary, not text */
    char identifier[4];        /* ISO/IEC 15424 symbology identifier, "]d2", NUL-terminated */
    int32_t corners[8];        /* x,y of the symbol's own top-left, top-right, bottom-right, bottom-left */
} czx_symbol;

typedef void (*czx_symbol_callback)(void *context, const czx_symbol *symbol);

/* Decodes every symbol of `formats` in an 8-bit gray image whose rows are `stride` bytes apart (1-D
   symbols: at most 4, each once however many lines read it). Returns the number of symbols
   reported, -1 if zxing threw or the image is no image, CZX_ABORTED (below) if it failed an
   assertion. Thread-safe: no state is kept. */
int32_t czx_read(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t formats,
                 czx_symbol_callback callback, void *context);

/* czx_read's result when zxing-cpp failed one of its internal assertions on the image (the read is
   abandoned and reports nothing), or has done so too often to be called again. */
#define CZX_ABORTED (-2)

/* How many reads were abandoned on an assertion. */
int32_t czx_aborts(void);

/* Aborts inside the guard a read runs in, as a failed assertion would (tests). Returns CZX_ABORTED. */
int32_t czx_test_abort(void);

#ifdef __cplusplus
}
#endif
#endif
