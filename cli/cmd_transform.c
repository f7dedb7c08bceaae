/* lwt forward / lwt inverse: .npy in, .npy out, PyWavelets' packed layout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/npy.h"
#include "io/surface_file.h" /* lwt__format_bytes */

/* options that only the streamed engine understands send the call there */
static int wants_stream(int argc, char **argv)
{
    static const char *const opts[] = {"--stream", "--chunk-rows", "--devices", "--cpu-worker", "--cpu-workers",
                                       "--balance", "--raw", "--scratch-dir", "--slow-worker", "--fail-worker",
                                       "--no-pinned-pool", "--no-overlap", "--naive-blocks", "--report",
                                       "--fuse-levels"};
    for (int i = 1; i < argc; i++)
        for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
            if (!strcmp(argv[i], opts[k]))
                return 1;
    return 0;
}

static int wants_mpi(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi"))
            return 1;
    return 0;
}

int cmd_transform(int argc, char **argv, int inverse)
{
    if (wants_mpi(argc, argv)) {
#ifdef LWT_CLI_MPI
        return cmd_transform_mpi(argc, argv, inverse);
#else
        fprintf(stderr, "lwt: --mpi: this lwt was built without MPI (install Open MPI and rebuild; docs/MPI.md)\n");
        return LWT_EXIT_USAGE;
#endif
    }
    if (wants_stream(argc, argv))
        return cmd_transform_stream(argc, argv, inverse);
    const char *name = inverse ? "inverse" : "forward";
    cli_transform_opts o = {0};
    o.levels = LWT_LEVELS_MAX;
    o.mode = LWT_MODE_SYMMETRIC;
    const char *paths[2] = {NULL, NULL};
    int npaths = 0;
    size_t shape[LWT_MAX_NDIM] = {0, 0, 0};
    int shape_nd = 0, have_shape = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_common(argc, argv, &i, &o);
        if (r < 0)
            return LWT_EXIT_USAGE;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "--shape")) {
            if (i + 1 >= argc || cli_parse_shape(argv[i + 1], shape, &shape_nd)) {
                fprintf(stderr, "lwt: --shape needs D0[,D1[,D2]] with 1-3 positive integers\n");
                return LWT_EXIT_USAGE;
            }
            have_shape = 1;
            i++;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "lwt %s: unknown option '%s'\n", name, argv[i]);
            return LWT_EXIT_USAGE;
        }
        if (npaths == 2) {
            fprintf(stderr, "lwt %s: too many arguments ('%s')\n", name, argv[i]);
            return LWT_EXIT_USAGE;
        }
        paths[npaths++] = argv[i];
    }
    if (npaths != 2 || !o.wavelet) {
        fprintf(stderr, "lwt %s: needs -w WAVELET, IN.npy and OUT.npy (see lwt --help)\n", name);
        return LWT_EXIT_USAGE;
    }
    if (inverse && !have_shape) {
        fprintf(stderr, "lwt inverse: needs --shape D0[,D1[,D2]] (the shape of the signal)\n");
        return LWT_EXIT_USAGE;
    }

    int rc = LWT_EXIT_RUNTIME;
    lwt_context *ctx = cli_context();
    lwt_wavelet *w = NULL;
    lwt_plan *plan = NULL;
    npy_array in = {0};
    void *out = NULL;
    char err[512];
    if (!ctx)
        return LWT_EXIT_RUNTIME;
    lwt_context_set_threads(ctx, o.threads);
    if (lwt_wavelet_create(ctx, o.wavelet, &w) != LWT_OK) {
        rc = LWT_EXIT_USAGE; /* the message went to stderr through the log */
        goto done;
    }
    int nrc = npy_read_max(paths[0], lwt_context_memory_limit(ctx), &in, err, sizeof err);
    if (nrc) {
        fprintf(stderr, "lwt: %s%s\n", err, nrc == NPY_OVER_LIMIT ? " (--max-memory)" : "");
        goto done;
    }
    if (in.ndim < 1 || in.ndim > LWT_MAX_NDIM) {
        fprintf(stderr, "lwt: %s: %d-dimensional array; lwt transforms 1-, 2- and 3-dimensional arrays\n",
                paths[0], in.ndim);
        goto done;
    }
    if (in.count == 0) {
        fprintf(stderr, "lwt: %s: empty array (a dimension is 0)\n", paths[0]);
        goto done;
    }
    if (!cli_all_finite(paths[0], in.dtype, in.data, in.count))
        goto done;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = inverse ? shape_nd : in.ndim;
    for (int k = 0; k < d.ndim; k++)
        d.shape[k] = inverse ? shape[k] : in.shape[k];
    d.levels = o.levels;
    d.mode = o.mode;
    d.dtype = in.dtype;
    d.backend = o.backend;
    d.algorithm = o.algorithm;
    if (lwt_plan_create(ctx, &d, &plan) != LWT_OK)
        goto done;
    lwt_plan_info info;
    lwt_plan_get_info(plan, &info);
    if (inverse) {
        int ok = in.ndim == d.ndim;
        for (int k = 0; ok && k < d.ndim; k++)
            ok = in.shape[k] == info.packed_shape[k];
        if (!ok) {
            char want[96] = "", got[96] = "";
            for (int k = 0; k < d.ndim; k++)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%zu", k ? "," : "",
                         info.packed_shape[k]);
            for (int k = 0; k < in.ndim && k < 8; k++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", k ? "," : "", in.shape[k]);
            fprintf(stderr, "lwt: %s: coefficient array has shape (%s), but shape %s with %d levels of %s "
                            "needs (%s)\n", paths[0], got, "given", info.levels, o.wavelet, want);
            goto done;
        }
    }
    cli_warn_levels(o.levels, info.max_level);
    size_t es = npy_elem_size(in.dtype); /* the output keeps the input's dtype (float16 too) */
    size_t nout = inverse ? info.input_count : info.coeff_count;
    /* the input is held; the output and the workspace come on top (the readers checked the input) */
    size_t limit = lwt_context_memory_limit(ctx);
    uint64_t need = (uint64_t)in.count * es + (uint64_t)nout * es + info.workspace_bytes;
    if (limit && need > limit) {
        char a[32], b[32];
        lwt__format_bytes(a, sizeof a, need);
        lwt__format_bytes(b, sizeof b, limit);
        fprintf(stderr, "lwt: %s: the transform needs %s (input, output, workspace), more than the memory limit "
                        "of %s (--max-memory)\n", paths[0], a, b);
        goto done;
    }
    out = malloc(nout * es);
    if (!out) {
        fprintf(stderr, "lwt: out of memory (%zu bytes for the output)\n", nout * es);
        goto done;
    }
    if ((inverse ? lwt_inverse(plan, in.data, out, NULL) : lwt_forward(plan, in.data, out, NULL)) != LWT_OK)
        goto done;
    const size_t *oshape = inverse ? info.shape : info.packed_shape;
    if (npy_write(paths[1], in.dtype, d.ndim, oshape, out, err, sizeof err)) {
        fprintf(stderr, "lwt: %s\n", err);
        goto done;
    }
    rc = LWT_EXIT_OK;
done:
    free(out);
    npy_free(&in);
    lwt_plan_destroy(plan);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    return rc;
}
