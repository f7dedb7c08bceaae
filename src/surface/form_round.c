/*
 * form_round.c - sphere and cylinder (axis along x or y) form by geometric least squares
 * (lwt_surface.h).
 *
 * Minimises sum (|P_i - c| - R)^2 over the valid points P_i: 3-D points for the sphere, the
 * (y, z) or (x, z) profile for a cylinder whose axis is parallel to x or y (the distance to such
 * an axis does not involve the coordinate along it). Work is in scaled coordinates: lateral
 * offsets from the field centre and heights from their mean, all divided by one length h (the
 * larger half-width of the field), so a sphere stays a sphere and every number is near 1.
 *
 * Start: the algebraic (Kasa) fit, linear least squares of |P|^2 = 2 a.P + e (centre a, R^2 =
 * e + |a|^2): exact on noise-free data, biased towards smaller R on noisy shallow caps, which is
 * why it is only the start. Then Levenberg-Marquardt on the geometric residual with the Jacobian
 * d r / d c = -(P - c) / |P - c|, d r / d R = -1, damping lambda (JtJ + lambda diag JtJ):
 * lambda starts at 1e-10 (the algebraic start is close: nearly Gauss-Newton steps; on a shallow
 * cap R and cz are nearly collinear, and a damping of 1e-3 took 6 short steps before the first
 * long one), accepted steps divide it by 10, rejected ones multiply it by 10. Converged when an accepted step moves no
 * parameter by more than 1e-10 max(1, R) (scaled units: 1e-10 of the half-field), or when a step
 * changes the sum of squares by no more than 1e-13 of it (its rounding: no step can tell better
 * parameters from these; on a shallow 2048^2 cap the steps then wander by 1e-9 of R while the
 * sum stays flat, and waiting for 1e-13 steps took 23 passes instead of 4), or when the rms
 * distance is below 1e-15 (an exact shape), or when lambda passes 1e16. Not converged in
 * LWT_FORM_MAX_ITERATIONS steps is an error. Sums per row, added in row order (row_pass.h): the same bits for any thread count.
 */
#include "surface/form.h"
#include "core/fail.h"
#include "surface/row_pass.h"
#include "surface/spd_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAXP = 5 }; /* centre (up to 3) + radius, and the Kasa constant */

typedef struct round_ctx {
    int use_x, use_y;     /* lateral coordinates of the distance */
    int np;               /* parameters: lateral centres, cz, R */
    double dx, dy, xc, yc, zm, h, inv_h; /* inv_h = 1 / h: a multiply per coordinate, not a divide */
    double c[MAXP];       /* current parameters (scaled): [cx][cy] cz R */
} round_ctx;

/* the scaled point (lateral coordinates used, then z) of (i, j, height); returns its dimension */
static int point(const round_ctx *r, size_t i, size_t j, double z, double *P)
{
    int k = 0;
    if (r->use_x)
        P[k++] = ((double)i * r->dx - r->xc) * r->inv_h;
    if (r->use_y)
        P[k++] = ((double)j * r->dy - r->yc) * r->inv_h;
    P[k++] = (z - r->zm) * r->inv_h;
    return k;
}

/* sums: count, z */
static void mean_row(const void *user, const double *row, size_t nx, size_t j, double *acc)
{
    (void)user;
    (void)j;
    for (size_t i = 0; i < nx; i++)
        if (isfinite(row[i])) {
            acc[0] += 1;
            acc[1] += row[i];
        }
}

/* Kasa: columns [P (dim), 1], target |P|^2; sums G (np x np, full) then rhs */
static void kasa_row(const void *user, const double *row, size_t nx, size_t j, double *acc)
{
    const round_ctx *r = user;
    const int n = r->np;
    double P[3], col[MAXP] = {0};
    for (size_t i = 0; i < nx; i++) {
        if (!isfinite(row[i]))
            continue;
        const int d = point(r, i, j, row[i], P);
        double t = 0;
        for (int k = 0; k < d; k++) {
            col[k] = P[k];
            t += P[k] * P[k];
        }
        col[d] = 1;
        for (int a = 0; a < n; a++) {
            for (int b = 0; b <= a; b++)
                acc[a * n + b] += col[a] * col[b];
            acc[n * n + a] += col[a] * t;
        }
    }
}

