/*
 * The generic sliding-window body (core/slide_body.h) compiled for the GPU in
 * its three type pairs: element float / work float (_ff), float / double
 * (_fd), double / double (_dd). Included inside an anonymous namespace by the
 * kernels that use it (cuda_slide.cu, cuda_slide_regs.cu for its edge loads).
 */
#define LWT_SLIDE_FN static __device__
#define LWT_SLIDE_SYNC() __syncthreads()

#define REAL float
#define WREAL float
#define FN(name) name##_ff
#include "core/slide_body.h"
#undef REAL
#undef WREAL
#undef FN

#define REAL float
#define WREAL double
#define FN(name) name##_fd
#include "core/slide_body.h"
#undef REAL
#undef WREAL
#undef FN

#define REAL double
#define WREAL double
#define FN(name) name##_dd
#include "core/slide_body.h"
#undef REAL
#undef WREAL
#undef FN
