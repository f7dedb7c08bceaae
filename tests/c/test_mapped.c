/*
 * test_mapped.c - tests of the memory-mapped arrays (src/io/mapped_array.c).
 *
 * Runs in a scratch directory made under the working directory and removed at
 * the end (kept when something failed). Files to read are written by npy_write
 * or built byte by byte (hand-made headers: version 2.0 and 3.0, other
 * spellings of the dtype, Fortran order, big-endian, truncation). float16
 * (2-byte elements) is mapped, created and committed like float32 and float64.
 */
#define _XOPEN_SOURCE 700

#include "io/mapped_array.h"
#include "io/npy.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"
#include "test_dirs.h"
#include "test_values.h"

/* ------------------------------------------------------------ helpers */

/* index of the first element of data that differs from the reference, or count */
static size_t first_diff(lwt_dtype dt, const void *data, size_t count)
{
    void *ref = make_values(dt, count);
    size_t es = npy_elem_size(dt), i;
    for (i = 0; i < count; i++)
        if (memcmp((const char *)data + i * es, (char *)ref + i * es, es) != 0)
            break;
    free(ref);
    return i;
}

static void put_raw(const char *name, const void *bytes, size_t n)
{
    FILE *f = fopen(name, "wb");
    if (!f || (n && fwrite(bytes, 1, n, f) != n)) {
        perror(name);
        exit(1);
    }
    fclose(f);
}

/* magic, version major.0, header length, dict (padded with spaces and '\n'
   so that the data starts at a multiple of `align`; align 0: as given), data */
static void put_npy(const char *name, int major, const char *dict, size_t align, const void *data,
                    size_t nbytes)
{
    size_t dl = strlen(dict), pre = major == 1 ? 10 : 12;
    size_t hl = align ? ((pre + dl + 1 + align - 1) / align * align - pre) : dl;
    unsigned char *b = malloc(pre + hl + nbytes + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8 & 0xff);
    if (pre == 12) {
        b[10] = (unsigned char)(hl >> 16 & 0xff);
        b[11] = (unsigned char)(hl >> 24 & 0xff);
    }
    memcpy(b + pre, dict, dl);
    if (align) {
        memset(b + pre + dl, ' ', hl - dl - 1);
        b[pre + hl - 1] = '\n';
    }
    if (nbytes)
        memcpy(b + pre + hl, data, nbytes);
    put_raw(name, b, pre + hl + nbytes);
    free(b);
}

/* number of entries of dir other than . and .. */
static int count_entries(const char *dir) { return count_prefix(dir, ""); }

static int is_closed(const lwt_mapped *m)
{
    return m->data == NULL && m->map == NULL && m->map_len == 0 && m->fd == -1 && m->path == NULL &&
           m->tmp_path == NULL && m->count == 0 && m->ndim == 0;
}

/* err must read "<path>: ..." and contain phrase */
static void check_message(const char *what, const char *err, const char *path, const char *phrase)
{
    size_t n = strlen(path);
    CHECK(strncmp(err, path, n) == 0 && err[n] == ':', "%s: message does not start with \"%s:\": %s",
          what, path, err);
    CHECK(strstr(err, phrase) != NULL, "%s: message lacks \"%s\": %s", what, phrase, err);
    CHECK(strchr(err, '\n') == NULL, "%s: message is not one line: %s", what, err);
}

/* lwt_map_npy_read(name) must fail, naming the file and the reason */
static void expect_npy_refused(const char *name, const char *phrase)
{
    lwt_mapped m;
    char err[512] = "";
    memset(&m, 0x5a, sizeof m);
    int rc = lwt_map_npy_read(name, &m, err, sizeof err);
    CHECK(rc != 0, "%s: mapped although it should be refused (%s)", name, phrase);
    if (rc == 0) {
        lwt_map_close(&m);
        return;
    }
    CHECK(is_closed(&m), "%s: output not left closed after a refusal", name);
    check_message(name, err, name, phrase);
    lwt_map_close(&m); /* closed: a no-op */
}

static void expect_raw_refused(const char *name, lwt_dtype dt, int ndim, const size_t *shape,
                               size_t offset, const char *phrase, const char *phrase2)
{
    lwt_mapped m;
    char err[512] = "";
    int rc = lwt_map_raw_read(name, dt, ndim, shape, offset, &m, err, sizeof err);
    CHECK(rc != 0, "%s: raw mapped although it should be refused (%s)", name, phrase);
    if (rc == 0) {
        lwt_map_close(&m);
        return;
    }
    CHECK(is_closed(&m), "%s: output not left closed after a refusal", name);
    check_message(name, err, name, phrase);
    if (phrase2)
        check_message(name, err, name, phrase2);
}

