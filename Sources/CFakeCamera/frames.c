// The clip: JPEG frames from a directory or an .mjpeg file, decoded once to the raw formats.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "fakecam_internal.h"

// MARK: - Pixel formats

static const struct {
    const char *name;
    uint32_t fourcc;
    const char *description;
    uint32_t flags;
} format_table[FC_FMT_COUNT] = {
    [FC_FMT_MJPG] = {"MJPG", V4L2_PIX_FMT_MJPEG, "Motion-JPEG", V4L2_FMT_FLAG_COMPRESSED},
    [FC_FMT_YUYV] = {"YUYV", V4L2_PIX_FMT_YUYV, "YUYV 4:2:2", 0},
    [FC_FMT_GREY] = {"GREY", V4L2_PIX_FMT_GREY, "8-bit Greyscale", 0},
};

uint32_t fc_format_fourcc(enum fc_format format) { return format_table[format].fourcc; }
const char *fc_format_description(enum fc_format format) { return format_table[format].description; }
uint32_t fc_format_flags(enum fc_format format) { return format_table[format].flags; }

bool fc_format_parse(const char *name, enum fc_format *format) {
    for (int i = 0; i < FC_FMT_COUNT; i++) {
        if (strcasecmp(name, format_table[i].name) == 0) {
            *format = (enum fc_format)i;
            return true;
        }
    }
    return false;
}

uint32_t fc_format_bytesperline(enum fc_format format, const struct fc_clip *clip) {
    switch (format) {
    case FC_FMT_YUYV: return clip->width * 2;
    case FC_FMT_GREY: return clip->width;
    default: return 0; // compressed
    }
}

/// MJPEG: like UVC cameras, room for width*height*2 bytes (or the largest frame, if bigger).
uint32_t fc_format_sizeimage(enum fc_format format, const struct fc_clip *clip) {
    uint32_t raw = clip->width * clip->height;
    switch (format) {
    case FC_FMT_YUYV: return raw * 2;
    case FC_FMT_GREY: return raw;
    default: return clip->max_jpeg_length > raw * 2 ? (uint32_t)clip->max_jpeg_length : raw * 2;
    }
}

// MARK: - Splitting JPEG streams

/// Index just past the entropy-coded data that starts at `i`: the 0xFF of the next marker that
/// is neither byte stuffing (FF00) nor a restart marker (FFD0-FFD7). 0 when the data runs out.
static size_t skip_entropy_coded_data(const uint8_t *p, size_t n, size_t i) {
    for (; i + 1 < n; i++) {
        if (p[i] != 0xFF) continue;
        uint8_t next = p[i + 1];
        if (next == 0x00 || next == 0xFF || (next >= 0xD0 && next <= 0xD7)) continue;
        return i;
    }
    return 0;
}

/// Length of the JPEG at p[0..n) (which starts with SOI), through its EOI; 0 if it is cut off
/// or malformed. Walks the marker segments instead of searching for FFD9, because an EXIF
/// thumbnail inside APP1 carries its own FFD8...FFD9.
static size_t jpeg_length_by_markers(const uint8_t *p, size_t n) {
    size_t i = 2;
    while (i < n) {
        if (p[i] != 0xFF) return 0;
        while (i < n && p[i] == 0xFF) i++; // fill bytes
        if (i >= n) return 0;
        uint8_t marker = p[i++];
        if (marker == 0xD9) return i;                                     // EOI
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue; // no length
        if (i + 2 > n) return 0;
        size_t segment = (size_t)p[i] << 8 | p[i + 1];
        if (segment < 2 || i + segment > n) return 0;
        i += segment;
        if (marker == 0xDA) { // SOS: scan data follows
            i = skip_entropy_coded_data(p, n, i);
            if (i == 0) return 0;
        }
    }
    return 0;
}

/// Fallback for JPEGs the marker walk rejects: up to the first FFD9.
static size_t jpeg_length_by_eoi(const uint8_t *p, size_t n) {
    for (size_t i = 2; i + 1 < n; i++)
        if (p[i] == 0xFF && p[i + 1] == 0xD9) return i + 2;
    return 0;
}

