// Streaming I/O: buffers, mmap, the producer thread, and the buffer ioctls.
//
// Buffer life cycle, as in videobuf2:  DEQUEUED --QBUF--> QUEUED --producer--> DONE --DQBUF-->
// DEQUEUED. STREAMOFF returns every buffer to DEQUEUED. The eventfd counter always equals the
// number of DONE buffers (plus one once the device is unplugged), which is what makes the
// descriptor poll readable at the right moments.
//
// Buffer memory: REQBUFS creates one memfd holding every buffer (buffer i at offset i*stride,
// the m.offset QUERYBUF reports) and maps it for the producer. The application's
// mmap(fakefd, offset) becomes mmap(memfd, offset): a second, independent mapping of the same
// pages. So the application may munmap before or after STREAMOFF, REQBUFS(0) or close(), and
// the pages live until the last mapping is gone, like a real driver's refcounted buffers; no
// munmap interception is needed. The memfd is closed at REQBUFS(0)/close(), so no descriptor
// outlives the device. (mremap(old_size = 0) would avoid the extra descriptor, but valgrind
// does not support it.)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fakecam_internal.h"

// MARK: - The eventfd counter

/// One more DONE buffer.
static void post_frame(struct fc_handle *handle) {
    if (!handle->closing && !handle->dead) fc_eventfd_add(handle->fd);
}

/// One DONE buffer fewer. The counter is at least 1 here, so this never blocks, even on a
/// descriptor the application opened without O_NONBLOCK.
static void take_frame(struct fc_handle *handle) {
    if (!handle->closing && !handle->dead) fc_eventfd_take(handle->fd);
}

static bool is_nonblocking(const struct fc_handle *handle) {
    int flags = fcntl(handle->fd, F_GETFL);
    return flags >= 0 && (flags & O_NONBLOCK) != 0;
}

// MARK: - Buffers

static struct fc_buffer *oldest_buffer(struct fc_handle *handle, enum fc_buffer_state state) {
    struct fc_buffer *oldest = NULL;
    for (unsigned i = 0; i < handle->buffer_count; i++) {
        struct fc_buffer *buffer = &handle->buffers[i];
        if (buffer->state == state && (oldest == NULL || buffer->order < oldest->order)) oldest = buffer;
    }
    return oldest;
}

void fc_stream_free_buffers(struct fc_handle *handle) {
    if (handle->buffer_count > 0) {
        munmap(handle->memory, handle->buffer_count * handle->stride);
        fc_real()->close(handle->memfd);
    }
    memset(handle->buffers, 0, sizeof handle->buffers);
    handle->buffer_count = 0;
    handle->done_count = 0;
    handle->memory = NULL;
    handle->memfd = -1;
}

/// A memfd of `size` bytes mapped shared, or MAP_FAILED with *fd = -1.
static uint8_t *map_new_memfd(size_t size, int *fd) {
    *fd = memfd_create("fakecam-buffers", MFD_CLOEXEC);
    if (*fd < 0) return MAP_FAILED;
    void *memory = MAP_FAILED;
    if (ftruncate(*fd, (off_t)size) == 0)
        memory = fc_real()->mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (memory == MAP_FAILED) {
        fc_real()->close(*fd);
        *fd = -1;
    }
    return memory;
}

static int allocate_buffers(struct fc_handle *handle, unsigned count) {
    uint32_t length = fc_format_sizeimage(handle->format, &fc_config()->clip);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t stride = (length + page - 1) / page * page;
    uint8_t *memory = map_new_memfd(count * stride, &handle->memfd);
    if (memory == MAP_FAILED) return ENOMEM;
    for (unsigned i = 0; i < count; i++)
        handle->buffers[i] = (struct fc_buffer){.memory = memory + i * stride, .state = FC_BUF_DEQUEUED};
    handle->memory = memory;
    handle->buffer_count = count;
    handle->buffer_length = length;
    handle->stride = stride;
    return 0;
}

static void describe_buffer(const struct fc_handle *handle, unsigned index, struct v4l2_buffer *out) {
    const struct fc_buffer *buffer = &handle->buffers[index];
    memset(out, 0, sizeof *out);
    out->index = index;
    out->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    out->memory = V4L2_MEMORY_MMAP;
    out->m.offset = (uint32_t)(index * handle->stride);
    out->length = handle->buffer_length;
    out->field = V4L2_FIELD_NONE;
    out->bytesused = buffer->bytesused;
    out->sequence = buffer->sequence;
    out->timestamp = buffer->timestamp;
    out->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
    if (buffer->state == FC_BUF_QUEUED) out->flags |= V4L2_BUF_FLAG_QUEUED;
    if (buffer->state == FC_BUF_DONE) out->flags |= V4L2_BUF_FLAG_DONE;
}

/// The buffer an application's v4l2_buffer names, or NULL (EINVAL).
static struct fc_buffer *named_buffer(struct fc_handle *handle, const struct v4l2_buffer *request) {
    if (request->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || request->memory != V4L2_MEMORY_MMAP ||
        request->index >= handle->buffer_count)
        return NULL;
    return &handle->buffers[request->index];
}

