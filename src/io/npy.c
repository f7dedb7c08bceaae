/*
 * npy.c - NumPy .npy reader and writer (see npy.h).
 *
 * Format (numpy.lib.format): magic "\x93NUMPY", major, minor, header length
 * (uint16 LE for 1.0, uint32 LE for 2.0 and 3.0), then the header: a Python
 * dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with
 * spaces and ended by '\n' (latin1 for 1.0/2.0, utf8 for 3.0), then the raw data.
 *
 * Choices:
 *  - The header dict is parsed as a small subset of Python literal syntax: the
 *    three keys in any order, each exactly once (no other key), strings in ' or
 *    " quotes, any whitespace, trailing commas in the dict and in the tuple.
 *    Dimensions are decimal integers; a Python 2 'L' suffix is accepted.
 *  - The header length is capped at NPY_MAX_HEADER bytes so that a corrupt
 *    length field cannot make us allocate gigabytes.
 *  - The data size is checked against the file size before anything is
 *    allocated (regular files); for pipes the buffer grows geometrically up to
 *    the declared size, so a lying header costs at most twice what is there.
 *  - Trailing bytes after the data are ignored (numpy.load ignores them too, and
 *    appending to a .npy file is a known, harmless practice).
 *  - Fortran-order data is transposed into C order while it is read, through a
 *    bounce buffer of whole slabs (see read_fortran), so peak memory stays near
 *    1x the array; the transpose is tiled so that it stays cache-friendly for
 *    multi-GB arrays. Axes of extent 1 are ignored, so (n, 1) costs a plain read.
 *    From a pipe the whole array is read first and transposed into a second
 *    buffer (2x).
 */
#define _XOPEN_SOURCE 700
#define _FILE_OFFSET_BITS 64

#include "io/npy.h"
#include "io/npy_header.h"
#include "io/surface_file.h" /* lwt__format_bytes */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define NPY_IO_CHUNK ((size_t)1 << 26)     /* bytes per fread/fwrite call */
#define NPY_TILE 32                        /* transpose tile edge, in elements */

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ------------------------------------------------------------ small helpers */

