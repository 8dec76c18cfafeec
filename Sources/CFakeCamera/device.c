// The device node and the table of open fake descriptors: open, close, unplug/replug, poll.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "fakecam_internal.h"

static struct {
    pthread_mutex_t lock;
    struct fc_handle *handles; // every open fake descriptor
    bool unplugged;
    struct timespec unplugged_at;
} registry = {.lock = PTHREAD_MUTEX_INITIALIZER};

// The number of entries in registry.handles, readable without the lock: while it is 0 (always,
// in a process that never opens the camera) the fd-based wrappers pass straight through.
static atomic_uint open_count;

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

// MARK: - fork()

static void before_fork(void) { pthread_mutex_lock(&registry.lock); }

static void after_fork_in_parent(void) { pthread_mutex_unlock(&registry.lock); }

/// The child has copies of the eventfds but none of the producer threads, so it must not
/// treat them as cameras (closing one would join a thread that does not exist there). The
/// child forgets the handles (their memory is simply not freed there) and its copies of the
/// descriptors become plain eventfds.
static void after_fork_in_child(void) {
    registry.handles = NULL;
    atomic_store(&open_count, 0);
    pthread_mutex_init(&registry.lock, NULL);
}

static void install_fork_handlers(void) {
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

// MARK: - Handles

static struct fc_handle *handle_new(int fd, const struct fc_config *config) {
    struct fc_handle *handle = calloc(1, sizeof *handle);
    if (handle == NULL) return NULL;
    handle->fd = fd;
    handle->memfd = -1;
    handle->refs = 1; // the registry's
    handle->format = config->formats[0];
    handle->rate = config->default_rate;
    pthread_mutex_init(&handle->lock, NULL);
    // The producer waits for its next frame time on this condvar: measure on the monotonic
    // clock so that changes of the wall clock do not stall or rush it.
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&handle->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    return handle;
}

static void handle_free(struct fc_handle *handle) {
    pthread_mutex_lock(&handle->lock);
    fc_stream_free_buffers(handle);
    pthread_mutex_unlock(&handle->lock);
    pthread_cond_destroy(&handle->changed);
    pthread_mutex_destroy(&handle->lock);
    free(handle);
}

/// Registry locked.
static struct fc_handle *find_locked(int fd) {
    for (struct fc_handle *handle = registry.handles; handle != NULL; handle = handle->next)
        if (handle->fd == fd) return handle;
    return NULL;
}

/// Registry locked. False if a concurrent close() already removed it.
static bool unlink_locked(struct fc_handle *target) {
    for (struct fc_handle **link = &registry.handles; *link != NULL; link = &(*link)->next) {
        if (*link == target) {
            *link = target->next;
            return true;
        }
    }
    return false;
}

struct fc_handle *fc_handle_get(int fd) {
    if (fd < 0 || atomic_load(&open_count) == 0) return NULL;
    pthread_mutex_lock(&registry.lock);
    struct fc_handle *handle = find_locked(fd);
    if (handle != NULL) handle->refs++;
    pthread_mutex_unlock(&registry.lock);
    return handle;
}

void fc_handle_put(struct fc_handle *handle) {
    pthread_mutex_lock(&registry.lock);
    bool last = --handle->refs == 0;
    pthread_mutex_unlock(&registry.lock);
    if (last) handle_free(handle);
}

bool fc_handle_is_dead(struct fc_handle *handle) {
    pthread_mutex_lock(&handle->lock);
    bool dead = handle->dead;
    pthread_mutex_unlock(&handle->lock);
    return dead;
}

// MARK: - Open and close

bool fc_device_path_matches(const char *path) {
    const struct fc_config *config = fc_config();
    if (config == NULL || path == NULL) return false;
    return strcmp(path, config->device_path) == 0 ||
           (config->by_id_path[0] != '\0' && strcmp(path, config->by_id_path) == 0);
}

/// Registry locked. Present unless unplugged; after the replug delay it comes back as a fresh
/// device. Checked lazily at open() (nothing else can observe the node), so no timer thread.
static bool device_present(const struct fc_config *config) {
    if (!registry.unplugged) return true;
    if (config->replug_after_ms == 0) return false;
    int64_t elapsed_ms = (fc_ns(fc_now()) - fc_ns(registry.unplugged_at)) / 1000000;
    if (elapsed_ms < (int64_t)config->replug_after_ms) return false;
    registry.unplugged = false;
    fc_controls_reset();
    fc_log("replugged after %lld ms", (long long)elapsed_ms);
    return true;
}

/// Registry locked. The descriptor is an eventfd (see struct fc_handle). It takes the flags
/// of open() an application can observe: O_CLOEXEC, and O_NONBLOCK, which DQBUF reads back
/// with F_GETFL each time, so a later fcntl(F_SETFL, O_NONBLOCK) is honoured as well.
/// EFD_SEMAPHORE makes each of our reads take exactly one from the counter (one DONE buffer).
static int new_descriptor(int flags, const struct fc_config *config) {
    int eventfd_flags = EFD_SEMAPHORE | ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0) |
                        ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0);
    int fd = eventfd(0, eventfd_flags);
    if (fd < 0) return -1;
    struct fc_handle *handle = handle_new(fd, config);
    if (handle == NULL) {
        fc_real()->close(fd);
        errno = ENOMEM;
        return -1;
    }
    handle->next = registry.handles;
    registry.handles = handle;
    atomic_fetch_add(&open_count, 1);
    return fd;
}