// MARK: - The producer thread

struct producer_start {
    struct fc_handle *handle;
    unsigned generation;
};

static bool producer_should_run(const struct fc_handle *handle, unsigned generation) {
    return handle->stream_generation == generation && !handle->dead && !handle->closing;
}

static int64_t frame_period_ns(const struct fc_handle *handle) {
    return 1000000000 / fc_config()->rates[handle->rate];
}

static bool is_corrupt_frame(const struct fc_config *config, const struct fc_handle *handle,
                             uint32_t sequence) {
    return handle->format == FC_FMT_MJPG && config->corrupt_every != 0 &&
           ((uint64_t)sequence + 1) % config->corrupt_every == 0;
}

static void fill_buffer(struct fc_handle *handle, struct fc_buffer *buffer, size_t index,
                        uint32_t sequence) {
    const struct fc_config *config = fc_config();
    size_t length;
    const uint8_t *data = fc_clip_frame(&config->clip, handle->format, index, &length);
    if (is_corrupt_frame(config, handle, sequence)) length /= 2; // a truncated transfer: no EOI
    if (length > handle->buffer_length) length = handle->buffer_length;
    if (length > 0) memcpy(buffer->memory, data, length);
    struct timespec now = fc_now();
    buffer->bytesused = (uint32_t)length;
    buffer->sequence = sequence;
    buffer->timestamp = (struct timeval){.tv_sec = now.tv_sec, .tv_usec = now.tv_nsec / 1000};
}

/// One frame time has passed: fill the oldest queued buffer, or drop the frame when the
/// application has none queued (the sequence number advances either way, like a driver's).
static void produce_frame(struct fc_handle *handle) {
    const struct fc_config *config = fc_config();
    size_t index;
    if (!fc_clip_next(&config->clip, config->loop, &index)) return; // FAKECAM_LOOP=0: clip over
    uint32_t sequence = handle->sequence++;
    struct fc_buffer *buffer = oldest_buffer(handle, FC_BUF_QUEUED);
    if (buffer == NULL) {
        fc_log("fd %d: frame %u dropped, no buffer queued", handle->fd, sequence);
        return;
    }
    fill_buffer(handle, buffer, index, sequence);
    buffer->state = FC_BUF_DONE;
    buffer->order = ++handle->order_counter;
    handle->done_count++;
    post_frame(handle);
    pthread_cond_broadcast(&handle->changed);
}

/// Next frame time; after a stall of more than a frame, restart the cadence from now rather
/// than delivering a burst.
static int64_t next_deadline(int64_t deadline, int64_t period) {
    int64_t now = fc_ns(fc_now());
    deadline += period;
    return deadline <= now ? now + period : deadline;
}

static void *producer_main(void *argument) {
    struct producer_start start = *(struct producer_start *)argument;
    free(argument);
    struct fc_handle *handle = start.handle;
    pthread_mutex_lock(&handle->lock);
    int64_t deadline = fc_ns(fc_now()) + frame_period_ns(handle);
    while (producer_should_run(handle, start.generation)) {
        if (fc_ns(fc_now()) < deadline) {
            struct timespec until = {.tv_sec = deadline / 1000000000, .tv_nsec = deadline % 1000000000};
            pthread_cond_timedwait(&handle->changed, &handle->lock, &until);
            continue; // woken early, or on time: re-check both conditions
        }
        produce_frame(handle);
        deadline = next_deadline(deadline, frame_period_ns(handle));
    }
    pthread_mutex_unlock(&handle->lock);
    return NULL;
}

/// Starts the thread with every signal blocked, so the application's signals are never
/// delivered on a thread it does not know about.
static int start_producer(struct fc_handle *handle) {
    struct producer_start *start = malloc(sizeof *start);
    if (start == NULL) return ENOMEM;
    *start = (struct producer_start){handle, ++handle->stream_generation};
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    int error = pthread_create(&handle->thread, NULL, producer_main, start);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (error != 0) {
        free(start);
        return error == EAGAIN ? ENOMEM : error;
    }
    handle->has_thread = true;
    return 0;
}

/// Handle locked; releases it while joining. Whoever clears has_thread joins, so two
/// concurrent STREAMOFFs never join the same thread.
static void stop_producer(struct fc_handle *handle) {
    handle->stream_generation++;
    if (!handle->has_thread) return;
    pthread_t thread = handle->thread;
    handle->has_thread = false;
    pthread_cond_broadcast(&handle->changed);
    pthread_mutex_unlock(&handle->lock);
    pthread_join(thread, NULL);
    pthread_mutex_lock(&handle->lock);
}

void fc_stream_stop(struct fc_handle *handle) {
    stop_producer(handle);
    handle->streaming = false;
    for (unsigned i = 0; i < handle->buffer_count; i++) {
        if (handle->buffers[i].state == FC_BUF_DONE) take_frame(handle);
        handle->buffers[i].state = FC_BUF_DEQUEUED;
    }
    handle->done_count = 0;
    pthread_cond_broadcast(&handle->changed); // a blocking DQBUF now fails with EINVAL
}

