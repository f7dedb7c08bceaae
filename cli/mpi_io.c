/*
 * mpi_io.c - what the --mpi commands share: a .npy header read on every rank, MPI-IO reads and
 * writes of any size (MPI counts are ints), the ranks' agreement on success, a temporary name
 * beside an output, and the ranks' equal slabs. Built only with MPI.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_io.h"

/* the .npy header of path: dtype, shape and where the data starts; 0, or -1 with err */
int mpi_npy_header_at(const char *path, npy_header_info *hi, size_t *offset, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return lwt__npy_fail(err, errlen, path, "cannot open");
    unsigned char pre[12];
    size_t prelen = 0, hlen = 0;
    char msg[256];
    const size_t got = fread(pre, 1, sizeof pre, f);
    int rc = -1;
    char *text = NULL;
    if (lwt__npy_parse_preamble(pre, got, NULL, NULL, NULL, &prelen, &hlen, msg, sizeof msg)) {
        lwt__npy_fail(err, errlen, path, "%s", msg);
    } else if (!(text = malloc(hlen + 1)) || fseek(f, (long)prelen, SEEK_SET) || fread(text, 1, hlen, f) != hlen) {
        lwt__npy_fail(err, errlen, path, "truncated header");
    } else {
        text[hlen] = 0;
        if (lwt__npy_parse_header(text, hlen, hi, msg, sizeof msg))
            lwt__npy_fail(err, errlen, path, "%s", msg);
        else if (hi->swap || hi->fortran)
            lwt__npy_fail(err, errlen, path, "the MPI path reads C-order arrays in this machine's byte order");
        else
            rc = 0;
    }
    *offset = prelen + hlen;
    free(text);
    fclose(f);
    return rc;
}

#define IO_PIECE ((size_t)1 << 30) /* bytes of one MPI-IO call: counts are ints */

int mpi_read_at(MPI_File fh, size_t off, void *buf, size_t bytes)
{
    for (size_t at = 0; at < bytes; at += IO_PIECE) {
        const int n = (int)(bytes - at < IO_PIECE ? bytes - at : IO_PIECE);
        MPI_Status s;
        int got = 0;
        if (MPI_File_read_at(fh, (MPI_Offset)(off + at), (char *)buf + at, n, MPI_BYTE, &s) != MPI_SUCCESS ||
            MPI_Get_count(&s, MPI_BYTE, &got) != MPI_SUCCESS || got != n)
            return -1;
    }
    return 0;
}

int mpi_write_at(MPI_File fh, size_t off, const void *buf, size_t bytes)
{
    for (size_t at = 0; at < bytes; at += IO_PIECE) {
        const int n = (int)(bytes - at < IO_PIECE ? bytes - at : IO_PIECE);
        if (MPI_File_write_at(fh, (MPI_Offset)(off + at), (const char *)buf + at, n, MPI_BYTE, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            return -1;
    }
    return 0;
}

/* 1 where every rank's ok is 1 */
int mpi_all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* a temporary name beside path, the same on every rank (rank 0 makes the file) */
int mpi_temp_beside(const char *path, char *tmp, size_t len)
{
    int ok = 1, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        ok = snprintf(tmp, len, "%s.tmp-XXXXXX", path) < (int)len;
        int fd = ok ? mkstemp(tmp) : -1;
        if (fd < 0) {
            fprintf(stderr, "lwt: %s: cannot create a temporary file beside it\n", path);
            ok = 0;
        } else {
            close(fd);
        }
    }
    MPI_Bcast(tmp, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    return mpi_all_ok(ok);
}

/* every rank's slab: equal shares of n rows */
void mpi_slab_of(size_t n, int q, int nranks, size_t *r0, size_t *r1)
{
    *r0 = n * (size_t)q / (size_t)nranks;
    *r1 = n * (size_t)(q + 1) / (size_t)nranks;
}
