/*
 * mapped_array.h - memory-mapped arrays for streamed transforms of data larger
 * than RAM.
 *
 * Input: a .npy file (lwt_map_npy_read) or a raw binary array of native
 * float16/float32/float64 (lwt_map_raw_read), mapped read-only: the data is used in
 * place, so only what needs no conversion is accepted (C order, this machine's
 * byte order, data at a multiple of the element size).
 *
 * Output: lwt_map_npy_create makes a temporary sibling of the final path with
 * the header npy_write would write, extends it to its full size (sparse,
 * zero-filled) and maps it read-write; the caller fills data, then
 * lwt_map_commit makes it durable and renames it over the path (atomic), or
 * lwt_map_close throws it away. Nothing appears at the path until the commit.
 *
 * Scratch: lwt_map_scratch gives anonymous memory, or memory backed by an
 * unlinked file in a directory (for intermediates larger than RAM).
 *
 * Every function returns 0 on success and non-zero on failure, with a one-line
 * message "path: reason" in err (when err is not NULL and errlen > 0); on
 * failure *out is left closed (lwt_map_close on it does nothing, nothing to
 * free, no file left behind). No printing, no exit, no global state.
 *
 * Caveats of mapped I/O that the caller owns: if a mapped input file is
 * truncated by someone else while mapped, or a created/scratch file cannot get
 * disk blocks when a page is first written (disk full), the process receives
 * SIGBUS. Creation checks the free space of the file system up front (best
 * effort) so that the usual case becomes an error message instead.
 */
#ifndef LWT_IO_MAPPED_ARRAY_H
#define LWT_IO_MAPPED_ARRAY_H

#include <stddef.h>
#include <lwt.h>

#include "io/npy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lwt_mapped {
    lwt_dtype dtype;             /* LWT_F16, LWT_F32 or LWT_F64 (scratch: LWT_F32, unused) */
    int ndim;                    /* 0..NPY_MAX_DIMS (scratch: 1) */
    size_t shape[NPY_MAX_DIMS];  /* entries past ndim are 0 (scratch: {bytes}) */
    size_t count;                /* product of shape (scratch: bytes) */
    void *data;                  /* first element (native endian, C order); never NULL
                                    when open, even for count 0 (then not to be
                                    dereferenced); read-only for *_read mappings */
    /* private: */
    void *map;                   /* the mapping (page-aligned), NULL if nothing is mapped */
    size_t map_len;
    int fd;                      /* -1 when none is held */
    char *path, *tmp_path;       /* malloc'ed; tmp_path only for a created, uncommitted file */
    int writable;
} lwt_mapped;

/* Maps an existing .npy file read-only. Versions 1.0, 2.0, 3.0. Only what can
   be used in place: C order, float16/float32/float64 in this machine's byte
   order ('<f2'/'<f4'/'<f8' on little-endian machines, and the '|', '=' and
   bare spellings). Fortran order (with two or more axes longer than 1) and the
   other byte order are refused with a message saying to convert the file (or
   to drop --stream); so are other dtypes, truncated files, directories and
   anything that is not a regular file. Bytes after the data are ignored. */
int lwt_map_npy_read(const char *path, lwt_mapped *out, char *err, size_t errlen);

/* Maps a raw file of native float16/float32/float64 (bfloat16 is refused: no
   .npy output could carry it) with the given shape (ndim
   0..NPY_MAX_DIMS; shape may be NULL when ndim is 0), the data starting at
   offset_bytes (a multiple of the element size). The file size minus the
   offset must equal count * element size; otherwise the message gives both
   numbers. */
int lwt_map_raw_read(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
                     size_t offset_bytes, lwt_mapped *out, char *err, size_t errlen);

/* Creates path's temporary sibling (same directory, unique name
   "<path>.tmp-<pid>-<n>", mode 0666 & ~umask), writes the header npy_write
   would write ('<f2'/'<f4'/'<f8', C order, version 1.0 or 2.0, data at a multiple of
   64 bytes), extends it to its full size (ftruncate: sparse, zero-filled) and
   maps it read-write. Nothing appears at path until lwt_map_commit. On a
   big-endian machine this is refused (the data would not be '<'). */
int lwt_map_npy_create(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
                       lwt_mapped *out, char *err, size_t errlen);

/* For a mapping made by lwt_map_npy_create: msync, fsync, rename over the
   path, fsync of the directory (best effort). Closes *m in every case; on
   failure the temporary is removed and the path is left as it was. */
int lwt_map_commit(lwt_mapped *m, char *err, size_t errlen);

/* Unmaps and closes; for a created file that was not committed, removes the
   temporary. NULL-safe and idempotent; a zero-initialised struct is closed. */
void lwt_map_close(lwt_mapped *m);

/* Scratch memory of `bytes` bytes, read-write, zero-filled: anonymous
   (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE) when dir is NULL, else backed
   by a temporary file in dir that is unlinked at once (nothing is left behind,
   whatever happens to the process), for scratch larger than RAM. data is
   page-aligned. */
int lwt_map_scratch(size_t bytes, const char *dir, lwt_mapped *out, char *err, size_t errlen);

/* Hints that the mapping will be streamed through in order (madvise and
   fadvise SEQUENTIAL); no-op where unsupported, NULL-safe. */
void lwt_map_advise_sequential(const lwt_mapped *m);

#ifdef __cplusplus
}
#endif

#endif /* LWT_IO_MAPPED_ARRAY_H */
