/*
 * datx.c - Zygo .datx (Mx software) topographies (read only), through libhdf5.
 *
 * An HDF5 file. The dataset /MetaData is a list of links, records of three strings (Source,
 * Link, Destination): from "Root" the link "Measurement" leads to a node "{...}", from it
 * "Surface" to another, from which "Path" names the surface dataset ("/Data/Surface/{GUID}").
 * That dataset is 2-D, rows along y (row 0 first, as stored), any integer or float type, with
 * the attributes
 *   "X Converter", "Y Converter"  compound {Category "LateralCat", BaseUnit, Parameters}: the
 *                                 spacing is Parameters[1], in metres
 *   "Z Converter"                 {Category "HeightCat", BaseUnit (the heights' length unit:
 *                                 "NanoMeters", "MicroMeters", ...), Parameters}
 *   "Unit"                        the heights' unit again (must agree when both are present)
 *   "No Data"                     the value of a point that was not measured
 * (SurfaceTopography's DATX reader and its tests take this layout; they note that Gwyddion's
 * datxfile.c orders the rows the same way. docs/FORMATS.md.)
 * Strings may be stored fixed-length or variable-length, Parameters as a variable-length
 * sequence or a fixed array: each is read as it is stored.
 *
 * libhdf5 prints its error stack on stderr by default; liblwt never prints, so the automatic
 * printing is switched off around each read (and the caller's setting put back), and the most
 * specific entry of the stack becomes part of the one logged line.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LWT_HAVE_HDF5

#include <hdf5.h>
#if !defined(H5_HAVE_THREADSAFE)
#include <pthread.h>
/* A libhdf5 built without its thread-safety option must not be entered from two threads at
 * once (its own documentation): the one process-wide lock of liblwt_surface, for that build only. */
static pthread_mutex_t datx_hdf5_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

#define DATX_SLOT 256        /* bytes per member of a record as read: a string, or 32 numbers */
#define DATX_MAX_NUMS 8      /* the numbers of a Parameters member kept (index 1 is the spacing) */
/* /MetaData records read at most: the link chain needs three, Mx writes one per metadata item;
 * the bound keeps a hostile table from costing more than about 35 MB (per record, 3 slots of
 * 256 bytes as read and 3 fields of 328 bytes as kept) */
#define DATX_MAX_RECORDS 20000
#define DATX_WHY 200 /* bytes kept of libhdf5's own message */

/* one member of one record: its text, or its numbers */
typedef struct {
    char str[DATX_SLOT];
    double num[DATX_MAX_NUMS];
    size_t nnum;
} datx_field;

typedef struct {
    lwt_context *ctx;
    const char *path;
    hid_t file;
} datx_in;

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *ud)
{
    if (n == 0 && e && e->desc)
        snprintf((char *)ud, DATX_WHY, "%s", e->desc);
    return 0;
}

/* "path: what (HDF5: its most specific error)", logged; the error stack cleared */
static lwt_status hdf5_fail(datx_in *in, lwt_status st, const char *what)
{
    char why[DATX_WHY] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why);
    H5Eclear2(H5E_DEFAULT);
    return lwt__file_fail(in->ctx, st, in->path, "%s%s%s%s", what, why[0] ? " (HDF5: " : "", why, why[0] ? ")" : "");
}

/* close whichever of a type, a dataspace and an attribute or a dataset were opened (< 0: not) */
static void close_ids(hid_t type, hid_t space, hid_t obj)
{
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (obj >= 0 && H5Iget_type(obj) == H5I_ATTR)
        H5Aclose(obj);
    else if (obj >= 0)
        H5Dclose(obj);
}

enum { KIND_VSTR, KIND_FSTR, KIND_VNUM, KIND_ANUM, KIND_NUM };

/* The members `names` of every record of a compound dataset or attribute (is_attr), as text or as
 * numbers, into a new array of nrec x nf fields. */
