/*
 * surface_file.h - read and write measured areal surfaces (height maps).
 *
 * Formats (see docs/FORMATS.md for the details and deviations):
 *   read : X3P (ISO 25178-72, .x3p), SDF (ISO 25178-71 / BCR, ASCII and binary, .sdf),
 *          Digital Surf (.sur), Sensofar PLu (.plu), NumPy (.npy, 2-D float32/float64)
 *   write: X3P (float64 data, valid.bin mask) and SDF (ASCII or binary, float64)
 *
 * Data model: nx points per profile along x (the fast axis), ny profiles along y,
 * heights[iy*nx + ix] in metres as doubles, NaN = invalid (not measured) point,
 * spacing dx, dy in metres. A .npy file carries no spacing: dx = dy = 0 after reading
 * and the caller fills them in.
 *
 * Every function returns 0 on success and one of the LWT_SURFACE_ERR_* codes on failure,
 * with a one-line message "FILE: reason" in err (when err != NULL and errlen > 0).
 * Nothing here prints, exits or keeps global state. Writers are atomic: they write a
 * temporary file beside the target and rename it over the target only on success;
 * on failure neither the target nor a temporary file is left behind.
 */
#ifndef LWT_IO_SURFACE_FILE_H
#define LWT_IO_SURFACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes (pinned). */
enum {
    LWT_SURFACE_OK = 0,
    LWT_SURFACE_ERR_IO = 1,        /* cannot open, read, write or rename a file */
    LWT_SURFACE_ERR_FORMAT = 2,    /* corrupt, truncated, inconsistent or unsupported file */
    LWT_SURFACE_ERR_CHECKSUM = 3,  /* an MD5 checksum does not match */
    LWT_SURFACE_ERR_NOT_AREAL = 4, /* a profile or point cloud, not an areal surface */
    LWT_SURFACE_ERR_NO_DATA = 5,   /* every point is invalid */
    LWT_SURFACE_ERR_MEMORY = 6,    /* out of memory, or dimensions too large */
    LWT_SURFACE_ERR_ARG = 7        /* bad argument (NULL, empty surface, bad spacing) */
};

typedef struct lwt_surface {
    size_t nx, ny;          /* nx points per profile (x, fast axis), ny profiles; heights[iy*nx + ix] */
    double dx, dy;          /* spacing in metres (0 = unknown, .npy) */
    double *z;              /* heights in metres, NaN = invalid point, malloc'ed */
    char source_format[16]; /* "x3p", "sdf", "sur", "plu", "npy" */
    double z_resolution;    /* metres, 0 = unknown (SDF Zresolution) */
    char date[40];          /* measurement date: ISO 8601 when the file allows it, else as stored */
    char instrument[128];   /* manufacturer and model, as stored */
    char creator[64];       /* operator / creator, as stored */
    char comment[256];      /* free comment, truncated */
} lwt_surface;

/** Zero every field (z = NULL). */
void lwt_surface_init(lwt_surface *s);
/** Initialise s and allocate z for nx*ny points (all NaN). 0 ok, LWT_SURFACE_ERR_MEMORY. */
int lwt_surface_alloc(lwt_surface *s, size_t nx, size_t ny);
/** Free z and re-initialise s. NULL is a no-op. */
void lwt_surface_free(lwt_surface *s);
/** Number of finite (valid) heights. */
size_t lwt_surface_count_valid(const lwt_surface *s);

/** Read any supported file; the format is chosen by magic bytes, then by extension.
 *  out is initialised first; on failure it holds nothing to free. */
int lwt_surface_read(const char *path, lwt_surface *out, char *err, size_t errlen);

/** Readers for one format each (same contract as lwt_surface_read). */
int lwt_surface_read_x3p(const char *path, lwt_surface *out, char *err, size_t errlen);
int lwt_surface_read_sdf(const char *path, lwt_surface *out, char *err, size_t errlen);
int lwt_surface_read_sur(const char *path, lwt_surface *out, char *err, size_t errlen);
int lwt_surface_read_plu(const char *path, lwt_surface *out, char *err, size_t errlen);
int lwt_surface_read_npy(const char *path, lwt_surface *out, char *err, size_t errlen);

