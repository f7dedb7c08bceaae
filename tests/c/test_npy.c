/*
 * test_npy.c - tests of the .npy reader/writer (src/io/npy.c).
 *
 * Files are built byte by byte here (preamble + header dict + data), so every
 * case is explicit. Runs in a scratch directory made under the working
 * directory and removed at the end (kept when something failed).
 * If python3 with numpy is available, numpy also reads files written by
 * npy_write and writes files that npy_read must read; otherwise only that part
 * is skipped.
 */
#define _XOPEN_SOURCE 700

#include "io/npy.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_dirs.h"
#include "test_values.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                             \
    do {                                                                        \
        checks++;                                                               \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                       \
    } while (0)

#define CHECKF(cond, ...)                                                       \
    do {                                                                        \
        checks++;                                                               \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

/* ------------------------------------------------------------ test values */

static int host_le(void)
{
    uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* Re-encodes native values in the requested byte order ('<' or '>'). */
static void to_order(void *buf, size_t count, size_t es, char order)
{
    int want_le = order == '<';
    if (want_le == host_le())
        return;
    unsigned char *p = buf;
    for (size_t i = 0; i < count; i++, p += es)
        for (size_t a = 0, b = es - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* The C-order values rearranged into Fortran order. */
static void *make_fortran_values(lwt_dtype dt, int ndim, const size_t *shape)
{
    size_t es = dt == LWT_F32 ? 4 : 8, count = prod(ndim, shape);
    unsigned char *c = make_values(dt, count);
    unsigned char *f = malloc(count * es + 1);
    for (size_t i = 0; i < count; i++) {
        size_t rem = i, off = 0, stride = 1, idx[NPY_MAX_DIMS];
        for (int k = ndim - 1; k >= 0; k--) {
            idx[k] = rem % shape[k];
            rem /= shape[k];
        }
        for (int k = 0; k < ndim; k++) {
            off += idx[k] * stride;
            stride *= shape[k];
        }
        memcpy(f + off * es, c + i * es, es);
    }
    free(c);
    return f;
}

/* ------------------------------------------------------------ file makers */

static void put_raw(const char *name, const void *bytes, size_t n)
{
    FILE *f = fopen(name, "wb");
    if (!f) {
        perror(name);
        exit(1);
    }
    if (n && fwrite(bytes, 1, n, f) != n) {
        perror(name);
        exit(1);
    }
    fclose(f);
}

/* Writes magic, version major.minor, the header length (2 bytes for 1.x,
   4 bytes otherwise), the dict text (padded with spaces and '\n' to a multiple
   of 64 when pad is set, else as given), then nbytes of data. */
static void put_npy(const char *name, int major, int minor, const char *dict, int pad,
                    const void *data, size_t nbytes)
{
    size_t dl = strlen(dict), pre = major == 1 ? 10 : 12;
    size_t hl = pad ? ((pre + dl + 1 + 63) / 64 * 64 - pre) : dl;
    unsigned char *b = malloc(pre + hl + nbytes + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = (unsigned char)minor;
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8 & 0xff);
    if (pre == 12) {
        b[10] = (unsigned char)(hl >> 16 & 0xff);
        b[11] = (unsigned char)(hl >> 24 & 0xff);
    }
    memcpy(b + pre, dict, dl);
    if (pad) {
        memset(b + pre + dl, ' ', hl - dl - 1);
        b[pre + hl - 1] = '\n';
    }
    if (nbytes)
        memcpy(b + pre + hl, data, nbytes);
    put_raw(name, b, pre + hl + nbytes);
    free(b);
}

/* A v1.0 file with the given dict and `count` '<f4' values. */
static void put_f4(const char *name, const char *dict, size_t count)
{
    float *v = make_values(LWT_F32, count);
    to_order(v, count, 4, '<');
    put_npy(name, 1, 0, dict, 1, v, count * 4);
    free(v);
}

/* ------------------------------------------------------------ read helpers */

/* Reads name and checks dtype, shape and that data equals the reference values. */
static void expect_values(const char *name, lwt_dtype dt, int ndim, const size_t *shape)
{
    npy_array a;
    char err[512];
    int rc = npy_read(name, &a, err, sizeof err);
    CHECKF(rc == 0, "%s: %s", name, err);
    if (rc)
        return;
    size_t count = prod(ndim, shape), es = dt == LWT_F32 ? 4 : 8;
    CHECKF(a.dtype == dt, "%s: dtype %d", name, (int)a.dtype);
    CHECKF(a.ndim == ndim, "%s: ndim %d, expected %d", name, a.ndim, ndim);
    for (int k = 0; k < ndim && k < a.ndim; k++)
        CHECKF(a.shape[k] == shape[k], "%s: shape[%d] = %zu, expected %zu", name, k, a.shape[k],
               shape[k]);
    for (int k = ndim; k < NPY_MAX_DIMS; k++)
        CHECK(a.shape[k] == 0);
    CHECKF(a.count == count, "%s: count %zu, expected %zu", name, a.count, count);
    CHECK(a.data != NULL);
    if (a.dtype == dt && a.count == count && a.data) {
        void *ref = make_values(dt, count);
        size_t bad = count;
        for (size_t i = 0; i < count && bad == count; i++)
            if (memcmp((char *)a.data + i * es, (char *)ref + i * es, es) != 0)
                bad = i;
        CHECKF(bad == count, "%s: element %zu differs (%.17g)", name, bad,
               dt == LWT_F32 ? (double)((float *)a.data)[bad] : ((double *)a.data)[bad]);
        free(ref);
    }
    npy_free(&a);
    CHECK(a.data == NULL && a.ndim == 0 && a.count == 0);
}

/* Reading name must fail, with a one-line message that names the file and
   contains phrase; the output struct must be left zeroed. */
static void expect_fail(const char *name, const char *phrase)
{
    npy_array a;
    char err[512];
    memset(&a, 0x5a, sizeof a);
    int rc = npy_read(name, &a, err, sizeof err);
    CHECKF(rc != 0, "%s: read succeeded, expected failure with \"%s\"", name, phrase);
    if (rc == 0) {
        npy_free(&a);
        return;
    }
    CHECKF(strstr(err, phrase) != NULL, "%s: message \"%s\" lacks \"%s\"", name, err, phrase);
    CHECKF(strncmp(err, name, strlen(name)) == 0, "%s: message \"%s\" does not start with the path",
           name, err);
    CHECKF(strchr(err, '\n') == NULL, "%s: message has a newline", name);
    CHECK(a.data == NULL && a.ndim == 0 && a.count == 0);
}

/* ------------------------------------------------------------ test groups */

static void test_round_trip(void)
{
    static const struct {
        int ndim;
        size_t shape[5];
    } cases[] = {
        {0, {0}},        {1, {1}},       {1, {7}},          {1, {1000003}}, {2, {3, 5}},
        {2, {1, 7}},     {2, {13, 1}},   {3, {2, 3, 5}},    {3, {5, 1, 3}}, {3, {1, 1, 1}},
        {3, {17, 9, 31}}, {1, {0}},      {3, {4, 0, 3}},    {2, {0, 0}},    {5, {2, 1, 3, 1, 2}},
    };
    char err[512];
    for (int dt = 0; dt < 2; dt++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            char name[64];
            int nd = cases[c].ndim;
            const size_t *sh = cases[c].shape;
            size_t count = prod(nd, sh);
            snprintf(name, sizeof name, "rt_%s_%zu.npy", dt ? "f64" : "f32", c);
            void *v = make_values((lwt_dtype)dt, count);
            int rc = npy_write(name, (lwt_dtype)dt, nd, sh, v, err, sizeof err);
            CHECKF(rc == 0, "%s: %s", name, err);
            free(v);
            expect_values(name, (lwt_dtype)dt, nd, sh);

            /* header layout: version 1.0, data aligned to 64, ends with '\n' */
            size_t n;
            unsigned char *b = slurp(name, &n);
            CHECK(b != NULL && n >= 10);
            if (b && n >= 10) {
                size_t hl = (size_t)b[8] | (size_t)b[9] << 8, es = dt ? 8 : 4;
                CHECK(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
                CHECKF((10 + hl) % 64 == 0, "%s: data offset %zu", name, 10 + hl);
                CHECK(10 + hl + count * es == n);
                CHECK(b[10 + hl - 1] == '\n');
            }
            free(b);
        }
    /* no temporaries left by any successful write */
    CHECKF(count_prefix(".", "rt_") == 2 * (int)(sizeof cases / sizeof cases[0]), "rt_ files: %d",
           count_prefix(".", "rt_"));
    {
        DIR *d = opendir(".");
        struct dirent *e;
        int tmp = 0;
        while (d && (e = readdir(d)))
            if (strstr(e->d_name, ".tmp."))
                tmp++;
        if (d)
            closedir(d);
        CHECKF(tmp == 0, "%d temporary files left behind", tmp);
    }

    /* exact header text */
    static const struct {
        int ndim;
        size_t shape[3];
        lwt_dtype dt;
        const char *dict;
    } hdr[] = {
        {0, {0}, LWT_F64, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"},
        {1, {7}, LWT_F32, "{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }"},
        {2, {3, 5}, LWT_F32, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }"},
        {3, {2, 3, 5}, LWT_F64,
         "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 5), }"},
    };
    for (size_t c = 0; c < sizeof hdr / sizeof hdr[0]; c++) {
        size_t count = prod(hdr[c].ndim, hdr[c].shape), n;
        void *v = make_values(hdr[c].dt, count);
        CHECK(npy_write("hdr.npy", hdr[c].dt, hdr[c].ndim, hdr[c].shape, v, err, sizeof err) == 0);
        free(v);
        unsigned char *b = slurp("hdr.npy", &n);
        size_t dl = strlen(hdr[c].dict);
        CHECK(b && n > 10 + dl && memcmp(b + 10, hdr[c].dict, dl) == 0);
        if (b && n > 10 + dl) {
            size_t hl = (size_t)b[8] | (size_t)b[9] << 8;
            for (size_t i = 10 + dl; i < 10 + hl - 1; i++)
                CHECK(b[i] == ' ');
        }
        free(b);
    }
    /* ndim 0 with shape NULL; count-0 with data NULL */
    {
        double x = 2.5;
        npy_array a;
        CHECK(npy_write("scalar.npy", LWT_F64, 0, NULL, &x, err, sizeof err) == 0);
        CHECK(npy_read("scalar.npy", &a, err, sizeof err) == 0);
        CHECK(a.ndim == 0 && a.count == 1 && a.data && ((double *)a.data)[0] == 2.5);
        npy_free(&a);
        size_t z[2] = {0, 4};
        CHECK(npy_write("empty.npy", LWT_F32, 2, z, NULL, err, sizeof err) == 0);
        CHECK(npy_read("empty.npy", &a, err, sizeof err) == 0);
        CHECK(a.ndim == 2 && a.shape[0] == 0 && a.shape[1] == 4 && a.count == 0 && a.data);
        npy_free(&a);
    }
    /* NPY_MAX_DIMS dimensions */
    {
        size_t sh[NPY_MAX_DIMS];
        for (int k = 0; k < NPY_MAX_DIMS; k++)
            sh[k] = k == 3 || k == 30 ? 2 : 1;
        void *v = make_values(LWT_F32, 4);
        CHECKF(npy_write("dims32.npy", LWT_F32, NPY_MAX_DIMS, sh, v, err, sizeof err) == 0, "%s",
               err);
        free(v);
        expect_values("dims32.npy", LWT_F32, NPY_MAX_DIMS, sh);
    }
    npy_free(NULL);
}

static void test_header_variants(void)
{
    static const size_t s23[2] = {2, 3}, s6[1] = {6};
    /* versions */
    {
        const char *d = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        float *v = make_values(LWT_F32, 6);
        to_order(v, 6, 4, '<');
        put_npy("v1.npy", 1, 0, d, 1, v, 24);
        put_npy("v2.npy", 2, 0, d, 1, v, 24);
        put_npy("v3.npy", 3, 0, d, 1, v, 24);
        free(v);
        expect_values("v1.npy", LWT_F32, 2, s23);
        expect_values("v2.npy", LWT_F32, 2, s23);
        expect_values("v3.npy", LWT_F32, 2, s23);
    }
    /* key order, spacing, quotes, trailing commas, padding */
    static const char *dicts23[] = {
        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
        "{'fortran_order': False, 'descr': '<f4', 'shape': (2, 3)}",
        "{ 'descr' :'<f4' ,'fortran_order':False,'shape':( 2 ,3 , ) , }",
        "\t{\n'descr':\t'<f4',\r\n 'fortran_order': False,\n 'shape': (2,\n 3)\n}\n",
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (+2, 3), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", /* unpadded below */
    };
    for (size_t i = 0; i < sizeof dicts23 / sizeof dicts23[0]; i++) {
        char name[64];
        float *v = make_values(LWT_F32, 6);
        to_order(v, 6, 4, '<');
        snprintf(name, sizeof name, "dict23_%zu.npy", i);
        put_npy(name, 1, 0, dicts23[i], i + 1 != sizeof dicts23 / sizeof dicts23[0], v, 24);
        free(v);
        expect_values(name, LWT_F32, 2, s23);
    }
    static const char *dicts6[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': ( 6 , ), }",
        "{'descr': '<f4', 'fortran_order': True, 'shape': (6,), }", /* 1-D: same bytes */
    };
    for (size_t i = 0; i < sizeof dicts6 / sizeof dicts6[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "dict6_%zu.npy", i);
        put_f4(name, dicts6[i], 6);
        expect_values(name, LWT_F32, 1, s6);
    }
    /* empty tuple: a 0-d array of one element */
    put_f4("scalar0.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 1);
    expect_values("scalar0.npy", LWT_F32, 0, NULL);
    put_f4("scalar1.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': ( ), }", 1);
    expect_values("scalar1.npy", LWT_F32, 0, NULL);
    /* zero-size arrays */
    {
        static const size_t s0[1] = {0}, s503[3] = {5, 0, 3};
        put_f4("zero1.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0);
        expect_values("zero1.npy", LWT_F32, 1, s0);
        put_f4("zero3.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (5, 0, 3), }", 0);
        expect_values("zero3.npy", LWT_F32, 3, s503);
        /* a zero dim makes any other dim harmless */
        npy_array a;
        char err[256];
        put_f4("zerohuge.npy",
               "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 0), }",
               0);
        CHECKF(npy_read("zerohuge.npy", &a, err, sizeof err) == 0, "%s", err);
        CHECK(a.count == 0 && a.ndim == 2 && a.shape[0] == SIZE_MAX);
        npy_free(&a);
    }
    /* trailing garbage after the data is ignored */
    {
        float v[7];
        float *r = make_values(LWT_F32, 6);
        memcpy(v, r, 24);
        free(r);
        to_order(v, 6, 4, '<');
        memcpy(&v[6], "JUNK", 4);
        put_npy("trailing.npy", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
                1, v, sizeof v);
        expect_values("trailing.npy", LWT_F32, 1, s6);
    }
}

static void test_dtypes(void)
{
    static const struct {
        const char *descr;
        lwt_dtype dt;
        char order; /* '<', '>' or '=' (native) */
    } cases[] = {
        {"<f4", LWT_F32, '<'}, {"<f8", LWT_F64, '<'}, {">f4", LWT_F32, '>'},
        {">f8", LWT_F64, '>'}, {"=f4", LWT_F32, '='}, {"=f8", LWT_F64, '='},
        {"|f4", LWT_F32, '='}, {"|f8", LWT_F64, '='}, {"f4", LWT_F32, '='},
        {"d", LWT_F64, '='},   {"<d", LWT_F64, '<'},  {">f", LWT_F32, '>'},
        {"float64", LWT_F64, '='},
    };
    static const size_t sh[2] = {3, 5};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char name[64], dict[128];
        size_t es = cases[c].dt == LWT_F32 ? 4 : 8;
        void *v = make_values(cases[c].dt, 15);
        if (cases[c].order != '=')
            to_order(v, 15, es, cases[c].order);
        snprintf(name, sizeof name, "dtype_%zu.npy", c);
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3, 5), }",
                 cases[c].descr);
        put_npy(name, 1, 0, dict, 1, v, 15 * es);
        free(v);
        expect_values(name, cases[c].dt, 2, sh);
    }
    /* big-endian bytes spelled out, independent of the helpers */
    {
        static const unsigned char be[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0,   /* 1.0 */
                                           0xc0, 0x04, 0, 0, 0, 0, 0, 0}; /* -2.5 */
        npy_array a;
        char err[256];
        put_npy("be_lit.npy", 1, 0, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 1,
                be, sizeof be);
        CHECKF(npy_read("be_lit.npy", &a, err, sizeof err) == 0, "%s", err);
        CHECK(a.count == 2 && ((double *)a.data)[0] == 1.0 && ((double *)a.data)[1] == -2.5);
        npy_free(&a);
        static const unsigned char be4[] = {0x40, 0x49, 0x0f, 0xdb}; /* 3.14159274f */
        put_npy("be_lit4.npy", 1, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (), }", 1,
                be4, sizeof be4);
        CHECKF(npy_read("be_lit4.npy", &a, err, sizeof err) == 0, "%s", err);
        CHECK(a.count == 1 && a.dtype == LWT_F32 && ((float *)a.data)[0] == 3.14159274f);
        npy_free(&a);
    }
    {
        npy_array a;
        char err[256];
        /* float16, both byte orders and the long name: 0x3c00 = 1, 0xc000 = -2, 0x7bff = 65504 */
        static const unsigned char be2[] = {0x3c, 0x00, 0xc0, 0x00, 0x7b, 0xff};
        static const unsigned char le2[] = {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b};
        static const char *descr[] = {"'>f2'", "'<f2'", "'float16'", "'e'"};
        for (int c = 0; c < 4; c++) {
            char dict[128];
            snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (3,), }", descr[c]);
            put_npy("f2_lit.npy", 1, 0, dict, 1, c == 0 ? be2 : le2, 6);
            CHECKF(npy_read("f2_lit.npy", &a, err, sizeof err) == 0, "%s", err);
            const uint16_t *h = a.data;
            CHECK(a.count == 3 && a.dtype == LWT_F16 && h[0] == 0x3c00 && h[1] == 0xc000 && h[2] == 0x7bff);
            npy_free(&a);
        }
        /* written as '<f2' and read back, Fortran order transposed */
        const uint16_t v[6] = {1, 2, 3, 4, 5, 6};
        const size_t sh2[2] = {2, 3};
        CHECKF(npy_write("f2_w.npy", LWT_F16, 2, sh2, v, err, sizeof err) == 0, "%s", err);
        CHECKF(npy_read("f2_w.npy", &a, err, sizeof err) == 0, "%s", err);
        CHECK(a.dtype == LWT_F16 && a.count == 6 && memcmp(a.data, v, sizeof v) == 0);
        npy_free(&a);
        put_npy("f2_f.npy", 1, 0, "{'descr': '<f2', 'fortran_order': True, 'shape': (2, 3), }", 1,
                (const unsigned char *)v, sizeof v);
        CHECKF(npy_read("f2_f.npy", &a, err, sizeof err) == 0, "%s", err);
        const uint16_t t[6] = {1, 3, 5, 2, 4, 6}; /* column-major (2, 3) in C order */
        CHECK(a.dtype == LWT_F16 && a.count == 6 && memcmp(a.data, t, sizeof t) == 0);
        npy_free(&a);
        CHECK(npy_write("bf.npy", LWT_BF16, 2, sh2, v, err, sizeof err) != 0);
    }
    /* refused dtypes, each named in the message */
    static const struct {
        const char *descr, *phrase;
    } bad[] = {
        {"'<i4'", "unsupported dtype '<i4' (lwt reads float16, float32 and float64)"},
        {"'<i8'", "unsupported dtype '<i8'"},
        {"'|u1'", "unsupported dtype '|u1'"},
        {"'|b1'", "unsupported dtype '|b1'"},
        {"'<c8'", "unsupported dtype '<c8'"},
        {"'<c16'", "unsupported dtype '<c16'"},
        {"'<f1'", "unsupported dtype '<f1'"},
        {"'<f16'", "unsupported dtype '<f16'"},
        {"'|O'", "unsupported dtype '|O'"},
        {"'<U3'", "unsupported dtype '<U3'"},
        {"'<M8[s]'", "unsupported dtype '<M8[s]'"},
        {"''", "unsupported dtype ''"},
        {"'<<f4'", "unsupported dtype '<<f4'"},
        {"'<f4 '", "unsupported dtype '<f4 '"},
        {"'>float32'", "unsupported dtype '>float32'"},
        {"[('a', '<f4'), ('b', '<f8')]", "unsupported dtype [('a', '<f4'), ('b', '<f8')]"},
        {"None", "unsupported dtype None"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char name[64], dict[160];
        snprintf(name, sizeof name, "baddtype_%zu.npy", c);
        snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (2,), }",
                 bad[c].descr);
        put_f4(name, dict, 4);
        expect_fail(name, bad[c].phrase);
    }
}

static void test_fortran(void)
{
    static const struct {
        lwt_dtype dt;
        char order;
        int ndim;
        size_t shape[4];
    } cases[] = {
        {LWT_F32, '<', 2, {3, 4}},      {LWT_F64, '<', 2, {4, 3}},     {LWT_F64, '<', 3, {2, 3, 4}},
        {LWT_F32, '<', 3, {4, 1, 5}},   {LWT_F32, '>', 3, {2, 3, 4}},  {LWT_F64, '>', 2, {5, 7}},
        {LWT_F64, '<', 2, {70, 45}},    {LWT_F32, '<', 2, {1, 9}},     {LWT_F32, '<', 2, {9, 1}},
        {LWT_F32, '<', 3, {33, 5, 40}}, {LWT_F64, '<', 4, {3, 2, 4, 5}}, {LWT_F32, '<', 4, {65, 2, 3, 33}},
        {LWT_F64, '<', 1, {11}},        {LWT_F64, '<', 2, {1, 1}},     {LWT_F32, '<', 4, {3, 1, 1, 4}},
        {LWT_F64, '>', 3, {1, 5, 1}},   {LWT_F32, '<', 4, {2, 1, 3, 1}}, {LWT_F64, '<', 3, {1, 6, 7}},
        {LWT_F32, '>', 4, {5, 7, 3, 2}}, {LWT_F64, '<', 2, {2, 300}},  {LWT_F64, '<', 2, {300, 2}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char name[64], dict[256];
        int n = 0, nd = cases[c].ndim;
        size_t es = cases[c].dt == LWT_F32 ? 4 : 8, count = prod(nd, cases[c].shape);
        n += snprintf(dict + n, sizeof dict - (size_t)n,
                      "{'descr': '%c%s', 'fortran_order': True, 'shape': (", cases[c].order,
                      es == 4 ? "f4" : "f8");
        for (int k = 0; k < nd; k++)
            n += snprintf(dict + n, sizeof dict - (size_t)n, "%zu, ", cases[c].shape[k]);
        snprintf(dict + n, sizeof dict - (size_t)n, "), }");
        void *f = make_fortran_values(cases[c].dt, nd, cases[c].shape);
        to_order(f, count, es, cases[c].order);
        snprintf(name, sizeof name, "fortran_%zu.npy", c);
        put_npy(name, 1, 0, dict, 1, f, count * es);
        free(f);
        expect_values(name, cases[c].dt, nd, cases[c].shape);
    }
    /* element by element against values written out by hand:
       Fortran (2, 3) file bytes a00 a10 a01 a11 a02 a12 */
    {
        static const float fdata[6] = {0, 10, 1, 11, 2, 12};
        float le[6];
        memcpy(le, fdata, sizeof le);
        to_order(le, 6, 4, '<');
        put_npy("fortran_hand.npy", 1, 0,
                "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 1, le, sizeof le);
        npy_array a;
        char err[256];
        CHECKF(npy_read("fortran_hand.npy", &a, err, sizeof err) == 0, "%s", err);
        if (a.data) {
            const float *x = a.data;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 3; j++)
                    CHECKF(x[i * 3 + j] == (float)(10 * i + j), "[%d][%d] = %g", i, j, x[i * 3 + j]);
        }
        npy_free(&a);
        /* 3-D (2, 2, 3): value 100i + 10j + k, Fortran order i fastest */
        double d3[12];
        for (int k = 0, p = 0; k < 3; k++)
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++)
                    d3[p++] = 100 * i + 10 * j + k;
        to_order(d3, 12, 8, '>');
        put_npy("fortran_hand3.npy", 1, 0,
                "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 2, 3), }", 1, d3, sizeof d3);
        CHECKF(npy_read("fortran_hand3.npy", &a, err, sizeof err) == 0, "%s", err);
        if (a.data) {
            const double *x = a.data;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    for (int k = 0; k < 3; k++)
                        CHECKF(x[(i * 2 + j) * 3 + k] == 100 * i + 10 * j + k, "[%d][%d][%d] = %g",
                               i, j, k, x[(i * 2 + j) * 3 + k]);
        }
        npy_free(&a);
    }
    /* Fortran data cut short */
    {
        static const size_t sh[2] = {4, 5};
        void *f = make_fortran_values(LWT_F32, 2, sh);
        to_order(f, 20, 4, '<');
        put_npy("fortran_short.npy", 1, 0,
                "{'descr': '<f4', 'fortran_order': True, 'shape': (4, 5), }", 1, f, 77);
        free(f);
        expect_fail("fortran_short.npy", "truncated: header says 80 bytes of data, file has 77");
    }
}

static void test_rejections(void)
{
    /* not .npy at all */
    put_raw("empty.bin", "", 0);
    expect_fail("empty.bin", "not a .npy file");
    put_raw("text.bin", "hello, world\n", 13);
    expect_fail("text.bin", "not a .npy file");
    put_raw("almost.bin", "\x93NUMPX\x01\x00\x10\x00", 10);
    expect_fail("almost.bin", "not a .npy file");
    expect_fail("no_such_file.npy", "cannot open");
    mkdir("a_directory.npy", 0755);
    expect_fail("a_directory.npy", "is a directory");

    /* preamble and version */
    put_raw("short1.npy", "\x93NUMPY\x01", 7);
    expect_fail("short1.npy", "truncated header");
    put_raw("short2.npy", "\x93NUMPY\x01\x00\x40", 9);
    expect_fail("short2.npy", "truncated header");
    put_raw("short3.npy", "\x93NUMPY\x02\x00\x40\x00\x00", 11);
    expect_fail("short3.npy", "truncated header");
    put_raw("magiconly.npy", "\x93NUMPY", 6);
    expect_fail("magiconly.npy", "truncated header");
    {
        const char *d = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
        float x = 1;
        put_npy("ver4.npy", 4, 0, d, 1, &x, 4);
        expect_fail("ver4.npy", "unsupported .npy format version 4.0");
        put_npy("ver11.npy", 1, 1, d, 1, &x, 4);
        expect_fail("ver11.npy", "unsupported .npy format version 1.1");
        put_npy("ver0.npy", 0, 0, d, 1, &x, 4);
        expect_fail("ver0.npy", "unsupported .npy format version 0.0");
    }
    /* header length beyond the end of the file */
    {
        unsigned char b[64];
        memcpy(b, "\x93NUMPY\x01\x00\xc8\x00{'descr': '<f4', 'fortran_order'", 42);
        put_raw("hdrtrunc.npy", b, 42);
        expect_fail("hdrtrunc.npy", "truncated header: header length is 200 bytes, file has 32");
        memcpy(b, "\x93NUMPY\x02\x00\xf0\xff\xff\xff{'descr'", 20);
        put_raw("hdrhuge.npy", b, 20); /* claims a 4 GiB header: must not allocate it */
        expect_fail("hdrhuge.npy", "truncated header");
    }

    /* malformed dicts */
    static const struct {
        const char *dict, *phrase;
    } bad[] = {
        {"['descr', '<f4']", "malformed header: expected '{'"},
        {"", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False}", "malformed header: missing key 'shape'"},
        {"{'fortran_order': False, 'shape': (2,)}", "malformed header: missing key 'descr'"},
        {"{'descr': '<f4', 'shape': (2,)}", "malformed header: missing key 'fortran_order'"},
        {"{}", "malformed header: missing key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
         "malformed header: unexpected key 'extra'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
         "malformed header: duplicate key 'descr'"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", "malformed header"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", "malformed header"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", "malformed header: expected ':'"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk",
         "malformed header: unexpected text after the dict"},
        {"{'descr': '<f4',, 'fortran_order': False, 'shape': (2,)}", "malformed header"},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (2,)}", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
         "malformed header: shape must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': 2}",
         "malformed header: shape must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
         "malformed header: shape (2) is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}", "malformed header: bad shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,,2)}", "malformed header: bad shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "malformed header: bad shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,]}", "malformed header"},
        {"{'descr': '<f4', 'fortran_order': 'yes', 'shape': (2,)}",
         "malformed header: fortran_order must be True or False, got 'yes'"},
        {"{'descr': '<f4', 'fortran_order': 1, 'shape': (2,)}",
         "fortran_order must be True or False"},
        {"{'descr': '<f4', 'fortran_order': true, 'shape': (2,)}",
         "fortran_order must be True or False"},
        /* dims */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", "negative dimension -3"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", "negative dimension -1"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
         "non-integer dimension '2.5'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1e3)}",
         "non-integer dimension '1e3'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}",
         "non-integer dimension ''2''"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (None,)}",
         "non-integer dimension 'None'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ((2, 3),)}",
         "non-integer dimension '(2, 3)'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0x10,)}", "non-integer dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-,)}", "non-integer dimension '-'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
         "dimension 99999999999999999999999 in shape is too large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-99999999999999999999999,)}",
         "negative dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': "
         "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
         "too many dimensions in shape (lwt reads at most 32)"},
        /* size */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4)}",
         "array size overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,)}",
         "array size overflows"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615,)}",
         "array size overflows"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,)}",
         "truncated: header says 8000000000000 bytes of data, file has 8"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (1000000, 1000000)}",
         "truncated: header says 4000000000000 bytes of data"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
         "truncated: header says 12 bytes of data, file has 8"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char name[64];
        snprintf(name, sizeof name, "bad_%zu.npy", c);
        put_f4(name, bad[c].dict, 2); /* 8 bytes of data */
        expect_fail(name, bad[c].phrase);
    }
    /* the same header in format 2.0 and 3.0 */
    {
        float x[2] = {1, 2};
        put_npy("bad_v2.npy", 2, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", 1,
                x, 8);
        expect_fail("bad_v2.npy", "negative dimension -3");
        put_npy("bad_v3.npy", 3, 0, "{'descr': '<i2', 'fortran_order': False, 'shape': (4,)}", 1,
                x, 8);
        expect_fail("bad_v3.npy", "unsupported dtype '<i2'");
    }
    /* NUL and non-ASCII bytes in the header */
    {
        char d[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}";
        float x[2] = {1, 2};
        put_npy("nul.npy", 1, 0, d, 1, x, 8);
        /* overwrite a space of the padding with NUL */
        size_t n;
        unsigned char *b = slurp("nul.npy", &n);
        b[10 + strlen(d) + 1] = 0;
        put_raw("nul.npy", b, n);
        free(b);
        expect_fail("nul.npy", "malformed header: contains a NUL byte");
        put_npy("utf8.npy", 3, 0,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\xc3\xa9': 1}", 1, x, 8);
        expect_fail("utf8.npy", "malformed header: unexpected key '?\?'");
    }
    /* truncated data: the exact message of the brief */
    {
        float *v = make_values(LWT_F32, 6);
        to_order(v, 6, 4, '<');
        put_npy("trunc.npy", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", 1,
                v, 20);
        free(v);
        npy_array a;
        char err[256];
        CHECK(npy_read("trunc.npy", &a, err, sizeof err) != 0);
        CHECKF(strcmp(err, "trunc.npy: truncated: header says 24 bytes of data, file has 20") == 0,
               "got \"%s\"", err);
        /* small error buffers are safe and still terminated */
        char tiny[8];
        memset(tiny, 'x', sizeof tiny);
        CHECK(npy_read("trunc.npy", &a, tiny, sizeof tiny) != 0);
        CHECK(memchr(tiny, '\0', sizeof tiny) != NULL);
        CHECK(npy_read("trunc.npy", &a, NULL, 0) != 0);
        CHECK(npy_read(NULL, &a, err, sizeof err) != 0);
        CHECK(npy_read("trunc.npy", NULL, err, sizeof err) != 0);
    }
}