/* LM: JtJ (np x np lower), Jt r (np), r.r */
static void lm_row(const void *user, const double *row, size_t nx, size_t j, double *acc)
{
    const round_ctx *r = user;
    const int n = r->np, d = n - 1;
    double P[3], J[MAXP];
    for (size_t i = 0; i < nx; i++) {
        if (!isfinite(row[i]))
            continue;
        point(r, i, j, row[i], P);
        double rho2 = 0;
        for (int k = 0; k < d; k++)
            rho2 += (P[k] - r->c[k]) * (P[k] - r->c[k]);
        const double rho = sqrt(rho2), res = rho - r->c[d], inv = rho > 0 ? -1 / rho : 0;
        for (int k = 0; k < d; k++)
            J[k] = (P[k] - r->c[k]) * inv;
        J[d] = -1;
        for (int a = 0; a < n; a++) {
            for (int b = 0; b <= a; b++)
                acc[a * n + b] += J[a] * J[b];
            acc[n * n + a] += J[a] * res;
        }
        acc[n * n + n] += res * res;
    }
}

/* sums at the parameters r->c into S (JtJ, Jtr, rr) */
static void lm_sums(const round_ctx *r, const double *z, size_t nx, size_t ny, int threads, double *rows, double *S)
{
    const int m = r->np * r->np + r->np + 1;
    lwt__row_pass(z, nx, ny, m, lm_row, r, threads, rows);
    lwt__rows_add(rows, ny, m, S);
}

static const char *shape_name(lwt_form_kind k)
{
    return k == LWT_FORM_SPHERE ? "sphere" : k == LWT_FORM_CYLINDER_X ? "cylinder (axis along x)"
                                                                      : "cylinder (axis along y)";
}

/* Kasa start: r->c from the algebraic fit; -1 when the points do not determine it */
static int kasa_start(round_ctx *r, const double *z, size_t nx, size_t ny, int threads, double *rows)
{
    const int n = r->np, m = n * n + n, d = n - 1;
    double S[MAXP * MAXP + MAXP], x[MAXP];
    lwt__row_pass(z, nx, ny, m, kasa_row, r, threads, rows);
    lwt__rows_add(rows, ny, m, S);
    if (lwt__spd_solve(S, S + n * n, n, x))
        return -1;
    /* |P|^2 = 2 a.P + e: the columns are P and 1, so x = (2a, e) */
    double e = x[d], a2 = 0;
    for (int k = 0; k < d; k++) {
        r->c[k] = 0.5 * x[k];
        a2 += r->c[k] * r->c[k];
    }
    if (!(e + a2 > 0))
        return -1;
    r->c[d] = sqrt(e + a2);
    return 0;
}

