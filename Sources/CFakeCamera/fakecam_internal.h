// Private declarations shared by the files of the emulated camera.
//
// Who does what:
//   interpose.c  the exported libc replacements (open, ioctl, mmap, poll, syscall, ...) and the
//                pointers to the real functions behind them
//   config.c     FAKECAM_* environment variables, read once; logging
//   frames.c     loading the clip (JPEG files / .mjpeg), decoding it to YUYV/GREY, pixel formats
//   device.c     the device node (plugged or not), the table of open fake descriptors, open/close,
//                unplug/replug, poll
//   stream.c     buffers, mmap, the producer thread, REQBUFS/QUERYBUF/QBUF/DQBUF/STREAMON/STREAMOFF
//   ioctl.c      ioctl dispatch and the descriptive ioctls (caps, formats, sizes, intervals, parm)
//   controls.c   the camera controls (QUERYCTRL, G/S_CTRL, *_EXT_CTRLS, QUERYMENU)
//
// Locks, always taken in this order (never the other way round):
//   registry lock (device.c) -> handle lock (struct fc_handle) -> leaf locks (controls.c, frames.c)
// A leaf lock never takes another lock while held.
#ifndef FAKECAM_INTERNAL_H
#define FAKECAM_INTERNAL_H

#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

// Internal to the library: only the interposed libc functions (interpose.c) are exported.
#pragma GCC visibility push(hidden)

// MARK: - Real libc functions (interpose.c)

struct fc_real_functions {
    int (*open)(const char *, int, ...);
    int (*open64)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*openat64)(int, const char *, int, ...);
    int (*open_2)(const char *, int);
    int (*open64_2)(const char *, int);
    int (*openat_2)(int, const char *, int);
    int (*openat64_2)(int, const char *, int);
    int (*close)(int);
    int (*ioctl)(int, unsigned long, ...);
    void *(*mmap)(void *, size_t, int, int, int, off_t);
    void *(*mmap64)(void *, size_t, int, int, int, off_t);
    int (*poll)(struct pollfd *, nfds_t, int);
    int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*write)(int, const void *, size_t);
    long (*syscall)(long, ...);
};

/// The next definitions of the interposed functions (normally libc's), resolved once.
const struct fc_real_functions *fc_real(void);

// MARK: - Pixel formats and the clip (frames.c)

enum fc_format { FC_FMT_MJPG, FC_FMT_YUYV, FC_FMT_GREY, FC_FMT_COUNT };

struct fc_frame {
    uint8_t *data;
    size_t length;
};

/// The frames, loaded and converted once at startup; immutable afterwards.
struct fc_clip {
    unsigned width, height;
    size_t count;
    struct fc_frame *jpeg; // `count` frames as the clip holds them: JPEGs, and whatever else it has
    uint8_t *yuyv;         // count * width*height*2 bytes, or NULL when YUYV is not configured
    uint8_t *grey;         // count * width*height bytes, or NULL when GREY is not configured
    size_t max_jpeg_length;
};

uint32_t fc_format_fourcc(enum fc_format format);
const char *fc_format_description(enum fc_format format);
uint32_t fc_format_flags(enum fc_format format);
uint32_t fc_format_bytesperline(enum fc_format format, const struct fc_clip *clip);
uint32_t fc_format_sizeimage(enum fc_format format, const struct fc_clip *clip);
/// Parses "MJPG"/"YUYV"/"GREY" (case-insensitive); false for anything else.
bool fc_format_parse(const char *name, enum fc_format *format);

/// Loads `source` (a directory of .jpg/.jpeg files or a file of concatenated JPEGs) and
/// decodes every frame into the raw formats marked in `wanted`. False (with a warning) when
/// no usable frame was found.
bool fc_clip_load(struct fc_clip *clip, const char *source, const bool wanted[FC_FMT_COUNT]);
/// Bytes of frame `index` in `format`.
const uint8_t *fc_clip_frame(const struct fc_clip *clip, enum fc_format format, size_t index,
                             size_t *length);
/// The clip index of the next frame to produce. The position is shared by every stream of the
/// process and survives STREAMOFF/STREAMON and unplug/replug. False once a non-looping clip
/// has been played to its end.
bool fc_clip_next(const struct fc_clip *clip, bool loop, size_t *index);

// MARK: - Configuration (config.c)

#define FC_MAX_INTERVALS 2

struct fc_config {
    char device_path[PATH_MAX];
    char by_id_path[PATH_MAX]; // "" when FAKECAM_BY_ID is unset
    enum fc_format formats[FC_FMT_COUNT];
    unsigned format_count;
    unsigned fps;                      // FAKECAM_FPS
    unsigned rates[FC_MAX_INTERVALS];  // offered frame rates, fastest first: interval i = 1/rates[i]
    unsigned rate_count;
    unsigned default_rate;             // index of `fps` in `rates`
    bool loop;
    unsigned long unplug_after;
    unsigned long replug_after_ms;
    unsigned long corrupt_every;
    struct fc_clip clip;
};

/// The configuration, or NULL when the fake device is disabled (FAKECAM_FRAMES unset or no
/// usable frame). Loaded on the first call from any thread; immutable afterwards.
const struct fc_config *fc_config(void);
bool fc_config_has_format(const struct fc_config *config, uint32_t fourcc, enum fc_format *format);

void fc_log(const char *format, ...) __attribute__((format(printf, 1, 2)));  // FAKECAM_LOG=1 only
void fc_warn(const char *format, ...) __attribute__((format(printf, 1, 2))); // always