/* Reading from a FIFO exercises the path for files whose size is unknown. */
static void test_pipe(void)
{
    static const size_t sh[2] = {300, 700};
    size_t count = prod(2, sh);
    double *v = make_values(LWT_F64, count);
    to_order(v, count, 8, '<');
    put_npy("pipe_src.npy", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (300, 700), }",
            1, v, count * 8);
    put_npy("pipe_short.npy", 1, 0,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (300, 700), }", 1, v, count * 8 - 3);
    free(v);
    v = make_fortran_values(LWT_F64, 2, sh);
    to_order(v, count, 8, '>');
    put_npy("pipe_fortran.npy", 1, 0,
            "{'descr': '>f8', 'fortran_order': True, 'shape': (300, 700), }", 1, v, count * 8);
    free(v);
    static const char *const src[3] = {"pipe_src.npy", "pipe_short.npy", "pipe_fortran.npy"};
    for (int t = 0; t < 3; t++) {
        unlink("pipe.fifo");
        if (mkfifo("pipe.fifo", 0600) != 0) {
            printf("test_npy: mkfifo failed (%s); FIFO case skipped\n", strerror(errno));
            return;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            size_t n;
            unsigned char *b = slurp(src[t], &n);
            FILE *f = fopen("pipe.fifo", "wb");
            if (f && b)
                fwrite(b, 1, n, f);
            if (f)
                fclose(f);
            _exit(0);
        }
        if (t == 1)
            expect_fail("pipe.fifo", "truncated: header says 1680000 bytes of data, file has 1679997");
        else
            expect_values("pipe.fifo", LWT_F64, 2, sh);
        int status;
        waitpid(pid, &status, 0);
    }
    unlink("pipe.fifo");
}

