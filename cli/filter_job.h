/* filter_job.h - lwt filter on one input file: read, split, measure, write OUTDIR/NAME/. */
#ifndef LWT_CLI_FILTER_JOB_H
#define LWT_CLI_FILTER_JOB_H

#include <stddef.h>
#include <stdio.h>

#include "io/report_json.h"
#include "progress.h"
#include "lwt_surface.h"

typedef struct filter_opts {
    lwt_filter_spec spec;       /* wavelet, mode, dtype, backend, algorithm, form, threads */
    lwt_band_request req;       /* levels (-1 = the most the size allows), bands, cutoffs (metres) */
    const char *wavelet_asked;  /* as typed, for the report */
    double spacing[2];          /* metres, for files without spacing (.npy); 0 = not given */
    double z_unit;              /* metres per height unit of .npy files */
    int preview_px;             /* longer side of single previews; panel maps get half; 0 = no PNG */
    int spatial;                /* 1: the spatial parameters too (--spatial: an FFT per surface) */
    int no_material;            /* 1: no material ratio family, no material_ratio.csv (--no-material) */
    int mpi;                    /* 1: one surface over the MPI ranks of mpirun (--mpi, filter_mpi.c) */
    const char *outdir;
    const char *form_asked;     /* --form as typed (NULL: not given) */
    int plane_asked;            /* --plane given */
    int features;               /* 1: the feature family too (--features: two segmentations per surface) */
} filter_opts;

/* Log sink of the CLI context: keeps the last error message of liblwt for the failure line. */
typedef struct filter_log {
    char last[1024]; /* liblwt's messages are at most 1023 bytes (src/core/context.c) */
    char warning[1024]; /* the last warning (a checksum mismatch ignored): a note of the job */
} filter_log;
void filter_log_fn(void *user, lwt_log_level level, const char *msg);

/* 0 ok (table printed to out); -1 with one line "INPUT: reason" in err, nothing written. */
int filter_job(lwt_context *ctx, filter_log *log, const filter_opts *o, const char *input, const char *name,
               cli_progress *pg, FILE *out, char *err, size_t errlen);

/* the name of an input's folder: the file name without folders and without its last extension */
void filter_stem(const char *path, char *out, size_t n);

/* lwt filter --mpi (filter_mpi.c, builds with MPI only): the exit status, the same on every rank. */
int cmd_filter_mpi(const filter_opts *o, int ninputs, char *const *inputs);

/* The readable summary of one filtered surface (stdout). */
void filter_table_print(FILE *f, const lwt_report *r, const char *outdir);

#endif