/* a raw file of `skip` bytes of header, then the reference values of dt in shape: mapped at that
   offset it must give them */
static void expect_raw_values(const char *name, lwt_dtype dt, int ndim, const size_t *shape, size_t skip)
{
    size_t count = prod(ndim, shape), n = count * npy_elem_size(dt);
    void *v = make_values(dt, count);
    unsigned char *b = malloc(skip + n);
    memset(b, 'h', skip);
    memcpy(b + skip, v, n);
    put_raw(name, b, skip + n);
    free(b);
    free(v);
    lwt_mapped m;
    char err[512] = "";
    int rc = lwt_map_raw_read(name, dt, ndim, shape, skip, &m, err, sizeof err);
    CHECK(rc == 0, "%s: %s", name, err);
    if (rc == 0) {
        CHECK(m.dtype == dt && m.ndim == ndim && m.count == count && first_diff(dt, m.data, count) == count,
              "%s: fields or values", name);
        lwt_map_close(&m);
    }
}

/* the test file's data (its last nbytes) starts at an odd multiple of the element size es */
static void check_odd_offset(const char *name, size_t nbytes, size_t es)
{
    size_t n = 0;
    unsigned char *b = slurp(name, &n);
    CHECK(b && (n - nbytes) % es == 0 && (n - nbytes) % (2 * es) != 0, "%s: bad test file (%zu)", name, n);
    free(b);
}

/* lwt_map_npy_read(name) must give dt, shape and the reference values */
static void expect_mapped_values(const char *name, lwt_dtype dt, int ndim, const size_t *shape)
{
    lwt_mapped m;
    char err[512] = "";
    int rc = lwt_map_npy_read(name, &m, err, sizeof err);
    CHECK(rc == 0, "%s: %s", name, err);
    if (rc)
        return;
    size_t count = prod(ndim, shape);
    CHECK(m.dtype == dt, "%s: dtype %d", name, (int)m.dtype);
    CHECK(m.ndim == ndim, "%s: ndim %d, expected %d", name, m.ndim, ndim);
    for (int k = 0; k < ndim && k < m.ndim; k++)
        CHECK(m.shape[k] == shape[k], "%s: shape[%d] = %zu, expected %zu", name, k, m.shape[k],
              shape[k]);
    for (int k = ndim; k < NPY_MAX_DIMS; k++)
        CHECK(m.shape[k] == 0, "%s: shape[%d] = %zu past ndim", name, k, m.shape[k]);
    CHECK(m.count == count, "%s: count %zu, expected %zu", name, m.count, count);
    CHECK(m.data != NULL, "%s: data is NULL", name);
    CHECK(((uintptr_t)m.data % npy_elem_size(dt)) == 0, "%s: data misaligned", name);
    CHECK(!m.writable, "%s: read mapping says writable", name);
    if (m.data && m.count == count && m.dtype == dt) {
        size_t bad = first_diff(dt, m.data, count);
        CHECK(bad == count, "%s: element %zu differs", name, bad);
    }
    lwt_map_advise_sequential(&m);
    lwt_map_close(&m);
    CHECK(is_closed(&m), "%s: not closed after lwt_map_close", name);
    lwt_map_close(&m); /* idempotent */
}

/* ------------------------------------------------------------ tests */

