/*
 * form.h - the form models of lwt_form_fit (public: lwt_surface.h), one file per family:
 * form_poly.c (Legendre polynomials in scaled coordinates), form_round.c (sphere, cylinders),
 * form.c (dispatch, the filter's form step).
 */
#ifndef LWT_SURFACE_FORM_H
#define LWT_SURFACE_FORM_H

#include "lwt_surface.h"

lwt_status lwt__poly_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy, int degree,
                         int threads, lwt_form *out);
lwt_status lwt__round_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                          lwt_form_kind kind, int threads, lwt_form *out);

/* the models' rows and points (form_poly.c, form_round.c) */
/* heights at points i0 .. i0 + n of row j into m (NaN where a sphere or cylinder has none) */
void lwt__poly_row(const lwt_form *f, size_t i0, size_t n, double dx, double dy, size_t j, double *m);
double lwt__poly_eval(const lwt_form *f, double x, double y);
double lwt__round_eval(const lwt_form *f, double x, double y);

/* f->rms and f->n_valid: the rms of z - model over the finite points and their number
   (row-ordered sums); LWT_ERR_INVALID_ARGUMENT when the model has no height at a valid point */
lwt_status lwt__form_rms(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy, lwt_form *f,
                         int threads);

/* The plane of lwt_plane_fit as a degree-1 model (coefficients of P_0, P_1(u), P_1(v)). */
void lwt__form_from_plane(const lwt_plane *p, size_t nx, size_t ny, double dx, double dy, lwt_form *f);

/* The filter's form step: the spec's plane or model fitted to z, removed from lev (a copy of z);
   *plane gets the plane when one is removed, spec->form_out the model. A spec without form does
   nothing. */
int lwt__filter_has_form(const lwt_filter_spec *spec);
lwt_status lwt__filter_form(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny,
                            double dx, double dy, double *lev, lwt_plane *plane);

#endif