// MARK: - ioctls

int fc_stream_reqbufs(struct fc_handle *handle, void *arg) {
    struct v4l2_requestbuffers *request = arg;
    if (request->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || request->memory != V4L2_MEMORY_MMAP) return EINVAL;
    if (request->count > 0 && handle->streaming) return EBUSY;
    // REQBUFS(0) while streaming stops the stream (lenient: videobuf2 would say EBUSY). Freeing
    // is always safe, even with buffers still mapped: the application's mappings keep their
    // pages (lenient again: videobuf2 would refuse with EBUSY while buffers are mapped).
    fc_stream_stop(handle);
    fc_stream_free_buffers(handle);
    int error = 0;
    if (request->count > 0) {
        unsigned count = request->count < FC_MIN_BUFFERS ? FC_MIN_BUFFERS
                         : request->count > FC_MAX_BUFFERS ? FC_MAX_BUFFERS
                                                          : request->count;
        error = allocate_buffers(handle, count);
    }
    request->count = handle->buffer_count;
    request->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
    request->flags = 0;
    memset(request->reserved, 0, sizeof request->reserved);
    return error;
}

int fc_stream_querybuf(struct fc_handle *handle, void *arg) {
    struct v4l2_buffer *request = arg;
    if (named_buffer(handle, request) == NULL) return EINVAL;
    describe_buffer(handle, request->index, request);
    return 0;
}

int fc_stream_qbuf(struct fc_handle *handle, void *arg) {
    struct v4l2_buffer *request = arg;
    struct fc_buffer *buffer = named_buffer(handle, request);
    if (buffer == NULL || buffer->state != FC_BUF_DEQUEUED) return EINVAL;
    buffer->state = FC_BUF_QUEUED;
    buffer->order = ++handle->order_counter;
    describe_buffer(handle, request->index, request);
    return 0;
}

/// Handle locked; a blocking wait releases it. 0 with the oldest DONE buffer, or an errno.
static int wait_for_done_buffer(struct fc_handle *handle, struct fc_buffer **done) {
    for (;;) {
        if (handle->closing) return EBADF;
        if (handle->dead) return ENODEV;
        if (!handle->streaming) return EINVAL;
        if ((*done = oldest_buffer(handle, FC_BUF_DONE)) != NULL) return 0;
        if (is_nonblocking(handle)) return EAGAIN;
        pthread_cond_wait(&handle->changed, &handle->lock);
    }
}

int fc_stream_dqbuf(struct fc_handle *handle, void *arg) {
    struct v4l2_buffer *request = arg;
    if (request->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || request->memory != V4L2_MEMORY_MMAP) return EINVAL;
    struct fc_buffer *buffer;
    int error = wait_for_done_buffer(handle, &buffer);
    if (error != 0) return error;
    take_frame(handle);
    handle->done_count--;
    buffer->state = FC_BUF_DEQUEUED;
    describe_buffer(handle, (unsigned)(buffer - handle->buffers), request);

    unsigned long unplug_after = fc_config()->unplug_after;
    if (unplug_after != 0 && ++handle->delivered == unplug_after) handle->unplug_requested = true;
    return 0;
}

int fc_stream_on(struct fc_handle *handle, void *arg) {
    if (*(const int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE || handle->buffer_count == 0) return EINVAL;
    if (handle->streaming) return 0;
    handle->sequence = 0;
    handle->delivered = 0;
    int error = start_producer(handle);
    handle->streaming = error == 0;
    return error;
}

int fc_stream_off(struct fc_handle *handle, void *arg) {
    if (*(const int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    fc_stream_stop(handle);
    return 0;
}

// MARK: - mmap

/// 0 and the buffer index, or the errno a driver gives for this mmap.
static int check_mmap(const struct fc_handle *handle, size_t length, int flags, off_t offset,
                      unsigned *index) {
    if (handle->closing) return EBADF;
    if (handle->dead) return ENODEV;
    int type = flags & MAP_TYPE;
    if (type != MAP_SHARED && type != MAP_SHARED_VALIDATE) return EINVAL;
    if (handle->stride == 0 || offset < 0 || (size_t)offset % handle->stride != 0) return EINVAL;
    *index = (unsigned)((size_t)offset / handle->stride);
    if (*index >= handle->buffer_count || length == 0 || length > handle->stride) return EINVAL;
    return 0;
}

void *fc_stream_mmap(struct fc_handle *handle, void *addr, size_t length, int prot, int flags,
                     off_t offset) {
    pthread_mutex_lock(&handle->lock);
    unsigned index = 0;
    int error = check_mmap(handle, length, flags, offset, &index);
    void *mapping = MAP_FAILED;
    if (error == 0) {
        mapping = fc_real()->mmap(addr, length, prot, flags, handle->memfd, offset);
        error = errno;
    }
    pthread_mutex_unlock(&handle->lock);
    fc_log("fd %d: mmap buffer %u -> %p", handle->fd, index, mapping);
    if (mapping == MAP_FAILED) errno = error;
    return mapping;
}
