#include "CLeptonica.h"

#include <stdarg.h>
#include <stdio.h>
/* libtiff is Leptonica's own dependency; it is named here only to take its messages. */
#include <tiffio.h>

static _Thread_local int errors;
static _Thread_local char first_error[200];

static void note_error(const char *text) {
    if (errors++ == 0) {
        snprintf(first_error, sizeof first_error, "%s", text);
        for (char *p = first_error; *p; p++) if (*p == '\n') *p = '\0';
    }
}

/* With the message severity at L_SEVERITY_NONE, what still reaches lept_stderr is printed
 * unconditionally, and it means damage: "Bad file: amount too big: 192" once per strip that lies past
 * the end of a truncated TIFF, while Leptonica goes on and returns the image with those rows blank. */
static void leptonica_message(const char *text) { note_error(text); }

static void tiff_error(const char *module, const char *format, va_list arguments) {
    (void)module;
    char text[200];
    vsnprintf(text, sizeof text, format, arguments);
    note_error(text);
}

static void tiff_warning(const char *module, const char *format, va_list arguments) {
    (void)module; (void)format; (void)arguments;
}

void clept_take_library_messages(void) {
    leptSetStderrHandler(leptonica_message);
    TIFFSetErrorHandler(tiff_error);
    TIFFSetWarningHandler(tiff_warning);
}

void clept_reset_errors(void) {
    errors = 0;
    first_error[0] = '\0';
}

int clept_error_count(void) { return errors; }
const char *clept_first_error_text(void) { return first_error; }
