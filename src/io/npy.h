/*
 * npy.h - NumPy .npy reader and writer used by the lwt CLI.
 *
 * Reading: format versions 1.0, 2.0 and 3.0; dtypes float16, float32 and float64 in any
 * byte order ('<f2', '<f4', '>f8', '=f4', '|f8', 'f4', 'd', 'float64', ...), which are
 * converted to native byte order; fortran_order True is transposed into C order.
 * Every other dtype is refused with a message naming it.
 *
 * Writing: C order, little-endian '<f2' / '<f4' / '<f8', header padded so the data
 * starts at a multiple of 64 bytes, format 1.0 (2.0 only if the header would not
 * fit in 65535 bytes). The file appears atomically (temporary file in the same
 * directory, fsync, rename) or not at all.
 *
 * Both functions return 0 on success and non-zero on failure, with a one-line
 * message starting with the path in err (when err is not NULL and errlen > 0).
 * No global state, no printing; safe to call from several threads on different
 * files.
 */
#ifndef LWT_IO_NPY_H
#define LWT_IO_NPY_H

#include <stddef.h>
#include <lwt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAX_DIMS 32

typedef struct npy_array {
    lwt_dtype dtype;              /* LWT_F16 ('<f2', IEEE binary16), LWT_F32 or LWT_F64 */
    int ndim;                     /* 0..NPY_MAX_DIMS as read; the CLI checks its own limits */
    size_t shape[NPY_MAX_DIMS];   /* entries past ndim are 0 */
    size_t count;                 /* product of shape (1 for ndim 0; 0 if any dim is 0) */
    void *data;                   /* native-endian, C order, malloc'ed; never NULL after a
                                     successful read, even when count is 0 */
} npy_array;

/* bytes of one value of an npy dtype */
static inline size_t npy_elem_size(lwt_dtype dt)
{
    return dt == LWT_F16 ? 2 : dt == LWT_F32 ? 4 : 8;
}

/* numpy's name of an npy dtype, for messages */
static inline const char *npy_dtype_name(lwt_dtype dt)
{
    return dt == LWT_F16 ? "float16" : dt == LWT_F32 ? "float32" : "float64";
}

/* whether a .npy file can carry dt (bfloat16 has no numpy dtype) */
static inline int npy_dtype_ok(lwt_dtype dt)
{
    return dt == LWT_F16 || dt == LWT_F32 || dt == LWT_F64;
}

/* Reads path into *out. On failure *out is left zeroed (nothing to free), the
   return value is non-zero and err holds e.g.
   "in.npy: truncated: header says 1000 bytes of data, file has 996".
   Bytes after the data (trailing garbage) are ignored. */
int npy_read(const char *path, npy_array *out, char *err, size_t errlen);
/* npy_read that refuses, before allocating, an array whose data (twice it for a Fortran-order
   array, transposed through a copy) is more than max_bytes: "in.npy: reading it needs 10.0 GiB,
   more than the memory limit of 64.0 MiB", returning NPY_OVER_LIMIT (other failures: -1).
   max_bytes 0: no limit (npy_read). */
#define NPY_OVER_LIMIT 2
int npy_read_max(const char *path, size_t max_bytes, npy_array *out, char *err, size_t errlen);

/* Writes a C-order little-endian '<f2'/'<f4'/'<f8' .npy file holding
   product(shape[0..ndim)) elements of data (native-endian). ndim may be
   0..NPY_MAX_DIMS; shape may be NULL when ndim is 0; data may be NULL when the
   element count is 0. Atomic: on failure no file at path is created or changed
   and no temporary file is left behind. A new file gets mode 0666 & ~umask. */
int npy_write(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
              const void *data, char *err, size_t errlen);

/* npy_write with durable = 0: no fsync of the file or of its folder before and after the
   rename, for files written into a folder that appears whole later (lwt filter's output
   folders), whose durability, if any, is the folder's business. durable = 1: npy_write. */
int npy_write_sync(const char *path, lwt_dtype dtype, int ndim, const size_t *shape, const void *data,
                   int durable, char *err, size_t errlen);

/* Frees a->data and zeroes *a. NULL-safe. */
void npy_free(npy_array *a);

#ifdef __cplusplus
}
#endif

#endif /* LWT_IO_NPY_H */
