/*
 * test_surface_io_datx.c - the Zygo .datx reader (lwt_surface_read_datx, src/io/datx.c).
 *
 * No .datx with a licence that lets it into a test was found on this machine, so the files are
 * written here with libhdf5 from the published layout (the summary is at the top of datx.c):
 * /MetaData links Root -> Measurement -> Surface -> Path to a 2-D dataset with X/Y/Z Converter,
 * Unit and No Data attributes, strings stored variable-length (as h5py writes them) and
 * fixed-length, Parameters as a variable-length sequence and as a fixed array, float32,
 * float64 and int32 heights. Valid files must give back every height times the unit, the
 * spacing, and NaN at the "No Data", NaN and inf points; hostile ones (no MetaData, a broken
 * link chain, a 1-D or 3-D dataset, a converter missing or of the wrong category, a height unit
 * that is not a length, conflicting units, a dataset declaring more than the memory limit, a
 * truncated file, not HDF5 at all, every point invalid) are refused with their status and one
 * line naming the file, and libhdf5 prints nothing (stderr is checked). A build without libhdf5
 * checks the "built without HDF5" answer instead.
 */
#define _XOPEN_SOURCE 700

#include "io/surface_file.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_dirs.h"
#include "test_log.h"
#include "read_check.h"


#ifdef LWT_HAVE_HDF5
#include <hdf5.h>

/* ------------------------------------------------------------------ a .datx writer */

typedef struct {
    const char *name;
    size_t nx, ny;
    hid_t dtype;          /* of the heights in the file */
    const double *z;      /* the raw values, row after row */
    int fixed_strings;    /* strings fixed-length (else variable, as h5py writes them) */
    int array_params;     /* Parameters a fixed array of 4 (else a variable-length sequence) */
    const char *x_cat, *z_cat, *z_unit, *unit; /* unit NULL: no Unit attribute */
    double dx, dy;
    int have_nodata;
    double nodata;
    int rank;             /* 2, or 1 or 3 for hostile files */
    const char *meta[3][3]; /* the MetaData links; NULL first entry: the standard chain */
    int no_metadata;
    int no_zconv;
    int meta_filler;      /* records added to the standard MetaData chain */
} datx_spec;

static hid_t str_type(int fixed, size_t len)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, fixed ? len : H5T_VARIABLE);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