static lwt_status read_records(datx_in *in, hid_t obj, int is_attr, const char *what, const char *const *names,
                               int nf, datx_field **out, size_t *nrec)
{
    lwt_status rc = LWT_OK;
    hid_t ftype = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
    hid_t space = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
    hid_t mtype = H5I_INVALID_HID;
    unsigned char *buf = NULL;
    int kind[4];
    size_t adim[4] = {0, 0, 0, 0}; /* elements of a fixed-array member */
    *out = NULL;
    *nrec = 0;
    if (ftype < 0 || space < 0) {
        rc = hdf5_fail(in, LWT_ERR_FORMAT, what);
        goto done;
    }
    if (H5Tget_class(ftype) != H5T_COMPOUND) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s is not a compound (a record of fields)", what);
        goto done;
    }
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np < 1 || np > DATX_MAX_RECORDS) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s has %lld records (1 to %d expected)", what,
                            (long long)np, DATX_MAX_RECORDS);
        goto done;
    }
    const size_t recsize = (size_t)nf * DATX_SLOT;
    mtype = H5Tcreate(H5T_COMPOUND, recsize);
    buf = (unsigned char *)calloc((size_t)np, recsize);
    *out = (datx_field *)calloc((size_t)np * (size_t)nf, sizeof **out);
    if (mtype < 0 || !buf || !*out) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_OUT_OF_MEMORY, in->path, "out of memory for %s", what);
        goto done;
    }
    for (int f = 0; f < nf; f++) {
        int idx = H5Tget_member_index(ftype, names[f]);
        hid_t m = idx < 0 ? H5I_INVALID_HID : H5Tget_member_type(ftype, (unsigned)idx), mt = H5I_INVALID_HID;
        H5T_class_t cls = m < 0 ? H5T_NO_CLASS : H5Tget_class(m);
        if (cls == H5T_STRING) {
            kind[f] = H5Tis_variable_str(m) > 0 ? KIND_VSTR : KIND_FSTR;
            mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, kind[f] == KIND_VSTR ? H5T_VARIABLE : DATX_SLOT);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            H5Tset_cset(mt, H5Tget_cset(m));
        } else if (cls == H5T_VLEN || cls == H5T_ARRAY) {
            hid_t base = H5Tget_super(m);
            H5T_class_t bc = base < 0 ? H5T_NO_CLASS : H5Tget_class(base);
            hsize_t dim = 0;
            if (base >= 0)
                H5Tclose(base);
            if (cls == H5T_ARRAY && (H5Tget_array_ndims(m) != 1 || H5Tget_array_dims2(m, &dim) < 0 ||
                                     dim < 1 || dim > DATX_SLOT / sizeof(double)))
                bc = H5T_NO_CLASS;
            if (bc == H5T_FLOAT || bc == H5T_INTEGER) {
                kind[f] = cls == H5T_VLEN ? KIND_VNUM : KIND_ANUM;
                adim[f] = (size_t)dim;
                mt = cls == H5T_VLEN ? H5Tvlen_create(H5T_NATIVE_DOUBLE) : H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &dim);
            }
        } else if (cls == H5T_FLOAT || cls == H5T_INTEGER) {
            kind[f] = KIND_NUM;
            mt = H5Tcopy(H5T_NATIVE_DOUBLE);
        }
        if (m >= 0)
            H5Tclose(m);
        if (mt < 0 || H5Tinsert(mtype, names[f], (size_t)f * DATX_SLOT, mt) < 0) {
            if (mt >= 0)
                H5Tclose(mt);
            H5Eclear2(H5E_DEFAULT);
            rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s has no member '%s' of a usable type", what,
                                names[f]);
            goto done;
        }
        H5Tclose(mt);
    }
    if ((is_attr ? H5Aread(obj, mtype, buf) : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)) < 0) {
        rc = hdf5_fail(in, LWT_ERR_FORMAT, what);
        goto done;
    }
    for (size_t r = 0; r < (size_t)np; r++)
        for (int f = 0; f < nf; f++) {
            const unsigned char *slot = buf + r * recsize + (size_t)f * DATX_SLOT;
            datx_field *o = *out + r * (size_t)nf + (size_t)f;
            if (kind[f] == KIND_VSTR) {
                const char *s;
                memcpy(&s, slot, sizeof s);
                if (s)
                    lwt__copy_clean(o->str, sizeof o->str, s, strlen(s));
            } else if (kind[f] == KIND_FSTR) {
                lwt__copy_clean(o->str, sizeof o->str, (const char *)slot, DATX_SLOT);
            } else {
                const double *v = (const double *)slot;
                size_t k = kind[f] == KIND_NUM ? 1 : 0;
                if (kind[f] == KIND_VNUM) {
                    hvl_t seq;
                    memcpy(&seq, slot, sizeof seq);
                    v = (const double *)seq.p;
                    k = seq.p ? seq.len : 0;
                } else if (kind[f] == KIND_ANUM) {
                    k = adim[f];
                }
                o->nnum = k < DATX_MAX_NUMS ? k : DATX_MAX_NUMS;
                memcpy(o->num, v, o->nnum * sizeof(double));
            }
        }
    *nrec = (size_t)np;
