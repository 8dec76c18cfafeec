// FAKECAM_* environment variables (read once) and logging.
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fakecam_internal.h"
#include "include/fakecam.h"

// Written only inside `load_once` (pthread_once), read-only afterwards: no lock needed.
static struct fc_config config;
static bool config_active;
static bool log_enabled;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

// True on the thread that is loading the configuration. If anything we call while loading
// came back into one of our wrappers, pthread_once would deadlock on itself; instead the
// wrapper sees "no fake device" and passes the call through.
static _Thread_local bool loading_on_this_thread;

// MARK: - Logging

static void log_line(const char *format, va_list args) {
    char line[512];
    int prefix = snprintf(line, sizeof line, "fakecam[%d]: ", (int)getpid());
    int length = prefix + vsnprintf(line + prefix, sizeof line - (size_t)prefix - 1, format, args);
    if (length > (int)sizeof line - 2) length = (int)sizeof line - 2;
    line[length++] = '\n';
    // The real write: stderr is never a fake descriptor, but there is no reason to go round.
    ssize_t ignored = fc_real()->write(STDERR_FILENO, line, (size_t)length);
    (void)ignored;
}

void fc_log(const char *format, ...) {
    if (!log_enabled) return;
    va_list args;
    va_start(args, format);
    log_line(format, args);
    va_end(args);
}

void fc_warn(const char *format, ...) {
    va_list args;
    va_start(args, format);
    log_line(format, args);
    va_end(args);
}

// MARK: - Parsing

/// Unsigned integer variable in [min, max]; `fallback` (with a warning) when unset or invalid.
static unsigned long env_number(const char *name, unsigned long fallback, unsigned long min,
                                unsigned long max) {
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') return fallback;
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || text[0] == '-' || value < min || value > max) {
        fc_warn("%s=%s is not a number in %lu...%lu; using %lu", name, text, min, max, fallback);
        return fallback;
    }
    return value;
}

static void parse_paths(void) {
    const char *device = getenv(FAKECAM_ENV_DEVICE);
    if (device == NULL || *device == '\0') device = FAKECAM_DEFAULT_DEVICE;
    snprintf(config.device_path, sizeof config.device_path, "%s", device);

    const char *by_id = getenv(FAKECAM_ENV_BY_ID);
    if (by_id != NULL && *by_id != '\0')
        snprintf(config.by_id_path, sizeof config.by_id_path, "%s%s", FAKECAM_BY_ID_DIRECTORY, by_id);
}

static void add_format(enum fc_format format) {
    for (unsigned i = 0; i < config.format_count; i++)
        if (config.formats[i] == format) return;
    config.formats[config.format_count++] = format;
}

/// FAKECAM_FORMATS: comma separated, spaces allowed, unknown names warned about and skipped.
static void parse_formats(void) {
    const char *text = getenv(FAKECAM_ENV_FORMATS);
    if (text != NULL) {
        char list[128];
        snprintf(list, sizeof list, "%s", text);
        char *saveptr = NULL;
        for (char *item = strtok_r(list, ", \t", &saveptr); item != NULL;
             item = strtok_r(NULL, ", \t", &saveptr)) {
            enum fc_format format;
            if (fc_format_parse(item, &format))
                add_format(format);
            else
                fc_warn("%s: unknown format \"%s\" ignored (MJPG, YUYV, GREY)", FAKECAM_ENV_FORMATS, item);
        }
    }
    if (config.format_count == 0) add_format(FC_FMT_MJPG);
}

/// The frame rates offered: FAKECAM_FPS, plus 15 fps as a second choice (like a camera that
/// can also run slower), fastest first.
static void parse_rates(void) {
    config.fps = (unsigned)env_number(FAKECAM_ENV_FPS, 30, 1, 1000);
    config.rate_count = 0;
    if (config.fps > 15) config.rates[config.rate_count++] = config.fps;
    config.rates[config.rate_count++] = 15;
    if (config.fps < 15) config.rates[config.rate_count++] = config.fps;
    for (unsigned i = 0; i < config.rate_count; i++)
        if (config.rates[i] == config.fps) config.default_rate = i;
}

static void parse_behaviour(void) {
    config.loop = env_number(FAKECAM_ENV_LOOP, 1, 0, 1) == 1;
    config.unplug_after = env_number(FAKECAM_ENV_UNPLUG_AFTER, 0, 0, ULONG_MAX);
    config.replug_after_ms = env_number(FAKECAM_ENV_REPLUG_AFTER_MS, 0, 0, 86400000UL);
    config.corrupt_every = env_number(FAKECAM_ENV_CORRUPT_EVERY, 0, 0, ULONG_MAX);
}

static bool load_clip(const char *source) {
    bool wanted[FC_FMT_COUNT] = {false};
    for (unsigned i = 0; i < config.format_count; i++) wanted[config.formats[i]] = true;
    return fc_clip_load(&config.clip, source, wanted);
}

static void load_once(void) {
    loading_on_this_thread = true;
    const char *log = getenv(FAKECAM_ENV_LOG);
    log_enabled = log != NULL && strcmp(log, "1") == 0;

    const char *frames = getenv(FAKECAM_ENV_FRAMES);
    if (frames != NULL && *frames != '\0') {
        parse_paths();
        parse_formats();
        parse_rates();
        parse_behaviour();
        config_active = load_clip(frames);
        if (config_active)
            fc_log("%s: %zu frames of %ux%u from %s, %u fps, %u format(s)", config.device_path,
                   config.clip.count, config.clip.width, config.clip.height, frames, config.fps,
                   config.format_count);
    }
    loading_on_this_thread = false;
}

const struct fc_config *fc_config(void) {
    if (loading_on_this_thread) return NULL;
    pthread_once(&config_once, load_once);
    return config_active ? &config : NULL;
}

bool fc_config_has_format(const struct fc_config *cfg, uint32_t fourcc, enum fc_format *format) {
    for (unsigned i = 0; i < cfg->format_count; i++) {
        if (fc_format_fourcc(cfg->formats[i]) == fourcc) {
            *format = cfg->formats[i];
            return true;
        }
    }
    return false;
}

// "Load all frames into memory at startup": do it when the library is loaded rather than at
// the first open(), so a test's timing is not disturbed by decoding. open() may still run
// before this constructor (another library's constructor); pthread_once covers that.
__attribute__((constructor)) static void load_at_startup(void) {
    (void)fc_config();
}