int lwt__npy_fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    if (err && errlen > 0) {
        int n = snprintf(err, errlen, "%s: ", path ? path : "(null)");
        if (n < 0)
            n = 0;
        if ((size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
        /* one line, whatever the path or the file contained */
        for (char *c = err; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
    }
    return -1;
}

/* Copies at most 48 characters of s[0..n) into out (size >= 64), replacing
   anything that is not printable ASCII by '?', so messages stay one clean line. */
static void printable(char *out, const char *s, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n && k < 48; i++) {
        unsigned char c = (unsigned char)s[i];
        out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (i < n) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void byteswap(void *data, size_t count, size_t elsize)
{
    unsigned char *p = data;
    size_t i;
    if (elsize == 2) {
        for (i = 0; i < count; i++, p += 2) {
            const unsigned char t = p[0];
            p[0] = p[1];
            p[1] = t;
        }
    } else if (elsize == 4) {
        for (i = 0; i < count; i++, p += 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            memcpy(p, &v, 4);
        }
    } else {
        for (i = 0; i < count; i++, p += 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = ((v >> 56) & 0xffu) | ((v >> 40) & 0xff00u) | ((v >> 24) & 0xff0000u) |
                ((v >> 8) & 0xff000000u) | ((v << 8) & 0xff00000000u) |
                ((v << 24) & 0xff0000000000u) | ((v << 40) & 0xff000000000000u) | (v << 56);
            memcpy(p, &v, 8);
        }
    }
}

/* Element count of shape, 0 if any dim is 0. Returns -1 if it overflows. */
int lwt__npy_shape_count(int ndim, const size_t *shape, size_t *count)
{
    size_t n = 1;
    int k;
    for (k = 0; k < ndim; k++)
        if (shape[k] == 0) {
            *count = 0;
            return 0;
        }
    for (k = 0; k < ndim; k++) {
        if (n > SIZE_MAX / shape[k])
            return -1;
        n *= shape[k];
    }
    *count = n;
    return 0;
}

/* -------------------------------------------------- Fortran -> C transpose */

/* Axes of extent 1 change neither the C nor the Fortran layout: drop them.
   Returns the number of axes left; if it is at most 1, both layouts coincide. */
static int squeeze(int ndim, const size_t *shape, size_t *sq)
{
    int k, n = 0;
    for (k = 0; k < ndim; k++)
        if (shape[k] != 1)
            sq[n++] = shape[k];
    return n;
}

/* The full array has shape[0..nd) (nd >= 2, every extent >= 1); dst receives
   it in C order (axis nd-1 fastest). src holds `slabs` consecutive slabs of the
   Fortran-order data (axis 0 fastest), i.e. the elements whose last index runs
   over first_slab .. first_slab+slabs-1. For each index of the middle axes
   1..nd-2 this is a 2-D transpose between axis 0 (contiguous in src) and axis
   nd-1 (contiguous in dst), done in tiles so both sides stay in cache. */
#define NPY_DEFINE_F2C(NAME, T)                                                     \
    static void NAME(const T *src, T *dst, int nd, const size_t *shape,             \
                     size_t first_slab, size_t slabs)                               \
    {                                                                               \
        size_t S[NPY_MAX_DIMS], D[NPY_MAX_DIMS], idx[NPY_MAX_DIMS];                 \
        size_t bs = 0, bd = first_slab, a0, b0, a, b;                               \
        int k;                                                                      \
        S[0] = 1;                                                                   \
        for (k = 1; k < nd; k++)                                                    \
            S[k] = S[k - 1] * shape[k - 1];                                         \
        D[nd - 1] = 1;                                                              \
        for (k = nd - 2; k >= 0; k--)                                               \
            D[k] = D[k + 1] * shape[k + 1];                                         \
        for (k = 0; k < nd; k++)                                                    \
            idx[k] = 0;                                                             \
        const size_t n0 = shape[0], d0 = D[0], sl = S[nd - 1];                      \
        for (;;) {                                                                  \
            for (a0 = 0; a0 < n0; a0 += NPY_TILE) {                                 \
                size_t a1 = n0 - a0 < NPY_TILE ? n0 : a0 + NPY_TILE;                \
                for (b0 = 0; b0 < slabs; b0 += NPY_TILE) {                          \
                    size_t b1 = slabs - b0 < NPY_TILE ? slabs : b0 + NPY_TILE;      \
                    for (a = a0; a < a1; a++) {                                     \
                        T *drow = dst + bd + a * d0;                                \
                        const T *scol = src + bs + a;                               \
                        for (b = b0; b < b1; b++)                                   \
                            drow[b] = scol[b * sl];                                 \
                    }                                                               \
                }                                                                   \
            }                                                                       \
            for (k = nd - 2; k >= 1; k--) { /* odometer over the middle axes */     \
                idx[k]++;                                                           \
                bs += S[k];                                                         \
                bd += D[k];                                                         \
                if (idx[k] < shape[k])                                              \
                    break;                                                          \
                bs -= S[k] * shape[k];                                              \
                bd -= D[k] * shape[k];                                              \
                idx[k] = 0;                                                         \
            }                                                                       \
            if (k < 1)                                                              \
                break;                                                              \
        }                                                                           \
    }

NPY_DEFINE_F2C(f2c_u16, uint16_t)
NPY_DEFINE_F2C(f2c_u32, uint32_t)
NPY_DEFINE_F2C(f2c_u64, uint64_t)

static void f2c(const void *src, void *dst, size_t elsize, int nd, const size_t *shape,
                size_t first_slab, size_t slabs)
{
    if (elsize == 2)
        f2c_u16(src, dst, nd, shape, first_slab, slabs);
    else if (elsize == 4)
        f2c_u32(src, dst, nd, shape, first_slab, slabs);
    else
        f2c_u64(src, dst, nd, shape, first_slab, slabs);
}

/* ---------------------------------------------------------- header parsing */

typedef struct span {
    const char *s;
    size_t n;
} span;

typedef struct hparse {
    const char *p;      /* cursor in a NUL-terminated copy of the header */
    char msg[160];      /* what went wrong, after "malformed header: " */
} hparse;

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_ws(hparse *h)
{
    while (is_ws(*h->p))
        h->p++;
}

/* Records what went wrong and where: up to the end of the line, without the
   padding, shortened by printable(). */
static int perr(hparse *h, const char *what)
{
    char near[64];
    size_t n = strcspn(h->p, "\n");
    while (n > 0 && is_ws(h->p[n - 1]))
        n--;
    printable(near, h->p, n);
    if (n > 0)
        snprintf(h->msg, sizeof h->msg, "%s near \"%s\"", what, near);
    else
        snprintf(h->msg, sizeof h->msg, "%s, but the header ends", what);
    return -1;
}

/* A quoted string starting at h->p; sets *content to what is inside the quotes
   (escapes are kept as written: no valid descr contains any). */
static int parse_string(hparse *h, span *content)
{
    char q = *h->p;
    const char *start;
    if (q != '\'' && q != '"')
        return perr(h, "expected a quoted string");
    start = ++h->p;
    while (*h->p && *h->p != q) {
        if (*h->p == '\\' && h->p[1])
            h->p++;
        h->p++;
    }
    if (!*h->p)
        return perr(h, "unterminated string");
    content->s = start;
    content->n = (size_t)(h->p - start);
    h->p++;
    return 0;
}

/* Skips one Python literal (string, bracketed group, or bare token) and returns
   its text in *v. Brackets are only counted, not matched by kind: anything
   bracketed is rejected later by the key that receives it. */
static int skip_value(hparse *h, span *v)
{
    const char *start = h->p;
    char c = *h->p;
    if (c == '\'' || c == '"') {
        span dummy;
        if (parse_string(h, &dummy))
            return -1;
    } else if (c == '(' || c == '[' || c == '{') {
        size_t depth = 0;
        do {
            c = *h->p;
            if (!c)
                return perr(h, "unbalanced brackets");
            if (c == '\'' || c == '"') {
                span dummy;
                if (parse_string(h, &dummy))
                    return -1;
                continue;
            }
            if (c == '(' || c == '[' || c == '{')
                depth++;
            else if (c == ')' || c == ']' || c == '}')
                depth--;
            h->p++;
        } while (depth > 0);
    } else {
        while (*h->p && !is_ws(*h->p) && !strchr(",:()[]{}'\"", *h->p))
            h->p++;
        if (h->p == start)
            return perr(h, "expected a value");
    }
    v->s = start;
    v->n = (size_t)(h->p - start);
    return 0;
}

static int span_is(span v, const char *lit)
{
    return v.n == strlen(lit) && memcmp(v.s, lit, v.n) == 0;
}

typedef npy_header_info header_info; /* see npy_header.h */

/* descr: a string naming float32 or float64, with an optional byte-order mark. */
static int eval_descr(span v, header_info *hi, char *msg, size_t msglen)
{
    char shown[64];
    int order = 0; /* 0 native, 1 little, 2 big */
    span d;
    if (v.n < 2 || (v.s[0] != '\'' && v.s[0] != '"')) {
        printable(shown, v.s, v.n);
        snprintf(msg, msglen, "unsupported dtype %s (lwt reads float16, float32 and float64)", shown);
        return -1;
    }
    d.s = v.s + 1;
    d.n = v.n - 2;
    printable(shown, d.s, d.n);
    if (d.n > 0 && strchr("<>=|", d.s[0])) {
        order = d.s[0] == '<' ? 1 : d.s[0] == '>' ? 2 : 0;
        d.s++;
        d.n--;
    }
    if (span_is(d, "f2") || span_is(d, "e"))
        hi->dtype = LWT_F16;
    else if (span_is(d, "f4") || span_is(d, "f"))
        hi->dtype = LWT_F32;
    else if (span_is(d, "f8") || span_is(d, "d"))
        hi->dtype = LWT_F64;
    else if (order == 0 && d.s == v.s + 1 && span_is(d, "float16"))
        hi->dtype = LWT_F16;
    else if (order == 0 && d.s == v.s + 1 && span_is(d, "float32"))
        hi->dtype = LWT_F32;
    else if (order == 0 && d.s == v.s + 1 && span_is(d, "float64"))
        hi->dtype = LWT_F64;
    else {
        snprintf(msg, msglen, "unsupported dtype '%s' (lwt reads float16, float32 and float64)", shown);
        return -1;
    }
    hi->swap = order == 0 ? 0 : (order == 1) != host_is_little_endian();
    return 0;
}

/* One shape entry: [+-]digits[L]. */
static int eval_dim(span v, size_t *out, char *msg, size_t msglen)
{
    char shown[64];
    size_t i = 0, n = 0;
    int neg = 0, overflow = 0;
    printable(shown, v.s, v.n);
    if (i < v.n && (v.s[i] == '+' || v.s[i] == '-'))
        neg = v.s[i++] == '-';
    if (i == v.n || v.s[i] < '0' || v.s[i] > '9')
        goto nonint;
    for (; i < v.n && v.s[i] >= '0' && v.s[i] <= '9'; i++) {
        unsigned digit = (unsigned)(v.s[i] - '0');
        if (n > (SIZE_MAX - digit) / 10)
            overflow = 1;
        else
            n = n * 10 + digit;
    }
    if (i < v.n && (v.s[i] == 'L' || v.s[i] == 'l'))
        i++;
    if (i != v.n)
        goto nonint;
    if (neg && (n != 0 || overflow)) {
        snprintf(msg, msglen, "negative dimension %s in shape", shown);
        return -1;
    }
    if (overflow) {
        snprintf(msg, msglen, "dimension %s in shape is too large", shown);
        return -1;
    }
    *out = n;
    return 0;
nonint:
    snprintf(msg, msglen, "non-integer dimension '%s' in shape", shown);
    return -1;
}

/* shape: a tuple of dimensions: (), (5,), (3, 4), (3, 4,). */
static int eval_shape(span v, header_info *hi, char *msg, size_t msglen, int *malformed)
{
    char shown[64];
    hparse h;
    int ndim = 0, commas = 0;
    printable(shown, v.s, v.n);
    *malformed = 1;
    if (v.n < 2 || v.s[0] != '(' || v.s[v.n - 1] != ')') {
        snprintf(msg, msglen, "shape must be a tuple, got %s", shown);
        return -1;
    }
    /* The value was cut out of a NUL-terminated header by skip_value, so the
       closing ')' bounds the walk below. */
    h.p = v.s + 1;
    h.msg[0] = '\0';
    skip_ws(&h);
    while (*h.p != ')') {
        span e;
        if (skip_value(&h, &e)) {
            snprintf(msg, msglen, "bad shape %s: %.80s", shown, h.msg);
            return -1;
        }
        if (ndim == NPY_MAX_DIMS) {
            *malformed = 0;
            snprintf(msg, msglen, "too many dimensions in shape (lwt reads at most %d)",
                     NPY_MAX_DIMS);
            return -1;
        }
        if (eval_dim(e, &hi->shape[ndim], msg, msglen)) {
            *malformed = 0;
            return -1;
        }
        ndim++;
        skip_ws(&h);
        if (*h.p == ',') {
            h.p++;
            commas++;
            skip_ws(&h);
        } else if (*h.p != ')') {
            snprintf(msg, msglen, "bad shape %s: expected ',' or ')' between dimensions", shown);
            return -1;
        }
    }
    if (h.p != v.s + v.n - 1) {
        snprintf(msg, msglen, "bad shape %s", shown);
        return -1;
    }
    if (ndim == 1 && commas == 0) {
        snprintf(msg, msglen, "shape %s is not a tuple (a 1-tuple is written (n,))", shown);
        return -1;
    }
    *malformed = 0;
    hi->ndim = ndim;
    return 0;
}

/* Parses the header text (NUL-terminated). On error writes the reason into msg. */
int lwt__npy_parse_header(const char *text, size_t len, header_info *hi, char *msg, size_t msglen)
{
    hparse h;
    memset(hi, 0, sizeof *hi);
    if (memchr(text, '\0', len)) {
        snprintf(msg, msglen, "malformed header: contains a NUL byte");
        return -1;
    }
    span descr = {0, 0}, fortran = {0, 0}, shape = {0, 0};
    int have_descr = 0, have_fortran = 0, have_shape = 0, malformed;
    char shown[64];

    h.p = text;
    h.msg[0] = '\0';
    skip_ws(&h);
    if (*h.p != '{') {
        perr(&h, "expected '{'");
        goto bad;
    }
    h.p++;
    for (;;) {
        span key, val;
        skip_ws(&h);
        if (*h.p == '}')
            break;
        if (parse_string(&h, &key))
            goto bad;
        skip_ws(&h);
        if (*h.p != ':') {
            perr(&h, "expected ':'");
            goto bad;
        }
        h.p++;
        skip_ws(&h);
        if (skip_value(&h, &val))
            goto bad;
        printable(shown, key.s, key.n);
        if (span_is(key, "descr") || span_is(key, "fortran_order") || span_is(key, "shape")) {
            int *have = key.s[0] == 'd' ? &have_descr : key.s[0] == 'f' ? &have_fortran
                                                                         : &have_shape;
            if (*have) {
                snprintf(h.msg, sizeof h.msg, "duplicate key '%s'", shown);
                goto bad;
            }
            *have = 1;
            *(key.s[0] == 'd' ? &descr : key.s[0] == 'f' ? &fortran : &shape) = val;
        } else {
            snprintf(h.msg, sizeof h.msg, "unexpected key '%s'", shown);
            goto bad;
        }
        skip_ws(&h);
        if (*h.p == ',') {
            h.p++;
            continue;
        }
        if (*h.p != '}') {
            perr(&h, "expected ',' or '}'");
            goto bad;
        }
    }
    h.p++;
    skip_ws(&h);
    if (*h.p) {
        perr(&h, "unexpected text after the dict");
        goto bad;
    }
    if (!have_descr || !have_fortran || !have_shape) {
        snprintf(h.msg, sizeof h.msg, "missing key '%s'",
                 !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
        goto bad;
    }

    /* The dtype first: "unsupported dtype" is the most useful thing to say. */
    if (eval_descr(descr, hi, msg, msglen))
        return -1;
    if (span_is(fortran, "True"))
        hi->fortran = 1;
    else if (span_is(fortran, "False"))
        hi->fortran = 0;
    else {
        printable(shown, fortran.s, fortran.n);
        snprintf(h.msg, sizeof h.msg, "fortran_order must be True or False, got %s", shown);
        goto bad;
    }
    if (eval_shape(shape, hi, h.msg, sizeof h.msg, &malformed)) {
        if (malformed)
            goto bad;
        snprintf(msg, msglen, "%s", h.msg);
        return -1;
    }
    return 0;
bad:
    snprintf(msg, msglen, "malformed header: %s", h.msg);
    return -1;
}

/* ------------------------------------------------------------------ reading */

/* "(3, 4)", "(5,)", "()" */
void lwt__npy_format_shape(char *buf, size_t size, int ndim, const size_t *shape)
{
    size_t n = 0;
    int k;
    buf[n++] = '(';
    for (k = 0; k < ndim && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, k ? ", %zu" : "%zu", shape[k]);
    if (n < size)
        snprintf(buf + n, size - n, ndim == 1 ? ",)" : ")");
}

/* Shared with lwt_map_npy_read (mapped_array.c): the same checks, the same
   messages. */
int lwt__npy_parse_preamble(unsigned char pre[12], size_t got,
                            size_t (*more)(void *ctx, void *buf, size_t n), void *ctx,
                            const uintmax_t *fsize, size_t *prelen, size_t *hlen, char *msg,
                            size_t msglen)
{
    int major, minor;

    if (got < 6 || memcmp(pre, npy_magic, 6) != 0) {
        snprintf(msg, msglen, "not a .npy file (bad magic; expected \\x93NUMPY)");
        return -1;
    }
    if (got < 8) {
        snprintf(msg, msglen, "truncated header: file ends inside the preamble");
        return -1;
    }
    major = pre[6];
    minor = pre[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0) {
        snprintf(msg, msglen,
                 "unsupported .npy format version %d.%d (lwt reads 1.0, 2.0 and 3.0)", major,
                 minor);
        return -1;
    }
    *prelen = major == 1 ? 10 : 12;
    if (got < *prelen && more)
        got += more(ctx, pre + got, *prelen - got);
    if (got < *prelen) {
        snprintf(msg, msglen, "truncated header: file ends inside the preamble");
        return -1;
    }
    if (major == 1)
        *hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    else
        *hlen = (size_t)((uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 |
                         (uint32_t)pre[11] << 24);
    if (fsize && *fsize < (uintmax_t)*prelen + *hlen) {
        snprintf(msg, msglen, "truncated header: header length is %zu bytes, file has %ju", *hlen,
                 *fsize > *prelen ? *fsize - *prelen : 0);
        return -1;
    }
    if (*hlen > NPY_MAX_HEADER) {
        snprintf(msg, msglen, "header length %zu is too large (at most %zu)", *hlen,
                 NPY_MAX_HEADER);
        return -1;
    }
    return 0;
}

static size_t read_fully(FILE *f, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t want = n - got < NPY_IO_CHUNK ? n - got : NPY_IO_CHUNK;
        size_t r = fread((char *)buf + got, 1, want, f);
        got += r;
        if (r < want)
            break;
    }
    return got;
}

/* lwt__npy_parse_preamble's more for npy_read: the rest of a version 2.0/3.0
   preamble, unless the first read already stopped at end of file or on an
   error. */
static size_t read_more_preamble(void *ctx, void *buf, size_t n)
{
    FILE *f = ctx;
    if (feof(f) || ferror(f))
        return 0;
    return read_fully(f, buf, n);
}

/* Reads Fortran-order data of squeezed shape sq[0..nd) (nd >= 2) straight into
   dst in C order, through a bounce buffer of whole slabs (a slab is all the
   elements with one value of the last index; it is contiguous in the file).
   The bounce buffer is about an eighth of the array, at most NPY_IO_CHUNK, but
   at least one slab, so peak memory is at most 1.5x the array (one slab of at
   least two) and usually 1.125x. Returns the number of bytes read; *oom is set
   if the bounce buffer cannot be allocated. */
static size_t read_fortran(FILE *f, void *dst, size_t elsize, int nd, const size_t *sq,
                           int swap, int *oom)
{
    size_t slab = elsize, nslabs = sq[nd - 1], per, got = 0, b;
    int k;
    unsigned char *bounce;
    for (k = 0; k < nd - 1; k++)
        slab *= sq[k];
    per = (nslabs * slab / 8 < NPY_IO_CHUNK ? nslabs * slab / 8 : NPY_IO_CHUNK) / slab;
    if (per == 0)
        per = 1;
    if (per > nslabs)
        per = nslabs;
    *oom = 0;
    bounce = malloc(per * slab);
    if (!bounce) {
        *oom = 1;
        return 0;
    }
    for (b = 0; b < nslabs; b += per) {
        size_t n = nslabs - b < per ? nslabs - b : per;
        size_t r = read_fully(f, bounce, n * slab);
        got += r;
        if (r < n * slab)
            break;
        if (swap)
            byteswap(bounce, n * slab / elsize, elsize);
        f2c(bounce, dst, elsize, nd, sq, b, n);
    }
    free(bounce);
    return got;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

int npy_read(const char *path, npy_array *out, char *err, size_t errlen)
{
    return npy_read_max(path, 0, out, err, errlen);
}

int npy_read_max(const char *path, size_t max_bytes, npy_array *out, char *err, size_t errlen)
{
    FILE *f = NULL;
    struct stat st;
    int regular, rc = -1, sqdim, transpose;
    uintmax_t fsize = 0;
    unsigned char pre[12];
    size_t got, prelen, hlen, nbytes, elsize, count, sq[NPY_MAX_DIMS];
    char *htext = NULL;
    void *data = NULL;
    header_info hi;
    char msg[256];

    if (out)
        memset(out, 0, sizeof *out);
    if (err && errlen > 0)
        err[0] = '\0';
    if (!path || !out)
        return lwt__npy_fail(err, errlen, path, "npy_read: invalid argument");

    f = fopen(path, "rb");
    if (!f)
        return lwt__npy_fail(err, errlen, path, "cannot open: %s", strerror(errno));
    if (fstat(fileno(f), &st) != 0) {
        lwt__npy_fail(err, errlen, path, "cannot stat: %s", strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        lwt__npy_fail(err, errlen, path, "is a directory, not a .npy file");
        goto done;
    }
    regular = S_ISREG(st.st_mode);
    if (regular)
        fsize = st.st_size > 0 ? (uintmax_t)st.st_size : 0;

    /* preamble */
    got = read_fully(f, pre, 10);
    if (ferror(f)) {
        lwt__npy_fail(err, errlen, path, "read error: %s", strerror(errno));
        goto done;
    }
    if (lwt__npy_parse_preamble(pre, got, read_more_preamble, f, regular ? &fsize : NULL,
                                &prelen, &hlen, msg, sizeof msg)) {
        lwt__npy_fail(err, errlen, path, "%s", msg);
        goto done;
    }

    /* header */
    htext = malloc(hlen + 1);
    if (!htext) {
        lwt__npy_fail(err, errlen, path, "out of memory reading the header");
        goto done;
    }
    got = read_fully(f, htext, hlen);
    if (ferror(f)) {
        lwt__npy_fail(err, errlen, path, "read error: %s", strerror(errno));
        goto done;
    }
    if (got < hlen) {
        lwt__npy_fail(err, errlen, path, "truncated header: header length is %zu bytes, file has %zu",
             hlen, got);
        goto done;
    }
    htext[hlen] = '\0';
    if (lwt__npy_parse_header(htext, hlen, &hi, msg, sizeof msg)) {
        lwt__npy_fail(err, errlen, path, "%s", msg);
        goto done;
    }

    /* size: checked against the file before anything is allocated */
    elsize = npy_elem_size(hi.dtype);
    if (lwt__npy_shape_count(hi.ndim, hi.shape, &count) || count > SIZE_MAX / elsize) {
        char shown[NPY_MAX_DIMS * 22 + 4];
        lwt__npy_format_shape(shown, sizeof shown, hi.ndim, hi.shape);
        lwt__npy_fail(err, errlen, path, "array size overflows: shape %s of %s is more than %zu bytes",
             shown, npy_dtype_name(hi.dtype), SIZE_MAX);
        goto done;
    }
    nbytes = count * elsize;
    sqdim = squeeze(hi.ndim, hi.shape, sq);
    transpose = hi.fortran && sqdim >= 2 && count > 0;
    if (regular && fsize - prelen - hlen < nbytes) {
        lwt__npy_fail(err, errlen, path, "truncated: header says %zu bytes of data, file has %ju", nbytes,
                      fsize - prelen - hlen);
        goto done;
    }
    /* the data, and a second copy while a Fortran-order array is transposed */
    if (max_bytes && (nbytes > max_bytes || (transpose && nbytes > max_bytes - nbytes))) {
        char need[32], have[32];
        lwt__format_bytes(need, sizeof need, transpose && nbytes <= SIZE_MAX / 2 ? 2 * (uint64_t)nbytes : nbytes);
        lwt__format_bytes(have, sizeof have, max_bytes);
        lwt__npy_fail(err, errlen, path, "reading it needs %s, more than the memory limit of %s", need, have);
        rc = NPY_OVER_LIMIT;
        goto done;
    }
    if (regular) {
        data = malloc(nbytes ? nbytes : 1);
        if (!data) {
            lwt__npy_fail(err, errlen, path, "out of memory: cannot allocate %zu bytes", nbytes);
            goto done;
        }
        if (transpose) {
            int oom;
            got = read_fortran(f, data, elsize, sqdim, sq, hi.swap, &oom);
            if (oom) {
                lwt__npy_fail(err, errlen, path, "out of memory: cannot allocate a transpose buffer");
                goto done;
            }
        } else {
            got = read_fully(f, data, nbytes);
        }
    } else {
        /* pipe or device: the size is unknown, so grow geometrically up to the
           declared size (a lying header costs at most twice what is there) */
        size_t cap = nbytes < ((size_t)1 << 20) ? nbytes : (size_t)1 << 20;
        data = malloc(cap ? cap : 1);
        got = 0;
        while (data) {
            size_t r = read_fully(f, (char *)data + got, cap - got);
            got += r;
            if (got < cap || cap == nbytes)
                break;
            size_t ncap = cap > nbytes / 2 ? nbytes : cap * 2;
            void *nd = realloc(data, ncap);
            if (!nd) {
                free(data);
                data = NULL;
                break;
            }
            data = nd;
            cap = ncap;
        }
        if (!data) {
            lwt__npy_fail(err, errlen, path, "out of memory: cannot allocate %zu bytes", nbytes);
            goto done;
        }
    }
    if (ferror(f)) {
        lwt__npy_fail(err, errlen, path, "read error: %s", strerror(errno));
        goto done;
    }
    if (got < nbytes) {
        lwt__npy_fail(err, errlen, path, "truncated: header says %zu bytes of data, file has %zu", nbytes,
             got);
        goto done;
    }
    /* Anything after the data is ignored on purpose (see the top of this file). */

    if (!(regular && transpose)) { /* else read_fortran did both already */
        if (hi.swap)
            byteswap(data, count, elsize);
        if (transpose) {
            void *c = malloc(nbytes);
            if (!c) {
                lwt__npy_fail(err, errlen, path,
                     "out of memory: cannot allocate %zu bytes for the transpose", nbytes);
                goto done;
            }
            f2c(data, c, elsize, sqdim, sq, 0, sq[sqdim - 1]);
            free(data);
            data = c;
        }
    }

    out->dtype = hi.dtype;
    out->ndim = hi.ndim;
    memcpy(out->shape, hi.shape, sizeof out->shape);
    out->count = count;
    out->data = data;
    data = NULL;
    rc = 0;
done:
    free(data);
    free(htext);
    if (f)
        fclose(f);
    return rc;
}

/* ------------------------------------------------------------------ writing */

/* The process umask without changing it (umask() would, for every thread):
   Linux reports it in /proc/self/status; elsewhere assume the usual 022. */
static mode_t current_umask(void)
{
    mode_t m = 022;
    char line[128];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return m;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Umask:", 6) == 0) {
            m = (mode_t)(strtoul(line + 6, NULL, 8) & 0777);
            break;
        }
    }
    fclose(f);
    return m;
}

/* Best effort: make the rename itself durable. */
void lwt__npy_fsync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd;
    if (!slash) {
        dir = malloc(2);
        if (dir)
            strcpy(dir, ".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    if (!dir)
        return;
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

static int write_fully(FILE *f, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < NPY_IO_CHUNK ? n - done : NPY_IO_CHUNK;
        size_t w = fwrite((const char *)buf + done, 1, want, f);
        done += w;
        if (w < want)
            return -1;
    }
    return 0;
}

/* Builds preamble + header into buf (size >= 12 + header text + 64). Returns
   the total length (a multiple of 64), i.e. where the data starts. */
size_t lwt__npy_build_header(unsigned char *buf, size_t bufsize, lwt_dtype dtype, int ndim,
                             const size_t *shape)
{
    char dict[NPY_MAX_DIMS * 24 + 128], tuple[NPY_MAX_DIMS * 22 + 4];
    size_t n, prelen, total, hlen;
    lwt__npy_format_shape(tuple, sizeof tuple, ndim, shape);
    n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                         dtype == LWT_F16 ? "<f2" : dtype == LWT_F32 ? "<f4" : "<f8", tuple);
    if (n >= sizeof dict) /* cannot happen with NPY_MAX_DIMS dims; keeps the bounds visible */
        return 0;

    prelen = 10; /* version 1.0 unless the header length does not fit in 16 bits */
    total = (prelen + n + 1 + 63) / 64 * 64;
    if (total - prelen > 65535) {
        prelen = 12;
        total = (prelen + n + 1 + 63) / 64 * 64;
    }
    if (total > bufsize)
        return 0;
    hlen = total - prelen;
    memcpy(buf, npy_magic, 6);
    buf[6] = prelen == 10 ? 1 : 2;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8 & 0xff);
    if (prelen == 12) {
        buf[10] = (unsigned char)(hlen >> 16 & 0xff);
        buf[11] = (unsigned char)(hlen >> 24 & 0xff);
    }
    memcpy(buf + prelen, dict, n);
    memset(buf + prelen + n, ' ', total - 1 - prelen - n);
    buf[total - 1] = '\n';
    return total;
}

int npy_write(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
              const void *data, char *err, size_t errlen)
{
    return npy_write_sync(path, dtype, ndim, shape, data, 1, err, errlen);
}

int npy_write_sync(const char *path, lwt_dtype dtype, int ndim, const size_t *shape, const void *data,
                   int durable, char *err, size_t errlen)
{
    unsigned char header[NPY_HEADER_BUF];
    size_t hdr, count, elsize, nbytes;
    char *tmp = NULL;
    int fd = -1, rc = -1;
    FILE *f = NULL;

    if (err && errlen > 0)
        err[0] = '\0';
    if (!path || !*path)
        return lwt__npy_fail(err, errlen, path, "npy_write: empty path");
    if (!npy_dtype_ok(dtype))
        return lwt__npy_fail(err, errlen, path, "npy_write: invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return lwt__npy_fail(err, errlen, path, "npy_write: invalid ndim %d (0..%d)", ndim, NPY_MAX_DIMS);
    if (ndim > 0 && !shape)
        return lwt__npy_fail(err, errlen, path, "npy_write: shape is NULL");
    elsize = npy_elem_size(dtype);
    if (lwt__npy_shape_count(ndim, shape, &count) || count > SIZE_MAX / elsize)
        return lwt__npy_fail(err, errlen, path, "npy_write: array size overflows");
    nbytes = count * elsize;
    if (count > 0 && !data)
        return lwt__npy_fail(err, errlen, path, "npy_write: data is NULL");
    hdr = lwt__npy_build_header(header, sizeof header, dtype, ndim, shape);
    if (hdr == 0)
        return lwt__npy_fail(err, errlen, path, "npy_write: header too large");

    tmp = malloc(strlen(path) + sizeof ".tmp.XXXXXX");
    if (!tmp)
        return lwt__npy_fail(err, errlen, path, "out of memory");
    strcpy(tmp, path);
    strcat(tmp, ".tmp.XXXXXX");
    fd = mkstemp(tmp);
    if (fd < 0) {
        lwt__npy_fail(err, errlen, path, "cannot create temporary file %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes the file 0600; give it the mode a plain fopen would. Best
       effort: some file systems (vfat, some network mounts) refuse chmod. */
    (void)fchmod(fd, 0666 & ~current_umask());
    f = fdopen(fd, "wb");
    if (!f) {
        lwt__npy_fail(err, errlen, path, "cannot open %s: %s", tmp, strerror(errno));
        goto done;
    }
    fd = -1; /* owned by f now */

    if (write_fully(f, header, hdr))
        goto write_error;
    if (host_is_little_endian()) {
        if (write_fully(f, data, nbytes))
            goto write_error;
    } else {
        /* big-endian host: swap a chunk at a time into a scratch buffer */
        size_t chunk = (size_t)1 << 20, off;
        unsigned char *scratch = malloc(chunk);
        if (!scratch) {
            lwt__npy_fail(err, errlen, path, "out of memory");
            goto done;
        }
        for (off = 0; off < nbytes; off += chunk) {
            size_t n = nbytes - off < chunk ? nbytes - off : chunk;
            memcpy(scratch, (const unsigned char *)data + off, n);
            byteswap(scratch, n / elsize, elsize);
            if (write_fully(f, scratch, n)) {
                free(scratch);
                goto write_error;
            }
        }
        free(scratch);
    }
    if (fflush(f) != 0)
        goto write_error;
    if (durable && fsync(fileno(f)) != 0) {
        lwt__npy_fail(err, errlen, path, "cannot sync %s: %s", tmp, strerror(errno));
        goto done;
    }
    {
        int c = fclose(f);
        f = NULL;
        if (c != 0)
            goto write_error;
    }
    if (rename(tmp, path) != 0) {
        lwt__npy_fail(err, errlen, path, "cannot rename %s into place: %s", tmp, strerror(errno));
        goto done;
    }
    if (durable)
        lwt__npy_fsync_parent_dir(path);
    rc = 0;
    goto done;

write_error:
    lwt__npy_fail(err, errlen, path, "write error on %s: %s", tmp, strerror(errno ? errno : EIO));
done:
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