/* create -> fill -> commit, then npy_read and a byte comparison with npy_write */
static void test_create_commit(void)
{
    static const struct {
        lwt_dtype dt;
        int ndim;
        size_t shape[3];
    } cases[] = {
        {LWT_F32, 1, {1000}},         {LWT_F64, 1, {1}},           {LWT_F32, 2, {37, 53}},
        {LWT_F64, 2, {64, 64}},       {LWT_F32, 3, {5, 7, 9}},     {LWT_F64, 3, {2, 3, 4}},
        {LWT_F64, 0, {0}},            {LWT_F32, 2, {0, 5}},
        {LWT_F16, 1, {1001}},         {LWT_F16, 2, {37, 53}},      {LWT_F16, 3, {3, 5, 7}},
    };
    mode_t um = umask(022);
    umask(um);
    if (mkdir("cc", 0777) != 0) {
        perror("cc");
        exit(1);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lwt_dtype dt = cases[c].dt;
        int nd = cases[c].ndim;
        const size_t *shape = cases[c].shape;
        size_t count = prod(nd, shape), es = npy_elem_size(dt);
        char path[64], ref[64], err[512] = "";
        lwt_mapped m;
        snprintf(path, sizeof path, "cc/out%zu.npy", c);
        snprintf(ref, sizeof ref, "cc/ref%zu.npy", c);

        int rc = lwt_map_npy_create(path, dt, nd, shape, &m, err, sizeof err);
        CHECK(rc == 0, "create %s: %s", path, err);
        if (rc)
            continue;
        CHECK(!exists(path), "%s exists before the commit", path);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "out%zu.npy.tmp", c);
        CHECK(count_prefix("cc", prefix) == 1, "%s: no temporary sibling while mapped", path);
        CHECK(m.writable && m.count == count && m.ndim == nd && m.dtype == dt && m.data,
              "%s: mapping fields", path);
        CHECK(((uintptr_t)m.data % 64) == 0, "%s: data not at a multiple of 64", path);
        /* zero-filled */
        size_t nz = 0;
        for (size_t i = 0; i < count * es; i++)
            nz += ((unsigned char *)m.data)[i] != 0;
        CHECK(nz == 0, "%s: %zu non-zero bytes in a fresh file", path, nz);
        void *v = make_values(dt, count);
        if (count)
            memcpy(m.data, v, count * es);
        lwt_map_advise_sequential(&m);
        rc = lwt_map_commit(&m, err, sizeof err);
        CHECK(rc == 0, "commit %s: %s", path, err);
        CHECK(is_closed(&m), "%s: not closed after the commit", path);
        lwt_map_close(&m); /* after a commit: no-op, and the file stays */
        CHECK(exists(path), "%s missing after the commit", path);
        CHECK(count_prefix("cc", prefix) == 0, "%s: temporary left after the commit", path);

        struct stat st;
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0666 & ~um),
              "%s: mode %o, expected %o", path, (unsigned)(st.st_mode & 0777), (unsigned)(0666 & ~um));

        npy_array a;
        rc = npy_read(path, &a, err, sizeof err);
        CHECK(rc == 0, "npy_read %s: %s", path, err);
        if (rc == 0) {
            CHECK(a.dtype == dt && a.ndim == nd && a.count == count, "%s: read back header", path);
            for (int k = 0; k < nd; k++)
                CHECK(a.shape[k] == shape[k], "%s: shape[%d]", path, k);
            CHECK(first_diff(dt, a.data, count) == count, "%s: values differ", path);
            npy_free(&a);
        }

        /* byte for byte what npy_write writes */
        rc = npy_write(ref, dt, nd, shape, v, err, sizeof err);
        CHECK(rc == 0, "npy_write %s: %s", ref, err);
        size_t n1 = 0, n2 = 0;
        unsigned char *b1 = slurp(path, &n1), *b2 = slurp(ref, &n2);
        CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0, "%s differs from npy_write's %s",
              path, ref);
        free(b1);
        free(b2);
        free(v);
    }

    /* a commit replaces an existing file */
    {
        size_t shape[1] = {10};
        lwt_mapped m;
        char err[512] = "";
        put_raw("cc/old.npy", "old", 3);
        int rc = lwt_map_npy_create("cc/old.npy", LWT_F64, 1, shape, &m, err, sizeof err);
        CHECK(rc == 0, "create over an existing file: %s", err);
        if (rc == 0) {
            size_t n = 0;
            unsigned char *b = slurp("cc/old.npy", &n);
            CHECK(b && n == 3, "the old file changed before the commit");
            free(b);
            for (size_t i = 0; i < 10; i++)
                ((double *)m.data)[i] = val64(i);
            CHECK(lwt_map_commit(&m, err, sizeof err) == 0, "commit over an existing file: %s", err);
            expect_mapped_values("cc/old.npy", LWT_F64, 1, shape);
        }
    }

    /* commit of something that is not an uncommitted create */
    {
        lwt_mapped m;
        char err[512] = "";
        size_t shape[1] = {4};
        int rc = lwt_map_npy_read("cc/old.npy", &m, err, sizeof err);
        CHECK(rc == 0, "%s", err);
        if (rc == 0) {
            CHECK(lwt_map_commit(&m, err, sizeof err) != 0, "commit of a read mapping succeeded");
            CHECK(strstr(err, "cc/old.npy") != NULL, "commit refusal does not name the file: %s", err);
            lwt_map_close(&m);
        }
        rc = lwt_map_npy_create("cc/twice.npy", LWT_F32, 1, shape, &m, err, sizeof err);
        CHECK(rc == 0, "%s", err);
        if (rc == 0) {
            CHECK(lwt_map_commit(&m, err, sizeof err) == 0, "%s", err);
            CHECK(lwt_map_commit(&m, err, sizeof err) != 0, "second commit succeeded");
            CHECK(exists("cc/twice.npy"), "a second commit removed the file");
        }
        CHECK(lwt_map_commit(NULL, err, sizeof err) != 0, "commit(NULL) succeeded");
    }
}

