/*
 * The driver's 3-D levels by planes (core/driver.c: planes_forward, planes_inverse), on the
 * CPU. CI has no GPU; the GPU runs 3-D levels as a pass along axis 0 and then a batch of 2-D
 * levels on the planes (the backend's fused2d with nbatch > 1). Here a test backend does the
 * same with the CPU's sliding-window level (cpu/cpu_slide.c, the GPU kernels' tiles and
 * ranges) run plane by plane, and refuses chosen levels when the planner asks (core/steps.c),
 * so that the driver mixes levels by planes and separable levels in both directions (a level
 * of one kind after one of the other
 * reads the approximation the other left). A second test backend also runs forward levels in
 * one pass (the GPU's volume kernel, driver.c's LWT_LEVEL_VOLUME) as a one-level 3-D CPU plan
 * whose bands it copies through the driver's pointers and strides, refusing other levels.
 * Every result must match the CPU backend's
 * separable passes: float64 within 1e-12 of the largest coefficient, over wavelets, modes,
 * odd shapes, levels and refusal patterns; and the planes must have run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "core/backend.h"
#include "core/plan.h"
#include "cpu/cpu_slide.h"
#include "lwt.h"

typedef struct planes_backend {
    const lwt_plan *p; /* the 3-D plan */
    lwt_context *ctx;
    unsigned refuse;   /* bit j set: level j is refused (separable passes) */
    int batches;       /* batched calls run */
    unsigned refuse_volume; /* the volume backend: bit j set, forward level j is not one pass */
    int volumes;            /* forward levels run in one pass */
} planes_backend;

/* level j of the 3-D plan on nbatch planes: a one-level 2-D plan of the planes' shape, run
   by the CPU's sliding window plane by plane */
static lwt_status pb_fused2d(void *b, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                             void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                             const size_t out_bstride[4], unsigned sixteen)
{
    (void)sixteen; /* a float32 plan's: 0 */
    planes_backend *t = b;
    const lwt_plan *p = t->p;
    lwt_plan *q;
    lwt_status st = cpu_level_plan(t->ctx, p, p->sizes[level - 1][1], p->sizes[level - 1][2], &q);
    if (st)
        return st;
    CHECK(q->sizes[1][0] == p->sizes[level][1] && q->sizes[1][1] == p->sizes[level][2],
          "level %d: the planes' coefficients %zu x %zu, the volume's %zu x %zu", level, q->sizes[1][0],
          q->sizes[1][1], p->sizes[level][1], p->sizes[level][2]);
    const size_t es = lwt_plan_elem_size(p);
    for (size_t z = 0; z < nbatch && st == LWT_OK; z++) {
        const void *pin[4];
        void *pout[4];
        for (int k = 0; k < 4; k++) {
            pin[k] = in[k] ? (const char *)in[k] + z * in_bstride[k] * es : NULL;
            pout[k] = out[k] ? (char *)out[k] + z * out_bstride[k] * es : NULL;
        }
        st = lwt_cpu_slide2d(q, 1, inverse, pin, in_stride, pout, out_stride);
    }
    lwt_plan_destroy(q);
    t->batches += st == LWT_OK;
    return st;
}

/* the 3-D levels by planes but the refused ones (the planner asks) */
static const char *pb_level_kernel(const void *q, const lwt_plan *p, int level, int inverse, int planes)
{
    const planes_backend *t = q;
    (void)inverse;
    return planes && p->ndim == 3 && !(t->refuse >> level & 1) ? "test planes" : NULL;
}

static const lwt_backend_ops planes_ops = {.name = "test",
                                           .level_kernel = pb_level_kernel,
                                           .pass_kernel = cpu_pass_kernel,
                                           .run_pass = cpu_run_pass,
                                           .copy_block = cpu_copy_block,
                                           .zero_blocks = cpu_zero_blocks,
                                           .fused2d = pb_fused2d};

/* Forward level j in one pass (the GPU's volume kernel): a one-level 3-D CPU plan of the
   level's input shape, its eight bands copied to out[b] through the strides the driver gives */
