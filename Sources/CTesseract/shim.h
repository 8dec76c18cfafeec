#ifndef SCANNERD_CTESSERACT_SHIM_H
#define SCANNERD_CTESSERACT_SHIM_H
/* Tesseract's C API (capi.h). We pass raw 8-bit gray rows to TessBaseAPISetImage,
   so the recognizer never needs leptonica's Pix type. */
#include <tesseract/capi.h>
#include <dlfcn.h>

/* Debian's libtesseract is built with OpenMP, and its LSTM code asks for fixed thread counts
   (`num_threads(N)` clauses), which omp_set_num_threads cannot lower. OMP_THREAD_LIMIT would, but
   libgomp reads it once when it is loaded, before main. Setting max-active-levels to 0 makes every
   parallel region inactive, i.e. run on the calling thread alone (OpenMP 5.0 §2.6.1), and it is a
   process-wide setting in libgomp. We look the function up at run time so a Tesseract built without
   OpenMP (no libgomp loaded) still works. Returns 1 if OpenMP was found and limited. */
static inline int ctess_limit_openmp_to_one_thread(void) {
    void (*set_levels)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
    if (set_levels == 0) return 0;
    set_levels(0);
    return 1;
}
/* The calling thread's max-active-levels (OpenMP's per-thread limit above); -1 without OpenMP. */
static inline int ctess_openmp_max_active_levels(void) {
    int (*get_levels)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
    return get_levels == 0 ? -1 : get_levels();
}
#endif