static void put_strings_compound(hid_t loc, int is_attr, const char *name, const char *const *fields, int nf,
                                 const char *const *values, int nrec, int fixed)
{
    const size_t slot = fixed ? 64 : sizeof(char *);
    hid_t ct = H5Tcreate(H5T_COMPOUND, slot * (size_t)nf);
    for (int f = 0; f < nf; f++) {
        hid_t st = str_type(fixed, 64);
        H5Tinsert(ct, fields[f], slot * (size_t)f, st);
        H5Tclose(st);
    }
    unsigned char *buf = calloc((size_t)nrec, slot * (size_t)nf);
    for (int r = 0; r < nrec; r++)
        for (int f = 0; f < nf; f++) {
            unsigned char *p = buf + (size_t)r * slot * (size_t)nf + slot * (size_t)f;
            if (fixed)
                snprintf((char *)p, 64, "%s", values[r * nf + f]);
            else
                memcpy(p, &values[r * nf + f], sizeof(char *));
        }
    hsize_t n = (hsize_t)nrec;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t o = is_attr ? H5Acreate2(loc, name, ct, sp, H5P_DEFAULT, H5P_DEFAULT)
                      : H5Dcreate2(loc, name, ct, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (is_attr) {
        H5Awrite(o, ct, buf);
        H5Aclose(o);
    } else {
        H5Dwrite(o, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        H5Dclose(o);
    }
    H5Sclose(sp);
    H5Tclose(ct);
    free(buf);
}

static void put_converter(hid_t ds, const char *name, const char *cat, const char *unit, const double par[4],
                          int fixed, int array)
{
    const size_t sslot = fixed ? 64 : sizeof(char *);
    const size_t psize = array ? 4 * sizeof(double) : sizeof(hvl_t);
    hid_t ct = H5Tcreate(H5T_COMPOUND, 2 * sslot + psize);
    hid_t st = str_type(fixed, 64);
    hsize_t four = 4;
    hid_t pt = array ? H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &four) : H5Tvlen_create(H5T_NATIVE_DOUBLE);
    H5Tinsert(ct, "Category", 0, st);
    H5Tinsert(ct, "BaseUnit", sslot, st);
    H5Tinsert(ct, "Parameters", 2 * sslot, pt);
    unsigned char buf[2 * 64 + 4 * sizeof(double)];
    memset(buf, 0, sizeof buf);
    if (fixed) {
        snprintf((char *)buf, 64, "%s", cat);
        snprintf((char *)buf + 64, 64, "%s", unit);
    } else {
        memcpy(buf, &cat, sizeof cat);
        memcpy(buf + sslot, &unit, sizeof unit);
    }
    if (array) {
        memcpy(buf + 2 * sslot, par, 4 * sizeof(double));
    } else {
        hvl_t v = {4, (void *)par};
        memcpy(buf + 2 * sslot, &v, sizeof v);
    }
    hsize_t one = 1;
    hid_t sp = H5Screate_simple(1, &one, NULL);
    hid_t a = H5Acreate2(ds, name, ct, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, ct, buf);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(pt);
    H5Tclose(st);
    H5Tclose(ct);
}

static const char surface_path[] = "/Data/Surface/{00000000-0000-0000-0000-00000000002a}";

static void write_datx(const datx_spec *d)
{
    hid_t f = H5Fcreate(d->name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (!d->no_metadata) {
        static const char *const fields[3] = {"Source", "Link", "Destination"};
        const char *std[4 * 3] = {"Root", "Measurement", "{M}", "{M}", "Surface", "{S}", "{S}", "Path", surface_path,
                                  "Root", "Data", "{D}"};
        const char *custom[3 * 3];
        int nrec = 4;
        const char *const *links = std;
        const char **filled = NULL;
        if (d->meta_filler > 0) {
            nrec = 4 + d->meta_filler;
            filled = malloc((size_t)nrec * 3 * sizeof *filled);
            for (int i = 0; i < nrec * 3; i++)
                filled[i] = i < 12 ? std[i] : "{filler}";
            links = filled;
        }
        if (d->meta[0][0]) {
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++)
                    custom[r * 3 + k] = d->meta[r][k];
            links = custom;
            nrec = 3;
        }
        put_strings_compound(f, 0, "MetaData", fields, 3, links, nrec, d->fixed_strings);
        free(filled);
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hsize_t dims[3] = {d->ny, d->nx, 1};
    int rank = d->rank ? d->rank : 2;
    if (rank == 1)
        dims[0] = d->nx * d->ny;
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(f, surface_path, d->dtype, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (d->z)
        H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->z);
    const double px[4] = {0, d->dx, 0, 0}, py[4] = {0, d->dy, 0, 0}, pz[4] = {0, 6.328e-7, 0.5, 1};
    put_converter(ds, "X Converter", d->x_cat ? d->x_cat : "LateralCat", "Pixels", px, d->fixed_strings,
                  d->array_params);
    put_converter(ds, "Y Converter", "LateralCat", "Pixels", py, d->fixed_strings, d->array_params);
    if (!d->no_zconv)
        put_converter(ds, "Z Converter", d->z_cat ? d->z_cat : "HeightCat", d->z_unit, pz, d->fixed_strings,
                      d->array_params);
    if (d->unit) {
        hid_t st = str_type(d->fixed_strings, 32);
        hsize_t one = 1;
        hid_t asp = H5Screate_simple(1, &one, NULL);
        hid_t a = H5Acreate2(ds, "Unit", st, asp, H5P_DEFAULT, H5P_DEFAULT);
        char fixed[32];
        snprintf(fixed, sizeof fixed, "%s", d->unit);
        const char *v = d->unit;
        H5Awrite(a, st, d->fixed_strings ? (const void *)fixed : (const void *)&v);
        H5Aclose(a);
        H5Sclose(asp);
        H5Tclose(st);
    }
    if (d->have_nodata) {
        hsize_t one = 1;
        hid_t asp = H5Screate_simple(1, &one, NULL);
        hid_t a = H5Acreate2(ds, "No Data", d->dtype, asp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &d->nodata);
        H5Aclose(a);
        H5Sclose(asp);
    }
    H5Dclose(ds);
    H5Sclose(sp);
    H5Pclose(lcpl);
    H5Fclose(f);
}

/* a valid file of spec d: every height as written times the unit, NaN at nodata, NaN and inf */
static void check_valid(const datx_spec *d, double unit_m, size_t n_invalid)
{
    lwt_surface s;
    test_log_reset(&tlog);
    lwt_status st = lwt_surface_read_datx(tctx, d->name, &s);
    CHECK(st == LWT_OK, "%s: status %d: %s", d->name, (int)st, tlog.last);
    if (st)
        return;
    CHECK(s.nx == d->nx && s.ny == d->ny, "%s: %zu x %zu, want %zu x %zu", d->name, s.nx, s.ny, d->nx, d->ny);
    CHECK(s.dx == d->dx && s.dy == d->dy, "%s: spacing %.17g, %.17g, want %.17g, %.17g", d->name, s.dx, s.dy, d->dx,
          d->dy);
    CHECK(!strcmp(s.source_format, "datx"), "%s: source_format '%s'", d->name, s.source_format);
    size_t bad = 0, wrong = 0;
    for (size_t i = 0; i < d->nx * d->ny; i++) {
        /* the value the file holds: the written double in the file's type */
        double raw = d->z[i];
        if (H5Tequal(d->dtype, H5T_IEEE_F32LE) > 0)
            raw = (double)(float)raw;
        else if (H5Tget_class(d->dtype) == H5T_INTEGER)
            raw = (double)(int32_t)raw;
        const int invalid = !isfinite(raw) || (d->have_nodata && raw == d->nodata);
        bad += invalid;
        if (invalid ? !isnan(s.z[i]) : s.z[i] != raw * unit_m)
            wrong++;
    }
    CHECK(wrong == 0, "%s: %zu heights differ from the file's values times %g", d->name, wrong, unit_m);
    CHECK(bad == n_invalid, "%s: the test wrote %zu invalid points, want %zu", d->name, bad, n_invalid);
    CHECK(lwt_surface_count_valid(&s) == d->nx * d->ny - n_invalid, "%s: %zu valid points, want %zu", d->name,
          lwt_surface_count_valid(&s), d->nx * d->ny - n_invalid);
    /* the generic reader finds it by its HDF5 signature, whatever the extension */
    lwt_surface g;
    char other[300];
    snprintf(other, sizeof other, "%s.bin", d->name);
    if (link(d->name, other) == 0) {
        CHECK(lwt_surface_read(tctx, other, &g) == LWT_OK && g.nx == s.nx && (g.z[0] == s.z[0] || isnan(s.z[0])),
              "%s: lwt_surface_read by magic failed: %s", other, tlog.last);
        lwt_surface_free(&g);
        unlink(other);
    }
    lwt_surface_free(&s);
}

static void test_valid(void)
{
    enum { NX = 7, NY = 5 };
    static double z[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        z[i] = (i * 37 % 23) * 0.75 - 8.125; /* exact in float32 and int32 after scaling below */
    datx_spec d = {"f64.datx", NX, NY, H5T_IEEE_F64LE, z, 0, 0, NULL, NULL, "NanoMeters", "NanoMeters",
                   1.25e-6, 2.5e-6, 1, 1.7976931348623157e308, 2, {{NULL}}, 0, 0, 0};
    z[3] = d.nodata;
    z[10] = NAN;
    z[NX * NY - 1] = INFINITY;
    write_datx(&d);
    check_valid(&d, 1e-9, 3);

    /* float32, fixed-length strings, Parameters a fixed array, micrometres, No Data FLT_MAX */
    datx_spec f = d;
    f.name = "f32-fixed.datx";
    f.dtype = H5T_IEEE_F32LE;
    f.fixed_strings = 1;
    f.array_params = 1;
    f.z_unit = f.unit = "MicroMeters";
    f.nodata = 3.4028234663852886e38;
    z[3] = f.nodata;
    write_datx(&f);
    check_valid(&f, 1e-6, 3);

    /* int32 heights, no Unit attribute, no No Data attribute: only non-finite would be invalid */
    static double zi[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        zi[i] = (double)(i * 7919 % 1000 - 500);
    datx_spec g = d;
    g.name = "int32.datx";
    g.dtype = H5T_STD_I32LE;
    g.z = zi;
    g.unit = NULL;
    g.have_nodata = 0;
    g.z_unit = "Meters";
    g.dx = g.dy = 3e-7;
    write_datx(&g);
    check_valid(&g, 1.0, 0);
}

static void test_hostile(void)
{
    enum { NX = 4, NY = 3 };
    static double z[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        z[i] = i;
    const datx_spec base = {"x.datx", NX, NY, H5T_IEEE_F64LE, z, 0, 0, NULL, NULL, "NanoMeters", "NanoMeters",
                            1e-6, 1e-6, 1, -1e300, 2, {{NULL}}, 0, 0, 0};
    datx_spec d;

    d = base, d.name = "no-metadata.datx", d.no_metadata = 1;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "not a Zygo .datx: it has no /MetaData");

    d = base, d.name = "broken-chain.datx";
    d.meta[0][0] = "Root", d.meta[0][1] = "Measurement", d.meta[0][2] = "{M}";
    d.meta[1][0] = "{M}", d.meta[1][1] = "Intensity", d.meta[1][2] = "{I}";
    d.meta[2][0] = "{I}", d.meta[2][1] = "Path", d.meta[2][2] = surface_path;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "missing: 'Surface' from '{M}'");

    d = base, d.name = "long-metadata.datx", d.meta_filler = 20000 - 3;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "/MetaData has 20001 records (1 to 20000 expected)");

    d = base, d.name = "dangling-path.datx";
    d.meta[0][0] = "Root", d.meta[0][1] = "Measurement", d.meta[0][2] = "{M}";
    d.meta[1][0] = "{M}", d.meta[1][1] = "Surface", d.meta[1][2] = "{S}";
    d.meta[2][0] = "{S}", d.meta[2][1] = "Path", d.meta[2][2] = "/Data/Surface/nowhere";
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "cannot open the surface dataset '/Data/Surface/nowhere'");

    d = base, d.name = "profile.datx", d.rank = 1;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_NOT_AREAL, "not an areal surface");

    d = base, d.name = "rank3.datx", d.rank = 3;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "not a 2-D array");

    d = base, d.name = "no-zconv.datx", d.no_zconv = 1;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "no attribute 'Z Converter'");

    d = base, d.name = "xcat.datx", d.x_cat = "HeightCat";
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "X Converter: category 'HeightCat'");

    d = base, d.name = "zcat.datx", d.z_cat = "LateralCat";
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "not HeightCat");

    d = base, d.name = "waves.datx", d.z_unit = d.unit = "Waves";
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "height unit 'Waves' is not a length unit");

    d = base, d.name = "conflict.datx", d.unit = "MicroMeters";
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "conflicting height units");

    d = base, d.name = "zero-spacing.datx", d.dy = 0;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_FORMAT, "Y Converter");

    static double allbad[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        allbad[i] = base.nodata;
    d = base, d.name = "all-invalid.datx", d.z = allbad;
    write_datx(&d);
    expect_error(d.name, LWT_ERR_NO_DATA, "all points are invalid");

    /* 40000 x 40000 float64 declared (12 GiB), nothing written: refused by the memory limit before
       anything is allocated (the file itself is a few kB: HDF5 allocates storage late) */
    d = base, d.name = "huge.datx", d.nx = d.ny = 40000, d.z = NULL;
    write_datx(&d);
    lwt_context_set_memory_limit(tctx, (size_t)64 << 20);
    expect_error(d.name, LWT_ERR_OUT_OF_MEMORY, "more than the memory limit of 64.0 MiB");
    lwt_context_set_memory_limit(tctx, 0);

    /* truncated: the first half of a valid file */
    d = base, d.name = "whole.datx";
    write_datx(&d);
    {
        FILE *in = fopen("whole.datx", "rb"), *out = fopen("truncated.datx", "wb");
        static unsigned char b[1 << 16];
        size_t k = in ? fread(b, 1, sizeof b, in) : 0;
        if (out)
            fwrite(b, 1, k / 2, out);
        if (in)
            fclose(in);
        if (out)
            fclose(out);
    }
    expect_error("truncated.datx", LWT_ERR_FORMAT, "corrupt or truncated HDF5 file");

    expect_refused_basics("datx", "no HDF5 signature");
}

