// The C ABI of include/COpenCVDNN.h over cv::dnn. Every OpenCV call is inside a try: a C++ exception
// must not cross into Swift.
#include "COpenCVDNN.h"

#include <cstdio>
#include <exception>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>

struct cdnn_net {
    cv::dnn::Net net;
};

static void set_error(char *error, int32_t size, const char *what) {
    if (error && size > 0) std::snprintf(error, static_cast<size_t>(size), "%s", what);
}

// OpenCV's messages are several lines with the source location; the first line that says what went
// wrong is the one worth reporting.
static void set_error(char *error, int32_t size, const std::exception &e) {
    const cv::Exception *cv_error = dynamic_cast<const cv::Exception *>(&e);
    set_error(error, size, cv_error ? cv_error->err.c_str() : e.what());
}

extern "C" cdnn_net *cdnn_load(const char *path, char *error, int32_t error_size) {
    try {
        // One thread: the daemon and `scan` decide what runs in parallel, and OpenCV's pool would
        // compete with the capture and text threads on two cores.
        cv::setNumThreads(1);
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        cv::dnn::Net net = cv::dnn::readNetFromONNX(path);
        if (net.empty()) {
            set_error(error, error_size, "the model has no layers");
            return nullptr;
        }
        net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return new cdnn_net{net};
    } catch (const std::exception &e) {
        set_error(error, error_size, e);
    } catch (...) {
        set_error(error, error_size, "unknown error");
    }
    return nullptr;
}

extern "C" void cdnn_free(cdnn_net *net) { delete net; }

extern "C" int32_t cdnn_forward(cdnn_net *net, const float *input, int32_t n, int32_t c, int32_t h, int32_t w,
                                cdnn_output_callback callback, void *context, char *error, int32_t error_size) {
    if (!net || !input || n <= 0 || c <= 0 || h <= 0 || w <= 0) {
        set_error(error, error_size, "bad input shape");
        return -1;
    }
    try {
        int shape[4] = {n, c, h, w};
        // Wraps the caller's buffer: OpenCV copies it into the network's input.
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(input));
        net->net.setInput(blob);
        cv::Mat out = net->net.forward();
        if (!out.isContinuous()) out = out.clone();
        int32_t dims[8] = {0};
        int32_t count = out.dims < 8 ? out.dims : 8;
        for (int32_t i = 0; i < count; i++) dims[i] = out.size[i];
        callback(context, out.ptr<float>(), static_cast<int64_t>(out.total()), dims, count);
        return 0;
    } catch (const std::exception &e) {
        set_error(error, error_size, e);
    } catch (...) {
        set_error(error, error_size, "unknown error");
    }
    return -1;
}