/* read-mapping files made by npy_write and by hand */
static void test_read_npy(void)
{
    static const struct {
        lwt_dtype dt;
        int ndim;
        size_t shape[3];
    } cases[] = {
        {LWT_F32, 1, {1}},        {LWT_F64, 1, {1001}},     {LWT_F32, 2, {3, 4}},
        {LWT_F64, 2, {100, 37}},  {LWT_F32, 3, {4, 5, 6}},  {LWT_F64, 3, {3, 1, 7}},
        {LWT_F64, 0, {0}},        {LWT_F32, 1, {0}},        {LWT_F64, 3, {2, 0, 3}},
        {LWT_F16, 1, {1}},        {LWT_F16, 2, {13, 7}},    {LWT_F16, 3, {3, 5, 7}},
    };
    char err[512];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char name[64];
        size_t count = prod(cases[c].ndim, cases[c].shape);
        void *v = make_values(cases[c].dt, count);
        snprintf(name, sizeof name, "w%zu.npy", c);
        int rc = npy_write(name, cases[c].dt, cases[c].ndim, cases[c].shape, v, err, sizeof err);
        CHECK(rc == 0, "npy_write %s: %s", name, err);
        expect_mapped_values(name, cases[c].dt, cases[c].ndim, cases[c].shape);
        free(v);
    }

    /* hand-made headers: versions, spellings, alignments, trailing bytes */
    {
        size_t s2[2] = {6, 10}, s1[1] = {60};
        double *d = make_values(LWT_F64, 60);
        float *f = make_values(LWT_F32, 60);
        put_npy("v2.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 10), }", 64, d,
                480);
        expect_mapped_values("v2.npy", LWT_F64, 2, s2);
        put_npy("v3.npy", 3, "{'shape': (6, 10), 'fortran_order': False, 'descr': '<f4'}", 64, f,
                240);
        expect_mapped_values("v3.npy", LWT_F32, 2, s2);
        put_npy("pipe.npy", 1, "{'descr': '|f8', 'fortran_order': False, 'shape': (60,)}", 64, d, 480);
        expect_mapped_values("pipe.npy", LWT_F64, 1, s1);
        put_npy("eq.npy", 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (60,)}", 64, f, 240);
        expect_mapped_values("eq.npy", LWT_F32, 1, s1);
        put_npy("bare.npy", 1, "{\"descr\": \"float64\", \"fortran_order\": False, \"shape\": (60,)}",
                64, d, 480);
        expect_mapped_values("bare.npy", LWT_F64, 1, s1);
        /* old numpy: data at a multiple of 16 only */
        put_npy("a16.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 10), }", 16, d,
                480);
        expect_mapped_values("a16.npy", LWT_F64, 2, s2);
        /* f4 at an offset that is a multiple of 4 but not of 8 */
        put_npy("a4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (60,)}  ", 0, f, 240);
        check_odd_offset("a4.npy", 240, 4);
        expect_mapped_values("a4.npy", LWT_F32, 1, s1);
        /* f2 at an offset that is a multiple of 2 but not of 4, spelled 'e' and 'float16' */
        {
            unsigned short *h = make_values(LWT_F16, 60);
            put_npy("a2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (60,)}", 0, h, 120);
            check_odd_offset("a2.npy", 120, 2);
            expect_mapped_values("a2.npy", LWT_F16, 1, s1);
            put_npy("e.npy", 1, "{'descr': 'e', 'fortran_order': False, 'shape': (6, 10)}", 64, h, 120);
            expect_mapped_values("e.npy", LWT_F16, 2, s2);
            put_npy("f16.npy", 3, "{'descr': 'float16', 'fortran_order': False, 'shape': (60,)}", 64, h, 120);
            expect_mapped_values("f16.npy", LWT_F16, 1, s1);
            free(h);
        }
        /* Fortran order with one axis longer than 1 is C order as well */
        size_t sf[2] = {60, 1};
        put_npy("f1.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (60, 1), }", 64, d,
                480);
        expect_mapped_values("f1.npy", LWT_F64, 2, sf);
        /* trailing bytes after the data are ignored */
        {
            unsigned char *b = malloc(480 + 7);
            memcpy(b, d, 480);
            memcpy(b + 480, "garbage", 7);
            put_npy("trail.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,)}", 64,
                    b, 487);
            expect_mapped_values("trail.npy", LWT_F64, 1, s1);
            free(b);
        }
        /* a big file: data far past the first page */
        {
            size_t n = 300000, sb[1] = {300000};
            double *big = make_values(LWT_F64, n);
            put_npy("big.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (300000,)}", 64,
                    big, n * 8);
            expect_mapped_values("big.npy", LWT_F64, 1, sb);
            free(big);
        }
        free(d);
        free(f);
    }
}

