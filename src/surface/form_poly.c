/*
 * form_poly.c - least-squares polynomial form of total degree D in x and y (lwt_surface.h).
 *
 * Basis P_p(u) P_q(v), p + q <= D, Legendre polynomials of the coordinates mapped onto [-1, 1].
 * Monomials x^p y^q in metres make normal equations whose condition number passes 1e16 near
 * degree 4; on [-1, 1] the Legendre products are nearly orthogonal over a full grid, so the
 * normal equations scaled to a unit diagonal stay well conditioned (spd_solve.h) and holes in
 * the data only make them somewhat less so.
 *
 * The normal matrix is separable: sum over points of P_p(u)P_p'(u) P_q(v)P_q'(v) is, per row j,
 * A_j[p][p'] P_q(v_j)P_q'(v_j) with A_j the row's sum over its valid points. Each row therefore
 * keeps (D+1)^2 + (D+1) sums (the row pass, any thread), expanded into the full matrix in row
 * order afterwards: about 4 (D+1) flops per point, and the same bits for every thread count.
 * Heights are taken about the first valid height, so a large offset costs no accuracy.
 */
#include "surface/form.h"
#include "core/fail.h"
#include "surface/row_pass.h"
#include "surface/spd_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NP = LWT_FORM_MAX_DEGREE + 1 };

/* P_0(u) .. P_d(u) into P (Bonnet's recursion) */
static void legendre(double u, int d, double *P)
{
    P[0] = 1;
    if (d > 0)
        P[1] = u;
    for (int k = 1; k < d; k++)
        P[k + 1] = ((2 * k + 1) * u * P[k] - k * P[k - 1]) / (k + 1);
}

/* the order of coef: total degree t = p + q rising, then p falling */
static int coef_index(int p, int q)
{
    const int t = p + q;
    return t * (t + 1) / 2 + q;
}

typedef struct poly_rows {
    int d;
    double dx, xc, hx, zref;
} poly_rows;

/* acc: A[p][p'] ((d+1)^2), b[p] (d+1) of the row's valid points */
static void poly_row(const void *user, const double *row, size_t nx, size_t j, double *acc)
{
    const poly_rows *r = user;
    const int n = r->d + 1;
    double P[NP];
    (void)j;
    for (size_t i = 0; i < nx; i++) {
        if (!isfinite(row[i]))
            continue;
        legendre(((double)i * r->dx - r->xc) / r->hx, r->d, P);
        const double z = row[i] - r->zref;
        for (int p = 0; p < n; p++) {
            for (int q = 0; q <= p; q++)
                acc[p * n + q] += P[p] * P[q];
            acc[n * n + p] += P[p] * z;
        }
    }
}

static void scaled_axes(lwt_form *f, size_t nx, size_t ny, double dx, double dy)
{
    f->xc = 0.5 * (double)(nx - 1) * dx;
    f->yc = 0.5 * (double)(ny - 1) * dy;
    f->hx = nx > 1 ? f->xc : dx;
    f->hy = ny > 1 ? f->yc : dy;
}

static double first_valid(const double *z, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(z[i]))
            return z[i];
    return NAN;
}

