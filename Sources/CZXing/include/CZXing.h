#ifndef SCANNERD_CZXING_H
#define SCANNERD_CZXING_H
/* zxing-cpp's own C API (ZXingC.h, zxing-cpp 3.x) for Swift: BarcodeRecognition imports this header only.
   The library and its headers are built from the release source by `make deps`
   (config/runtime/build-zxing.sh → .build/zxing); the C API catches every C++ exception and reports it
   through ZXing_LastErrorMsg(), and the release build has no assertions, so nothing of C++ crosses it. */
#include <ZXing/ZXingC.h>

#endif