/* libhdf5 prints its error stack on stderr unless told not to: read a broken file with stderr
   going to a file and require it empty */
static void test_silent(void)
{
    fflush(stderr);
    int saved = dup(2), fd = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0)
        return;
    dup2(fd, 2);
    close(fd);
    lwt_surface s;
    (void)lwt_surface_read_datx(tctx, "truncated.datx", &s);
    (void)lwt_surface_read_datx(tctx, "dangling-path.datx", &s);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen("stderr.txt", "r");
    long size = -1;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    CHECK(size == 0, "reading broken .datx files printed %ld bytes on stderr (libhdf5's error stack?)", size);
    unlink("stderr.txt");
}

#endif /* LWT_HAVE_HDF5 */

int main(void)
{
    if (!(tctx = test_log_context(&tlog)))
        return 1;
    char dir[] = "datx_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_surface_io_datx"))
        return 1;
#ifdef LWT_HAVE_HDF5
    test_valid();
    test_hostile();
    test_silent();
    /* the files this test wrote and nothing else: reading creates no file (temporary or other) */
    CHECK(count_prefix(".", "") == 20 && !exists("missing.datx"), "%d files in the scratch folder, the test wrote 20",
          count_prefix(".", ""));
#else
    FILE *f = fopen("any.datx", "w");
    if (f) {
        fputs("\x89HDF\r\n\x1a\n", f);
        fclose(f);
    }
    expect_error("any.datx", LWT_ERR_UNSUPPORTED, "built without HDF5");
    printf("test_surface_io_datx: built without HDF5: only the refusal is checked\n");
#endif
    if (leave_scratch_dir(dir, failures != 0))
        CHECK(0, "cannot leave %s", dir);
    lwt_context_destroy(tctx);
    return finish("test_surface_io_datx");
}
