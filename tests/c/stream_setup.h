/* A stream description with its experimental tuning, and one streamed call on a streamer made
 * for it (what lwt_stream_forward / lwt_stream_inverse do, with tuning). Shared by test_stream.c
 * and tests/gpu/test_gpu_stream.c. */
#ifndef LWT_TEST_STREAM_SETUP_H
#define LWT_TEST_STREAM_SETUP_H

#include <string.h>

#include "lwt_experimental.h"
#include "lwt_stream.h"

typedef struct stream_setup {
    lwt_stream_desc d;
    lwt_stream_tuning t;
} stream_setup;

static inline lwt_status stream_tuned_call_scratch(const lwt_plan *p, const stream_setup *su, const void *in,
                                                   void *out, void *scratch, lwt_stream_report *rep, int inverse)
{
    if (rep)
        memset(rep, 0, sizeof *rep);
    lwt_streamer *s = NULL;
    lwt_status st = lwt_streamer_create_tuned(p, &su->d, &su->t, &s);
    if (st == LWT_OK)
        st = inverse ? lwt_streamer_inverse(s, in, out, scratch, rep) : lwt_streamer_forward(s, in, out, scratch, rep);
    lwt_streamer_destroy(s);
    return st;
}

static inline lwt_status stream_tuned_call(const lwt_plan *p, const stream_setup *su, const void *in, void *out,
                                           lwt_stream_report *rep, int inverse)
{
    return stream_tuned_call_scratch(p, su, in, out, NULL, rep, inverse);
}

/* bytes of an element of dtype t, and its short name */
static inline size_t elem_size(lwt_dtype t)
{
    return t == LWT_F64 ? 8 : t == LWT_F32 ? 4 : 2;
}

static inline const char *dtype_name(lwt_dtype t)
{
    return t == LWT_F64 ? "f64" : t == LWT_F32 ? "f32" : t == LWT_F16 ? "f16" : "bf16";
}

#endif