// MARK: - Open descriptors (device.c, stream.c)

#define FC_MIN_BUFFERS 2
#define FC_MAX_BUFFERS 8

enum fc_buffer_state { FC_BUF_DEQUEUED, FC_BUF_QUEUED, FC_BUF_DONE };

struct fc_buffer {
    uint8_t *memory; // inside the handle's `memory` mapping, `stride` bytes
    enum fc_buffer_state state;
    uint64_t order;  // when it was queued (QUEUED) or filled (DONE): the oldest goes first
    uint32_t bytesused;
    uint32_t sequence;
    struct timeval timestamp;
};

/// One open() of the fake device. `fd` is an eventfd whose counter equals the number of DONE
/// buffers (plus one once the device is unplugged), so the fd polls readable exactly when
/// DQBUF has something to return, with no help from us for poll/epoll/select.
struct fc_handle {
    // Guarded by the registry lock.
    struct fc_handle *next;
    unsigned refs;
    int fd;

    // Everything below is guarded by `lock`.
    pthread_mutex_t lock;
    pthread_cond_t changed; // CLOCK_MONOTONIC; broadcast on every state change
    bool dead;              // unplugged: every ioctl fails with ENODEV
    bool closing;           // close() has begun: the fd must not be touched any more
    bool unplug_requested;  // set by DQBUF, acted on once the handle lock is released

    enum fc_format format;
    unsigned rate; // index into config->rates

    struct fc_buffer buffers[FC_MAX_BUFFERS];
    unsigned buffer_count;
    uint32_t buffer_length; // sizeimage when the buffers were requested
    size_t stride;          // buffer_length rounded up to pages: buffer i has offset i*stride
    int memfd;              // holds all buffers (valid while buffer_count > 0); see stream.c
    uint8_t *memory;        // our mapping of the whole memfd
    uint64_t order_counter;
    unsigned done_count;    // == eventfd counter while not dead

    bool streaming;
    unsigned stream_generation; // bumped to tell a producer thread to stop
    bool has_thread;            // `thread` still needs joining
    pthread_t thread;
    uint32_t sequence;          // next frame's sequence number (reset by STREAMON)
    unsigned long delivered;    // frames dequeued since open/STREAMON (for FAKECAM_UNPLUG_AFTER)
};

/// Does `path` name the fake device (FAKECAM_DEVICE or /dev/v4l/by-id/FAKECAM_BY_ID)?
bool fc_device_path_matches(const char *path);
/// Opens the fake device: a new eventfd, or -1 with errno (ENOENT while unplugged).
int fc_device_open(int flags);
/// The handle behind `fd` with a reference taken, or NULL if `fd` is not a fake descriptor.
struct fc_handle *fc_handle_get(int fd);
void fc_handle_put(struct fc_handle *handle);
bool fc_handle_is_dead(struct fc_handle *handle);
/// close() of a fake descriptor; consumes the caller's reference.
int fc_handle_close(struct fc_handle *handle);
/// Unplugs the device: every open handle dies, open() fails until the replug delay is over.
void fc_device_unplug(void);

/// Waits like poll/ppoll on `fds` (`immediately` asks for a zero timeout).
typedef int (*fc_poll_wait)(struct pollfd *fds, nfds_t count, bool immediately, void *context);
/// poll() that knows fake descriptors: no POLLOUT for them, POLLERR|POLLHUP once unplugged.
int fc_poll(struct pollfd *fds, nfds_t count, fc_poll_wait wait, void *context);

/// Called with handle->lock held; returns 0 or an errno value. DQBUF and STREAMON/STREAMOFF
/// may release the lock while they wait; all return with it held.
int fc_stream_reqbufs(struct fc_handle *handle, void *arg);
int fc_stream_querybuf(struct fc_handle *handle, void *arg);
int fc_stream_qbuf(struct fc_handle *handle, void *arg);
int fc_stream_dqbuf(struct fc_handle *handle, void *arg);
int fc_stream_on(struct fc_handle *handle, void *arg);
int fc_stream_off(struct fc_handle *handle, void *arg);
/// Stops the producer (if any) and returns every buffer to the application; handle locked.
void fc_stream_stop(struct fc_handle *handle);
/// Unmaps our side of the buffers and closes their memfd; handle locked and not streaming.
void fc_stream_free_buffers(struct fc_handle *handle);
/// mmap() of a fake descriptor: a mapping of one buffer's pages, or MAP_FAILED with errno.
void *fc_stream_mmap(struct fc_handle *handle, void *addr, size_t length, int prot, int flags,
                     off_t offset);

// MARK: - ioctl (ioctl.c, controls.c)

/// Answers one ioctl on a fake descriptor: 0 or an errno value.
int fc_ioctl(struct fc_handle *handle, unsigned int request, void *arg);

bool fc_controls_handles(unsigned int request);
int fc_controls_ioctl(unsigned int request, void *arg);
/// Back to defaults (a replugged camera is a fresh device).
void fc_controls_reset(void);

// MARK: - Small helpers

static inline struct timespec fc_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

static inline int64_t fc_ns(struct timespec t) {
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/// eventfd counter +1 / -1 (EFD_SEMAPHORE), through the real write/read: our own wrappers
/// refuse I/O on a fake descriptor.
static inline void fc_eventfd_add(int fd) {
    uint64_t one = 1;
    (void)fc_real()->write(fd, &one, sizeof one);
}

static inline void fc_eventfd_take(int fd) {
    uint64_t value;
    (void)fc_real()->read(fd, &value, sizeof value);
}

#pragma GCC visibility pop

#endif