done:
    if (buf && mtype >= 0)
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf); /* the variable-length strings and sequences */
    free(buf);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    if (mtype >= 0)
        H5Tclose(mtype);
    close_ids(ftype, space, H5I_INVALID_HID);
    return rc;
}

/* The surface dataset's path, from the links of /MetaData: Root -Measurement-> M -Surface-> S -Path-> it */
static lwt_status surface_path(datx_in *in, char *dpath, size_t n)
{
    static const char *const names[3] = {"Source", "Link", "Destination"};
    static const char *const chain[3] = {"Measurement", "Surface", "Path"};
    datx_field *rec;
    size_t nrec;
    if (H5Lexists(in->file, "MetaData", H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                              "an HDF5 file, but not a Zygo .datx: it has no /MetaData");
    }
    hid_t md = H5Dopen2(in->file, "MetaData", H5P_DEFAULT);
    if (md < 0)
        return hdf5_fail(in, LWT_ERR_FORMAT, "cannot open /MetaData");
    lwt_status rc = read_records(in, md, 0, "/MetaData", names, 3, &rec, &nrec);
    H5Dclose(md);
    if (rc)
        return rc;
    char node[DATX_SLOT] = "Root";
    for (int step = 0; step < 3 && rc == LWT_OK; step++) {
        size_t r = 0;
        while (r < nrec && (strcmp(rec[3 * r].str, node) || strcmp(rec[3 * r + 1].str, chain[step])))
            r++;
        if (r == nrec)
            rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                                "/MetaData has no link Root/Measurement/Surface/Path (missing: '%s' from '%.60s')",
                                chain[step], node);
        else
            snprintf(node, sizeof node, "%s", rec[3 * r + 2].str);
    }
    free(rec);
    if (rc == LWT_OK)
        snprintf(dpath, n, "%s", node);
    return rc;
}

/* A Zygo length unit ("NanoMeters", "MicroMeters", ...; also "nm", "um") in metres; 0 if none */
static double zygo_unit(const char *u)
{
    static const struct {
        const char *name;
        double metres;
    } units[] = {{"meters", 1},        {"millimeters", 1e-3}, {"micrometers", 1e-6}, {"microns", 1e-6},
                 {"nanometers", 1e-9}, {"picometers", 1e-12}, {"angstroms", 1e-10}};
    char low[64];
    size_t k = 0;
    for (; u[k] && k + 1 < sizeof low; k++)
        low[k] = (char)(u[k] >= 'A' && u[k] <= 'Z' ? u[k] - 'A' + 'a' : u[k]);
    low[k] = 0;
    if (k > 1 && low[k - 1] != 's') /* "Meter", "NanoMeter" */
        snprintf(low + k, sizeof low - k, "s");
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(low, units[i].name))
            return units[i].metres;
    return lwt__unit_to_metres(u);
}

/* a converter attribute of the dataset: category, base unit, parameters */
static lwt_status converter(datx_in *in, hid_t ds, const char *name, datx_field conv[3])
{
    static const char *const names[3] = {"Category", "BaseUnit", "Parameters"};
    datx_field *rec;
    size_t nrec;
    char what[64];
    snprintf(what, sizeof what, "attribute '%s'", name);
    if (H5Aexists(ds, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "the surface dataset has no attribute '%s'", name);
    }
    hid_t a = H5Aopen(ds, name, H5P_DEFAULT);
    if (a < 0)
        return hdf5_fail(in, LWT_ERR_FORMAT, what);
    lwt_status rc = read_records(in, a, 1, what, names, 3, &rec, &nrec);
    H5Aclose(a);
    if (rc)
        return rc;
    memcpy(conv, rec, 3 * sizeof *conv);
    free(rec);
    return LWT_OK;
}

