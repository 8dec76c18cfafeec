// C ABI over zxing-cpp 1.4. No state is kept between calls, so it is thread-safe.
#define ZX_USE_UTF8 1  // Result::text() returns UTF-8 std::string
#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <mutex>
#include <cstring>
#include <string>
#include <vector>

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

static constexpr int32_t kMatrixFormats = CZX_PDF417 | CZX_DATAMATRIX | CZX_AZTEC | CZX_MICROQR | CZX_QRCODE;

// Hands one result to Swift; returns whether it was reported.
static bool report(const ZXing::Result &result, czx_symbol_callback callback, void *context) {
    if (!result.isValid()) return false;
    czx_symbol symbol;
    std::memset(&symbol, 0, sizeof symbol);
    symbol.format = format_of(result.format());
    if (symbol.format == 0) return false;
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
    return true;
}

static ZXing::DecodeHints hints_for(int32_t formats) {
    ZXing::DecodeHints hints;
    hints.setFormats(formats_of(formats));
    hints.setTryRotate(true);
    hints.setTryHarder(true);
    // As zbar reports Codabar: with its start and stop letters.
    hints.setReturnCodabarStartEnd(true);
    return hints;
}

namespace {
struct Box {
    int x0, y0, x1, y1;
    bool contains(int x, int y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};
struct Seen {
    ZXing::BarcodeFormat format;
    std::string text;
    Box neighbourhood;
};
}

// 1-D symbols, one at a time. ReadBarcodes in 1.4 drops a symbol it already has by comparing the two
// with Result::operator==, which asserts `lineCount() == 1` for linear formats (core/src/Result.cpp,
// v1.4.0; Debian builds it with assertions on, so the process aborts). A 1-D result merged from
// several scan lines has a larger line count, so two equal 1-D results in one image (two copies of a
// label; one code read both across and, rotated, along) abort it. With maxNumberOfSymbols 1 and no
// downscale pyramid, ReadBarcodes compares nothing: it returns the first symbol (ODReader stops at
// one). Each symbol found is painted white in a copy of the image, and the copy read again.
static void read_linear(const ZXing::ImageView &image, int32_t width, int32_t height, int32_t formats,
                        std::vector<ZXing::Result> &found) {
    // At most this many 1-D symbols an image, and this many reads: each read after the first costs
    // about what the first did, and a symbol read again where it was painted out (a tall or tilted
    // code is wider than the lines that read it) is painted out more and does not count.
    constexpr int maxSymbols = 4, maxReads = 8;
    auto hints = hints_for(formats);
    hints.setTryDownscale(false);
    hints.setMaxNumberOfSymbols(1);
    std::vector<uint8_t> copy;
    std::vector<Seen> seen;
    ZXing::ImageView view = image;
    int count = 0;
    for (int read = 0; read < maxReads && count < maxSymbols; read++) {
        const auto results = ZXing::ReadBarcodes(view, hints);
        if (results.empty() || !results.front().isValid()) break;
        const auto &result = results.front();
        const auto &p = result.position();
        int x0 = width, y0 = height, x1 = -1, y1 = -1;
        for (const auto &point : p) {
            x0 = std::min(x0, point.x); y0 = std::min(y0, point.y);
            x1 = std::max(x1, point.x); y1 = std::max(y1, point.y);
        }
        if (x1 < x0 || y1 < y0) break;
        // The scan lines run along the code's longer side; its bars reach across it, beyond the lines
        // that read them, by about a third of its length on an EAN (bars ~0.7 of the width).
        const int length = std::max(x1 - x0, y1 - y0) + 1;
        const bool across = (x1 - x0) >= (y1 - y0);
        const int along = length / 10, reach = length * 35 / 100;
        const Box mask = across ? Box{x0 - along, y0 - reach, x1 + along, y1 + reach}
                                : Box{x0 - reach, y0 - along, x1 + reach, y1 + along};
        const int cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
        const bool again = std::any_of(seen.begin(), seen.end(), [&](const Seen &other) {
            return other.format == result.format() && other.text == result.text() && other.neighbourhood.contains(cx, cy);
        });
        if (!again) {
            found.push_back(result);
            count++;
            // Where the same code read again is this one's rest: beyond the paint, a little along it
            // and up to half its length across it (taller bars). Another copy beside it is another.
            const int nearAlong = length / 4, nearAcross = length / 2;
            seen.push_back({result.format(), result.text(),
                            across ? Box{mask.x0 - nearAlong, mask.y0 - nearAcross, mask.x1 + nearAlong, mask.y1 + nearAcross}
                                   : Box{mask.x0 - nearAcross, mask.y0 - nearAlong, mask.x1 + nearAcross, mask.y1 + nearAlong}});
        }
        if (copy.empty()) {
            copy.resize((size_t)width * (size_t)height);
            for (int y = 0; y < height; y++) std::memcpy(copy.data() + (size_t)y * width, image.data(0, y), (size_t)width);
            view = ZXing::ImageView(copy.data(), width, height, ZXing::ImageFormat::Lum);
        }
        for (int y = std::max(0, mask.y0); y <= std::min(height - 1, mask.y1); y++) {
            const int from = std::max(0, mask.x0), to = std::min(width - 1, mask.x1);
            if (to >= from) std::memset(copy.data() + (size_t)y * width + from, 255, (size_t)(to - from + 1));
        }
    }
}

// zxing-cpp 1.4 has assertions that a camera frame can fail (Debian builds it with them on): the
// Micro QR sampler's `intersect` of two regression lines (RegressionLine.h:144) aborted the daemon on
// a generated 640×480 card frame, and upstream still fixes such reports one image at a time
// (zxing-cpp#855, #1154). An abort inside zxing-cpp is caught here and the read reports nothing: a
// SIGABRT handler, on the thread that is reading, jumps back to where the read began. glibc's abort()
// releases its lock before raising and allows a handler to return this way. Only zxing-cpp runs
// inside the guard (symbols are reported to the caller after it). What zxing-cpp had allocated in
// the read is lost, so after `kMaximumAborts` the shim reads no more (a picture held up to the
// camera that trips an assertion on every frame must not grow the daemon without bound).
static constexpr int kMaximumAborts = 64;
static thread_local sigjmp_buf *t_reading = nullptr;
static std::atomic<int> g_aborts{0};
static struct sigaction g_previous;
static std::once_flag g_installed;

static void on_abort(int signal, siginfo_t *info, void *context) {
    if (t_reading != nullptr) {
        sigjmp_buf *target = t_reading;
        t_reading = nullptr;
        siglongjmp(*target, 1);
    }
    // Not inside a read: what was there before (the Swift runtime's crash report) or the default.
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction != nullptr) { g_previous.sa_sigaction(signal, info, context); return; }
    } else if (g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != nullptr) {
        g_previous.sa_handler(signal);
        return;
    }
    ::signal(SIGABRT, SIG_DFL);
    ::raise(SIGABRT);
}

