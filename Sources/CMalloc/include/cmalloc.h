#ifndef SCANNERD_CMALLOC_H
#define SCANNERD_CMALLOC_H

#include <malloc.h>

/// Fixes glibc's mmap threshold at `bytes`. Setting it turns off glibc's dynamic threshold, which
/// otherwise rises to the size of the first large block freed (a 300 KB frame) and from then on serves
/// frame-sized buffers from the heap, where freeing them leaves holes that RSS keeps (measured in
/// docs/benchmarks.md, "Soak"). Returns 1 on success. `mallopt` is not visible to Swift through Glibc.
static inline int cmalloc_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#endif
