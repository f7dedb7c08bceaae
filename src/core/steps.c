/*
 * The planner: for every level of both directions, what runs (steps.h). The
 * order of preference is the driver's fastest first: two 2-D levels in one
 * pass, one 2-D level in one pass, a 3-D forward level in one pass, a 3-D level by planes, passes whose last
 * (forward) or first (inverse) one moves the bands through a map, and plain
 * passes with the bands copied. The shapes of the passes are the driver's
 * (plan.c), so the backend answers for exactly the passes that will run.
 */
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/line.h"
#include "core/plan.h"
#include "core/steps.h"

/* the backend's kernel for one pass of the driver; with_map: through a band map */
static const char *pass_kernel(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int axis, int inverse,
                               const size_t *shape_in, long n_out, int with_map)
{
    lwt_line_prog prog;
    lwt_pass ps;
    static const lwt_dest_map any_map; /* a non-NULL map: its contents are the driver's business */
    lwt_plan_pass(p, axis, inverse, shape_in, n_out, &prog, &ps);
    ps.map = with_map ? &any_map : NULL;
    return ops->pass_kernel ? ops->pass_kernel(q, p, &ps) : with_map ? NULL : "pass";
}

/* level j of a batch of 1-D signals as rows; 0 when its pass cannot take the map */
static int rows_step(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int inverse, int j,
                     lwt_level_step *st)
{
    const size_t B = p->desc.batch;
    const size_t shape[LWT_MAX_NDIM] = {B, inverse ? 2 * p->sizes[j][0] : p->sizes[j - 1][0], 1};
    st->op = LWT_LEVEL_ROWS;
    st->level = j;
    st->kernel[0] = pass_kernel(p, ops, q, 1, inverse, shape, (long)p->sizes[j - 1][0], 1);
    return st->kernel[0] != NULL;
}

/* a batch of 1-D signals as rows, every level of a direction (in its order) or none:
   the number of steps, 0 when some level's pass cannot take the map */
static int batch_as_rows(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int inverse,
                         lwt_level_step *v)
{
    if (p->ndim != 1 || p->desc.batch < 2 || p->levels < 1)
        return 0;
    for (int i = 0; i < p->levels; i++)
        if (!rows_step(p, ops, q, inverse, inverse ? p->levels - i : i + 1, &v[i])) {
            memset(v, 0, sizeof *v * (size_t)p->levels);
            return 0;
        }
    return p->levels;
}

/* the separable passes of forward level j: the map on the last axis where the backend takes it */
static lwt_status forward_passes(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int j,
                                 lwt_level_step *st)
{
    size_t shape[LWT_MAX_NDIM];
    memcpy(shape, p->sizes[j - 1], sizeof shape);
    st->op = LWT_LEVEL_PASSES;
    for (int k = 0; k < p->ndim; k++) {
        const char *kn = NULL;
        if (k == p->ndim - 1 && (kn = pass_kernel(p, ops, q, k, 0, shape, 0, 1)))
            st->op = LWT_LEVEL_PASSES_MAP;
        if (!kn && !(kn = pass_kernel(p, ops, q, k, 0, shape, 0, 0)))
            return LWT_ERR_INTERNAL;
        st->kernel[k] = kn;
        shape[k] = 2 * p->sizes[j][k];
    }
    return LWT_OK;
}

/* the separable passes of inverse level j, last axis first: the map on the first */
static lwt_status inverse_passes(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int j,
                                 lwt_level_step *st)
{
    size_t shape[LWT_MAX_NDIM] = {1, 1, 1};
    for (int k = 0; k < p->ndim; k++)
        shape[k] = 2 * p->sizes[j][k];
    st->op = LWT_LEVEL_PASSES;
    for (int k = p->ndim - 1, i = 0; k >= 0; k--, i++) {
        const long n_out = (long)p->sizes[j - 1][k];
        const char *kn = NULL;
        if (k == p->ndim - 1 && (kn = pass_kernel(p, ops, q, k, 1, shape, n_out, 1)))
            st->op = LWT_LEVEL_PASSES_MAP;
        if (!kn && !(kn = pass_kernel(p, ops, q, k, 1, shape, n_out, 0)))
            return LWT_ERR_INTERNAL;
        st->kernel[i] = kn;
        shape[k] = (size_t)n_out;
    }
    return LWT_OK;
}

/* level j in one sliding-window step where the backend runs it: a 2-D level, or the 2-D
   levels on the planes of a 3-D one around its pass along axis 0 (before the planes in
   the forward, after them in the inverse). 1: planned; 0: not; -1: no pass for axis 0. */
static int fused_step(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int j, int inverse,
                      lwt_level_step *st)
{
    const int planes = p->ndim == 3;
    const char *kn = p->ndim >= 2 && ops->level_kernel ? ops->level_kernel(q, p, j, inverse, planes) : NULL;
    if (!kn)
        return 0;
    if (!planes) {
        st->op = LWT_LEVEL_FUSED2D;
        st->kernel[0] = kn;
        return 1;
    }
    const size_t zshape[LWT_MAX_NDIM] = {2 * p->sizes[j][0], p->sizes[j - 1][1], p->sizes[j - 1][2]};
    st->op = LWT_LEVEL_PLANES;
    st->kernel[1] = kn;
    st->kernel[0] = inverse ? pass_kernel(p, ops, q, 0, 1, zshape, (long)p->sizes[j - 1][0], 0)
                            : pass_kernel(p, ops, q, 0, 0, p->sizes[j - 1], 0, 0);
    return st->kernel[0] ? 1 : -1;
}