static lwt_status pb_fused3d(void *b, int level, const void *in, size_t in_row, size_t in_plane, void *const out[8],
                             const size_t out_row[8], const size_t out_plane[8])
{
    planes_backend *t = b;
    const lwt_plan *p = t->p;
    const size_t *n = p->sizes[level - 1];
    lwt_plan_desc d = p->desc;
    d.levels = 1;
    d.batch = 1;
    d.backend = LWT_BACKEND_CPU;
    for (int k = 0; k < 3; k++)
        d.shape[k] = n[k];
    lwt_plan *q;
    lwt_status st = lwt_plan_create(t->ctx, &d, &q);
    if (st)
        return st;
    const size_t ni = n[0] * n[1] * n[2];
    double *x = malloc(ni * 8), *c = malloc(q->coeff_count * 8);
    for (size_t i = 0; x && i < ni; i++)
        x[i] = ((const double *)in)[i / (n[1] * n[2]) * in_plane + i / n[2] % n[1] * in_row + i % n[2]];
    st = x && c ? lwt_forward(q, x, c, NULL) : LWT_ERR_OUT_OF_MEMORY;
    for (unsigned m = 0; m < 8 && st == LWT_OK; m++) {
        lwt_band bd;
        if ((st = lwt_plan_band(q, m ? 1 : 0, m, &bd)))
            break;
        CHECK(bd.shape[0] == p->sizes[level][0] && bd.shape[1] == p->sizes[level][1] &&
                  bd.shape[2] == p->sizes[level][2],
              "level %d band %u: shape %zu x %zu x %zu", level, m, bd.shape[0], bd.shape[1], bd.shape[2]);
        for (size_t i0 = 0; i0 < bd.shape[0]; i0++)
            for (size_t i1 = 0; i1 < bd.shape[1]; i1++)
                for (size_t i2 = 0; i2 < bd.shape[2]; i2++)
                    ((double *)out[m])[i0 * out_plane[m] + i1 * out_row[m] + i2] =
                        c[((bd.offset[0] + i0) * q->packed[1] + bd.offset[1] + i1) * q->packed[2] + bd.offset[2] + i2];
    }
    free(x);
    free(c);
    lwt_plan_destroy(q);
    t->volumes += st == LWT_OK;
    return st;
}

static const char *pb_volume_kernel(const void *q, const lwt_plan *p, int level)
{
    const planes_backend *t = q;
    return p->ndim == 3 && !(t->refuse_volume >> level & 1) ? "test volume" : NULL;
}

/* the planes backend with forward levels in one pass besides */
static lwt_backend_ops volume_ops_of(void)
{
    lwt_backend_ops o = planes_ops;
    o.volume_kernel = pb_volume_kernel;
    o.fused3d = pb_fused3d;
    return o;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static double max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fabs(a[i]) > m ? fabs(a[i]) : m;
    return m;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= m)) /* NaN fails */
            m = fabs(a[i] - b[i]);
    return m;
}

static int cases;