// `body()` with an abort inside it caught: its result, or CZX_ABORTED.
template <class Body> static int32_t guarded(Body body) {
    if (g_aborts.load() >= kMaximumAborts) return CZX_ABORTED;
    std::call_once(g_installed, [] {
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = on_abort;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(SIGABRT, &action, &g_previous);
    });
    sigjmp_buf here;
    if (sigsetjmp(here, 1) == 0) {
        t_reading = &here;
        const int32_t result = body();
        t_reading = nullptr;
        return result;
    }
    g_aborts.fetch_add(1);
    return CZX_ABORTED;
}

extern "C" int32_t czx_aborts(void) { return g_aborts.load(); }

extern "C" int32_t czx_test_abort(void) {
    return guarded([]() -> int32_t { std::abort(); });
}

extern "C" int32_t czx_read(const uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t formats,
                            czx_symbol_callback callback, void *context) {
    if (gray == nullptr || width <= 0 || height <= 0 || stride < width) return -1;
    std::vector<ZXing::Result> found;
    const int32_t status = guarded([&]() -> int32_t {
        try {
            ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
            if (formats & kMatrixFormats) {
                // Matrix results compare by place (no assertion), so these may be read together,
                // with the downscale pyramid.
                for (auto &result : ZXing::ReadBarcodes(image, hints_for(formats & kMatrixFormats))) found.push_back(std::move(result));
            }
            if (formats & ~kMatrixFormats) read_linear(image, width, height, formats & ~kMatrixFormats, found);
            return 0;
        } catch (...) {
            return -1;
        }
    });
    if (status != 0) return status;
    int32_t count = 0;
    for (const auto &result : found)
        if (report(result, callback, context)) count++;
    return count;
}