/* what cannot be used in place, or is not a usable file */
static void test_refusals(void)
{
    double *d = make_values(LWT_F64, 60);
    unsigned char be[480];
    for (size_t i = 0; i < 60; i++)
        for (size_t k = 0; k < 8; k++)
            be[i * 8 + k] = ((unsigned char *)d)[i * 8 + 7 - k];

    /* files made by put_npy, refused with phrase (and phrase2 too, when given) */
    const struct {
        const char *name;
        int major;
        const char *dict;
        size_t align;
        const void *data;
        size_t nbytes;
        const char *phrase, *phrase2;
    } refused[] = {
        {"fortran.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (6, 10), }", 64, d,
         480, "Fortran order", "--stream"},
        {"fortran3.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3, 10), }", 64,
         d, 480, "Fortran order", NULL},
        {"big_endian.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (60,), }", 64,
         be, 480, "big-endian", "convert"},
        {"int.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (60,), }", 64, d, 240,
         "unsupported dtype '<i4'", NULL},
        {"c16.npy", 1, "{'descr': '<c16', 'fortran_order': False, 'shape': (30,), }", 64, d, 480,
         "unsupported dtype", NULL},
        {"trunc.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,), }", 64, d, 479,
         "truncated: header says 480 bytes of data, file has 479", NULL},
        {"trunc0.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,), }", 64, d, 0,
         "truncated", NULL},
        {"v9.npy", 9, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,), }", 64, d, 480,
         "unsupported .npy format version 9.0", NULL},
        {"bad.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,), 'x': 1}", 64, d,
         480, "malformed header", NULL},
        /* f8 data at an offset that is not a multiple of 8 */
        {"a4_f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (60,)}  ", 0, d, 480,
         "not a multiple of the 8-byte element size", NULL},
        /* float16: the other byte order (the message names the dtype to convert to), an odd offset,
           a byte short */
        {"big_endian2.npy", 1, "{'descr': '>f2', 'fortran_order': False, 'shape': (60,), }", 64, d,
         120, "big-endian", "astype('<f2')"},
        {"a1_f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (60,)}   ", 0, d, 120,
         "not a multiple of the 2-byte element size", NULL},
        {"trunc2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (60,), }", 64, d, 119,
         "truncated: header says 120 bytes of data, file has 119", NULL},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        put_npy(refused[i].name, refused[i].major, refused[i].dict, refused[i].align,
                refused[i].data, refused[i].nbytes);
        expect_npy_refused(refused[i].name, refused[i].phrase);
        if (refused[i].phrase2)
            expect_npy_refused(refused[i].name, refused[i].phrase2);
    }

    /* cut short, or not .npy at all */
    {
        size_t n = 0;
        unsigned char *b = slurp("trunc.npy", &n);
        put_raw("trunc_hdr.npy", b, 40);
        put_raw("trunc_pre.npy", b, 7);
        free(b);
    }
    expect_npy_refused("trunc_hdr.npy", "truncated header");
    expect_npy_refused("trunc_pre.npy", "truncated header");
    put_raw("empty.npy", "", 0);
    expect_npy_refused("empty.npy", "not a .npy file");
    put_raw("text.npy", "hello, world\n", 13);
    expect_npy_refused("text.npy", "not a .npy file");

    if (mkdir("adir.npy", 0777) != 0)
        perror("adir.npy");
    expect_npy_refused("adir.npy", "is a directory");
    expect_npy_refused("missing.npy", "cannot open: No such file or directory");
    expect_npy_refused("nodir/missing.npy", "cannot open");
    if (mkfifo("fifo.npy", 0666) == 0)
        expect_npy_refused("fifo.npy", "not a regular file");

    /* raw */
    put_raw("raw.bin", d, 480);
    size_t s60[1] = {60}, s61[1] = {61}, s2[2] = {6, 10}, s3[3] = {2, 3, 5};
    expect_raw_refused("raw.bin", LWT_F64, 1, s61, 0, "size mismatch", "488");
    expect_raw_refused("raw.bin", LWT_F64, 1, s61, 0, "size mismatch", "480");
    expect_raw_refused("raw.bin", LWT_F32, 2, s2, 0, "needs 240 bytes", "has 480");
    expect_raw_refused("raw.bin", LWT_F64, 1, s60, 8, "needs 480 bytes", "has 472");
    expect_raw_refused("raw.bin", LWT_F64, 3, s3, 1000, "past the end", "480");
    expect_raw_refused("adir.npy", LWT_F64, 1, s60, 0, "is a directory", NULL);
    expect_raw_refused("missing.bin", LWT_F64, 1, s60, 0, "cannot open", NULL);
    put_raw("raw_off4.bin", d, 4 + 472); /* 4-byte header, then 59 doubles */
    {
        size_t s59[1] = {59};
        expect_raw_refused("raw_off4.bin", LWT_F64, 1, s59, 4, "not a multiple", NULL);
    }
    free(d);
}

