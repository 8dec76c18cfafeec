// C ABI over zxing-cpp 1.4 for PDF417. No state is kept between calls, so it is thread-safe.
#define ZX_USE_UTF8 1  // Result::text() returns UTF-8 std::string
#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

extern "C" int32_t czx_read_pdf417(const uint8_t *gray, int32_t width, int32_t height, int32_t stride,
                                   czx_symbol_callback callback, void *context) {
    try {
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormat::PDF417);
        hints.setTryRotate(true);
        hints.setTryHarder(true);
        int32_t count = 0;
        for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
            if (!result.isValid()) continue;
            const std::string text = result.text();
            const auto &p = result.position();
            const int32_t corners[8] = {p.topLeft().x, p.topLeft().y, p.topRight().x, p.topRight().y,
                                        p.bottomRight().x, p.bottomRight().y, p.bottomLeft().x, p.bottomLeft().y};
            callback(context, text.data(), (int32_t)text.size(), corners);
            count++;
        }
        return count;
    } catch (...) {
        return -1;
    }
}
