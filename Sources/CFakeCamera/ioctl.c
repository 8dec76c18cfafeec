// ioctl dispatch, and the ioctls that describe the device: capabilities, formats, frame sizes
// and intervals, streaming parameters, inputs. Buffer ioctls are in stream.c, controls in
// controls.c. Anything else fails with ENOTTY, as the kernel answers unknown ioctls.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>

#include "fakecam_internal.h"

#define UNUSED __attribute__((unused))
#define FC_DRIVER_VERSION ((6u << 16) | (1u << 8)) // KERNEL_VERSION(6, 1, 0), as UVC reports

static const struct fc_clip *clip(void) { return &fc_config()->clip; }

// MARK: - Capabilities and inputs

static int querycap(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_capability *cap = arg;
    memset(cap, 0, sizeof *cap);
    snprintf((char *)cap->driver, sizeof cap->driver, "fakecam");
    snprintf((char *)cap->card, sizeof cap->card, "Emulated Camera");
    snprintf((char *)cap->bus_info, sizeof cap->bus_info, "usb-fakecam-1");
    cap->version = FC_DRIVER_VERSION;
    cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
    cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
    return 0;
}

static int enum_input(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_input *input = arg;
    if (input->index != 0) return EINVAL;
    memset(input, 0, sizeof *input);
    snprintf((char *)input->name, sizeof input->name, "Camera 1");
    input->type = V4L2_INPUT_TYPE_CAMERA;
    return 0;
}

static int g_input(UNUSED struct fc_handle *handle, void *arg) {
    *(int *)arg = 0;
    return 0;
}

static int s_input(UNUSED struct fc_handle *handle, void *arg) {
    return *(const int *)arg == 0 ? 0 : EINVAL;
}

// MARK: - Formats, sizes, intervals

static int enum_fmt(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_fmtdesc *desc = arg;
    const struct fc_config *config = fc_config();
    if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || desc->index >= config->format_count) return EINVAL;
    enum fc_format format = config->formats[desc->index];
    uint32_t index = desc->index;
    memset(desc, 0, sizeof *desc);
    desc->index = index;
    desc->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    desc->flags = fc_format_flags(format);
    desc->pixelformat = fc_format_fourcc(format);
    snprintf((char *)desc->description, sizeof desc->description, "%s", fc_format_description(format));
    return 0;
}

/// One discrete size, the clip's, for every format.
static int enum_framesizes(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_frmsizeenum *size = arg;
    enum fc_format format;
    if (size->index != 0 || !fc_config_has_format(fc_config(), size->pixel_format, &format)) return EINVAL;
    uint32_t pixel_format = size->pixel_format;
    memset(size, 0, sizeof *size);
    size->pixel_format = pixel_format;
    size->type = V4L2_FRMSIZE_TYPE_DISCRETE;
    size->discrete.width = clip()->width;
    size->discrete.height = clip()->height;
    return 0;
}

static int enum_frameintervals(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_frmivalenum *interval = arg;
    const struct fc_config *config = fc_config();
    enum fc_format format;
    if (!fc_config_has_format(config, interval->pixel_format, &format) ||
        interval->width != clip()->width || interval->height != clip()->height ||
        interval->index >= config->rate_count)
        return EINVAL;
    struct v4l2_frmivalenum request = *interval;
    memset(interval, 0, sizeof *interval);
    interval->index = request.index;
    interval->pixel_format = request.pixel_format;
    interval->width = request.width;
    interval->height = request.height;
    interval->type = V4L2_FRMIVAL_TYPE_DISCRETE;
    interval->discrete = (struct v4l2_fract){1, config->rates[request.index]};
    return 0;
}

static void describe_format(enum fc_format format, struct v4l2_pix_format *pix) {
    memset(pix, 0, sizeof *pix);
    pix->width = clip()->width;
    pix->height = clip()->height;
    pix->pixelformat = fc_format_fourcc(format);
    pix->field = V4L2_FIELD_NONE;
    pix->bytesperline = fc_format_bytesperline(format, clip());
    pix->sizeimage = fc_format_sizeimage(format, clip());
    pix->colorspace = V4L2_COLORSPACE_SRGB;
}

/// What the driver makes of a requested format: unknown pixel formats become the first
/// configured one; the size is always the clip's.
static enum fc_format adjusted_format(uint32_t fourcc) {
    const struct fc_config *config = fc_config();
    enum fc_format format;
    return fc_config_has_format(config, fourcc, &format) ? format : config->formats[0];
}

static int g_fmt(struct fc_handle *handle, void *arg) {
    struct v4l2_format *format = arg;
    if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    describe_format(handle->format, &format->fmt.pix);
    return 0;
}

static int try_fmt(UNUSED struct fc_handle *handle, void *arg) {
    struct v4l2_format *format = arg;
    if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    describe_format(adjusted_format(format->fmt.pix.pixelformat), &format->fmt.pix);
    return 0;
}

