#ifndef SCANNERD_CTURBOJPEG_SHIM_H
#define SCANNERD_CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>

/* TJSCALED is a macro: the size of one dimension after DCT scaling by num/denom. */
static inline int ctj_scaled(int dimension, int num, int denom) {
    tjscalingfactor f = { num, denom };
    return TJSCALED(dimension, f);
}
#endif
