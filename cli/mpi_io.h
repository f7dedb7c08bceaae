/* mpi_io.h - MPI-IO and the ranks' agreement for the --mpi commands (mpi_io.c). */
#ifndef LWT_CLI_MPI_IO_H
#define LWT_CLI_MPI_IO_H

#include <mpi.h>
#include <stddef.h>

#include "io/npy_header.h"

/* the .npy header of path: dtype, shape and where the data starts; 0, or -1 with err */
int mpi_npy_header_at(const char *path, npy_header_info *hi, size_t *offset, char *err, size_t errlen);
/* bytes at file offset off, in pieces of at most 1 GiB; 0 or -1 */
int mpi_read_at(MPI_File fh, size_t off, void *buf, size_t bytes);
int mpi_write_at(MPI_File fh, size_t off, const void *buf, size_t bytes);
/* 1 where every rank's ok is 1 */
int mpi_all_ok(int ok);
/* a temporary name beside path, the same on every rank (rank 0 makes the file); 1 on every
   rank when it could */
int mpi_temp_beside(const char *path, char *tmp, size_t len);
/* rank q's slab of n rows among nranks: equal shares */
void mpi_slab_of(size_t n, int q, int nranks, size_t *r0, size_t *r1);

#endif
