/* Option parsing and the stderr log sink shared by the CLI commands. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/half.h"
#include "io/npy.h" /* npy_dtype_ok, npy_dtype_name: what a raw file may hold */
#include "lwt_experimental.h" /* --algorithm rc-steps: the seed's plain RC, an experiment */

static void log_stderr(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_WARNING)
        fprintf(stderr, "lwt: %s%s\n", level == LWT_LOG_WARNING ? "warning: " : "", msg);
}

lwt_context *cli_context(void)
{
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK) {
        fprintf(stderr, "lwt: out of memory\n");
        return NULL;
    }
    lwt_context_set_log(ctx, log_stderr, NULL);
    cli_apply_read_options(ctx);
    return ctx;
}

int cli_parse_dtype(const char *s, lwt_dtype *out)
{
    static const struct {
        const char *name;
        lwt_dtype dt;
    } names[] = {{"f32", LWT_F32}, {"f64", LWT_F64}, {"f16", LWT_F16}, {"bf16", LWT_BF16}};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name)) {
            *out = names[i].dt;
            return 0;
        }
    return -1;
}

int cli_parse_raw_dtype(const char *s, lwt_dtype *out)
{
    static const lwt_dtype raw[] = {LWT_F16, LWT_F32, LWT_F64};
    lwt_dtype dt;
    if (!cli_parse_dtype(s, &dt) && npy_dtype_ok(dt)) { /* f16 f32 f64, not bf16: no .npy output for it */
        *out = dt;
        return 0;
    }
    for (size_t i = 0; s && i < sizeof raw / sizeof raw[0]; i++)
        if (!strcmp(s, npy_dtype_name(raw[i]))) {
            *out = raw[i];
            return 0;
        }
    return -1;
}

int cli_parse_size(const char *s, size_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = (size_t)v;
    return 0;
}

int cli_parse_shape(const char *s, size_t *shape, int *ndim)
{
    *ndim = 0;
    const char *p = s;
    while (*p) {
        if (*ndim == LWT_MAX_NDIM)
            return -1;
        char buf[32];
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof buf)
            return -1;
        memcpy(buf, p, n);
        buf[n] = 0;
        if (cli_parse_size(buf, &shape[*ndim]) || shape[*ndim] == 0)
            return -1;
        (*ndim)++;
        p += n;
        if (*p == ',') {
            p++;
            if (!*p)
                return -1;
        }
    }
    return *ndim ? 0 : -1;
}

static int parse_levels(const char *s, cli_transform_opts *o)
{
    if (!strcmp(s, "max")) {
        o->levels = LWT_LEVELS_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end) {
        fprintf(stderr, "lwt: invalid level count '%s' (an integer >= 0, or 'max')\n", s);
        return -1;
    }
    if (v < 0) {
        fprintf(stderr, "lwt: level count must be >= 0 (got %ld)\n", v);
        return -1;
    }
    if (v > 256) {
        fprintf(stderr, "lwt: level count must be <= 256 (got %ld)\n", v);
        return -1;
    }
    o->levels = (int)v;
    return 0;
}

int cli_parse_common(int argc, char **argv, int *i, cli_transform_opts *o)
{
    const char *a = argv[*i];
    const char *val = NULL;
#define NEEDS_VALUE()                                                            \
    do {                                                                         \
        if (*i + 1 >= argc) {                                                    \
            fprintf(stderr, "lwt: option %s needs a value\n", a);               \
            return -1;                                                           \
        }                                                                        \
        val = argv[++*i];                                                        \
    } while (0)
    if (!strcmp(a, "-w") || !strcmp(a, "--wavelet")) {
        NEEDS_VALUE();
        o->wavelet = val;
        return 1;
    }
    if (!strcmp(a, "-l") || !strcmp(a, "--levels")) {
        NEEDS_VALUE();
        o->levels_given = 1;
        return parse_levels(val, o) ? -1 : 1;
    }
    if (!strcmp(a, "-m") || !strcmp(a, "--mode")) {
        NEEDS_VALUE();
        if (lwt_mode_from_name(val, &o->mode) != LWT_OK) {
            fprintf(stderr, "lwt: unknown mode '%s' (zero, constant, symmetric, reflect, periodic, smooth, "
                            "antisymmetric, antireflect, periodization)\n", val);
            return -1;
        }
        o->mode_given = 1;
        return 1;
    }
    if (!strcmp(a, "--backend")) {
        NEEDS_VALUE();
        if (!strcmp(val, "auto")) o->backend = LWT_BACKEND_AUTO;
        else if (!strcmp(val, "cpu")) o->backend = LWT_BACKEND_CPU;
        else if (!strcmp(val, "cuda")) o->backend = LWT_BACKEND_CUDA;
        else {
            fprintf(stderr, "lwt: unknown backend '%s' (auto, cpu, cuda)\n", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--algorithm")) {
        NEEDS_VALUE();
        if (!strcmp(val, "auto")) o->algorithm = LWT_ALGO_AUTO;
        else if (!strcmp(val, "lifting")) o->algorithm = LWT_ALGO_LIFTING;
        else if (!strcmp(val, "convolution")) o->algorithm = LWT_ALGO_CONVOLUTION;
        else if (!strcmp(val, "rc")) o->algorithm = LWT_ALGO_LIFTING_RC;
        else if (!strcmp(val, "lbb")) o->algorithm = LWT_ALGO_LIFTING_LBB;
        else if (!strcmp(val, "rc-steps")) o->algorithm = LWT_ALGO_LIFTING_RC_STEPS;
        else {
            fprintf(stderr, "lwt: unknown algorithm '%s' (auto, lifting, convolution, rc, lbb, rc-steps)\n", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(a, "--threads")) {
        NEEDS_VALUE();
        size_t t;
        if (cli_parse_size(val, &t) || t > 4096) {
            fprintf(stderr, "lwt: invalid thread count '%s'\n", val);
            return -1;
        }
        o->threads = (int)t;
        return 1;
    }
#undef NEEDS_VALUE
    return 0;
}

void cli_warn_levels(int levels, int max_level)
{
    if (levels != LWT_LEVELS_MAX && levels > max_level)
        fprintf(stderr, "lwt: warning: level %d is above the maximum useful level %d for this shape and "
                        "wavelet: all coefficients will experience boundary effects\n",
                levels, max_level);
}

double cli_value(lwt_dtype dt, const void *data, size_t i)
{
    return dt == LWT_F16   ? (double)lwt_f16_to_f32(((const uint16_t *)data)[i])
           : dt == LWT_F32 ? (double)((const float *)data)[i]
                           : ((const double *)data)[i];
}

int cli_all_finite(const char *path, lwt_dtype dt, const void *data, size_t count)
{
    /* A transform spreads a NaN or infinity over every coefficient its filters touch: refuse
       it with its position (surfaces with invalid points go through lwt filter, which fills
       them first). */
    for (size_t i = 0; i < count; i++) {
        const double v = cli_value(dt, data, i);
        if (!isfinite(v)) {
            fprintf(stderr, "lwt: %s: element %zu is %s; lwt transforms finite data (lwt filter fills invalid points)\n",
                    path, i, isnan(v) ? "NaN" : "infinite");
            return 0;
        }
    }
    return 1;
}