static void test_writer_atomic(void)
{
    char err[512];
    double v[6] = {1, 2, 3, 4, 5, 6};
    size_t sh[2] = {2, 3};

    /* a new file gets 0666 & ~umask, not mkstemp's 0600 */
    mode_t um = umask(0);
    umask(um);
    CHECK(npy_write("mode.npy", LWT_F64, 2, sh, v, err, sizeof err) == 0);
    struct stat st;
    CHECK(stat("mode.npy", &st) == 0 && (st.st_mode & 0777) == (0666 & ~um));

    /* overwrite an existing file */
    CHECK(npy_write("over.npy", LWT_F64, 2, sh, v, err, sizeof err) == 0);
    v[0] = 42;
    CHECK(npy_write("over.npy", LWT_F64, 2, sh, v, err, sizeof err) == 0);
    {
        npy_array a;
        CHECK(npy_read("over.npy", &a, err, sizeof err) == 0);
        CHECK(a.count == 6 && ((double *)a.data)[0] == 42);
        npy_free(&a);
    }
    CHECK(count_prefix(".", "over.npy.tmp.") == 0);

    /* failures leave the existing file alone and no temporary behind */
    size_t before_n, after_n;
    unsigned char *before = slurp("over.npy", &before_n);
    size_t big[3] = {(size_t)1 << 40, (size_t)1 << 40, 2};
    size_t sh33[33];
    for (int k = 0; k < 33; k++)
        sh33[k] = 1;
    CHECK(npy_write("over.npy", (lwt_dtype)7, 2, sh, v, err, sizeof err) != 0);
    CHECK(strstr(err, "over.npy: ") == err && strstr(err, "dtype"));
    CHECK(npy_write("over.npy", LWT_F64, 33, sh33, v, err, sizeof err) != 0);
    CHECK(strstr(err, "ndim"));
    CHECK(npy_write("over.npy", LWT_F64, -1, sh, v, err, sizeof err) != 0);
    CHECK(npy_write("over.npy", LWT_F64, 2, NULL, v, err, sizeof err) != 0);
    CHECK(npy_write("over.npy", LWT_F64, 2, sh, NULL, err, sizeof err) != 0);
    CHECK(npy_write("over.npy", LWT_F64, 3, big, v, err, sizeof err) != 0);
    CHECK(strstr(err, "overflows"));
    CHECK(npy_write("", LWT_F64, 2, sh, v, err, sizeof err) != 0);
    CHECK(npy_write(NULL, LWT_F64, 2, sh, v, err, sizeof err) != 0);
    unsigned char *after = slurp("over.npy", &after_n);
    CHECK(before && after && before_n == after_n && memcmp(before, after, before_n) == 0);
    free(before);
    free(after);
    CHECK(count_prefix(".", "over.npy.tmp.") == 0);

    /* a directory that does not exist: fails, creates nothing */
    CHECK(npy_write("no_such_dir/out.npy", LWT_F64, 2, sh, v, err, sizeof err) != 0);
    CHECKF(strstr(err, "no_such_dir/out.npy: cannot create temporary file"), "got \"%s\"", err);
    CHECK(!exists("no_such_dir"));

    /* rename fails (the target is a directory): the temporary is removed */
    mkdir("target_is_dir.npy", 0755);
    CHECK(npy_write("target_is_dir.npy", LWT_F64, 2, sh, v, err, sizeof err) != 0);
    CHECKF(strstr(err, "cannot rename"), "got \"%s\"", err);
    CHECK(count_prefix(".", "target_is_dir.npy.tmp.") == 0);
    struct stat sd;
    CHECK(stat("target_is_dir.npy", &sd) == 0 && S_ISDIR(sd.st_mode));

    /* a directory we may not write to (meaningless as root) */
    if (geteuid() != 0) {
        mkdir("ro_dir", 0755);
        chmod("ro_dir", 0555);
        CHECK(npy_write("ro_dir/x.npy", LWT_F64, 2, sh, v, err, sizeof err) != 0);
        CHECK(strstr(err, "cannot create temporary file"));
        CHECK(count_prefix("ro_dir", "x.npy") == 0);
        chmod("ro_dir", 0755);
    }

    /* a write that succeeds through a subdirectory */
    mkdir("sub", 0755);
    CHECK(npy_write("sub/y.npy", LWT_F64, 2, sh, v, err, sizeof err) == 0);
    CHECK(count_prefix("sub", "y.npy") == 1);
}