/* raw files: values, offsets */
static void test_read_raw(void)
{
    double *d = make_values(LWT_F64, 120);
    char err[512] = "";
    lwt_mapped m;
    size_t s[3] = {2, 6, 10};

    put_raw("r64.bin", d, 960);
    int rc = lwt_map_raw_read("r64.bin", LWT_F64, 3, s, 0, &m, err, sizeof err);
    CHECK(rc == 0, "r64.bin: %s", err);
    if (rc == 0) {
        CHECK(m.dtype == LWT_F64 && m.ndim == 3 && m.count == 120 && m.shape[2] == 10 && m.shape[3] == 0,
              "r64.bin: fields");
        CHECK(first_diff(LWT_F64, m.data, 120) == 120, "r64.bin: values");
        lwt_map_advise_sequential(&m);
        lwt_map_close(&m);
        CHECK(is_closed(&m), "r64.bin: not closed");
    }

    /* a header to skip: 64 bytes; 4 before floats; 2 before float16 (2-byte elements) */
    {
        size_t s2[2] = {12, 10}, s119[1] = {119};
        expect_raw_values("r32.bin", LWT_F32, 2, s2, 64);
        expect_raw_values("r32o4.bin", LWT_F32, 1, s119, 4);
        expect_raw_values("r16.bin", LWT_F16, 2, s2, 2);
    }

    /* empty file, zero elements; ndim 0 with one element */
    put_raw("r0.bin", "", 0);
    {
        size_t s0[1] = {0};
        rc = lwt_map_raw_read("r0.bin", LWT_F64, 1, s0, 0, &m, err, sizeof err);
        CHECK(rc == 0 && m.data != NULL && m.count == 0, "r0.bin: %s", err);
        lwt_map_close(&m);
        put_raw("r1.bin", d, 8);
        rc = lwt_map_raw_read("r1.bin", LWT_F64, 0, NULL, 0, &m, err, sizeof err);
        CHECK(rc == 0 && m.count == 1 && m.ndim == 0 && *(double *)m.data == d[0], "r1.bin: %s", err);
        lwt_map_close(&m);
    }

    /* float16 without its header's offset: the sizes; bfloat16 has no .npy dtype: refused */
    {
        size_t s2[2] = {12, 10};
        expect_raw_refused("r16.bin", LWT_F16, 2, s2, 0, "needs 240 bytes", "has 242");
        CHECK(lwt_map_raw_read("r16.bin", LWT_BF16, 2, s2, 2, &m, err, sizeof err) != 0 && is_closed(&m),
              "bfloat16 raw accepted");
    }

    /* argument errors */
    CHECK(lwt_map_raw_read("r64.bin", (lwt_dtype)7, 1, s, 0, &m, err, sizeof err) != 0 && is_closed(&m),
          "bad dtype accepted");
    CHECK(lwt_map_raw_read("r64.bin", LWT_F64, NPY_MAX_DIMS + 1, s, 0, &m, err, sizeof err) != 0,
          "bad ndim accepted");
    CHECK(lwt_map_raw_read("r64.bin", LWT_F64, 2, NULL, 0, &m, err, sizeof err) != 0,
          "NULL shape accepted");
    {
        size_t huge[2] = {SIZE_MAX / 2, 3};
        CHECK(lwt_map_raw_read("r64.bin", LWT_F64, 2, huge, 0, &m, err, sizeof err) != 0 &&
                  strstr(err, "overflows"),
              "overflowing shape accepted: %s", err);
    }
    CHECK(lwt_map_npy_read(NULL, &m, err, sizeof err) != 0, "NULL path accepted");
    free(d);
}

