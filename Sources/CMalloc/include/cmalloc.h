#ifndef SCANNERD_CMALLOC_H
#define SCANNERD_CMALLOC_H

#include <malloc.h>

/// Gives free heap pages back to the kernel (glibc `malloc_trim(0)`: every arena, free pages anywhere in
/// the heap, not only at its top). Returns 1 if any memory was released. Declared in <malloc.h>, which
/// Swift's Glibc module does not export.
static inline int cmalloc_trim(void) {
    return malloc_trim(0);
}

#endif