/* a string attribute (fixed or variable length, the first of an array); "" when absent */
static lwt_status string_attr(datx_in *in, hid_t ds, const char *name, char *out, size_t n)
{
    out[0] = 0;
    if (H5Aexists(ds, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return LWT_OK;
    }
    hid_t a = H5Aopen(ds, name, H5P_DEFAULT), ft = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a), mt = H5I_INVALID_HID;
    lwt_status rc = LWT_OK;
    hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    if (ft < 0 || H5Tget_class(ft) != H5T_STRING || np < 1 || np > 64) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "attribute '%s' is not a string", name);
    } else if (H5Tis_variable_str(ft) > 0) {
        char *v[64] = {NULL};
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(ft));
        if (H5Aread(a, mt, v) < 0) {
            rc = hdf5_fail(in, LWT_ERR_FORMAT, name);
        } else {
            if (v[0])
                lwt__copy_clean(out, n, v[0], strlen(v[0]));
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
        }
    } else {
        size_t sz = H5Tget_size(ft);
        char *b = (char *)calloc((size_t)np, sz + 1);
        mt = H5Tcopy(ft);
        if (!b)
            rc = lwt__file_fail(in->ctx, LWT_ERR_OUT_OF_MEMORY, in->path, "out of memory");
        else if (H5Aread(a, mt, b) < 0)
            rc = hdf5_fail(in, LWT_ERR_FORMAT, name);
        else
            lwt__copy_clean(out, n, b, sz);
        free(b);
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (a < 0)
        rc = hdf5_fail(in, LWT_ERR_FORMAT, name);
    close_ids(ft, sp, a);
    return rc;
}

/* the "No Data" value as a double; *have 0 when the attribute is absent */
static lwt_status no_data(datx_in *in, hid_t ds, double *v, int *have)
{
    *have = 0;
    if (H5Aexists(ds, "No Data") <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return LWT_OK;
    }
    hid_t a = H5Aopen(ds, "No Data", H5P_DEFAULT), ft = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    hssize_t np = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    double vals[16];
    lwt_status rc = LWT_OK;
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || np < 1 || np > 16)
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "attribute 'No Data' is not a number");
    else if (H5Aread(a, H5T_NATIVE_DOUBLE, vals) < 0)
        rc = hdf5_fail(in, LWT_ERR_FORMAT, "attribute 'No Data'");
    else
        *v = vals[0], *have = 1;
    close_ids(ft, sp, a);
    return rc;
}