/* the backend's pair of forward levels j, j + 1 of a 2-D plan in one step, or NULL */
static const char *pair_step(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int j)
{
    return p->ndim == 2 && !p->direct && j < p->levels && ops->pair_kernel ? ops->pair_kernel(q, p, j) : NULL;
}

/* the backend's forward level j of a 3-D plan in one pass, or NULL */
static const char *volume_step(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, int j)
{
    return p->ndim == 3 && !p->direct && ops->volume_kernel ? ops->volume_kernel(q, p, j) : NULL;
}

/* A batch of 2-D arrays whose every level, both ways, the backend runs on a batch in one call
   (level_kernel's planes question: the kernels that take batches of planes): the FUSED2D steps
   of every level, run level by level over the whole batch (driver.c), and forward levels in
   pairs where the backend pairs them (its pair kernel takes batches too). 1: planned; 0: not.
   Measured: docs/PERFORMANCE.md, "Batches of 2-D arrays in one launch per level". */
static int batch_levels(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, lwt_steps *out)
{
    if (p->ndim != 2 || p->desc.batch < 2 || p->levels < 1 || !ops->level_kernel || p->tune.batch_items ||
        (!p->tight && p->gap_shape[0] != 1))
        return 0;
    for (int inv = 0; inv < 2; inv++) {
        int n = 0;
        for (int i = 0; i < p->levels; i++) {
            lwt_level_step *st = &out->v[inv][n++];
            st->level = inv ? p->levels - i : i + 1;
            const char *kn = inv ? NULL : pair_step(p, ops, q, st->level);
            if (kn) {
                st->op = LWT_LEVEL_PAIR2D;
                st->kernel[0] = kn;
                i++;
                continue;
            }
            st->op = LWT_LEVEL_FUSED2D;
            if (!(st->kernel[0] = ops->level_kernel(q, p, st->level, inv, 1))) {
                for (int d = 0; d < 2; d++)
                    memset(out->v[d], 0, sizeof *out->v[d] * (size_t)p->levels);
                return 0;
            }
        }
        out->n[inv] = n;
    }
    out->batch_levels = 1;
    return 1;
}

static lwt_status plan_forward(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, lwt_level_step *v,
                               int *n)
{
    if ((*n = batch_as_rows(p, ops, q, 0, v)))
        return LWT_OK;
    for (int j = 1; j <= p->levels; j++) {
        lwt_level_step *st = &v[(*n)++];
        st->level = j;
        const char *kn;
        int fused;
        if ((kn = pair_step(p, ops, q, j))) {
            st->op = LWT_LEVEL_PAIR2D;
            st->kernel[0] = kn;
            j++;
        } else if ((kn = volume_step(p, ops, q, j))) {
            st->op = LWT_LEVEL_VOLUME;
            st->kernel[0] = kn;
        } else if ((fused = fused_step(p, ops, q, j, 0, st)) < 0) {
            return LWT_ERR_INTERNAL;
        } else if (!fused) {
            lwt_status s = forward_passes(p, ops, q, j, st);
            if (s)
                return s;
        }
    }
    return LWT_OK;
}

static lwt_status plan_inverse(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, lwt_level_step *v,
                               int *n)
{
    if ((*n = batch_as_rows(p, ops, q, 1, v)))
        return LWT_OK;
    for (int j = p->levels; j >= 1; j--) {
        lwt_level_step *st = &v[(*n)++];
        st->level = j;
        const int fused = fused_step(p, ops, q, j, 1, st);
        if (fused < 0)
            return LWT_ERR_INTERNAL;
        if (!fused) {
            lwt_status s = inverse_passes(p, ops, q, j, st);
            if (s)
                return s;
        }
    }
    return LWT_OK;
}

lwt_status lwt_steps_plan(const lwt_plan *p, const lwt_backend_ops *ops, const void *q, lwt_steps *out)
{
    memset(out, 0, sizeof *out);
    const size_t n = p->levels > 0 ? (size_t)p->levels : 1;
    for (int inv = 0; inv < 2; inv++)
        if (!(out->v[inv] = calloc(n, sizeof *out->v[inv]))) {
            lwt_steps_free(out);
            return LWT_ERR_OUT_OF_MEMORY;
        }
    if (batch_levels(p, ops, q, out))
        return LWT_OK;
    lwt_status s = plan_forward(p, ops, q, out->v[0], &out->n[0]);
    if (!s)
        s = plan_inverse(p, ops, q, out->v[1], &out->n[1]);
    if (s)
        lwt_steps_free(out);
    return s;
}

void lwt_steps_free(lwt_steps *s)
{
    for (int inv = 0; inv < 2; inv++) {
        free(s->v[inv]);
        s->v[inv] = NULL;
        s->n[inv] = 0;
    }
    s->batch_levels = 0;
}
