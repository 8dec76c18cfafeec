#ifndef SCANNERD_CV4L2_SHIM_H
#define SCANNERD_CV4L2_SHIM_H
/* The V4L2 kernel interface (linux/videodev2.h), called with plain syscalls. We do not go through
   libv4l2: its conversion layer would offer software-converted formats (RGB3/BGR3/YU12 made from MJPEG
   on the CPU) and hide the raw MJPEG we decode faster ourselves, gray and DCT-scaled, with turbojpeg.
   scannerd needs only MJPEG, YUYV and GREY, which UVC cameras deliver natively. */
#include <fcntl.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>

/* ioctl and open are variadic; Swift cannot call variadic C functions. */
static inline int cv4l2_ioctl(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
static inline int cv4l2_open(const char *path, int flags) { return open(path, flags); }

/* VIDIOC_* request codes are _IOWR(...) macros that Swift cannot import. */
static inline unsigned long cv4l2_VIDIOC_QUERYCAP(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FMT(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FRAMESIZES(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FRAMEINTERVALS(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
static inline unsigned long cv4l2_VIDIOC_S_FMT(void) { return VIDIOC_S_FMT; }
static inline unsigned long cv4l2_VIDIOC_S_PARM(void) { return VIDIOC_S_PARM; }
static inline unsigned long cv4l2_VIDIOC_REQBUFS(void) { return VIDIOC_REQBUFS; }
static inline unsigned long cv4l2_VIDIOC_QUERYBUF(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long cv4l2_VIDIOC_QBUF(void) { return VIDIOC_QBUF; }
static inline unsigned long cv4l2_VIDIOC_DQBUF(void) { return VIDIOC_DQBUF; }
static inline unsigned long cv4l2_VIDIOC_STREAMON(void) { return VIDIOC_STREAMON; }
static inline unsigned long cv4l2_VIDIOC_STREAMOFF(void) { return VIDIOC_STREAMOFF; }
static inline unsigned long cv4l2_VIDIOC_QUERYCTRL(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long cv4l2_VIDIOC_S_CTRL(void) { return VIDIOC_S_CTRL; }

/* Pixel formats are v4l2_fourcc(...) macros. */
static inline unsigned int cv4l2_PIX_FMT_MJPEG(void) { return V4L2_PIX_FMT_MJPEG; }
static inline unsigned int cv4l2_PIX_FMT_YUYV(void) { return V4L2_PIX_FMT_YUYV; }
static inline unsigned int cv4l2_PIX_FMT_GREY(void) { return V4L2_PIX_FMT_GREY; }

/* Control ids are sums of class bases. */
static inline unsigned int cv4l2_CID_BRIGHTNESS(void) { return V4L2_CID_BRIGHTNESS; }
static inline unsigned int cv4l2_CID_POWER_LINE_FREQUENCY(void) { return V4L2_CID_POWER_LINE_FREQUENCY; }
static inline unsigned int cv4l2_CID_EXPOSURE_AUTO(void) { return V4L2_CID_EXPOSURE_AUTO; }
static inline unsigned int cv4l2_CID_EXPOSURE_ABSOLUTE(void) { return V4L2_CID_EXPOSURE_ABSOLUTE; }
static inline unsigned int cv4l2_CID_FOCUS_AUTO(void) { return V4L2_CID_FOCUS_AUTO; }
static inline unsigned int cv4l2_CID_FOCUS_ABSOLUTE(void) { return V4L2_CID_FOCUS_ABSOLUTE; }
static inline unsigned int cv4l2_CID_ZOOM_ABSOLUTE(void) { return V4L2_CID_ZOOM_ABSOLUTE; }
#endif