/// Like uvcvideo: EBUSY once buffers are allocated (and so while streaming).
static int s_fmt(struct fc_handle *handle, void *arg) {
    struct v4l2_format *format = arg;
    if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    if (handle->streaming || handle->buffer_count > 0) return EBUSY;
    handle->format = adjusted_format(format->fmt.pix.pixelformat);
    describe_format(handle->format, &format->fmt.pix);
    return 0;
}

// MARK: - Streaming parameters

static void describe_parm(const struct fc_handle *handle, struct v4l2_streamparm *parm) {
    memset(&parm->parm.capture, 0, sizeof parm->parm.capture);
    parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    parm->parm.capture.timeperframe = (struct v4l2_fract){1, fc_config()->rates[handle->rate]};
}

static double distance_to_interval(unsigned rate, double seconds) {
    double difference = 1.0 / rate - seconds;
    return difference < 0 ? -difference : difference;
}

/// The offered interval nearest to `wanted`; 0/x or x/0 asks for the default.
static unsigned nearest_rate(struct v4l2_fract wanted) {
    const struct fc_config *config = fc_config();
    if (wanted.numerator == 0 || wanted.denominator == 0) return config->default_rate;
    double seconds = (double)wanted.numerator / wanted.denominator;
    unsigned best = 0;
    for (unsigned i = 1; i < config->rate_count; i++)
        if (distance_to_interval(config->rates[i], seconds) < distance_to_interval(config->rates[best], seconds))
            best = i;
    return best;
}

static int g_parm(struct fc_handle *handle, void *arg) {
    struct v4l2_streamparm *parm = arg;
    if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    describe_parm(handle, parm);
    return 0;
}

static int s_parm(struct fc_handle *handle, void *arg) {
    struct v4l2_streamparm *parm = arg;
    if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    if (handle->streaming) return EBUSY; // like uvcvideo
    handle->rate = nearest_rate(parm->parm.capture.timeperframe);
    describe_parm(handle, parm);
    return 0;
}

// MARK: - Dispatch

static const struct {
    unsigned int request;
    const char *name;
    int (*handler)(struct fc_handle *, void *);
} handlers[] = {
    {VIDIOC_QUERYCAP, "QUERYCAP", querycap},
    {VIDIOC_ENUMINPUT, "ENUMINPUT", enum_input},
    {VIDIOC_G_INPUT, "G_INPUT", g_input},
    {VIDIOC_S_INPUT, "S_INPUT", s_input},
    {VIDIOC_ENUM_FMT, "ENUM_FMT", enum_fmt},
    {VIDIOC_ENUM_FRAMESIZES, "ENUM_FRAMESIZES", enum_framesizes},
    {VIDIOC_ENUM_FRAMEINTERVALS, "ENUM_FRAMEINTERVALS", enum_frameintervals},
    {VIDIOC_G_FMT, "G_FMT", g_fmt},
    {VIDIOC_S_FMT, "S_FMT", s_fmt},
    {VIDIOC_TRY_FMT, "TRY_FMT", try_fmt},
    {VIDIOC_G_PARM, "G_PARM", g_parm},
    {VIDIOC_S_PARM, "S_PARM", s_parm},
    {VIDIOC_REQBUFS, "REQBUFS", fc_stream_reqbufs},
    {VIDIOC_QUERYBUF, "QUERYBUF", fc_stream_querybuf},
    {VIDIOC_QBUF, "QBUF", fc_stream_qbuf},
    {VIDIOC_DQBUF, "DQBUF", fc_stream_dqbuf},
    {VIDIOC_STREAMON, "STREAMON", fc_stream_on},
    {VIDIOC_STREAMOFF, "STREAMOFF", fc_stream_off},
};

/// Handle locked.
static int dispatch(struct fc_handle *handle, unsigned int request, void *arg, const char **name) {
    if (handle->closing) return EBADF;
    if (handle->dead) return ENODEV;
    if (fc_controls_handles(request)) {
        *name = "control";
        return arg == NULL ? EFAULT : fc_controls_ioctl(request, arg);
    }
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
        if (handlers[i].request != request) continue;
        *name = handlers[i].name;
        return arg == NULL ? EFAULT : handlers[i].handler(handle, arg);
    }
    return ENOTTY;
}

int fc_ioctl(struct fc_handle *handle, unsigned int request, void *arg) {
    const char *name = "unknown";
    pthread_mutex_lock(&handle->lock);
    int error = dispatch(handle, request, arg, &name);
    // DQBUF only asks for the unplug: it takes the registry lock, which must not be taken
    // while holding a handle lock.
    bool unplug = handle->unplug_requested;
    handle->unplug_requested = false;
    pthread_mutex_unlock(&handle->lock);
    if (unplug) fc_device_unplug();
    if (request != VIDIOC_DQBUF && request != VIDIOC_QBUF) // one line per frame is too chatty
        fc_log("fd %d: ioctl %s (0x%08x) -> %s", handle->fd, name, request, error ? strerror(error) : "ok");
    return error;
}