/* The dataset found, checked, read and converted into out. */
static lwt_status read_surface(datx_in *in, lwt_surface *out)
{
    char dpath[DATX_SLOT], unit[64], what[DATX_SLOT + 64];
    datx_field cx[3], cy[3], cz[3];
    lwt_status rc = surface_path(in, dpath, sizeof dpath);
    if (rc)
        return rc;
    snprintf(what, sizeof what, "cannot open the surface dataset '%s'", dpath);
    hid_t ds = H5Dopen2(in->file, dpath, H5P_DEFAULT);
    if (ds < 0)
        return hdf5_fail(in, LWT_ERR_FORMAT, what);
    hid_t sp = H5Dget_space(ds), ft = H5Dget_type(ds);
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    hsize_t dims[2] = {0, 0};
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    double nodata = 0, fz;
    int have_nodata;
    if (rank == 1 || rank == 0) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_NOT_AREAL, in->path, "not an areal surface: the surface dataset has %d "
                            "dimension%s", rank, rank == 1 ? "" : "s");
        goto done;
    }
    if (rank != 2 || H5Sget_simple_extent_dims(sp, dims, NULL) != 2 || dims[0] == 0 || dims[1] == 0) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "the surface dataset is not a 2-D array (rank %d)", rank);
        goto done;
    }
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "the surface dataset does not hold numbers");
        goto done;
    }
    if ((rc = converter(in, ds, "X Converter", cx)) || (rc = converter(in, ds, "Y Converter", cy)) ||
        (rc = converter(in, ds, "Z Converter", cz)) || (rc = string_attr(in, ds, "Unit", unit, sizeof unit)) ||
        (rc = no_data(in, ds, &nodata, &have_nodata)))
        goto done;
    datx_field *lat[2] = {cx, cy};
    double spacing[2];
    for (int k = 0; k < 2; k++) {
        spacing[k] = lat[k][2].nnum > 1 ? lat[k][2].num[1] : NAN;
        if (strcmp(lat[k][0].str, "LateralCat") || !(spacing[k] > 0) || !isfinite(spacing[k])) {
            rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                                "%c Converter: category '%.40s', Parameters[1] %g: need LateralCat and a positive "
                                "spacing in metres", "XY"[k], lat[k][0].str, spacing[k]);
            goto done;
        }
    }
    if (strcmp(cz[0].str, "HeightCat")) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "Z Converter: category '%.40s', not HeightCat",
                            cz[0].str);
        goto done;
    }
    fz = zygo_unit(cz[1].str);
    if (fz == 0) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                            "Z Converter: height unit '%.40s' is not a length unit (Meters, MilliMeters, MicroMeters, "
                            "NanoMeters, ...)", cz[1].str);
        goto done;
    }
    if (unit[0] && zygo_unit(unit) != fz) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                            "conflicting height units: Z Converter says '%.40s', the attribute Unit '%.40s'", cz[1].str,
                            unit);
        goto done;
    }
    if (dims[0] > SIZE_MAX || dims[1] > SIZE_MAX) {
        rc = lwt__file_fail(in->ctx, LWT_ERR_OUT_OF_MEMORY, in->path, "dimensions too large");
        goto done;
    }
    const size_t ny = (size_t)dims[0], nx = (size_t)dims[1];
    /* the heights are read as doubles straight into the surface (libhdf5 converts through its own
       1 MiB buffer): what the declared size needs is checked before anything is allocated */
    if ((rc = lwt__surface_alloc_file(in->ctx, in->path, out, nx, ny, 0)))
        goto done;
    if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out->z) < 0) {
        rc = hdf5_fail(in, LWT_ERR_FORMAT, "cannot read the surface dataset");
        goto done;
    }
    for (size_t i = 0, n = nx * ny; i < n; i++) {
        const double v = out->z[i];
        out->z[i] = isfinite(v) && !(have_nodata && v == nodata) ? v * fz : NAN;
    }
    out->dx = spacing[0];
    out->dy = spacing[1];
    snprintf(out->source_format, sizeof out->source_format, "datx");
    snprintf(out->instrument, sizeof out->instrument, "Zygo");
done:
    close_ids(ft, sp, ds);
    return rc;
}

lwt_status lwt_surface_read_datx(lwt_context *ctx, const char *path, lwt_surface *out)
{
    static const unsigned char magic[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    size_t len;
    int fd;
    /* a directory, FIFO or device refused before libhdf5 opens it (a FIFO would block the open) */
    lwt_status rc = lwt__open_head(ctx, path, out, &fd, &len, head, sizeof head);
    if (rc)
        return rc;
    close(fd);
    if (len < 8 || memcmp(head, magic, 8))
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "not a Zygo .datx file (no HDF5 signature)");

#if !defined(H5_HAVE_THREADSAFE)
    pthread_mutex_lock(&datx_hdf5_lock);
#endif
    H5E_auto2_t saved_fn = NULL;
    void *saved_data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &saved_fn, &saved_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    datx_in in = {ctx, path, H5I_INVALID_HID};
    in.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (in.file < 0) {
        rc = hdf5_fail(&in, LWT_ERR_FORMAT, "corrupt or truncated HDF5 file");
    } else {
        rc = read_surface(&in, out);
        H5Fclose(in.file);
    }
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, saved_fn, saved_data);
#if !defined(H5_HAVE_THREADSAFE)
    pthread_mutex_unlock(&datx_hdf5_lock);
#endif
    if (rc == LWT_OK && lwt_surface_count_valid(out) == 0)
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "all points are invalid");
    if (rc)
        lwt_surface_free(out);
    return rc;
}

#else /* no libhdf5 in this build */

lwt_status lwt_surface_read_datx(lwt_context *ctx, const char *path, lwt_surface *out)
{
    lwt_surface_init(out);
    lwt_status rc = lwt__check_regular(ctx, path);
    if (rc)
        return rc;
    return lwt__file_fail(ctx, LWT_ERR_UNSUPPORTED, path ? path : "(null)",
                          "Zygo .datx needs libhdf5: this lwt was built without HDF5 (install libhdf5-dev, "
                          "scripts/install-deps.sh, and rebuild)");
}

#endif