static size_t jpeg_length(const uint8_t *p, size_t n) {
    if (n < 4 || p[0] != 0xFF || p[1] != 0xD8) return 0;
    size_t length = jpeg_length_by_markers(p, n);
    return length != 0 ? length : jpeg_length_by_eoi(p, n);
}

/// Next SOI followed by a marker (FF D8 FF) at or after `from`; `n` if there is none.
static size_t find_soi(const uint8_t *p, size_t n, size_t from) {
    for (size_t i = from; i + 2 < n; i++)
        if (p[i] == 0xFF && p[i + 1] == 0xD8 && p[i + 2] == 0xFF) return i;
    return n;
}

// MARK: - Reading files

struct frame_list {
    struct fc_frame *items;
    size_t count, capacity;
};

static bool append_frame(struct frame_list *list, const uint8_t *data, size_t length) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        struct fc_frame *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL) return false;
        list->items = items;
        list->capacity = capacity;
    }
    uint8_t *copy = NULL;
    if (length > 0) { // an empty frame is a frame too: the camera sent nothing
        copy = malloc(length);
        if (copy == NULL) return false;
        memcpy(copy, data, length);
    }
    list->items[list->count++] = (struct fc_frame){copy, length};
    return true;
}

/// Whole file into a malloc'ed buffer, through the real open/read/close.
static uint8_t *read_file(const char *path, size_t *length) {
    const struct fc_real_functions *real = fc_real();
    int fd = real->open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat info;
    uint8_t *data = NULL;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && (data = malloc((size_t)info.st_size + 1))) {
        size_t total = 0;
        ssize_t got;
        while (total < (size_t)info.st_size &&
               (got = real->read(fd, data + total, (size_t)info.st_size - total)) > 0)
            total += (size_t)got;
        *length = total;
    }
    real->close(fd);
    return data;
}

/// Every JPEG in a stream of concatenated JPEGs; bytes between them are ignored.
static void split_stream(struct frame_list *list, const char *path, const uint8_t *data, size_t n) {
    size_t position = find_soi(data, n, 0);
    while (position < n) {
        size_t length = jpeg_length(data + position, n - position);
        if (length == 0) {
            fc_warn("%s: incomplete JPEG at offset %zu skipped", path, position);
            position = find_soi(data, n, position + 2);
            continue;
        }
        if (!append_frame(list, data + position, length)) return;
        position = find_soi(data, n, position + length);
    }
}

static void load_stream_file(struct frame_list *list, const char *path) {
    size_t length = 0;
    uint8_t *data = read_file(path, &length);
    if (data == NULL) {
        fc_warn("%s: cannot read", path);
        return;
    }
    split_stream(list, path, data, length);
    free(data);
}

/// One file, one frame: a JPEG up to its EOI; anything else (an empty file, garbage) as it is, so a
/// clip can hold the frames a broken camera sends.
static void load_jpeg_file(struct frame_list *list, const char *path) {
    size_t length = 0;
    uint8_t *data = read_file(path, &length);
    if (data == NULL) {
        fc_warn("%s: cannot read, skipped", path);
        return;
    }
    size_t jpeg = jpeg_length(data, length);
    if (jpeg == 0) fc_warn("%s: not a complete JPEG; served as it is", path);
    append_frame(list, data, jpeg != 0 ? jpeg : length); // trailing bytes after EOI are dropped
    free(data);
}

static int is_jpeg_name(const struct dirent *entry) {
    const char *dot = strrchr(entry->d_name, '.');
    return dot != NULL && dot != entry->d_name &&
           (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0);
}

/// Byte order, not the locale's collation: the order must not depend on LANG.
static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_directory(struct frame_list *list, const char *directory) {
    struct dirent **entries;
    int count = scandir(directory, &entries, is_jpeg_name, by_name);
    if (count < 0) {
        fc_warn("%s: cannot list the directory", directory);
        return;
    }
    for (int i = 0; i < count; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", directory, entries[i]->d_name);
        load_jpeg_file(list, path);
        free(entries[i]);
    }
    free(entries);
}

// MARK: - Decoding

