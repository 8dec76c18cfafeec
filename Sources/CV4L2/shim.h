#ifndef SCANNERD_CV4L2_SHIM_H
#define SCANNERD_CV4L2_SHIM_H
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/ioctl.h>

/* VIDIOC_* request codes are _IOWR(...) macros that Swift cannot import: export them as functions. */
static inline unsigned long cv4l2_querycap(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long cv4l2_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long cv4l2_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long cv4l2_enum_frameintervals(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
static inline unsigned long cv4l2_g_fmt(void) { return VIDIOC_G_FMT; }
static inline unsigned long cv4l2_s_fmt(void) { return VIDIOC_S_FMT; }
static inline unsigned long cv4l2_try_fmt(void) { return VIDIOC_TRY_FMT; }
static inline unsigned long cv4l2_g_parm(void) { return VIDIOC_G_PARM; }
static inline unsigned long cv4l2_s_parm(void) { return VIDIOC_S_PARM; }
static inline unsigned long cv4l2_reqbufs(void) { return VIDIOC_REQBUFS; }
static inline unsigned long cv4l2_querybuf(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long cv4l2_qbuf(void) { return VIDIOC_QBUF; }
static inline unsigned long cv4l2_dqbuf(void) { return VIDIOC_DQBUF; }
static inline unsigned long cv4l2_streamon(void) { return VIDIOC_STREAMON; }
static inline unsigned long cv4l2_streamoff(void) { return VIDIOC_STREAMOFF; }
static inline unsigned long cv4l2_queryctrl(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long cv4l2_g_ctrl(void) { return VIDIOC_G_CTRL; }
static inline unsigned long cv4l2_s_ctrl(void) { return VIDIOC_S_CTRL; }
static inline unsigned long cv4l2_g_ext_ctrls(void) { return VIDIOC_G_EXT_CTRLS; }
static inline unsigned long cv4l2_s_ext_ctrls(void) { return VIDIOC_S_EXT_CTRLS; }

/* v4l2_ioctl is variadic; Swift cannot call variadic C functions. */
static inline int cv4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
static inline int cv4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
#endif
