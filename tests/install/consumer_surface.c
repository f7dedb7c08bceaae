/* A program outside the tree that uses an installed liblwt_surface (tests/install/run.sh builds
 * it through find_package(lwt) with lwt::surface and through pkg-config lwt-surface): a small
 * surface with invalid points written as SDF and read back (exact, bit for bit), split into
 * form, waviness and roughness (their sum is the input to 1e-9 relative), the ISO parameters of
 * the roughness, and a read of a missing file (LWT_ERR_IO and exactly one logged message).
 * Exit 0 when all is well. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwt_surface.h>

typedef struct sink {
    int errors;
    char last[1024];
} sink;

static void on_log(void *user, lwt_log_level level, const char *msg)
{
    sink *k = (sink *)user;
    if (level >= LWT_LOG_ERROR) {
        k->errors++;
        snprintf(k->last, sizeof k->last, "%s", msg);
    }
}

#define TRY(call)                                                                                                  \
    do {                                                                                                           \
        lwt_status s_ = (call);                                                                                    \
        if (s_ != LWT_OK) {                                                                                        \
            fprintf(stderr, "consumer_surface: %s: %s (%s)\n", #call, lwt_status_string(s_), msgs.last);            \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)
#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "consumer_surface: ");                                                                 \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int run(lwt_context *ctx, lwt_surface *s, lwt_surface *r, lwt_filter_result *res, const char *path)
{
    static sink msgs;
    lwt_context_set_log(ctx, on_log, &msgs);
    const size_t nx = 96, ny = 80;
    TRY(lwt_surface_alloc(ctx, s, nx, ny));
    s->dx = 1e-6;
    s->dy = 1.5e-6;
    unsigned long long u = 12345;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            u = u * 6364136223846793005ull + 1442695040888963407ull;
            const double noise = (double)(u >> 11) / 9007199254740992.0 - 0.5;
            s->z[j * nx + i] = 2e-6 * (double)i / (double)nx + 0.5e-6 * sin(0.2 * (double)j) + 0.1e-6 * noise;
        }
    for (size_t k = 7; k < nx * ny; k += 211)
        s->z[k] = NAN; /* not measured */

    TRY(lwt_surface_write(ctx, path, s)); /* .sdf: binary SDF, float64 */
    TRY(lwt_surface_read(ctx, path, r));
    remove(path);
    CHECK(r->nx == nx && r->ny == ny && r->dx == s->dx && r->dy == s->dy, "read back %zu x %zu, %g x %g", r->nx,
          r->ny, r->dx, r->dy);
    for (size_t k = 0; k < nx * ny; k++)
        CHECK((isnan(s->z[k]) && isnan(r->z[k])) || same_bits(s->z[k], r->z[k]), "point %zu: %.17g read as %.17g",
              k, s->z[k], r->z[k]);

    lwt_filter_spec f = lwt_filter_spec_default();
    lwt_band_request req = {0};
    req.levels = 4; /* 2^(J+1) = 32 points per axis at least */
    TRY(lwt_bands_resolve(ctx, &req, nx, ny, r->dx, r->dy, &f.split));
    TRY(lwt_filter_run(ctx, &f, r->z, nx, ny, r->dx, r->dy, res));
    double zmax = 0, worst = 0;
    for (size_t k = 0; k < nx * ny; k++)
        if (!isnan(r->z[k]))
            zmax = fmax(zmax, fabs(r->z[k]));
    for (size_t k = 0; k < nx * ny; k++) {
        const double sum = res->band[LWT_BAND_FORM][k] + res->band[LWT_BAND_WAVINESS][k] +
                           res->band[LWT_BAND_ROUGHNESS][k];
        if (isnan(r->z[k]))
            CHECK(isnan(sum), "point %zu is invalid, its bands are not NaN", k);
        else
            worst = fmax(worst, fabs(sum - r->z[k]));
    }
    CHECK(worst <= 1e-9 * zmax, "form + waviness + roughness differs from the input by %g of %g", worst, zmax);

    lwt_iso_params p;
    TRY(lwt_iso_params_compute(ctx, res->band[LWT_BAND_ROUGHNESS], nx, ny, r->dx, r->dy, 0, &p));
    CHECK(p.n_valid == lwt_surface_count_valid(r) && p.Sq > 0 && isfinite(p.Sq) && p.Sa <= p.Sq,
          "roughness Sa %g Sq %g over %zu points", p.Sa, p.Sq, p.n_valid);

    lwt_surface missing;
    msgs.errors = 0;
    lwt_status st = lwt_surface_read(ctx, "/nonexistent-lwt-dir/none.sdf", &missing);
    CHECK(st == LWT_ERR_IO && msgs.errors == 1 && strstr(msgs.last, "none.sdf") && missing.z == NULL,
          "missing file: status %d (%s), %d messages, last '%s'", (int)st, lwt_status_string(st), msgs.errors,
          msgs.last);
    printf("consumer_surface: SDF round trip exact, bands sum to the input (%.1e of max), roughness Sq %.3g um, "
           "a missing file is LWT_ERR_IO with one message\n",
           worst / zmax, p.Sq * 1e6);
    return 0;
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/lwt_consumer_surface_%ld.sdf", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    lwt_surface s, r;
    lwt_surface_init(&s);
    lwt_surface_init(&r);
    lwt_filter_result res;
    memset(&res, 0, sizeof res);
    int rc = run(ctx, &s, &r, &res, path);
    remove(path);
    lwt_filter_result_free(&res);
    lwt_surface_free(&s);
    lwt_surface_free(&r);
    lwt_context_destroy(ctx);
    return rc;
}