/// The size the frame's JPEG header declares. libjpeg-turbo 2.1 leaves a handle unusable after a
/// header it cannot read (every later call fails the same way), so a failure replaces the handle:
/// one garbage frame must not spoil the frames after it.
///
/// A stream with tables and no image (noise between SOI and EOI can read as one) "succeeds" without
/// a size: turbojpeg reads headers with require_image off and leaves the outputs as they were.
static bool frame_size(tjhandle *decoder, const struct fc_frame *frame, int *width, int *height) {
    int subsampling, colorspace;
    *width = *height = 0;
    if (frame->length > 0 && tjDecompressHeader3(*decoder, frame->data, frame->length, width, height,
                                                 &subsampling, &colorspace) == 0 && *width > 0 && *height > 0)
        return true;
    tjhandle fresh = tjInitDecompress();
    if (fresh != NULL) {
        tjDestroy(*decoder);
        *decoder = fresh;
    }
    return false;
}

/// The clip's size is the first frame whose header reads. Every frame stays in the clip, whatever
/// it holds — garbage, nothing, another size — and is served in MJPEG as it is: what a camera sends
/// is the daemon's to validate. (The raw formats cannot carry them: those frames are black there.)
static bool measure_frames(tjhandle *decoder, const struct frame_list *list, struct fc_clip *clip) {
    bool sized = false;
    for (size_t i = 0; i < list->count; i++) {
        const struct fc_frame *frame = &list->items[i];
        if (frame->length > clip->max_jpeg_length) clip->max_jpeg_length = frame->length;
        int width, height;
        if (!frame_size(decoder, frame, &width, &height)) {
            fc_warn("frame %zu: not a readable JPEG; served as it is", i);
        } else if (!sized) {
            clip->width = (unsigned)width;
            clip->height = (unsigned)height;
            sized = true;
        } else if ((unsigned)width != clip->width || (unsigned)height != clip->height) {
            fc_warn("frame %zu: %dx%d, not the clip's %ux%u; served as it is", i, width, height, clip->width, clip->height);
        }
    }
    return sized;
}

/// Decodes one frame of the clip's size into `out`; libjpeg warnings (e.g. a few corrupt bytes)
/// still yield an image. False for a frame that is not a JPEG of the clip's size.
static bool decode(tjhandle *decoder, const struct fc_frame *frame, const struct fc_clip *clip,
                   uint8_t *out, int pixel_format) {
    int width, height;
    if (!frame_size(decoder, frame, &width, &height)) return false;
    if ((unsigned)width != clip->width || (unsigned)height != clip->height) return false;
    if (tjDecompress2(*decoder, frame->data, frame->length, out, (int)clip->width, 0,
                      (int)clip->height, pixel_format, 0) == 0)
        return true;
    bool warning = tjGetErrorCode(*decoder) == TJERR_WARNING;
    if (!warning) frame_size(decoder, &(struct fc_frame){NULL, 0}, &width, &height); // renew the handle
    return warning;
}