static void run_case(lwt_context *ctx, const char *name, const size_t shape[3], int levels, lwt_mode mode,
                     unsigned refuse)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "no wavelet %s", name);
        return;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 3;
    for (int k = 0; k < 3; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = mode;
    d.dtype = LWT_F64;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan *p;
    if (lwt_plan_create(ctx, &d, &p) != LWT_OK) {
        CHECK(0, "%s %s: no plan", name, lwt_mode_name(mode));
        lwt_wavelet_destroy(w);
        return;
    }
    const size_t ni = p->input_count, nc = p->coeff_count;
    double *x = malloc(ni * 8), *cref = malloc(nc * 8), *c = malloc(nc * 8), *yref = malloc(ni * 8),
           *y = malloc(ni * 8), *ws = malloc(2 * p->buf_elems * 8);
    for (size_t i = 0; i < ni; i++)
        x[i] = xs_rnd(&rng);
    memset(c, 0xff, nc * 8); /* poison: every coefficient, gaps included, must be written */
    memset(y, 0xff, ni * 8);
    planes_backend t = {p, ctx, refuse, 0, 0, 0};
    const lwt_status s1 = lwt_forward(p, x, cref, NULL), s2 = run_on(p, &planes_ops, &t, x, c, ws, 0);
    const int fwd_batches = t.batches;
    const lwt_status s3 = lwt_inverse(p, cref, yref, NULL), s4 = run_on(p, &planes_ops, &t, cref, y, ws, 1);
    cases++;
    const double ec = max_diff(c, cref, nc) / max_abs(cref, nc), ey = max_diff(y, yref, ni) / max_abs(yref, ni);
    CHECK(!s1 && !s2 && !s3 && !s4 && ec <= 1e-12 && ey <= 1e-12,
          "%s %s %zux%zux%zu L%d refuse %#x: forward %.2e, inverse %.2e (status %d %d %d %d)", name,
          lwt_mode_name(mode), shape[0], shape[1], shape[2], levels, refuse, ec, ey, s1, s2, s3, s4);
    /* two batches (halves) per level the planes take, in each direction */
    int taken = 0;
    for (int j = 1; j <= levels; j++)
        taken += !(refuse >> j & 1);
    CHECK(fwd_batches == 2 * taken && t.batches == 4 * taken, "%s %s L%d refuse %#x: %d and %d batches, not %d",
          name, lwt_mode_name(mode), levels, refuse, fwd_batches, t.batches - fwd_batches, 2 * taken);
    /* forward levels in one pass where the volume backend takes them (the others by planes or
       separable passes, as refused), each band written through the driver's pointers */
    const unsigned refuse_volume = refuse >> 1 | (refuse & 1u << levels);
    planes_backend tv = {p, ctx, refuse, 0, refuse_volume, 0};
    memset(c, 0xff, nc * 8);
    const lwt_backend_ops volume_ops = volume_ops_of();
    const lwt_status s5 = run_on(p, &volume_ops, &tv, x, c, ws, 0);
    const double ev = max_diff(c, cref, nc) / max_abs(cref, nc);
    int volumes = 0;
    for (int j = 1; j <= levels; j++)
        volumes += !(refuse_volume >> j & 1);
    CHECK(!s5 && ev <= 1e-12 && tv.volumes == volumes, "%s %s L%d refuse %#x/%#x: volume forward %.2e, %d of %d levels "
          "in one pass (status %d)", name, lwt_mode_name(mode), levels, refuse, refuse_volume, ev, tv.volumes, volumes,
          s5);
    free(x);
    free(cref);
    free(c);
    free(yref);
    free(y);
    free(ws);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

int main(void)
{
    lwt_context *ctx;
    lwt_context_create(&ctx);
    const char *names[] = {"haar", "db2", "bior2.2", "bior4.4", "db4", "sym5", "coif2", "db10"};
    /* refusals: none; the coarsest level; the finest; every other one */
    const unsigned refuse[] = {0, 1u << 3, 1u << 1, 0x5u << 1};
    for (int i = 0; i < 8; i++)
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            const size_t s[3] = {13 + (size_t)i, 22 + (size_t)mode, 19 + 2 * (size_t)i};
            run_case(ctx, names[i], s, 3, (lwt_mode)mode, refuse[(i + mode) % 4]);
        }
    /* every refusal pattern on one wavelet and mode; planes of several strips and tile rows */
    for (unsigned r = 0; r < 8; r++) {
        const size_t s[3] = {11, 67, 301};
        run_case(ctx, "bior4.4", s, 3, LWT_MODE_SYMMETRIC, r << 1);
        run_case(ctx, "db2", s, 3, LWT_MODE_PERIODIZATION, r << 1);
    }
    CHECK(cases == 8 * LWT_MODE_COUNT + 16, "ran %d cases", cases);
    lwt_context_destroy(ctx);
    printf("test_planes: %d cases\n", cases);
    return finish("test_planes");
}
