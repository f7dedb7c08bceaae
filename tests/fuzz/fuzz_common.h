/*
 * fuzz_common.h - what every libFuzzer harness of tests/fuzz shares: the readers take paths,
 * so each input is written to a temporary file first. One file per name suffix and process,
 * created on first use and rewritten in place for every input (no file system churn per run),
 * removed at exit. The context is silent (no log callback: libFuzzer's output stays readable)
 * and carries a memory limit, so that a file declaring gigabytes fails the way `lwt
 * --max-memory` makes it fail instead of tripping libFuzzer's own -rss_limit_mb.
 */
#ifndef LWT_FUZZ_COMMON_H
#define LWT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lwt.h"
#include "lwt_surface.h"

/* 256 MiB: well above what any corpus file needs, well below libFuzzer's 2 GiB RSS limit */
#define FUZZ_MEMORY_LIMIT ((size_t)256 << 20)

#define FUZZ_MAX_FILES 8
static char fuzz_paths[FUZZ_MAX_FILES][64];
static int fuzz_nfiles;

static inline void fuzz_remove_files(void)
{
    for (int i = 0; i < fuzz_nfiles; i++)
        unlink(fuzz_paths[i]);
}

/* The temporary file of this process whose name ends in suffix (".x3p", "" ...). */
static inline const char *fuzz_file(const char *suffix)
{
    size_t sl = strlen(suffix);
    for (int i = 0; i < fuzz_nfiles; i++) {
        size_t pl = strlen(fuzz_paths[i]);
        if (pl >= sl && !strcmp(fuzz_paths[i] + pl - sl, suffix))
            return fuzz_paths[i];
    }
    if (fuzz_nfiles == FUZZ_MAX_FILES || sl > 8)
        abort(); /* a harness bug, not a finding */
    char *p = fuzz_paths[fuzz_nfiles];
    const char *dir = getenv("TMPDIR");
    snprintf(p, 64, "%.30s/lwt-fuzz-XXXXXX%s", dir && dir[0] && strlen(dir) <= 30 ? dir : "/tmp", suffix);
    int fd = mkstemps(p, (int)sl);
    if (fd < 0)
        abort();
    close(fd);
    if (fuzz_nfiles++ == 0)
        atexit(fuzz_remove_files);
    return p;
}

/* Replace the contents of path by data[0..size). */
static inline void fuzz_put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
        abort();
}

static inline void fuzz_log(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    fprintf(stderr, "[%d] %s\n", (int)level, msg);
}

/* The context with the memory limit, made once per process; silent unless LWT_FUZZ_VERBOSE is
 * set (to see why a seed is refused: fuzz_x3p_xml corpus/x3p_xml/f64.xml). */
static inline lwt_context *fuzz_context(void)
{
    static lwt_context *ctx;
    if (!ctx) {
        if (lwt_context_create(&ctx) != LWT_OK || lwt_context_set_memory_limit(ctx, FUZZ_MEMORY_LIMIT))
            abort();
        if (getenv("LWT_FUZZ_VERBOSE"))
            lwt_context_set_log(ctx, fuzz_log, NULL);
    }
    return ctx;
}

/* Read every byte of data[0..bytes): a buffer shorter than the reader claims shows up here. */
static volatile unsigned char fuzz_sink; /* so the reads are not optimized away */
static inline void fuzz_touch(const void *data, size_t bytes)
{
    unsigned char x = 0;
    for (size_t i = 0; i < bytes; i++)
        x ^= ((const unsigned char *)data)[i];
    fuzz_sink = x;
}

typedef lwt_status (*fuzz_reader_fn)(lwt_context *ctx, const char *path, lwt_surface *out);

/* Read path with read; on success touch every height and free the surface. */
static inline void fuzz_read_surface(fuzz_reader_fn read, const char *path)
{
    lwt_surface s;
    if (read(fuzz_context(), path, &s) == LWT_OK) {
        fuzz_touch(s.z, s.nx * s.ny * sizeof *s.z);
        lwt_surface_free(&s);
    }
}

#endif
