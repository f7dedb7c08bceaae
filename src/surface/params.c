/* params.c - ISO 25178-2 height and hybrid parameters of a whole surface (params.h gives the
 * discretization; the per-row sums are params_rows.c's, the one code path an MPI caller shares). */
#include "surface/params.h"
#include "core/fail.h"
#include "surface/params_rows.h"

#include <math.h>
#include <stdlib.h>

static const char *const NAMES[LWT_ISO_PARAM_COUNT] = {"Sa", "Sq", "Ssk", "Sku", "Sp", "Sv", "Sz", "Sdq", "Sdr"};

const char *lwt_iso_param_name(int k)
{
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? NAMES[k] : NULL;
}

double lwt_iso_param_value(const lwt_iso_params *p, int k)
{
    const double v[LWT_ISO_PARAM_COUNT] = {p->Sa, p->Sq, p->Ssk, p->Sku, p->Sp, p->Sv, p->Sz, p->Sdq, p->Sdr};
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? v[k] : NAN;
}

int lwt_iso_param_is_height(int k)
{
    return k == 0 || k == 1 || (k >= 4 && k <= 6);
}

lwt_status lwt_iso_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                  int threads, lwt_iso_params *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_iso_params_compute: NULL argument");
    lwt__params_rows_finish(NULL, 0, out); /* no rows: every value NaN */
    if (ny == 0)
        return LWT_OK;
    double *r = malloc(ny * LWT_PARAMS_ROW_FIELDS * sizeof *r);
    if (!r)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the parameters of %zu rows", ny);
    lwt__params_rows_first(z, nx, 0, ny, NULL, dx, dy, threads, r);
    const double mean = lwt__params_rows_mean(r, ny);
    if (!isnan(mean)) {
        lwt__params_rows_second(z, nx, 0, ny, mean, threads, r);
        lwt__params_rows_finish(r, ny, out);
    }
    free(r);
    return LWT_OK;
}
