// The exported replacements of libc functions. With LD_PRELOAD these definitions come first in
// symbol lookup, so the program (and every library it loads) calls them instead of libc's.
// Each one answers for the fake device path or a fake descriptor and hands everything else to
// the next definition (libc's), found with dlsym(RTLD_NEXT), unchanged.
//
// Not replaced, on purpose: munmap (the application's buffer mappings are ordinary shared
// mappings of a memfd, see stream.c) and select/epoll (the descriptor is a real eventfd that is
// readable exactly when DQBUF has a buffer or the device is gone, so the kernel answers them).

// Fortify turns open/read/poll into inline wrappers we could not define, and 64-bit file
// offsets would rename open to open64 in the headers; neither may apply to this file.
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fakecam_internal.h"

#define EXPORT __attribute__((visibility("default")))

extern void __chk_fail(void) __attribute__((noreturn));

// MARK: - The real functions

static struct fc_real_functions real; // written once under real_once, then read-only
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

#define RESOLVE(field, symbol) real.field = (__typeof__(real.field))dlsym(RTLD_NEXT, symbol)

static void resolve_real_functions(void) {
    RESOLVE(open, "open");
    RESOLVE(open64, "open64");
    RESOLVE(openat, "openat");
    RESOLVE(openat64, "openat64");
    RESOLVE(open_2, "__open_2");
    RESOLVE(open64_2, "__open64_2");
    RESOLVE(openat_2, "__openat_2");
    RESOLVE(openat64_2, "__openat64_2");
    RESOLVE(close, "close");
    RESOLVE(ioctl, "ioctl");
    RESOLVE(mmap, "mmap");
    RESOLVE(mmap64, "mmap64");
    RESOLVE(poll, "poll");
    RESOLVE(ppoll, "ppoll");
    RESOLVE(read, "read");
    RESOLVE(write, "write");
    RESOLVE(syscall, "syscall");
}

const struct fc_real_functions *fc_real(void) {
    pthread_once(&real_once, resolve_real_functions);
    return &real;
}

/// Dropping our reference may free the handle (munmap); the caller's errno must survive it.
static void put_keeping_errno(struct fc_handle *handle) {
    int saved = errno;
    fc_handle_put(handle);
    errno = saved;
}

// MARK: - open

static bool needs_mode(int flags) {
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

// open() takes a mode only with O_CREAT/O_TMPFILE; reading it otherwise would read garbage.
#define MODE_ARGUMENT(flags, last, mode)          \
    do {                                          \
        if (needs_mode(flags)) {                  \
            va_list args_;                        \
            va_start(args_, last);                \
            mode = (mode_t)va_arg(args_, int);    \
            va_end(args_);                        \
        }                                         \
    } while (0)

EXPORT int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    MODE_ARGUMENT(flags, flags, mode);
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...) {
    mode_t mode = 0;
    MODE_ARGUMENT(flags, flags, mode);
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->open64(path, flags, mode);
}

/// Only absolute paths can name the device, and those ignore the directory descriptor.
EXPORT int openat(int directory, const char *path, int flags, ...) {
    mode_t mode = 0;
    MODE_ARGUMENT(flags, flags, mode);
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->openat(directory, path, flags, mode);
}

EXPORT int openat64(int directory, const char *path, int flags, ...) {
    mode_t mode = 0;
    MODE_ARGUMENT(flags, flags, mode);
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->openat64(directory, path, flags, mode);
}

// With _FORTIFY_SOURCE (Debian/Ubuntu build C at -O2 with it), open(path, O_RDWR) compiles to
// __open_2(path, O_RDWR) when the flags need no mode. glibc's __open_2 reaches the system call
// without going through the exported open(), so these entry points need replacing too.

EXPORT int __open_2(const char *path, int flags) {
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->open_2(path, flags);
}

EXPORT int __open64_2(const char *path, int flags) {
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->open64_2(path, flags);
}

EXPORT int __openat_2(int directory, const char *path, int flags) {
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->openat_2(directory, path, flags);
}

EXPORT int __openat64_2(int directory, const char *path, int flags) {
    if (fc_device_path_matches(path)) return fc_device_open(flags);
    return fc_real()->openat64_2(directory, path, flags);
}

// MARK: - close, ioctl, mmap

EXPORT int close(int fd) {
    struct fc_handle *handle = fc_handle_get(fd);
    return handle != NULL ? fc_handle_close(handle) : fc_real()->close(fd);
}

static int fake_ioctl(struct fc_handle *handle, unsigned long request, void *arg) {
    // The kernel reads the request as 32 bits; callers that pass an int sign-extend it.
    int error = fc_ioctl(handle, (unsigned int)request, arg);
    fc_handle_put(handle);
    if (error == 0) return 0;
    errno = error;
    return -1;
}

EXPORT int ioctl(int fd, unsigned long request, ...) {
    va_list args;
    va_start(args, request);
    void *arg = va_arg(args, void *);
    va_end(args);
    struct fc_handle *handle = fc_handle_get(fd);
    return handle != NULL ? fake_ioctl(handle, request, arg) : fc_real()->ioctl(fd, request, arg);
}

static void *fake_mmap(struct fc_handle *handle, void *addr, size_t length, int prot, int flags,
                       off_t offset) {
    void *mapping = fc_stream_mmap(handle, addr, length, prot, flags, offset);
    put_keeping_errno(handle);
    return mapping;
}

static struct fc_handle *mapped_handle(int flags, int fd) {
    return (flags & MAP_ANONYMOUS) ? NULL : fc_handle_get(fd);
}