lwt_status lwt__round_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                          lwt_form_kind kind, int threads, lwt_form *out)
{
    round_ctx r;
    memset(&r, 0, sizeof r);
    r.use_x = kind != LWT_FORM_CYLINDER_X;
    r.use_y = kind != LWT_FORM_CYLINDER_Y;
    r.np = r.use_x + r.use_y + 2;
    r.dx = dx;
    r.dy = dy;
    r.xc = 0.5 * (double)(nx - 1) * dx;
    r.yc = 0.5 * (double)(ny - 1) * dy;
    r.h = fmax(fmax(r.xc, r.yc), fmax(dx, dy));
    r.inv_h = 1 / r.h;
    const int n = r.np, d = n - 1, m = n * n + n + 1;
    double *rows = malloc(ny * (size_t)m * sizeof *rows);
    LWT_RETURN_IF(!rows, ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory fitting a %s to %zu rows", shape_name(kind), ny);
    double cnt[2];
    lwt__row_pass(z, nx, ny, 2, mean_row, NULL, threads, rows);
    lwt__rows_add(rows, ny, 2, cnt);
    if (cnt[0] < n + 1) {
        free(rows);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "%s form: %d parameters need more than %d valid points",
                        shape_name(kind), n, n);
    }
    r.zm = cnt[1] / cnt[0];
    if (kasa_start(&r, z, nx, ny, threads, rows)) {
        free(rows);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT,
                        "%s form: the valid points do not determine one (a flat or one-line surface?)",
                        shape_name(kind));
    }

    double S[MAXP * MAXP + MAXP + 1], T[MAXP * MAXP + MAXP + 1];
    lm_sums(&r, z, nx, ny, threads, rows, S);
    double lambda = 1e-10; /* near Gauss-Newton: the algebraic start is close */
    int it = 0, done = 0;
    while (!done && it < LWT_FORM_MAX_ITERATIONS) {
        double G[MAXP * MAXP], g[MAXP], step[MAXP];
        memcpy(G, S, sizeof(double) * (size_t)(n * n));
        for (int a = 0; a < n; a++) {
            G[a * n + a] *= 1 + lambda;
            g[a] = -S[n * n + a];
        }
        const double keep[MAXP] = {r.c[0], r.c[1], r.c[2], r.c[3], r.c[4]};
        if (lwt__spd_solve(G, g, n, step)) {
            lambda *= 10;
            done = lambda > 1e16;
            continue;
        }
        double big = 0;
        for (int a = 0; a < n; a++) {
            r.c[a] += step[a];
            big = fmax(big, fabs(step[a]));
        }
        lm_sums(&r, z, nx, ny, threads, rows, T);
        it++;
        const double before = S[n * n + n], after = T[n * n + n];
        /* the sum of squares is flat to its rounding (a sum of n squares: ~1e-15 of it): no
           step can tell better parameters from these, accepted or not */
        const int flat = fabs(after - before) <= 1e-13 * before || before <= 1e-30 * cnt[0];
        if (after <= before) {
            memcpy(S, T, sizeof S);
            lambda = fmax(lambda / 10, 1e-12);
            done = flat || big <= 1e-10 * fmax(1, fabs(r.c[d]));
        } else {
            memcpy(r.c, keep, sizeof keep);
            lambda *= 10;
            done = flat || lambda > 1e16;
        }
    }
    free(rows);
    if (!done)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT,
                        "%s form: no convergence in %d Levenberg-Marquardt steps (rms distance %g um): the "
                        "surface is not close to one",
                        shape_name(kind), LWT_FORM_MAX_ITERATIONS, sqrt(S[n * n + n] / cnt[0]) * r.h * 1e6);

    lwt_form f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    int k = 0;
    f.cx = r.use_x ? r.c[k++] * r.h + r.xc : 0;
    f.cy = r.use_y ? r.c[k++] * r.h + r.yc : 0;
    f.cz = r.c[k] * r.h + r.zm;
    f.radius = fabs(r.c[d]) * r.h;
    f.convex = r.zm >= f.cz;
    f.iterations = it;
    f.n_valid = (size_t)cnt[0];
    *out = f;
    return LWT_OK;
}

double lwt__round_eval(const lwt_form *f, double x, double y)
{
    double rho2 = 0;
    if (f->kind != LWT_FORM_CYLINDER_X)
        rho2 += (x - f->cx) * (x - f->cx);
    if (f->kind != LWT_FORM_CYLINDER_Y)
        rho2 += (y - f->cy) * (y - f->cy);
    const double t = f->radius * f->radius - rho2;
    if (!(t >= 0))
        return NAN;
    return f->convex ? f->cz + sqrt(t) : f->cz - sqrt(t);
}
