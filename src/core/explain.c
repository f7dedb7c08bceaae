/* lwt_plan_explain: a plan's steps (core/steps.h) as text, one line per pass or kernel. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/plan.h"
#include "core/steps.h"

typedef struct text {
    char *buf;
    size_t len, used; /* used: the whole text's length, also past len */
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const size_t room = t->used < t->len ? t->len - t->used : 0;
    const int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

/* "axis 1" or "axes 0,1,2" */
static void put_axes(text *t, int first, int last)
{
    if (first == last) {
        put(t, "axis %d", first);
        return;
    }
    put(t, "axes ");
    for (int k = first; k <= last; k++)
        put(t, k > first ? ",%d" : "%d", k);
}

/* where forward level j leaves its approximation */
static const char *approx_dest(const lwt_plan *p, int j)
{
    return j == p->levels ? "cA to the packed array" : "cA to the workspace";
}

static void line_start(text *t, int inverse, int level)
{
    put(t, "%s level %d ", inverse ? "inverse" : "forward", level);
}

static void explain_forward(const lwt_plan *p, const lwt_level_step *st, text *t)
{
    const int j = st->level, last = p->ndim - 1;
    const char *be = p->ops->name;
    switch (st->op) {
    case LWT_LEVEL_PAIR2D:
        put(t, "forward levels %d,%d axes 0,1: %s (%s) -> level %d's details and level %d's bands to the packed "
               "array, %s; level %d's cA never stored\n",
            j, j + 1, st->kernel[0], be, j, j + 1, approx_dest(p, j + 1), j);
        return;
    case LWT_LEVEL_FUSED2D:
        line_start(t, 0, j);
        put(t, "axes 0,1: %s (%s) -> bands to the packed array, %s\n", st->kernel[0], be, approx_dest(p, j));
        return;
    case LWT_LEVEL_VOLUME:
        line_start(t, 0, j);
        put(t, "axes 0,1,2: %s (%s) -> bands to the packed array, %s\n", st->kernel[0], be, approx_dest(p, j));
        return;
    case LWT_LEVEL_PLANES:
        line_start(t, 0, j);
        put(t, "axis 0: %s (%s) -> workspace\n", st->kernel[0], be);
        line_start(t, 0, j);
        put(t, "axes 1,2: %s on the planes (%s) -> bands to the packed array, %s\n", st->kernel[1], be,
            approx_dest(p, j));
        return;
    case LWT_LEVEL_ROWS:
        line_start(t, 0, j);
        put(t, "axis 0: %s over the %zu signals as rows (%s) -> each cD to its packed array, %s\n", st->kernel[0],
            p->desc.batch, be, j == p->levels ? "cA to its packed array" : "cA to the workspace");
        return;
    case LWT_LEVEL_PASSES:
    case LWT_LEVEL_PASSES_MAP:
        for (int k = 0; k <= last; k++) {
            line_start(t, 0, j);
            put_axes(t, k, k);
            put(t, ": %s (%s) -> ", st->kernel[k], be);
            if (k < last)
                put(t, "workspace\n");
            else if (st->op == LWT_LEVEL_PASSES_MAP)
                put(t, "bands to the packed array through a map, %s\n", approx_dest(p, j));
            else
                put(t, "workspace\n");
        }
        if (st->op == LWT_LEVEL_PASSES) {
            line_start(t, 0, j);
            put_axes(t, 0, last);
            put(t, ": copy (%s) -> detail bands to the packed array, %s\n", be, approx_dest(p, j));
        }
        return;
    }
}

static void explain_inverse(const lwt_plan *p, const lwt_level_step *st, text *t)
{
    const int j = st->level, last = p->ndim - 1;
    const char *be = p->ops->name, *to = j == 1 ? "the output" : "workspace";
    switch (st->op) {
    case LWT_LEVEL_PAIR2D: /* forward only */
    case LWT_LEVEL_VOLUME:
        return;
    case LWT_LEVEL_FUSED2D:
        line_start(t, 1, j);
        put(t, "axes 1,0: %s (%s), bands read in place -> %s\n", st->kernel[0], be, to);
        return;
    case LWT_LEVEL_PLANES:
        line_start(t, 1, j);
        put(t, "axes 2,1: %s on the planes (%s), bands read in place -> workspace\n", st->kernel[1], be);
        line_start(t, 1, j);
        put(t, "axis 0: %s (%s) -> %s\n", st->kernel[0], be, to);
        return;
    case LWT_LEVEL_ROWS:
        line_start(t, 1, j);
        put(t, "axis 0: %s over the %zu signals as rows (%s), bands read in place -> %s\n", st->kernel[0],
            p->desc.batch, be, to);
        return;
    case LWT_LEVEL_PASSES:
    case LWT_LEVEL_PASSES_MAP:
        if (st->op == LWT_LEVEL_PASSES) {
            line_start(t, 1, j);
            put_axes(t, 0, last);
            put(t, ": copy (%s) -> the level's bands assembled in the workspace\n", be);
        }
        for (int k = last, i = 0; k >= 0; k--, i++) {
            line_start(t, 1, j);
            put_axes(t, k, k);
            put(t, ": %s (%s)%s -> %s\n", st->kernel[i], be,
                k == last && st->op == LWT_LEVEL_PASSES_MAP ? ", bands read in place through a map" : "",
                k == 0 ? to : "workspace");
        }
        return;
    }
}

