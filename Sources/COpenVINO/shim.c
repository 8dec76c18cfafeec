#include "copenvino.h"

#if __has_include(<openvino/c/openvino.h>)
#include <openvino/c/openvino.h>
#else
#error "OpenVINO's C API is missing from .build/openvino: run make deps (it unpacks the runtime from PyPI)"
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cov_model {
    ov_compiled_model_t *compiled;
    ov_infer_request_t *request;
    /* An imported network's bytes: the runtime keeps pointers into them (its weights), so they live as
       long as the network. NULL for a network compiled here. */
    void *imported;
};

/* One core per process: it holds the loaded plugins and may be shared between threads. An import
   takes its properties from the core's (ov_core_import_model has no others), so imports hold a lock
   while they set them. */
static ov_core_t *shared_core;
static pthread_mutex_t import_lock = PTHREAD_MUTEX_INITIALIZER;
static ov_status_e shared_core_status = OK;
static pthread_once_t shared_core_once = PTHREAD_ONCE_INIT;
static void create_shared_core(void) { shared_core_status = ov_core_create(&shared_core); }

static char version[160];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static void read_version(void) {
    ov_version_t v;
    if (ov_get_openvino_version(&v) == OK) {
        snprintf(version, sizeof version, "%s", v.buildNumber);
        ov_version_free(&v);
    }
}

const char *cov_version(void) {
    pthread_once(&version_once, read_version);
    return version;
}

/* One line: the runtime's messages run over several, the first of them naming its own source file
   ("Exception from src/…:84:"); the first line that is not such is the reason. */
static void fail(char *error, int32_t error_size, const char *what, ov_status_e status) {
    if (error == NULL || error_size <= 0) return;
    const char *detail = ov_get_last_err_msg();
    const char *reason = NULL;
    size_t length = 0;
    for (const char *line = detail; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > 0 && strncmp(line, "Exception from ", 15) != 0 && strspn(line, " \t\r") < n) {
            reason = line;
            length = n;
            break;
        }
        line = end ? end + 1 : NULL;
    }
    if (reason == NULL) {
        reason = ov_get_error_info(status);
        length = strlen(reason);
    }
    snprintf(error, (size_t)error_size, "%s: %.*s", what, (int)length, reason);
    for (char *c = error; *c; c++) {
        if (*c == '\r') *c = ' ';
    }
}

/* The shared core, started once: 0, or -1 with the reason in `error`. */
static int start_core(char *error, int32_t error_size) {
    pthread_once(&shared_core_once, create_shared_core);
    if (shared_core_status != OK) {
        fail(error, error_size, "the OpenVINO runtime could not start", shared_core_status);
        return -1;
    }
    return 0;
}

/* `result` (its network compiled or imported) with its inference request; NULL, everything of it
   freed, when the request cannot be made. */
static cov_model *with_request(cov_model *result, char *error, int32_t error_size) {
    ov_status_e status = ov_compiled_model_create_infer_request(result->compiled, &result->request);
    if (status != OK) {
        fail(error, error_size, "no inference request", status);
        ov_compiled_model_free(result->compiled);
        free(result->imported);
        free(result);
        return NULL;
    }
    return result;
}