/* close without commit, failed creates: nothing left behind */
static void test_nothing_left(void)
{
    char err[512] = "";
    lwt_mapped m;
    size_t shape[2] = {100, 100};

    if (mkdir("abandon", 0777) != 0)
        perror("abandon");
    int rc = lwt_map_npy_create("abandon/out.npy", LWT_F64, 2, shape, &m, err, sizeof err);
    CHECK(rc == 0, "create abandon/out.npy: %s", err);
    if (rc == 0) {
        CHECK(count_entries("abandon") == 1, "abandon: %d entries while mapped", count_entries("abandon"));
        for (size_t i = 0; i < 10000; i++)
            ((double *)m.data)[i] = (double)i;
        lwt_map_close(&m);
        CHECK(is_closed(&m), "abandoned mapping not closed");
        lwt_map_close(&m);
    }
    CHECK(count_entries("abandon") == 0, "abandon: %d entries left after close without commit",
          count_entries("abandon"));

    /* a nonexistent directory */
    rc = lwt_map_npy_create("nodir/out.npy", LWT_F32, 2, shape, &m, err, sizeof err);
    CHECK(rc != 0, "create in a nonexistent directory succeeded");
    if (rc != 0) {
        CHECK(is_closed(&m), "failed create: output not closed");
        check_message("create in nodir", err, "nodir/out.npy", "No such file or directory");
    } else {
        lwt_map_close(&m);
    }
    CHECK(!exists("nodir"), "nodir appeared");

    /* the "directory" is a regular file (fails for root as well) */
    put_raw("abandon/plain", "x", 1);
    rc = lwt_map_npy_create("abandon/plain/out.npy", LWT_F32, 2, shape, &m, err, sizeof err);
    CHECK(rc != 0, "create under a regular file succeeded");
    if (rc != 0)
        check_message("create under a file", err, "abandon/plain/out.npy", "Not a directory");
    else
        lwt_map_close(&m);
    CHECK(count_entries("abandon") == 1, "abandon: entries left after a failed create");
    unlink("abandon/plain");

    /* a directory that is not writable (root writes anyway: skipped) */
    if (mkdir("ro", 0555) == 0 && access("ro", W_OK) != 0) {
        rc = lwt_map_npy_create("ro/out.npy", LWT_F32, 2, shape, &m, err, sizeof err);
        CHECK(rc != 0, "create in a read-only directory succeeded");
        if (rc != 0)
            check_message("create in ro", err, "ro/out.npy", "cannot create temporary file");
        else
            lwt_map_close(&m);
        CHECK(count_entries("ro") == 0, "ro: entries left after a failed create");
    } else {
        printf("test_mapped: read-only directory case skipped (running as root)\n");
    }
    chmod("ro", 0755);

    /* the path is a directory: create works, the commit fails and cleans up */
    if (mkdir("abandon/isdir.npy", 0777) == 0) {
        rc = lwt_map_npy_create("abandon/isdir.npy", LWT_F32, 2, shape, &m, err, sizeof err);
        CHECK(rc == 0, "create beside a directory: %s", err);
        if (rc == 0) {
            rc = lwt_map_commit(&m, err, sizeof err);
            CHECK(rc != 0, "commit over a directory succeeded");
            if (rc)
                check_message("commit over a directory", err, "abandon/isdir.npy", "rename");
            CHECK(is_closed(&m), "failed commit: not closed");
        }
        CHECK(count_entries("abandon") == 1, "abandon: a temporary left after a failed commit");
        rmdir("abandon/isdir.npy");
    }

    /* argument errors leave nothing */
    CHECK(lwt_map_npy_create("abandon/x.npy", (lwt_dtype)5, 2, shape, &m, err, sizeof err) != 0,
          "bad dtype accepted");
    CHECK(lwt_map_npy_create("abandon/x.npy", LWT_BF16, 2, shape, &m, err, sizeof err) != 0,
          "bfloat16 accepted (no .npy dtype)");
    CHECK(lwt_map_npy_create("abandon/x.npy", LWT_F32, -1, shape, &m, err, sizeof err) != 0,
          "bad ndim accepted");
    CHECK(lwt_map_npy_create("abandon/x.npy", LWT_F32, 2, NULL, &m, err, sizeof err) != 0,
          "NULL shape accepted");
    CHECK(lwt_map_npy_create("", LWT_F32, 2, shape, &m, err, sizeof err) != 0, "empty path accepted");
    {
        size_t huge[2] = {SIZE_MAX / 4, 5};
        CHECK(lwt_map_npy_create("abandon/x.npy", LWT_F32, 2, huge, &m, err, sizeof err) != 0 &&
                  strstr(err, "overflows"),
              "overflowing shape accepted: %s", err);
    }
    CHECK(count_entries("abandon") == 0, "abandon: entries left after refused creates");

    /* closing things that were never opened */
    lwt_map_close(NULL);
    {
        int fd0 = fcntl(0, F_GETFD) != -1;
        lwt_mapped z;
        memset(&z, 0, sizeof z);
        lwt_map_close(&z);
        CHECK((fcntl(0, F_GETFD) != -1) == fd0, "closing a zeroed struct closed fd 0");
        lwt_map_advise_sequential(NULL);
        lwt_map_advise_sequential(&z);
    }
}