EXPORT void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    struct fc_handle *handle = mapped_handle(flags, fd);
    if (handle != NULL) return fake_mmap(handle, addr, length, prot, flags, offset);
    return fc_real()->mmap(addr, length, prot, flags, fd, offset);
}

EXPORT void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off64_t offset) {
    struct fc_handle *handle = mapped_handle(flags, fd);
    if (handle != NULL) return fake_mmap(handle, addr, length, prot, flags, offset);
    return fc_real()->mmap64(addr, length, prot, flags, fd, offset);
}

// MARK: - read, write

/// read()/write() on the camera fail like on a streaming-only UVC device (no read() I/O).
/// Intercepting them also keeps the eventfd counter in step with the DONE buffers.
static ssize_t refuse_io(struct fc_handle *handle) {
    int error = fc_handle_is_dead(handle) ? ENODEV : EINVAL;
    fc_handle_put(handle);
    errno = error;
    return -1;
}

static ssize_t checked_read(int fd, void *buffer, size_t length) {
    struct fc_handle *handle = fc_handle_get(fd);
    return handle != NULL ? refuse_io(handle) : fc_real()->read(fd, buffer, length);
}

EXPORT ssize_t read(int fd, void *buffer, size_t length) {
    return checked_read(fd, buffer, length);
}

/// Fortify's read(): the buffer size check first, as glibc's does.
EXPORT ssize_t __read_chk(int fd, void *buffer, size_t length, size_t buffer_length) {
    if (length > buffer_length) __chk_fail();
    return checked_read(fd, buffer, length);
}

EXPORT ssize_t write(int fd, const void *buffer, size_t length) {
    struct fc_handle *handle = fc_handle_get(fd);
    return handle != NULL ? refuse_io(handle) : fc_real()->write(fd, buffer, length);
}

// MARK: - poll, ppoll

static int wait_with_poll(struct pollfd *fds, nfds_t count, bool immediately, void *context) {
    return fc_real()->poll(fds, count, immediately ? 0 : *(const int *)context);
}

struct ppoll_arguments {
    const struct timespec *timeout;
    const sigset_t *sigmask;
};

static int wait_with_ppoll(struct pollfd *fds, nfds_t count, bool immediately, void *context) {
    static const struct timespec zero = {0, 0};
    const struct ppoll_arguments *arguments = context;
    return fc_real()->ppoll(fds, count, immediately ? &zero : arguments->timeout, arguments->sigmask);
}

EXPORT int poll(struct pollfd *fds, nfds_t count, int timeout) {
    return fc_poll(fds, count, wait_with_poll, &timeout);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout, const sigset_t *sigmask) {
    struct ppoll_arguments arguments = {timeout, sigmask};
    return fc_poll(fds, count, wait_with_ppoll, &arguments);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t count, int timeout, size_t fds_length) {
    if (fds_length / sizeof *fds < count) __chk_fail();
    return fc_poll(fds, count, wait_with_poll, &timeout);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t count, const struct timespec *timeout,
                       const sigset_t *sigmask, size_t fds_length) {
    if (fds_length / sizeof *fds < count) __chk_fail();
    struct ppoll_arguments arguments = {timeout, sigmask};
    return fc_poll(fds, count, wait_with_ppoll, &arguments);
}

// MARK: - syscall

// libv4l2 talks to devices with syscall(SYS_openat, ...), syscall(SYS_ioctl, ...) and so on,
// bypassing the wrappers above. Those numbers are sent to the fake device when they name its
// path or a fake descriptor; every other call goes to the real syscall() unchanged.

static bool route_open(const char *path, int flags, long *result) {
    if (!fc_device_path_matches(path)) return false;
    *result = fc_device_open(flags);
    return true;
}

static bool route_close(int fd, long *result) {
    struct fc_handle *handle = fc_handle_get(fd);
    if (handle == NULL) return false;
    *result = fc_handle_close(handle);
    return true;
}

static bool route_ioctl(int fd, unsigned long request, void *arg, long *result) {
    struct fc_handle *handle = fc_handle_get(fd);
    if (handle == NULL) return false;
    *result = fake_ioctl(handle, request, arg);
    return true;
}

static bool route_mmap(const long a[6], long *result) {
    int flags = (int)a[3];
    struct fc_handle *handle = mapped_handle(flags, (int)a[4]);
    if (handle == NULL) return false;
    void *mapping = fake_mmap(handle, (void *)a[0], (size_t)a[1], (int)a[2], flags, (off_t)a[5]);
    *result = mapping == MAP_FAILED ? -1 : (long)mapping;
    return true;
}

static bool route_io(int fd, long *result) {
    struct fc_handle *handle = fc_handle_get(fd);
    if (handle == NULL) return false;
    *result = refuse_io(handle);
    return true;
}

static bool route_syscall(long number, const long a[6], long *result) {
    switch (number) {
    case SYS_open: return route_open((const char *)a[0], (int)a[1], result);
    case SYS_openat: return route_open((const char *)a[1], (int)a[2], result);
    case SYS_close: return route_close((int)a[0], result);
    case SYS_ioctl: return route_ioctl((int)a[0], (unsigned long)a[1], (void *)a[2], result);
    case SYS_mmap: return route_mmap(a, result);
    case SYS_read:
    case SYS_write: return route_io((int)a[0], result);
    default: return false;
    }
}

// syscall() is variadic and does not know how many arguments it got: read six, as glibc's own
// implementation passes six registers to the kernel whatever the call.
EXPORT long syscall(long number, ...) {
    va_list args;
    va_start(args, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(args, long);
    va_end(args);
    long result;
    if (route_syscall(number, a, &result)) return result;
    return fc_real()->syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
