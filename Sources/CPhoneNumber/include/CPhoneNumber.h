#ifndef SCANNERD_CPHONENUMBER_H
#define SCANNERD_CPHONENUMBER_H
/* A C ABI over the parts of libphonenumber (C++) that scannerd uses: the text matcher and
   E.164 formatting. Swift imports this header only; the C++ stays in phonenumber_shim.cpp. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mirrors phonenumbers::PhoneNumberMatcher::Leniency. */
typedef enum {
    CPN_LENIENCY_POSSIBLE = 0,
    CPN_LENIENCY_VALID = 1,
    CPN_LENIENCY_STRICT_GROUPING = 2,
    CPN_LENIENCY_EXACT_GROUPING = 3,
} cpn_leniency;

typedef struct {
    /* Byte range of the match in the UTF-8 text that was searched. */
    int32_t start;
    int32_t length;
    /* The number formatted as E.164 ("+14155550123"), NUL-terminated. */
    char e164[24];
} cpn_match;

/* Finds phone numbers in `utf8_text` as libphonenumber's PhoneNumberMatcher does, for numbers written
   without a country code assumed to be in `region` (ISO 3166 alpha-2, e.g. "US").
   Writes at most `capacity` matches to `out` and returns how many were found (which may exceed
   `capacity`), or -1 if `region` is not a region libphonenumber knows. */
int32_t cpn_find_numbers(const char *utf8_text, const char *region, cpn_leniency leniency,
                         cpn_match *out, int32_t capacity);

/* 1 if libphonenumber has metadata for `region`, else 0. */
int32_t cpn_is_supported_region(const char *region);

#ifdef __cplusplus
}
#endif
#endif