lwt_status lwt__poly_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy, int degree,
                         int threads, lwt_form *out)
{
    LWT_RETURN_IF(degree < 1 || degree > LWT_FORM_MAX_DEGREE, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "polynomial form: degree %d is outside 1..%d", degree, LWT_FORM_MAX_DEGREE);
    const int n = degree + 1, m = n * n + n, nc = n * (n + 1) / 2;
    const double zref = first_valid(z, nx * ny);
    LWT_RETURN_IF(!isfinite(zref), ctx, LWT_ERR_INVALID_ARGUMENT, "all points are invalid");
    lwt_form f;
    memset(&f, 0, sizeof f);
    f.kind = LWT_FORM_POLY;
    f.degree = degree;
    f.ncoef = nc;
    scaled_axes(&f, nx, ny, dx, dy);
    double *rows = malloc(ny * (size_t)m * sizeof *rows);
    LWT_RETURN_IF(!rows, ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory fitting a polynomial to %zu rows", ny);
    poly_rows pr = {degree, dx, f.xc, f.hx, zref};
    lwt__row_pass(z, nx, ny, m, poly_row, &pr, threads, rows);

    /* expand each row's sums into the normal equations, in row order */
    double G[LWT_FORM_MAX_COEFFS * LWT_FORM_MAX_COEFFS] = {0}, b[LWT_FORM_MAX_COEFFS] = {0}, Pv[NP];
    double count = 0;
    for (size_t j = 0; j < ny; j++) {
        const double *A = rows + j * (size_t)m;
        if (A[0] == 0) /* P_0 P_0 summed: the row's number of valid points */
            continue;
        count += A[0];
        legendre(((double)j * dy - f.yc) / f.hy, degree, Pv);
        for (int t = 0; t <= degree; t++)
            for (int q = 0; q <= t; q++) {
                const int p = t - q, k = coef_index(p, q);
                b[k] += A[n * n + p] * Pv[q];
                for (int t2 = 0; t2 <= t; t2++)
                    for (int q2 = 0; q2 <= t2; q2++) {
                        const int p2 = t2 - q2, k2 = coef_index(p2, q2);
                        if (k2 > k)
                            continue;
                        const double a = p >= p2 ? A[p * n + p2] : A[p2 * n + p];
                        G[k * nc + k2] += a * Pv[q] * Pv[q2];
                    }
            }
    }
    free(rows);
    LWT_RETURN_IF(count < nc, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "polynomial form of degree %d: %d coefficients need at least as many valid points (have %.0f)",
                  degree, nc, count);
    double c[LWT_FORM_MAX_COEFFS];
    LWT_RETURN_IF(lwt__spd_solve(G, b, nc, c), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "polynomial form of degree %d: the valid points do not determine it (too few rows or columns "
                  "with data); use a lower degree",
                  degree);
    c[0] += zref;
    memcpy(f.coef, c, (size_t)nc * sizeof *c);
    f.n_valid = (size_t)count;
    *out = f;
    return LWT_OK;
}

/* the polynomial's heights at points i0 .. i0 + n of row j: its coefficients in u for this v,
   then per point */
void lwt__poly_row(const lwt_form *f, size_t i0, size_t n, double dx, double dy, size_t j, double *m)
{
    const int d = f->degree;
    double Pv[NP], Pu[NP], r[NP] = {0};
    legendre(((double)j * dy - f->yc) / f->hy, d, Pv);
    for (int t = 0; t <= d; t++)
        for (int q = 0; q <= t; q++)
            r[t - q] += f->coef[coef_index(t - q, q)] * Pv[q];
    for (size_t i = 0; i < n; i++) {
        legendre(((double)(i0 + i) * dx - f->xc) / f->hx, d, Pu);
        double s = 0;
        for (int p = d; p >= 0; p--)
            s += r[p] * Pu[p];
        m[i] = s;
    }
}

double lwt__poly_eval(const lwt_form *f, double x, double y)
{
    const int d = f->degree;
    double Pu[NP], Pv[NP], s = 0;
    legendre((x - f->xc) / f->hx, d, Pu);
    legendre((y - f->yc) / f->hy, d, Pv);
    for (int t = d; t >= 0; t--)
        for (int q = 0; q <= t; q++)
            s += f->coef[coef_index(t - q, q)] * Pu[t - q] * Pv[q];
    return s;
}

void lwt__form_from_plane(const lwt_plane *p, size_t nx, size_t ny, double dx, double dy, lwt_form *f)
{
    memset(f, 0, sizeof *f);
    f->kind = LWT_FORM_POLY;
    f->degree = 1;
    f->ncoef = 3;
    scaled_axes(f, nx, ny, dx, dy);
    f->coef[0] = p->z0 + p->sx * f->xc + p->sy * f->yc;
    f->coef[1] = p->sx * f->hx;
    f->coef[2] = p->sy * f->hy;
}
