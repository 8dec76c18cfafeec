#ifndef SCANNERD_COPENCVDNN_H
#define SCANNERD_COPENCVDNN_H
/* A C ABI over OpenCV 4.6's DNN module (C++), which runs the line recognizer network
   (Sources/LineNetwork, docs/recognition.md). Swift imports this header only. No exception leaves it. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdnn_net cdnn_net;

/* Loads an ONNX model. NULL on failure, with a one-line reason in `error` (NUL-terminated, cut to
   `error_size`). OpenCV runs on the calling thread only and logs nothing. */
cdnn_net *cdnn_load(const char *path, char *error, int32_t error_size);

void cdnn_free(cdnn_net *net);

/* The output, valid only during the callback: `count` floats of shape `shape[0..<dims]`. */
typedef void (*cdnn_output_callback)(void *context, const float *values, int64_t count, const int32_t *shape,
                                     int32_t dims);

/* Runs `net` on one NCHW float tensor of shape n, c, h, w. 0 on success (the callback was called),
   -1 with a reason in `error` (the input does not fit the model, OpenCV threw). Not thread-safe per net. */
int32_t cdnn_forward(cdnn_net *net, const float *input, int32_t n, int32_t c, int32_t h, int32_t w,
                     cdnn_output_callback callback, void *context, char *error, int32_t error_size);

#ifdef __cplusplus
}
#endif
#endif
