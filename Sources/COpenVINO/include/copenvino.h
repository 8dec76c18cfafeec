#ifndef SCANNERD_COPENVINO_H
#define SCANNERD_COPENVINO_H
/* A small C API over OpenVINO's C API (the PyPI wheel's runtime, config/runtime/fetch-openvino.sh), which
   runs the text networks (Sources/InferenceRuntime, docs/recognition.md). Swift imports this header only:
   OpenVINO's own headers live in .build/openvino, and ov_core_compile_model takes its properties as C
   varargs, which Swift cannot call. */
#include <stddef.h>
#include <stdint.h>

typedef struct cov_model cov_model;

/* The runtime's version (e.g. "2026.4.1-22982-…"); a static string. */
const char *cov_version(void);

/* Reads an ONNX model, fixes its first input's shape to `dims` (`rank` of them; -1: left dynamic), and
   compiles it for the CPU to run on `threads` threads, one request at a time (latency first). NULL on
   failure, with a one-line reason in `error` (NUL-terminated, cut to `error_size`). */
cov_model *cov_load(const char *path, const int64_t *dims, int32_t rank, int32_t threads, char *error,
                    int32_t error_size);

/* Reads the ONNX model at `path` and lets it go: 0 when the runtime reads it, -1 with a reason in `error`.
   Cheaper than compiling it (a caller that compiles per input size checks the file at start with it). */
int32_t cov_check(const char *path, char *error, int32_t error_size);

/* Writes `model`, as compiled, to the file `path` (the runtime's own format, which `cov_import` reads):
   0, or -1 with a reason in `error`. */
int32_t cov_export(cov_model *model, const char *path, char *error, int32_t error_size);

/* A network `cov_export` wrote, its `size` bytes at `content`, to run on `threads` threads as `cov_load`
   would have compiled it. The runtime parses the bytes as they are: the caller checks that they are
   what it wrote (the compiled-network cache, Sources/InferenceRuntime). The bytes are copied. NULL on
   failure, with a one-line reason in `error`. */
cov_model *cov_import(const void *content, size_t size, int32_t threads, char *error, int32_t error_size);

void cov_free(cov_model *model);

/* The output, valid only during the callback: `count` floats of shape `shape[0..<rank]`. */
typedef void (*cov_output_callback)(void *context, const float *values, size_t count, const int64_t *shape,
                                    int32_t rank);

/* Runs `model` on one float tensor of shape `dims` and hands its first output to `callback`. 0 on success,
   -1 with a reason in `error` (the input does not fit the model, the runtime failed). One call at a
   time per model. */
int32_t cov_infer(cov_model *model, const float *input, const int64_t *dims, int32_t rank,
                  cov_output_callback callback, void *context, char *error, int32_t error_size);

#endif