/* lifting or the filter bank, and why (core/path_table.h), at the end of the header line */
static void explain_path(const lwt_plan *p, text *t)
{
    const char *dt = p->desc.dtype == LWT_F32 ? "float32" : "float64", *w = p->wavelet.name;
    put(t, "; path: %s", p->direct ? "filter bank" : "lifting");
    if (p->path_forced)
        put(t, " (the plan's algorithm asks for it)");
    else if (p->path_why == LWT_PATH_WHY_NO_SCHEME)
        put(t, " (auto: %s has no lifting scheme within its %s bound)", w, dt);
    else if (p->path_why == LWT_PATH_WHY_MODE)
        put(t, " (auto: %s's lifting misses its %s bound in %s mode, measured table of docs/ACCURACY.md)", w, dt,
            lwt_mode_name(p->desc.mode));
    else
        put(t, " (auto: %s's lifting meets its %s bound in %s mode)", w, dt, lwt_mode_name(p->desc.mode));
}

lwt_status lwt_plan_explain(const lwt_plan *p16, char *buf, size_t len, size_t *needed)
{
    if (!p16 || (!buf && len))
        return LWT_ERR_INVALID_ARGUMENT;
    text t = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    const lwt_plan *p = lwt_plan_compute(p16);
    const char *h = p16->desc.dtype == LWT_F16 ? "float16" : "bfloat16";
    if (p16->f32 && p16->half_fused) /* lwt_driver_run_half: src/cuda/cuda_half.cu, src/cpu/cpu_level_tmpl.h */
        put(&t, "%s storage, fused: each level's kernel below reads and writes %s where a value is input or "
                "final and float32 between levels, computing in float32, each result rounded once to %s (to "
                "nearest, ties to even)%s\n",
            h, h, h, p->ops == &lwt_cpu_ops ? "" : "; host arrays go to the device and back in 16 bits");
    else if (p16->f32) /* core/half_plan.c */
        put(&t, "%s storage: the input widened to float32 (exact), the float32 plan below, each result rounded "
                "once to %s (to nearest, ties to even)\n",
            h, h);
    put(&t, "plan: %s, %d-D, %d level%s, %s, %s, %s backend", p->wavelet.name, p->ndim, p->levels,
        p->levels == 1 ? "" : "s", lwt_mode_name(p->desc.mode), p->desc.dtype == LWT_F32 ? "float32" : "float64",
        p->ops->name);
    if (p->ops == &lwt_cpu_ops) /* the instruction set of its passes (lwt_plan_tuning.cpu_simd) */
        put(&t, " (%s passes)", lwt_cpu_simd_name(p->simd));
    const int rows = p->steps.n[0] && p->steps.v[0][0].op == LWT_LEVEL_ROWS;
    if (p->desc.batch > 1)
        put(&t, ", batch of %zu%s", p->desc.batch,
            rows                   ? ""
            : p->steps.batch_levels ? " (each level runs on the whole batch in one call)"
                                    : " (the steps run for each array in turn)");
    explain_path(p, &t);
    put(&t, "\n");
    if (p->levels == 0)
        put(&t, "no levels: forward and inverse copy the array\n");
    for (int i = 0; i < p->steps.n[0]; i++)
        explain_forward(p, &p->steps.v[0][i], &t);
    for (int i = 0; i < p->steps.n[1]; i++)
        explain_inverse(p, &p->steps.v[1][i], &t);
    if (needed)
        *needed = t.used + 1;
    if (len && t.used >= len)
        buf[len - 1] = '\0';
    return LWT_OK;
}
