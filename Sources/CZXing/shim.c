// SwiftPM builds a C target from at least one source file; everything Swift calls is zxing-cpp's own C
// API (include/CZXing.h), linked from .build/zxing/lib/libZXing.a.
#include "CZXing.h"