int fc_device_open(int flags) {
    const struct fc_config *config = fc_config();
    pthread_once(&fork_handlers_once, install_fork_handlers);
    pthread_mutex_lock(&registry.lock);
    int fd = -1;
    if (device_present(config))
        fd = new_descriptor(flags, config);
    else
        errno = ENOENT;
    int error = errno;
    pthread_mutex_unlock(&registry.lock);
    fc_log("open %s -> %d (%s)", config->device_path, fd, fd < 0 ? strerror(error) : "ok");
    errno = error;
    return fd;
}

int fc_handle_close(struct fc_handle *handle) {
    pthread_mutex_lock(&registry.lock);
    bool linked = unlink_locked(handle);
    if (linked) {
        atomic_fetch_sub(&open_count, 1);
        handle->refs--; // the registry's; the caller still holds one
    }
    pthread_mutex_unlock(&registry.lock);
    if (!linked) {
        fc_handle_put(handle);
        errno = EBADF;
        return -1;
    }

    // From here on nobody touches the eventfd (everything checks `closing`), so closing it
    // for real is safe even while another thread is still inside an ioctl on this handle;
    // that ioctl returns EBADF and the last reference frees the handle.
    pthread_mutex_lock(&handle->lock);
    handle->closing = true;
    fc_stream_stop(handle);
    pthread_mutex_unlock(&handle->lock);
    int result = fc_real()->close(handle->fd);
    fc_log("close %d", handle->fd);
    fc_handle_put(handle);
    return result;
}

// MARK: - Unplug

/// Registry locked.
static void kill_handle(struct fc_handle *handle) {
    pthread_mutex_lock(&handle->lock);
    if (!handle->dead) {
        handle->dead = true;
        // Wake pollers (poll, epoll, select): nothing reads the counter of a dead handle any
        // more, so the descriptor stays readable until it is closed.
        if (!handle->closing) fc_eventfd_add(handle->fd);
        pthread_cond_broadcast(&handle->changed); // blocking DQBUF and the producer
    }
    pthread_mutex_unlock(&handle->lock);
}

void fc_device_unplug(void) {
    pthread_mutex_lock(&registry.lock);
    if (!registry.unplugged) {
        registry.unplugged = true;
        registry.unplugged_at = fc_now();
        for (struct fc_handle *handle = registry.handles; handle != NULL; handle = handle->next)
            kill_handle(handle);
        fc_log("unplugged");
    }
    pthread_mutex_unlock(&registry.lock);
}

// MARK: - poll

#define FC_POLL_TRACKED 32

struct tracked_pollfd {
    nfds_t index;
    short events; // as the application asked
};

/// Marks the fake descriptors among `fds` and hides their POLLOUT request: a capture device is
/// never writable, but an eventfd always is. Returns how many were tracked.
static size_t track_fake_fds(struct pollfd *fds, nfds_t count, struct tracked_pollfd *tracked,
                             bool *any_dead) {
    size_t tracked_count = 0;
    pthread_mutex_lock(&registry.lock);
    for (nfds_t i = 0; i < count && tracked_count < FC_POLL_TRACKED; i++) {
        struct fc_handle *handle = find_locked(fds[i].fd);
        if (handle == NULL) continue;
        tracked[tracked_count++] = (struct tracked_pollfd){i, fds[i].events};
        fds[i].events &= (short)~(POLLOUT | POLLWRNORM | POLLWRBAND);
        if (fc_handle_is_dead(handle)) *any_dead = true;
    }
    pthread_mutex_unlock(&registry.lock);
    return tracked_count;
}

/// An unplugged camera reports POLLERR|POLLHUP like a real one (the eventfd only gives POLLIN).
static void report_unplugged(struct pollfd *fds, const struct tracked_pollfd *tracked,
                             size_t tracked_count) {
    pthread_mutex_lock(&registry.lock);
    for (size_t k = 0; k < tracked_count; k++) {
        struct pollfd *entry = &fds[tracked[k].index];
        struct fc_handle *handle = find_locked(entry->fd);
        if (handle != NULL && fc_handle_is_dead(handle)) entry->revents |= POLLERR | POLLHUP;
    }
    pthread_mutex_unlock(&registry.lock);
}

static int count_ready(const struct pollfd *fds, nfds_t count) {
    int ready = 0;
    for (nfds_t i = 0; i < count; i++)
        if (fds[i].revents != 0) ready++;
    return ready;
}

int fc_poll(struct pollfd *fds, nfds_t count, fc_poll_wait wait, void *context) {
    if (atomic_load(&open_count) == 0 || fds == NULL) return wait(fds, count, false, context);
    struct tracked_pollfd tracked[FC_POLL_TRACKED];
    bool any_dead = false;
    size_t tracked_count = track_fake_fds(fds, count, tracked, &any_dead);
    if (tracked_count == 0) return wait(fds, count, false, context);

    // A dead camera is ready at once even if the application did not ask for POLLIN.
    int ready = wait(fds, count, any_dead, context);
    int error = errno;
    for (size_t k = 0; k < tracked_count; k++) fds[tracked[k].index].events = tracked[k].events;
    if (ready < 0) {
        errno = error;
        return -1;
    }
    report_unplugged(fds, tracked, tracked_count);
    return count_ready(fds, count);
}
