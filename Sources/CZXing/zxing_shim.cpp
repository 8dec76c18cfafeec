// C ABI over zxing-cpp 1.4. No state is kept between calls, so it is thread-safe.
#define ZX_USE_UTF8 1  // Result::text() returns UTF-8 std::string
#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

#include <cstring>

static ZXing::BarcodeFormats formats_of(int32_t formats) {
    ZXing::BarcodeFormats set;
    if (formats & CZX_PDF417) set |= ZXing::BarcodeFormat::PDF417;
    if (formats & CZX_DATAMATRIX) set |= ZXing::BarcodeFormat::DataMatrix;
    if (formats & CZX_AZTEC) set |= ZXing::BarcodeFormat::Aztec;
    if (formats & CZX_MICROQR) set |= ZXing::BarcodeFormat::MicroQRCode;
    if (formats & CZX_QRCODE) set |= ZXing::BarcodeFormat::QRCode;
    if (formats & CZX_EAN13) set |= ZXing::BarcodeFormat::EAN13;
    if (formats & CZX_EAN8) set |= ZXing::BarcodeFormat::EAN8;
    if (formats & CZX_UPCA) set |= ZXing::BarcodeFormat::UPCA;
    if (formats & CZX_UPCE) set |= ZXing::BarcodeFormat::UPCE;
    if (formats & CZX_CODE128) set |= ZXing::BarcodeFormat::Code128;
    if (formats & CZX_CODE39) set |= ZXing::BarcodeFormat::Code39;
    if (formats & CZX_CODE93) set |= ZXing::BarcodeFormat::Code93;
    if (formats & CZX_ITF) set |= ZXing::BarcodeFormat::ITF;
    if (formats & CZX_CODABAR) set |= ZXing::BarcodeFormat::Codabar;
    return set;
}

static int32_t format_of(ZXing::BarcodeFormat format) {
    switch (format) {
    case ZXing::BarcodeFormat::PDF417: return CZX_PDF417;
    case ZXing::BarcodeFormat::DataMatrix: return CZX_DATAMATRIX;
    case ZXing::BarcodeFormat::Aztec: return CZX_AZTEC;
    case ZXing::BarcodeFormat::MicroQRCode: return CZX_MICROQR;
    case ZXing::BarcodeFormat::QRCode: return CZX_QRCODE;
    case ZXing::BarcodeFormat::EAN13: return CZX_EAN13;
    case ZXing::BarcodeFormat::EAN8: return CZX_EAN8;
    case ZXing::BarcodeFormat::UPCA: return CZX_UPCA;
    case ZXing::BarcodeFormat::UPCE: return CZX_UPCE;
    case ZXing::BarcodeFormat::Code128: return CZX_CODE128;
    case ZXing::BarcodeFormat::Code39: return CZX_CODE39;
    case ZXing::BarcodeFormat::Code93: return CZX_CODE93;
    case ZXing::BarcodeFormat::ITF: return CZX_ITF;
    case ZXing::BarcodeFormat::Codabar: return CZX_CODABAR;
    default: return 0;
    }
}

extern "C" int32_t czx_read(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t formats,
                            czx_symbol_callback callback, void *context) {
    try {
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        ZXing::DecodeHints hints;
        hints.setFormats(formats_of(formats));
        hints.setTryRotate(true);
        hints.setTryHarder(true);
        // 1.4 aborts (Debian builds it with assertions on) when a 1-D symbol is found on two layers of
        // its downscaled pyramid: ReadBarcodes compares the two with Result::operator==, which asserts
        // `lineCount() == 1` for linear formats (core/src/Result.cpp, v1.4.0). No pyramid for them.
        if (formats & ~(CZX_PDF417 | CZX_DATAMATRIX | CZX_AZTEC | CZX_MICROQR | CZX_QRCODE)) hints.setTryDownscale(false);
        // As zbar reports Codabar: with its start and stop letters.
        hints.setReturnCodabarStartEnd(true);
        int32_t count = 0;
        for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
            if (!result.isValid()) continue;
            czx_symbol symbol;
            std::memset(&symbol, 0, sizeof symbol);
            symbol.format = format_of(result.format());
            if (symbol.format == 0) continue;
            const std::string text = result.text();
            const auto &bytes = result.bytes();
            symbol.text = text.data();
            symbol.text_length = (int32_t)text.size();
            symbol.bytes = bytes.data();
            symbol.bytes_length = (int32_t)bytes.size();
            symbol.binary = result.contentType() == ZXing::ContentType::Binary;
            std::strncpy(symbol.identifier, result.symbologyIdentifier().c_str(), sizeof symbol.identifier - 1);
            const auto &p = result.position();
            const int32_t corners[8] = {p.topLeft().x, p.topLeft().y, p.topRight().x, p.topRight().y,
                                        p.bottomRight().x, p.bottomRight().y, p.bottomLeft().x, p.bottomLeft().y};
            std::memcpy(symbol.corners, corners, sizeof corners);
            callback(context, &symbol);
            count++;
        }
        return count;
    } catch (...) {
        return -1;
    }
}
