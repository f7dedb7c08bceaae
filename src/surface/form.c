/* form.c - form models: dispatch, removal, residual, and the filter's form step (form.h). */
#include "surface/form.h"
#include "core/fail.h"
#include "surface/row_pass.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *lwt_form_kind_name(lwt_form_kind kind)
{
    static const char *const names[] = {"none", "poly", "sphere", "cylinder-x", "cylinder-y"};
    return kind >= LWT_FORM_NONE && kind <= LWT_FORM_CYLINDER_Y ? names[kind] : NULL;
}

double lwt_form_eval(const lwt_form *f, double x, double y)
{
    if (!f)
        return NAN;
    switch (f->kind) {
    case LWT_FORM_NONE:
        return 0;
    case LWT_FORM_POLY:
        return lwt__poly_eval(f, x, y);
    case LWT_FORM_SPHERE:
    case LWT_FORM_CYLINDER_X:
    case LWT_FORM_CYLINDER_Y:
        return lwt__round_eval(f, x, y);
    }
    return NAN;
}

/* rows of up to ROW_BLOCK points at a time, so that the model row lives on the stack */
enum { ROW_BLOCK = 256 };

/* the model at points i0 .. i0 + n of row j: subtraction and residual see the same bits */
static void model_block(const lwt_form *f, size_t i0, size_t n, double dx, double dy, size_t j, double *m)
{
    if (f->kind == LWT_FORM_POLY) {
        lwt__poly_row(f, i0, n, dx, dy, j, m);
        return;
    }
    for (size_t i = 0; i < n; i++)
        m[i] = lwt_form_eval(f, (double)(i0 + i) * dx, (double)j * dy);
}

void lwt_form_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_form *f, int threads)
{
    if (!f || f->kind == LWT_FORM_NONE)
        return;
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        double m[ROW_BLOCK];
        double *row = z + (size_t)jj * nx;
        for (size_t i0 = 0; i0 < nx; i0 += ROW_BLOCK) {
            const size_t n = nx - i0 < ROW_BLOCK ? nx - i0 : ROW_BLOCK;
            model_block(f, i0, n, dx, dy, (size_t)jj, m);
            for (size_t i = 0; i < n; i++)
                if (isfinite(row[i0 + i]))
                    row[i0 + i] -= m[i];
        }
    }
}

typedef struct rms_user {
    const lwt_form *f;
    double dx, dy;
} rms_user;

/* sums: valid points, squared residual, valid points where the model has no height */
static void rms_row(const void *user, const double *row, size_t nx, size_t j, double *acc)
{
    const rms_user *u = user;
    double m[ROW_BLOCK];
    for (size_t i0 = 0; i0 < nx; i0 += ROW_BLOCK) {
        const size_t n = nx - i0 < ROW_BLOCK ? nx - i0 : ROW_BLOCK;
        model_block(u->f, i0, n, u->dx, u->dy, j, m);
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(row[i0 + i]))
                continue;
            acc[0] += 1;
            if (isfinite(m[i]))
                acc[1] += (row[i0 + i] - m[i]) * (row[i0 + i] - m[i]);
            else
                acc[2] += 1;
        }
    }
}

lwt_status lwt__form_rms(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                         lwt_form *f, int threads)
{
    double *rows = malloc(ny * 3 * sizeof *rows), s[3];
    LWT_RETURN_IF(!rows, ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the form residual of %zu rows", ny);
    rms_user u = {f, dx, dy};
    lwt__row_pass(z, nx, ny, 3, rms_row, &u, threads, rows);
    lwt__rows_add(rows, ny, 3, s);
    free(rows);
    LWT_RETURN_IF(s[2] > 0, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "%s form: the fitted shape (radius %g mm, axis or centre at x %g mm, y %g mm) has no height "
                  "above %.0f of the valid points: the surface is not a cap of one",
                  lwt_form_kind_name(f->kind), f->radius * 1e3, f->cx * 1e3, f->cy * 1e3, s[2]);
    f->rms = s[0] > 0 ? sqrt(s[1] / s[0]) : 0;
    f->n_valid = (size_t)s[0];
    return LWT_OK;
}

lwt_status lwt_form_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                        lwt_form_kind kind, int degree, int threads, lwt_form *out)
{
    LWT_RETURN_IF(!z || !out || nx == 0 || ny == 0, ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_form_fit: bad arguments");
    LWT_RETURN_IF(!(dx > 0) || !(dy > 0) || !isfinite(dx) || !isfinite(dy), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "lwt_form_fit: spacing must be positive (got %g, %g)", dx, dy);
    memset(out, 0, sizeof *out);
    lwt_form f;
    switch (kind) {
    case LWT_FORM_NONE:
        return LWT_OK;
    case LWT_FORM_POLY:
        LWT_FORWARD(lwt__poly_fit(ctx, z, nx, ny, dx, dy, degree, threads, &f));
        break;
    case LWT_FORM_SPHERE:
    case LWT_FORM_CYLINDER_X:
    case LWT_FORM_CYLINDER_Y:
        LWT_FORWARD(lwt__round_fit(ctx, z, nx, ny, dx, dy, kind, threads, &f));
        break;
    default:
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "unknown form model %d", (int)kind);
    }
    LWT_FORWARD(lwt__form_rms(ctx, z, nx, ny, dx, dy, &f, threads));
    *out = f;
    return LWT_OK;
}

int lwt__filter_has_form(const lwt_filter_spec *spec)
{
    return spec->plane || spec->form != LWT_FORM_NONE;
}

lwt_status lwt__filter_form(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny,
                            double dx, double dy, double *lev, lwt_plane *plane)
{
    lwt_form f;
    memset(&f, 0, sizeof f);
    const int as_plane = spec->form == LWT_FORM_NONE || (spec->form == LWT_FORM_POLY && spec->form_degree == 1);
    LWT_RETURN_IF(spec->plane && !as_plane, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "spec.plane and spec.form (%s) both ask for a form: give one", lwt_form_kind_name(spec->form)
                      ? lwt_form_kind_name(spec->form) : "unknown");
    if (!lwt__filter_has_form(spec)) {
        if (spec->form_out)
            *spec->form_out = f;
        return LWT_OK;
    }
    if (as_plane) { /* lwt_plane_fit, as before form models: --plane keeps its bits */
        LWT_FORWARD(lwt_plane_fit(ctx, z, nx, ny, dx, dy, spec->threads, plane));
        lwt_plane_subtract(lev, nx, ny, dx, dy, plane, spec->threads);
        lwt__form_from_plane(plane, nx, ny, dx, dy, &f);
        LWT_FORWARD(lwt__form_rms(ctx, z, nx, ny, dx, dy, &f, spec->threads));
    } else {
        LWT_FORWARD(lwt_form_fit(ctx, z, nx, ny, dx, dy, spec->form, spec->form_degree, spec->threads, &f));
        lwt_form_subtract(lev, nx, ny, dx, dy, &f, spec->threads);
    }
    if (spec->form_out)
        *spec->form_out = f;
    return LWT_OK;
}
