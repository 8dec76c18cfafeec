#ifndef SCANNERD_CZBAR_SHIM_H
#define SCANNERD_CZBAR_SHIM_H
#include <zbar.h>

/* zbar_fourcc is a macro; Swift cannot import it. Gray 8-bit ("Y800") is the only
   format we hand to zbar: the decoder already produced luma. */
static inline unsigned long czbar_fourcc_y800(void) { return zbar_fourcc('Y', '8', '0', '0'); }

#endif
