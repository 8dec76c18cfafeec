/* The demo clip's bytes, taken in by the compiler (C23 #embed). SwiftPM's `embedInCode` wrote them as a
   Swift array literal of 200,000 elements that took ~20 s of the type checker's time in every fresh build
   (a sixth of `make run`'s build on 2 cores; docs/benchmarks.md, "A fresh machine, simulated"); #embed takes milliseconds. */
#include "CDemoClip.h"

#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char clip[] = {
#embed "demo.mjpeg"
};

const unsigned char *scannerd_demo_clip(size_t *size) {
    *size = sizeof clip;
    return clip;
}