/** X3P: data.bin as float64 (D), valid.bin when there are NaN points, MD5 checksums.
 *  Needs dx > 0 and dy > 0. */
int lwt_surface_write_x3p(const char *path, const lwt_surface *s, char *err, size_t errlen);
/** SDF (ISO 25178-71, "aISO-1.0"/"bISO-1.0"), DataType 7 (double), Zscale 1 (heights in metres,
 *  written exactly). binary != 0: binary; else ASCII with "BAD" for invalid points.
 *  Binary needs nx, ny <= 65535. */
int lwt_surface_write_sdf(const char *path, const lwt_surface *s, int binary, char *err, size_t errlen);
/** Write by extension: .x3p -> X3P, .sdf -> binary SDF. */
int lwt_surface_write(const char *path, const lwt_surface *s, char *err, size_t errlen);

/* ------------------------------------------------------------------------------------------
 * Internal to src/io (shared by the format files; not for the CLI).
 * ------------------------------------------------------------------------------------------ */

/** Format "path: message" into err and return code. */
int lwt__surf_fail(char *err, size_t errlen, int code, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/** Read a whole file into a malloc'ed buffer (one extra NUL byte after the data). */
/* Checks shared by the writers: a file name, a non-empty surface, positive
   spacing (named in the message as `format` needs it) and a point count that
   fits; *n receives nx * ny. 0 when writable, else the failure code. */
int lwt__check_writable(const char *path, const lwt_surface *s, const char *format, size_t *n, char *err,
                        size_t errlen);
int lwt__read_whole_file(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen);

/** Create a new temporary file beside path ("path.tmp-PID-N", O_EXCL, mode 0666 & ~umask).
 *  tmp receives its name. Returns an open fd, or -1 with err set. */
int lwt__tmp_create(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
/** fsync + close fd and rename tmp to path; on any failure unlink tmp. 0 ok. */
int lwt__tmp_commit(int fd, const char *tmp, const char *path, char *err, size_t errlen);
/** close fd (if >= 0) and unlink tmp. */
void lwt__tmp_abort(int fd, const char *tmp);
/** Write all bytes to fd. 0 ok, -1 error (errno set). */
int lwt__write_all(int fd, const void *buf, size_t len);

/** Length unit to metres: "m", "mm", "um", "µm" (UTF-8 or Latin-1), "nm", "pm", "A".
 *  Leading/trailing blanks ignored. 0 if unknown. */
double lwt__unit_to_metres(const char *unit);
/** Current UTC time as "YYYY-MM-DDThh:mm:ssZ". */
void lwt__now_iso8601(char *buf, size_t n);
/** Copy at most n-1 bytes of src (len bytes, not necessarily terminated) into dst, trimming
 *  blanks and control characters at both ends, replacing inner control characters by spaces. */
void lwt__copy_clean(char *dst, size_t n, const char *src, size_t len);
/** a*b without overflow: 0 ok, -1 on overflow. */
static inline int lwt__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

/* Little-endian loads and stores, independent of the host byte order. */
static inline uint16_t lwt__le16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t lwt__le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t lwt__le64(const unsigned char *p)
{
    return (uint64_t)lwt__le32(p) | ((uint64_t)lwt__le32(p + 4) << 32);
}
static inline float lwt__lef32(const unsigned char *p)
{
    uint32_t u = lwt__le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double lwt__lef64(const unsigned char *p)
{
    uint64_t u = lwt__le64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static inline void lwt__put_le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
}
static inline void lwt__put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((v >> (8 * i)) & 0xff);
}
static inline void lwt__put_lef64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    lwt__put_le64(p, u);
}

#ifdef __cplusplus
}
#endif

#endif /* LWT_IO_SURFACE_FILE_H */