static uint8_t clamp_byte(int value) {
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// BT.601 limited range, as UVC cameras deliver YUYV.
static void rgb_to_yuv(const uint8_t *rgb, uint8_t *y, uint8_t *u, uint8_t *v) {
    int r = rgb[0], g = rgb[1], b = rgb[2];
    *y = clamp_byte(16 + ((66 * r + 129 * g + 25 * b + 128) >> 8));
    *u = clamp_byte(128 + ((-38 * r - 74 * g + 112 * b + 128) >> 8));
    *v = clamp_byte(128 + ((112 * r - 94 * g - 18 * b + 128) >> 8));
}

/// Packed Y0 U Y1 V: each pixel pair shares the average chroma of its two pixels. An odd last
/// pixel gets Y U only, so a line is exactly width*2 bytes.
static void rgb_to_yuyv(const uint8_t *rgb, unsigned width, unsigned height, uint8_t *out) {
    for (size_t row = 0; row < height; row++) {
        const uint8_t *in = rgb + row * width * 3;
        uint8_t *line = out + row * width * 2;
        for (unsigned x = 0; x < width; x += 2) {
            uint8_t y0, u0, v0, y1, u1, v1;
            rgb_to_yuv(in + x * 3, &y0, &u0, &v0);
            if (x + 1 < width) {
                rgb_to_yuv(in + (x + 1) * 3, &y1, &u1, &v1);
                line[x * 2 + 2] = y1;
                line[x * 2 + 3] = (uint8_t)((v0 + v1 + 1) / 2);
                u0 = (uint8_t)((u0 + u1 + 1) / 2);
            }
            line[x * 2] = y0;
            line[x * 2 + 1] = u0;
        }
    }
}

static bool decode_yuyv(tjhandle *decoder, struct fc_clip *clip) {
    size_t pixels = (size_t)clip->width * clip->height;
    uint8_t *rgb = malloc(pixels * 3);
    clip->yuyv = malloc(pixels * 2 * clip->count);
    if (rgb == NULL || clip->yuyv == NULL) {
        free(rgb);
        return false;
    }
    for (size_t i = 0; i < clip->count; i++) {
        if (!decode(decoder, &clip->jpeg[i], clip, rgb, TJPF_RGB)) {
            fc_warn("frame %zu: not a JPEG of the clip's size (YUYV frame left black)", i);
            memset(rgb, 0, pixels * 3);
        }
        rgb_to_yuyv(rgb, clip->width, clip->height, clip->yuyv + i * pixels * 2);
    }
    free(rgb);
    return true;
}

static bool decode_grey(tjhandle *decoder, struct fc_clip *clip) {
    size_t pixels = (size_t)clip->width * clip->height;
    clip->grey = malloc(pixels * clip->count);
    if (clip->grey == NULL) return false;
    for (size_t i = 0; i < clip->count; i++) {
        uint8_t *out = clip->grey + i * pixels;
        if (!decode(decoder, &clip->jpeg[i], clip, out, TJPF_GRAY)) {
            fc_warn("frame %zu: not a JPEG of the clip's size (GREY frame left black)", i);
            memset(out, 0, pixels);
        }
    }
    return true;
}

// MARK: - Loading

static void collect_frames(struct frame_list *list, const char *source) {
    struct stat info;
    if (stat(source, &info) != 0)
        fc_warn("%s: does not exist", source);
    else if (S_ISDIR(info.st_mode))
        load_directory(list, source);
    else
        load_stream_file(list, source);
}

bool fc_clip_load(struct fc_clip *clip, const char *source, const bool wanted[FC_FMT_COUNT]) {
    struct frame_list list = {0};
    collect_frames(&list, source);
    tjhandle decoder = tjInitDecompress();
    if (decoder == NULL) {
        fc_warn("turbojpeg: %s", tjGetErrorStr2(NULL));
        return false;
    }
    bool ok = measure_frames(&decoder, &list, clip);
    clip->jpeg = list.items;
    clip->count = list.count;
    if (!ok) fc_warn("%s: no readable JPEG frame to take the size from; the fake camera is disabled", source);
    if (ok && wanted[FC_FMT_YUYV]) ok = decode_yuyv(&decoder, clip);
    if (ok && wanted[FC_FMT_GREY]) ok = decode_grey(&decoder, clip);
    tjDestroy(decoder);
    return ok;
}

const uint8_t *fc_clip_frame(const struct fc_clip *clip, enum fc_format format, size_t index,
                             size_t *length) {
    size_t pixels = (size_t)clip->width * clip->height;
    switch (format) {
    case FC_FMT_YUYV:
        *length = pixels * 2;
        return clip->yuyv + index * pixels * 2;
    case FC_FMT_GREY:
        *length = pixels;
        return clip->grey + index * pixels;
    default:
        *length = clip->jpeg[index].length;
        return clip->jpeg[index].data;
    }
}

// MARK: - Playback position

static pthread_mutex_t position_lock = PTHREAD_MUTEX_INITIALIZER; // leaf lock
static uint64_t position; // frames taken from the clip so far, by every stream of the process

bool fc_clip_next(const struct fc_clip *clip, bool loop, size_t *index) {
    pthread_mutex_lock(&position_lock);
    bool available = loop || position < clip->count;
    if (available) *index = (size_t)(position++ % clip->count);
    pthread_mutex_unlock(&position_lock);
    return available;
}