/* a sparse output bigger than the data written to it */
static void test_sparse(void)
{
    char err[512] = "";
    lwt_mapped m;
    size_t shape[1] = {(size_t)1 << 25}; /* 256 MiB of float64 */
    int rc = lwt_map_npy_create("sparse.npy", LWT_F64, 1, shape, &m, err, sizeof err);
    if (rc != 0 && strstr(err, "disk space")) {
        printf("test_mapped: sparse case skipped (%s)\n", err);
        return;
    }
    CHECK(rc == 0, "sparse create: %s", err);
    if (rc)
        return;
    ((double *)m.data)[shape[0] - 1] = 42.0;
    ((double *)m.data)[0] = -1.0;
    CHECK(lwt_map_commit(&m, err, sizeof err) == 0, "sparse commit: %s", err);
    rc = lwt_map_npy_read("sparse.npy", &m, err, sizeof err);
    CHECK(rc == 0, "sparse read: %s", err);
    if (rc == 0) {
        const double *x = m.data;
        CHECK(m.count == shape[0] && x[0] == -1.0 && x[shape[0] - 1] == 42.0 && x[shape[0] / 2] == 0.0,
              "sparse: values");
        lwt_map_close(&m);
    }
    unlink("sparse.npy");
}

static void test_scratch(void)
{
    char err[512] = "";
    lwt_mapped m;
    size_t n = ((size_t)3 << 20) + 17;

    int rc = lwt_map_scratch(n, NULL, &m, err, sizeof err);
    CHECK(rc == 0, "anonymous scratch: %s", err);
    if (rc == 0) {
        unsigned char *p = m.data;
        size_t nz = 0;
        CHECK(m.writable && m.count == n && m.path == NULL, "anonymous scratch: fields");
        for (size_t i = 0; i < n; i++)
            nz += p[i] != 0;
        CHECK(nz == 0, "anonymous scratch not zero-filled");
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char)(i * 7);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += p[i] != (unsigned char)(i * 7);
        CHECK(bad == 0, "anonymous scratch does not keep what was written");
        lwt_map_advise_sequential(&m);
        lwt_map_close(&m);
        CHECK(is_closed(&m), "anonymous scratch not closed");
    }

    if (mkdir("scr", 0777) != 0)
        perror("scr");
    rc = lwt_map_scratch(n, "scr", &m, err, sizeof err);
    CHECK(rc == 0, "file scratch: %s", err);
    if (rc == 0) {
        double *x = m.data;
        size_t k = n / 8, bad = 0;
        CHECK(((uintptr_t)m.data % 4096) == 0, "file scratch: data not page-aligned");
        CHECK(count_entries("scr") == 0, "file scratch: a file is visible while mapped");
        for (size_t i = 0; i < k; i++)
            x[i] = val64(i);
        for (size_t i = 0; i < k; i++)
            bad += x[i] != val64(i);
        CHECK(bad == 0, "file scratch does not keep what was written");
        lwt_map_advise_sequential(&m);
        lwt_map_close(&m);
        CHECK(is_closed(&m), "file scratch not closed");
    }
    CHECK(count_entries("scr") == 0, "file scratch: %d entries left", count_entries("scr"));

    rc = lwt_map_scratch(100, "nodir", &m, err, sizeof err);
    CHECK(rc != 0, "scratch in a nonexistent directory succeeded");
    if (rc)
        check_message("scratch in nodir", err, "nodir", "cannot create a scratch file");
    else
        lwt_map_close(&m);

    rc = lwt_map_scratch(0, NULL, &m, err, sizeof err);
    CHECK(rc == 0 && m.data != NULL && m.count == 0, "empty scratch: %s", err);
    lwt_map_close(&m);
    rc = lwt_map_scratch(0, "scr", &m, err, sizeof err);
    CHECK(rc == 0 && m.data != NULL, "empty file scratch: %s", err);
    lwt_map_close(&m);
    CHECK(count_entries("scr") == 0, "scr: entries left");
}

/* ------------------------------------------------------------ main */

int main(void)
{
    char dir[] = "test_mapped_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_mapped") != 0)
        return 1;
    test_create_commit();
    test_read_npy();
    test_refusals();
    test_read_raw();
    test_nothing_left();
    test_sparse();
    test_scratch();
    if (leave_scratch_dir(dir, failures) != 0)
        return 1;
    if (failures)
        fprintf(stderr, "test_mapped: files kept in %s\n", dir);
    return finish("test_mapped");
}