cov_model *cov_load(const char *path, const int64_t *dims, int32_t rank, int32_t threads, char *error,
                    int32_t error_size) {
    if (start_core(error, error_size) != 0) return NULL;
    if (rank <= 0 || rank > 8 || threads <= 0) {
        snprintf(error, (size_t)error_size, "bad input shape or thread count");
        return NULL;
    }
    ov_model_t *model = NULL;
    ov_status_e status = ov_core_read_model(shared_core, path, NULL, &model);
    if (status != OK) {
        fail(error, error_size, "not a model OpenVINO reads", status);
        return NULL;
    }
    ov_dimension_t shape[8];
    for (int32_t i = 0; i < rank; i++) {
        /* {-1, -1} is OpenVINO's dynamic dimension. */
        shape[i].min = dims[i] < 0 ? -1 : dims[i];
        shape[i].max = dims[i] < 0 ? -1 : dims[i];
    }
    ov_partial_shape_t partial;
    status = ov_partial_shape_create(rank, shape, &partial);
    if (status == OK) {
        status = ov_model_reshape_single_input(model, partial);
        ov_partial_shape_free(&partial);
    }
    if (status != OK) {
        fail(error, error_size, "the model does not take an input of that shape", status);
        ov_model_free(model);
        return NULL;
    }
    char thread_count[16];
    snprintf(thread_count, sizeof thread_count, "%d", threads);
    cov_model *result = calloc(1, sizeof *result);
    if (result == NULL) {
        ov_model_free(model);
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    /* Latency first: one stream, one request at a time, on the threads given (the daemon's recognition
       threads are its own; the runtime must not take every core). */
    status = ov_core_compile_model(shared_core, model, "CPU", 8, &result->compiled, ov_property_key_inference_num_threads,
                                   thread_count, ov_property_key_num_streams, "1", ov_property_key_hint_performance_mode,
                                   "LATENCY", ov_property_key_hint_enable_cpu_pinning, "NO");
    ov_model_free(model);
    if (status != OK) {
        fail(error, error_size, "the CPU cannot run the model", status);
        free(result);
        return NULL;
    }
    return with_request(result, error, error_size);
}

int32_t cov_export(cov_model *model, const char *path, char *error, int32_t error_size) {
    ov_status_e status = ov_compiled_model_export_model(model->compiled, path);
    if (status != OK) {
        fail(error, error_size, "the compiled network could not be written", status);
        return -1;
    }
    return 0;
}

cov_model *cov_import(const void *content, size_t size, int32_t threads, char *error, int32_t error_size) {
    if (start_core(error, error_size) != 0) return NULL;
    if (content == NULL || size == 0 || threads <= 0) {
        snprintf(error, (size_t)error_size, "no compiled network, or a bad thread count");
        return NULL;
    }
    cov_model *result = calloc(1, sizeof *result);
    void *copy = malloc(size);
    if (result == NULL || copy == NULL) {
        free(result);
        free(copy);
        snprintf(error, (size_t)error_size, "out of memory");
        return NULL;
    }
    memcpy(copy, content, size);
    char thread_count[16];
    snprintf(thread_count, sizeof thread_count, "%d", threads);
    pthread_mutex_lock(&import_lock);
    /* The properties cov_load compiles with. */
    ov_status_e status = ov_core_set_property(shared_core, "CPU", ov_property_key_inference_num_threads, thread_count,
                                              ov_property_key_num_streams, "1", ov_property_key_hint_performance_mode,
                                              "LATENCY", ov_property_key_hint_enable_cpu_pinning, "NO");
    if (status == OK) status = ov_core_import_model(shared_core, copy, size, "CPU", &result->compiled);
    pthread_mutex_unlock(&import_lock);
    if (status != OK) {
        fail(error, error_size, "not a compiled network this runtime imports", status);
        free(copy);
        free(result);
        return NULL;
    }
    result->imported = copy;
    return with_request(result, error, error_size);
}

int32_t cov_check(const char *path, char *error, int32_t error_size) {
    if (start_core(error, error_size) != 0) return -1;
    ov_model_t *model = NULL;
    ov_status_e status = ov_core_read_model(shared_core, path, NULL, &model);
    if (status != OK) {
        fail(error, error_size, "not a model OpenVINO reads", status);
        return -1;
    }
    ov_model_free(model);
    return 0;
}

void cov_free(cov_model *model) {
    if (model == NULL) return;
    ov_infer_request_free(model->request);
    ov_compiled_model_free(model->compiled);
    free(model->imported);
    free(model);
}

int32_t cov_infer(cov_model *model, const float *input, const int64_t *dims, int32_t rank,
                  cov_output_callback callback, void *context, char *error, int32_t error_size) {
    ov_shape_t shape;
    ov_status_e status = ov_shape_create(rank, dims, &shape);
    if (status != OK) {
        fail(error, error_size, "bad input shape", status);
        return -1;
    }
    ov_tensor_t *tensor = NULL;
    /* The runtime reads the caller's buffer in place; it is not written. */
    status = ov_tensor_create_from_host_ptr(F32, shape, (void *)input, &tensor);
    ov_shape_free(&shape);
    if (status != OK) {
        fail(error, error_size, "no input tensor", status);
        return -1;
    }
    status = ov_infer_request_set_input_tensor_by_index(model->request, 0, tensor);
    if (status == OK) status = ov_infer_request_infer(model->request);
    ov_tensor_free(tensor);
    if (status != OK) {
        fail(error, error_size, "inference failed", status);
        return -1;
    }
    ov_tensor_t *output = NULL;
    status = ov_infer_request_get_output_tensor_by_index(model->request, 0, &output);
    if (status != OK) {
        fail(error, error_size, "no output", status);
        return -1;
    }
    ov_shape_t output_shape;
    size_t count = 0;
    void *values = NULL;
    ov_element_type_e type;
    status = ov_tensor_get_shape(output, &output_shape);
    if (status == OK) {
        if (ov_tensor_get_element_type(output, &type) != OK || type != F32 || ov_tensor_get_size(output, &count) != OK ||
            ov_tensor_data(output, &values) != OK || output_shape.rank > 8) {
            snprintf(error, (size_t)error_size, "the model's output is not a float tensor");
            ov_shape_free(&output_shape);
            ov_tensor_free(output);
            return -1;
        }
        callback(context, (const float *)values, count, output_shape.dims, (int32_t)output_shape.rank);
        ov_shape_free(&output_shape);
    } else {
        fail(error, error_size, "no output shape", status);
    }
    ov_tensor_free(output);
    return status == OK ? 0 : -1;
}