/* Random corruptions of valid files: every result must be either a consistent
   array or a clean one-line error (ASan/UBSan catch the rest). Seeded; set
   LWT_SEED to replay. */
static uint64_t rng_next(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *st = x;
}

static void test_mutations(void)
{
    const char *env = getenv("LWT_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 20240611u, st = seed ? seed : 1;
    static const char *const dicts[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
        "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3, 2), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
        "{'shape': (12,), 'descr': '=f4', 'fortran_order': False}",
    };
    static const char tokens[] = "(),:'\"{}[]0123456789-+ \nLTF.e<>=|fd";
    printf("test_npy: mutation seed %llu (set LWT_SEED to replay)\n", (unsigned long long)seed);
    unsigned char base[4][256];
    size_t blen[4];
    for (int d = 0; d < 4; d++) {
        double v[12] = {0};
        put_npy("mut.npy", 1, 0, dicts[d], 1, v, d == 1 || d == 2 ? 8 * (d == 1 ? 12 : 1) : 48);
        unsigned char *b = slurp("mut.npy", &blen[d]);
        memcpy(base[d], b, blen[d]);
        free(b);
    }
    int ok = 0, bad = 0;
    for (int it = 0; it < 2000; it++) {
        int d = (int)(rng_next(&st) % 4);
        unsigned char buf[256];
        size_t n = blen[d];
        memcpy(buf, base[d], n);
        int edits = 1 + (int)(rng_next(&st) % 4);
        for (int e = 0; e < edits; e++) {
            size_t pos = (size_t)(rng_next(&st) % (n < 80 ? n : 80));
            uint64_t r = rng_next(&st);
            if (r % 3 == 0)
                buf[pos] = (unsigned char)(r >> 8);
            else
                buf[pos] = (unsigned char)tokens[(r >> 8) % (sizeof tokens - 1)];
        }
        if (rng_next(&st) % 5 == 0)
            n = (size_t)(rng_next(&st) % (n + 1));
        put_raw("mut.npy", buf, n);
        npy_array a;
        char err[512];
        if (npy_read("mut.npy", &a, err, sizeof err) == 0) {
            size_t es = a.dtype == LWT_F32 ? 4 : 8;
            CHECKF(a.data && a.ndim >= 0 && a.ndim <= NPY_MAX_DIMS &&
                       a.count == prod(a.ndim, a.shape) && a.count * es <= n,
                   "iteration %d: inconsistent array", it);
            npy_free(&a);
            ok++;
        } else {
            CHECKF(strncmp(err, "mut.npy: ", 9) == 0 && strlen(err) > 9 && !strchr(err, '\n'),
                   "iteration %d: bad message \"%s\"", it, err);
            CHECK(a.data == NULL);
            bad++;
        }
    }
    CHECK(ok > 0 && bad > 0);
}

/* ------------------------------------------------------------ numpy */

static int have_numpy(void)
{
    int rc = system("python3 -c 'import numpy' >/dev/null 2>&1");
    return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

static void test_numpy(void)
{
    if (!have_numpy()) {
        printf("test_npy: python3 with numpy not found; numpy cross-checks skipped\n");
        return;
    }
    char err[512];
    /* 1. numpy reads what npy_write wrote */
    static const struct {
        const char *name;
        lwt_dtype dt;
        int ndim;
        size_t shape[3];
    } w[] = {
        {"np_a.npy", LWT_F32, 2, {3, 5}}, {"np_b.npy", LWT_F64, 3, {2, 3, 4}},
        {"np_c.npy", LWT_F64, 0, {0}},    {"np_d.npy", LWT_F32, 2, {0, 3}},
        {"np_e.npy", LWT_F64, 1, {7}},
    };
    for (size_t c = 0; c < sizeof w / sizeof w[0]; c++) {
        size_t n = prod(w[c].ndim, w[c].shape);
        void *v = make_values(w[c].dt, n);
        CHECKF(npy_write(w[c].name, w[c].dt, w[c].ndim, w[c].shape, v, err, sizeof err) == 0, "%s",
               err);
        free(v);
    }
    static const char check_py[] =
        "import sys, numpy as np\n"
        "def ref(shape, dt):\n"
        "    n = int(np.prod(shape))\n"
        "    return (1.0 / (np.arange(n, dtype=np.float64) + 3.0)).astype(dt).reshape(shape)\n"
        "cases = [('np_a.npy', '<f4', (3, 5)), ('np_b.npy', '<f8', (2, 3, 4)),\n"
        "         ('np_c.npy', '<f8', ()), ('np_d.npy', '<f4', (0, 3)), ('np_e.npy', '<f8', (7,))]\n"
        "bad = 0\n"
        "for name, dt, shape in cases:\n"
        "    a = np.load(name)\n"
        "    r = ref(shape, dt)\n"
        "    if a.dtype != np.dtype(dt) or a.shape != shape or not np.array_equal(a, r) \\\n"
        "            or not a.flags.c_contiguous:\n"
        "        print('numpy disagrees on', name, a.dtype, a.shape); bad = 1\n"
        "    with open(name, 'rb') as f:\n"
        "        if np.lib.format.read_magic(f) != (1, 0): bad = 1\n"
        "        np.lib.format.read_array_header_1_0(f)\n"
        "        if f.tell() % 64: print('data not aligned in', name); bad = 1\n"
        "sys.exit(bad)\n";
    put_raw("check_np.py", check_py, sizeof check_py - 1);
    int rc = system("python3 check_np.py");
    CHECKF(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "numpy could not read our files");

    /* 2. npy_read reads what numpy wrote */
    static const char make_py[] =
        "import numpy as np\n"
        "def ref(shape, dt):\n"
        "    n = int(np.prod(shape))\n"
        "    return (1.0 / (np.arange(n, dtype=np.float64) + 3.0)).astype(dt).reshape(shape)\n"
        "np.save('npw_c32.npy', ref((4, 6), '<f4'))\n"
        "np.save('npw_f64.npy', np.asfortranarray(ref((5, 7), '<f8')))\n"
        "np.save('npw_f3d.npy', np.asfortranarray(ref((3, 4, 5), '<f4')))\n"
        "np.save('npw_be.npy', ref((2, 9), '>f8'))\n"
        "np.save('npw_bef.npy', np.asfortranarray(ref((6, 2, 3), '>f4')))\n"
        "np.save('npw_0d.npy', ref((), '<f8'))\n"
        "np.save('npw_1d.npy', ref((10,), '<f4'))\n"
        "np.save('npw_empty.npy', ref((3, 0), '<f8'))\n"
        "for v in [(2, 0), (3, 0)]:\n"
        "    with open('npw_v%d.npy' % v[0], 'wb') as f:\n"
        "        np.lib.format.write_array(f, ref((3, 3), '<f8'), version=v)\n"
        "np.save('npw_i4.npy', np.arange(4, dtype='<i4'))\n"
        "np.save('npw_c8.npy', np.zeros(4, dtype='<c8'))\n";
    put_raw("make_np.py", make_py, sizeof make_py - 1);
    rc = system("python3 make_np.py");
    CHECKF(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "numpy could not write test files");
    {
        static const size_t s46[] = {4, 6}, s57[] = {5, 7}, s345[] = {3, 4, 5}, s29[] = {2, 9},
                            s623[] = {6, 2, 3}, s10[] = {10}, s30[] = {3, 0}, s33[] = {3, 3};
        expect_values("npw_c32.npy", LWT_F32, 2, s46);
        expect_values("npw_f64.npy", LWT_F64, 2, s57);
        expect_values("npw_f3d.npy", LWT_F32, 3, s345);
        expect_values("npw_be.npy", LWT_F64, 2, s29);
        expect_values("npw_bef.npy", LWT_F32, 3, s623);
        expect_values("npw_0d.npy", LWT_F64, 0, NULL);
        expect_values("npw_1d.npy", LWT_F32, 1, s10);
        expect_values("npw_empty.npy", LWT_F64, 2, s30);
        expect_values("npw_v2.npy", LWT_F64, 2, s33);
        expect_values("npw_v3.npy", LWT_F64, 2, s33);
        expect_fail("npw_i4.npy", "unsupported dtype '<i4' (lwt reads float16, float32 and float64)");
        expect_fail("npw_c8.npy", "unsupported dtype '<c8'");
    }
}

/* ------------------------------------------------------------ main */

int main(void)
{
    char dir[] = "test_npy_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_npy") != 0)
        return 1;
    test_round_trip();
    test_header_variants();
    test_dtypes();
    test_fortran();
    test_rejections();
    test_pipe();
    test_writer_atomic();
    test_mutations();
    test_numpy();
    if (leave_scratch_dir(dir, failures) != 0)
        return 1;
    if (failures) {
        printf("test_npy: %d of %d checks FAILED (files kept in %s)\n", failures, checks, dir);
        return 1;
    }
    printf("test_npy: all %d checks passed\n", checks);
    return 0;
}
