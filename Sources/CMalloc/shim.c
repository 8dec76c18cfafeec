// cmalloc_trim is static inline in include/cmalloc.h; this file makes the target a C target.
#include "cmalloc.h"
