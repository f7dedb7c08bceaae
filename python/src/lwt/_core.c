/*
 * lwt._core: the Python binding of liblwt (include/lwt.h and the array half of
 * include/lwt_surface.h), a plain C extension.
 *
 * Compiled against the library's headers, so the structs it fills (lwt_plan_desc,
 * lwt_plan_info, lwt_band, lwt_filter_spec, lwt_iso_params) are the library's own and cannot
 * drift the way a hand-written ctypes mirror can. It exposes only what the Python layer
 * needs: wavelets by name with their filter banks, plans with their band layout,
 * forward/inverse on buffers, and the surface filter, plane and ISO 25178-2 parameters on
 * height maps (lwt/surface.py), each run with the GIL released. Everything PyWavelets- or
 * notebook-shaped (argument checks, axes, coefficient lists, keyword arguments) lives in
 * Python. The surface files are liblwt_surface's, bound by lwt._surface_io (_surface_io.c).
 *
 * Failures raise ValueError for bad requests, MemoryError for out of memory,
 * NotImplementedError for what the build cannot do, RuntimeError otherwise, with the message
 * liblwt logged for that call (_binding.c keeps the last message of each thread).
 */
#include "_binding.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lwt_surface.h"
#ifdef LWT_PY_CUDA
#include "lwt_cuda.h" /* GPU arrays: the device-pointer entry points */
#endif

static lwt_context *g_ctx; /* one per process: lives as long as the module */

/* ------------------------------------------------------------------ wavelets */

static const char WAVELET_CAPSULE[] = "lwt._core.wavelet";
static const char PLAN_CAPSULE[] = "lwt._core.plan";

static void wavelet_capsule_free(PyObject *cap)
{
    lwt_wavelet_destroy(PyCapsule_GetPointer(cap, WAVELET_CAPSULE));
}

static PyObject *path_name(lwt_path p)
{
    return PyUnicode_FromString(p == LWT_PATH_LIFTING ? "lifting" : "convolution");
}

/* A tuple of n items, item i made by make(values, i): taps, shapes and names share it. */
static PyObject *tuple_of(int n, PyObject *(*make)(const void *values, int i), const void *values)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *item = make(values, i);
        if (!item) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, item);
    }
    return t;
}

static PyObject *tap_item(const void *taps, int i) { return PyFloat_FromDouble(((const double *)taps)[i]); }
static PyObject *size_item(const void *sizes, int i) { return PyLong_FromSize_t(((const size_t *)sizes)[i]); }
static PyObject *catalog_item(const void *unused, int i) { return PyUnicode_FromString(lwt_wavelet_catalog_name(i)); }

static PyObject *taps_tuple(const double *taps, int n) { return tuple_of(n, tap_item, taps); }
static PyObject *size_tuple(const size_t *sizes, int n) { return tuple_of(n, size_item, sizes); }

/* {mode name: "lifting" or "convolution"}: the path of LWT_ALGO_AUTO plans (lwt_wavelet_path) */
static PyObject *mode_paths(const lwt_wavelet *w, lwt_dtype dtype)
{
    PyObject *d = PyDict_New();
    for (int m = 0; d && m < LWT_MODE_COUNT; m++) {
        lwt_path p = LWT_PATH_LIFTING;
        lwt_wavelet_path(w, (lwt_mode)m, dtype, &p);
        PyObject *v = path_name(p);
        if (!v || PyDict_SetItemString(d, lwt_mode_name((lwt_mode)m), v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(v);
    }
    return d;
}

/* (capsule, info dict with the four filters) of a wavelet just made by a liblwt call that
 * returned s; takes ownership of w. */
static PyObject *wavelet_result(lwt_status s, lwt_wavelet *w, const char *what)
{
    if (s != LWT_OK)
        return lwt_py_raise(s, what);
    PyObject *cap = PyCapsule_New(w, WAVELET_CAPSULE, wavelet_capsule_free);
    if (!cap) {
        lwt_wavelet_destroy(w);
        return NULL;
    }
    lwt_wavelet_info wi;
    const double *f[4];
    if ((s = lwt_wavelet_get_info(w, &wi)) != LWT_OK ||
        (s = lwt_wavelet_filters(w, &f[0], &f[1], &f[2], &f[3])) != LWT_OK) {
        Py_DECREF(cap);
        return lwt_py_raise(s, "lwt_wavelet_get_info");
    }
    PyObject *info = Py_BuildValue(
        "{s:s,s:s,s:i,s:i,s:i,s:N,s:N,s:N,s:N,s:d,s:d,s:N,s:N,s:N,s:N}", "name", wi.name, "family", wi.family,
        "filter_length", wi.filter_length, "orthogonal", wi.orthogonal, "lifting_steps", wi.lifting_steps,
        "path_f64", path_name(wi.path_f64), "path_f32", path_name(wi.path_f32), "mode_paths_f64",
        mode_paths(w, LWT_F64), "mode_paths_f32", mode_paths(w, LWT_F32), "lifting_error_f64",
        wi.lifting_error_f64, "lifting_error_f32", wi.lifting_error_f32, "dec_lo",
        taps_tuple(f[0], wi.filter_length), "dec_hi", taps_tuple(f[1], wi.filter_length), "rec_lo",
        taps_tuple(f[2], wi.filter_length), "rec_hi", taps_tuple(f[3], wi.filter_length));
    if (!info) {
        Py_DECREF(cap);
        return NULL;
    }
    return Py_BuildValue("NN", cap, info);
}

/* wavelet(name) -> (capsule, info dict) */
static PyObject *py_wavelet(PyObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    lwt_wavelet *w = NULL;
    lwt_py_forget();
    lwt_status s = lwt_wavelet_create(g_ctx, name, &w);
    return wavelet_result(s, w, "lwt_wavelet_create");
}

/* One lifting operator from (start, taps): the taps go into a PyMem block owned by *mem. */
static int parse_laurent(PyObject *op, lwt_laurent *out, double **mem)
{
    PyObject *taps;
    if (!PyArg_ParseTuple(op, "iO;a lifting operator is (start, taps)", &out->start, &taps))
        return -1;
    PyObject *seq = PySequence_Fast(taps, "taps must be a sequence of numbers");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    *mem = PyMem_Calloc(n ? (size_t)n : 1, sizeof(double));
    for (Py_ssize_t i = 0; *mem && i < n; i++)
        (*mem)[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    if (!*mem)
        return PyErr_NoMemory(), -1;
    if (PyErr_Occurred())
        return -1;
    out->ntaps = (int)n;
    out->taps = *mem;
    return 0;
}

/* wavelet_from_puk(name, u0, predicts, updates, K) -> (capsule, info dict); u0 and every
 * operator are (start, taps); seed 000's P/U/K form (lwt_puk_scheme in lwt.h). */
static PyObject *py_wavelet_from_puk(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *u0, *predicts, *updates;
    double K;
    if (!PyArg_ParseTuple(args, "sOO!O!d", &name, &u0, &PyList_Type, &predicts, &PyList_Type, &updates, &K))
        return NULL;
    Py_ssize_t nsteps = PyList_GET_SIZE(predicts);
    if (PyList_GET_SIZE(updates) != nsteps)
        return PyErr_Format(PyExc_ValueError, "%zd predict and %zd update operators: one of each per step", nsteps,
                            PyList_GET_SIZE(updates));
    size_t nops = 2 * (size_t)nsteps + 1;
    lwt_laurent *ops = PyMem_Calloc(nops, sizeof *ops);
    double **mem = PyMem_Calloc(nops, sizeof *mem);
    PyObject *result = NULL;
    if (!ops || !mem) {
        PyErr_NoMemory();
        goto done;
    }
    /* ops: u0, then the predicts, then the updates */
    if (parse_laurent(u0, &ops[0], &mem[0]) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nsteps; k++)
        if (parse_laurent(PyList_GET_ITEM(predicts, k), &ops[1 + k], &mem[1 + k]) < 0 ||
            parse_laurent(PyList_GET_ITEM(updates, k), &ops[1 + nsteps + k], &mem[1 + nsteps + k]) < 0)
            goto done;
    lwt_puk_scheme scheme = {name, ops[0], (int)nsteps, ops + 1, ops + 1 + nsteps, K};
    lwt_wavelet *w = NULL;
    lwt_py_forget();
    lwt_status s = lwt_wavelet_from_puk(g_ctx, &scheme, &w);
    result = wavelet_result(s, w, "lwt_wavelet_from_puk");
done:
    for (size_t i = 0; mem && i < nops; i++)
        PyMem_Free(mem[i]);
    PyMem_Free(mem);
    PyMem_Free(ops);
    return result;
}

static PyObject *py_catalog(PyObject *self, PyObject *noargs)
{
    return tuple_of(lwt_wavelet_catalog_count(), catalog_item, NULL);
}

static PyObject *py_max_level(PyObject *self, PyObject *args)
{
    Py_ssize_t n;
    int filter_length;
    if (!PyArg_ParseTuple(args, "ni", &n, &filter_length))
        return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "data length must be non-negative, got %zd", n);
    return PyLong_FromLong(lwt_max_level((size_t)n, filter_length));
}

static PyObject *py_set_threads(PyObject *self, PyObject *args)
{
    int threads;
    if (!PyArg_ParseTuple(args, "i", &threads))
        return NULL;
    lwt_status s = lwt_context_set_threads(g_ctx, threads);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_context_set_threads");
    Py_RETURN_NONE;
}

static PyObject *py_device_count(PyObject *self, PyObject *noargs)
{
    return PyLong_FromLong(lwt_context_device_count(g_ctx));
}

/* --------------------------------------------------------------------- plans */

/* A plan keeps its wavelet's capsule alive: the wavelet must outlive the plan. */
typedef struct plan_holder {
    lwt_plan *plan;
    PyObject *wavelet_capsule;
    lwt_plan_info info;
    size_t itemsize;
    size_t batch;
} plan_holder;

static void plan_capsule_free(PyObject *cap)
{
    plan_holder *h = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!h)
        return;
    lwt_plan_destroy(h->plan);
    Py_XDECREF(h->wavelet_capsule);
    PyMem_Free(h);
}

/* plan(wavelet capsule, shape tuple, levels, mode name, dtype (lwt_dtype: 0 f32, 1 f64, 2 f16, 3 bf16), batch, backend,
 * algorithm) -> (capsule, info dict) */
static PyObject *py_plan(PyObject *self, PyObject *args)
{
    PyObject *wcap, *shape;
    int levels, dtype, backend, algorithm, device = 0;
    const char *mode_name;
    Py_ssize_t batch;
    if (!PyArg_ParseTuple(args, "O!O!isinii|i", &PyCapsule_Type, &wcap, &PyTuple_Type, &shape, &levels, &mode_name,
                          &dtype, &batch, &backend, &algorithm, &device))
        return NULL;
    lwt_wavelet *w = PyCapsule_GetPointer(wcap, WAVELET_CAPSULE);
    if (!w)
        return NULL;
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (ndim < 1 || ndim > LWT_MAX_NDIM)
        return PyErr_Format(PyExc_ValueError, "a plan transforms 1 to %d axes, not %zd", LWT_MAX_NDIM, ndim);
    if (batch < 1)
        return PyErr_Format(PyExc_ValueError, "batch must be >= 1, got %zd", batch);
    lwt_plan_desc d = lwt_plan_desc_default();
    lwt_status s = lwt_mode_from_name(mode_name, &d.mode);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_mode_from_name");
    d.wavelet = w;
    d.ndim = (int)ndim;
    for (Py_ssize_t i = 0; i < ndim; i++) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        if (n == -1 && PyErr_Occurred())
            return NULL;
        if (n < 1)
            return PyErr_Format(PyExc_ValueError, "every transformed axis needs length >= 1, got %zd", n);
        d.shape[i] = (size_t)n;
    }
    d.levels = levels;
    if (dtype < LWT_F32 || dtype > LWT_BF16)
        return PyErr_Format(PyExc_ValueError, "dtype code %d is not an lwt_dtype", dtype);
    d.dtype = (lwt_dtype)dtype;
    d.batch = (size_t)batch;
    d.backend = (lwt_backend)backend;
    d.device = device;
    d.algorithm = (lwt_algorithm)algorithm;
    plan_holder *h = PyMem_Calloc(1, sizeof *h);
    if (!h)
        return PyErr_NoMemory();
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_plan_create(g_ctx, &d, &h->plan);
    Py_END_ALLOW_THREADS
    if (s != LWT_OK) {
        PyMem_Free(h);
        return lwt_py_raise(s, "lwt_plan_create");
    }
    lwt_plan_get_info(h->plan, &h->info);
    h->itemsize = dtype == LWT_F64 ? sizeof(double) : dtype == LWT_F32 ? sizeof(float) : 2;
    h->batch = (size_t)batch;
    h->wavelet_capsule = wcap;
    Py_INCREF(wcap);
    PyObject *cap = PyCapsule_New(h, PLAN_CAPSULE, plan_capsule_free);
    if (!cap) {
        lwt_plan_destroy(h->plan);
        Py_DECREF(wcap);
        PyMem_Free(h);
        return NULL;
    }
    const lwt_plan_info *in = &h->info;
    PyObject *info = Py_BuildValue("{s:N,s:i,s:i,s:N,s:n,s:n,s:s,s:N}", "shape", size_tuple(in->shape, in->ndim),
                                   "levels", in->levels, "max_level", in->max_level, "packed_shape",
                                   size_tuple(in->packed_shape, in->ndim), "input_count", (Py_ssize_t)in->input_count,
                                   "coeff_count", (Py_ssize_t)in->coeff_count, "backend",
                                   in->backend == LWT_BACKEND_CUDA ? "cuda" : "cpu", "path", path_name(in->path));
    if (!info) {
        Py_DECREF(cap);
        return NULL;
    }
    return Py_BuildValue("NN", cap, info);
}

/* band(plan, level, mask) -> (offset tuple, shape tuple) */
static PyObject *py_band(PyObject *self, PyObject *args)
{
    PyObject *cap;
    int level;
    unsigned mask;
    if (!PyArg_ParseTuple(args, "O!iI", &PyCapsule_Type, &cap, &level, &mask))
        return NULL;
    plan_holder *h = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!h)
        return NULL;
    lwt_band b;
    lwt_status s = lwt_plan_band(h->plan, level, mask, &b);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_plan_band");
    return Py_BuildValue("NN", size_tuple(b.offset, h->info.ndim), size_tuple(b.shape, h->info.ndim));
}

/* Run forward or inverse from one C-contiguous buffer into another. The sizes are
 * checked here because liblwt trusts its pointers. */
static PyObject *execute(PyObject *args, int forward)
{
    PyObject *cap, *src_obj, *dst_obj;
    if (!PyArg_ParseTuple(args, "O!OO", &PyCapsule_Type, &cap, &src_obj, &dst_obj))
        return NULL;
    plan_holder *h = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!h)
        return NULL;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(dst_obj, &dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    size_t in_count = forward ? h->info.input_count : h->info.coeff_count;
    size_t out_count = forward ? h->info.coeff_count : h->info.input_count;
    PyObject *result = NULL;
    if ((size_t)src.len != in_count * h->batch * h->itemsize ||
        (size_t)dst.len != out_count * h->batch * h->itemsize) {
        PyErr_Format(PyExc_ValueError, "buffer sizes %zd and %zd bytes do not match the plan (%zu and %zu)",
                     src.len, dst.len, in_count * h->batch * h->itemsize, out_count * h->batch * h->itemsize);
    } else {
        lwt_status s;
        lwt_py_forget();
        Py_BEGIN_ALLOW_THREADS
        s = forward ? lwt_forward(h->plan, src.buf, dst.buf, NULL) : lwt_inverse(h->plan, src.buf, dst.buf, NULL);
        Py_END_ALLOW_THREADS
        if (s != LWT_OK)
            lwt_py_raise(s, forward ? "lwt_forward" : "lwt_inverse");
        else
            result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&dst);
    PyBuffer_Release(&src);
    return result;
}

static PyObject *py_forward(PyObject *self, PyObject *args) { return execute(args, 1); }
static PyObject *py_inverse(PyObject *self, PyObject *args) { return execute(args, 0); }

#ifdef LWT_PY_CUDA
/* GPU arrays (_gpu.py): device pointers and the caller's stream as integers, from
 * __cuda_array_interface__ and the array library's current stream. Asynchronous on that
 * stream, like lwt_forward_device itself; the caller keeps the buffers alive (the array
 * library's allocator is stream-ordered). The sizes were checked by _gpu.py against the plan. */
static PyObject *execute_device(PyObject *args, int forward)
{
    PyObject *cap;
    unsigned long long in, out, ws, stream;
    if (!PyArg_ParseTuple(args, "O!KKKK", &PyCapsule_Type, &cap, &in, &out, &ws, &stream))
        return NULL;
    plan_holder *h = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!h)
        return NULL;
    if (h->info.backend != LWT_BACKEND_CUDA)
        return PyErr_Format(PyExc_ValueError, "a device-pointer call needs a CUDA plan");
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    const void *src = (const void *)(uintptr_t)in;
    void *dst = (void *)(uintptr_t)out, *work = (void *)(uintptr_t)ws;
    cudaStream_t st = (cudaStream_t)(uintptr_t)stream;
    s = forward ? lwt_forward_device(h->plan, src, dst, work, st) : lwt_inverse_device(h->plan, src, dst, work, st);
    Py_END_ALLOW_THREADS
    if (s != LWT_OK)
        return lwt_py_raise(s, forward ? "lwt_forward_device" : "lwt_inverse_device");
    Py_RETURN_NONE;
}

static PyObject *py_forward_device(PyObject *self, PyObject *args) { return execute_device(args, 1); }
static PyObject *py_inverse_device(PyObject *self, PyObject *args) { return execute_device(args, 0); }

static PyObject *py_device_workspace_size(PyObject *self, PyObject *args)
{
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "O!", &PyCapsule_Type, &cap))
        return NULL;
    plan_holder *h = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!h)
        return NULL;
    size_t bytes = 0;
    lwt_status s = lwt_plan_device_workspace_size(h->plan, &bytes);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_plan_device_workspace_size");
    return PyLong_FromSize_t(bytes);
}
#endif

/* ------------------------------------------------------------------- surfaces */

/* A C-contiguous float64 buffer of exactly nx * ny heights (liblwt trusts its pointers). */
static int get_heights(PyObject *obj, Py_ssize_t nx, Py_ssize_t ny, int writable, Py_buffer *view)
{
    if (nx < 1 || ny < 1) {
        PyErr_Format(PyExc_ValueError, "a height map needs at least 1 x 1 points, got %zd x %zd", nx, ny);
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (view->itemsize != sizeof(double) || strcmp(view->format, "d") ||
        view->len != nx * ny * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "heights must be %zd x %zd float64 values (got %zd bytes of '%s')", ny, nx,
                     view->len, view->format);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *pair_tuple(const double v[2]) { return Py_BuildValue("(dd)", v[0], v[1]); }

/* An lwt_form as a dict (lengths in metres; None for what the model does not have). */
static PyObject *form_dict(const lwt_form *f)
{
    if (f->kind == LWT_FORM_NONE)
        Py_RETURN_NONE;
    PyObject *d = Py_BuildValue("{s:s,s:d,s:n}", "model", lwt_form_kind_name(f->kind), "rms", f->rms, "n_valid",
                                (Py_ssize_t)f->n_valid);
    if (!d)
        return NULL;
    PyObject *more;
    if (f->kind == LWT_FORM_POLY) {
        PyObject *c = PyTuple_New(f->ncoef);
        for (int k = 0; c && k < f->ncoef; k++)
            PyTuple_SET_ITEM(c, k, PyFloat_FromDouble(f->coef[k]));
        more = c ? Py_BuildValue("{s:i,s:N,s:(dd),s:(dd)}", "degree", f->degree, "coefficients", c, "centre", f->xc,
                                 f->yc, "half_width", f->hx, f->hy)
                 : NULL;
    } else {
        PyObject *cx = f->kind == LWT_FORM_CYLINDER_X ? Py_NewRef(Py_None) : PyFloat_FromDouble(f->cx);
        PyObject *cy = f->kind == LWT_FORM_CYLINDER_Y ? Py_NewRef(Py_None) : PyFloat_FromDouble(f->cy);
        more = Py_BuildValue("{s:(NNd),s:d,s:O,s:i}", "centre", cx, cy, f->cz, "radius", f->radius, "convex",
                             f->convex ? Py_True : Py_False, "iterations", f->iterations);
    }
    if (!more || PyDict_Update(d, more) < 0) {
        Py_XDECREF(more);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(more);
    return d;
}

/* form_fit(z, nx, ny, dx, dy, threads, kind, degree) -> (model dict, block of z less the model)
 * (lwt_form_fit, then lwt_form_subtract on a copy) */
static PyObject *py_form_fit(PyObject *self, PyObject *args)
{
    PyObject *zobj;
    Py_ssize_t nx, ny;
    double dx, dy;
    int threads, kind, degree;
    if (!PyArg_ParseTuple(args, "Onnddiii", &zobj, &nx, &ny, &dx, &dy, &threads, &kind, &degree))
        return NULL;
    Py_buffer z;
    if (get_heights(zobj, nx, ny, 0, &z) < 0)
        return NULL;
    const size_t n = (size_t)nx * (size_t)ny;
    double *lev = malloc(n * sizeof *lev);
    if (!lev) {
        PyBuffer_Release(&z);
        return PyErr_NoMemory();
    }
    lwt_form f;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_form_fit(g_ctx, z.buf, (size_t)nx, (size_t)ny, dx, dy, (lwt_form_kind)kind, degree, threads, &f);
    if (s == LWT_OK) {
        memcpy(lev, z.buf, n * sizeof *lev);
        lwt_form_subtract(lev, (size_t)nx, (size_t)ny, dx, dy, &f, threads);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&z);
    if (s != LWT_OK) {
        free(lev);
        return lwt_py_raise(s, "lwt_form_fit");
    }
    PyObject *block = lwt_py_heap_block(lev, n * sizeof *lev);
    if (!block)
        return NULL;
    return Py_BuildValue("NN", form_dict(&f), block);
}

/* the Python name of a filter kind, as `lwt filter --filter` spells it */
static const char *filter_name(lwt_filter_kind k)
{
    return k == LWT_FILTER_GAUSSIAN ? "gaussian" : k == LWT_FILTER_ROBUST_GAUSSIAN ? "robust-gaussian" : "wavelet";
}

/* filter_spec_default() -> dict of lwt_filter_spec_default()'s fields (enums as ints; wavelet
 * None: the library's default) */
static PyObject *py_filter_spec_default(PyObject *self, PyObject *noargs)
{
    lwt_filter_spec d = lwt_filter_spec_default();
    return Py_BuildValue("{s:z,s:s,s:i,s:i,s:i,s:O,s:i,s:n,s:s}", "wavelet", d.wavelet, "mode",
                         lwt_mode_name(d.mode), "f64", d.dtype == LWT_F64, "backend", (int)d.backend, "algorithm",
                         (int)d.algorithm, "plane", d.plane ? Py_True : Py_False, "threads", d.threads, "chunk_rows",
                         (Py_ssize_t)d.chunk_rows, "filter", filter_name(d.filter));
}

/* filter(z, nx, ny, dx, dy, (wavelet|None, mode, f64, backend, algorithm, plane, threads,
 * chunk_rows, filter kind (lwt_filter_kind), form kind, form degree), (levels, rough_lo, rough_hi, wavy_lo, wavy_hi, lambda_s, lambda_c)) ->
 * dict: lwt_bands_resolve_axes (with a Gaussian lwt_gauss_nesting_resolve instead: the split is then
 * zero but for its spacing), then lwt_filter_run, as `lwt filter` calls them (cli/filter_job.c).
 * The bands are the library's own blocks (no copy); absent bands are None. */
static PyObject *py_filter(PyObject *self, PyObject *args)
{
    PyObject *zobj;
    Py_ssize_t nx, ny, chunk_rows;
    double dx, dy;
    const char *wavelet, *mode_name;
    int f64, backend, algorithm, plane, threads, kind, form_kind, form_degree;
    lwt_band_request req = {0};
    if (!PyArg_ParseTuple(args, "Onndd(zsiiiiiniii)(iiiiidd)", &zobj, &nx, &ny, &dx, &dy, &wavelet, &mode_name,
                          &f64, &backend, &algorithm, &plane, &threads, &chunk_rows, &kind, &form_kind,
                          &form_degree, &req.levels, &req.rough_lo,
                          &req.rough_hi, &req.wavy_lo, &req.wavy_hi, &req.lambda_s, &req.lambda_c))
        return NULL;
    if (chunk_rows < 0)
        return PyErr_Format(PyExc_ValueError, "chunk_rows must be >= 0, got %zd", chunk_rows);
    lwt_filter_spec spec = lwt_filter_spec_default();
    lwt_status s = lwt_mode_from_name(mode_name, &spec.mode);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_mode_from_name");
    spec.wavelet = wavelet;
    spec.dtype = f64 ? LWT_F64 : LWT_F32;
    spec.backend = (lwt_backend)backend;
    spec.algorithm = (lwt_algorithm)algorithm;
    spec.plane = plane;
    spec.threads = threads;
    spec.chunk_rows = (size_t)chunk_rows;
    spec.filter = (lwt_filter_kind)kind;
    const int gaussian = kind != LWT_FILTER_WAVELET;
    spec.form = (lwt_form_kind)form_kind;
    spec.form_degree = form_degree;
    lwt_form form;
    spec.form_out = &form;
    Py_buffer z;
    if (get_heights(zobj, nx, ny, 0, &z) < 0)
        return NULL;
    lwt_filter_result r;
    memset(&r, 0, sizeof r);
    const char *failed = NULL;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    if (gaussian) { /* no levels: the split keeps only the spacing (cli/filter_job.c) */
        spec.split.spacing = dx < dy ? dx : dy;
        s = lwt_gauss_nesting_resolve(g_ctx, &req, dx, dy, &spec.gauss);
    } else {
        /* levels per axis, as lwt filter: each axis at the octaves of its own spacing */
        s = lwt_bands_resolve_axes(g_ctx, &req, (size_t)nx, (size_t)ny, dx, dy, &spec.split, &spec.axes);
    }
    if (s != LWT_OK)
        failed = gaussian ? "lwt_gauss_nesting_resolve" : "lwt_bands_resolve_axes";
    else if ((s = lwt_filter_run(g_ctx, &spec, z.buf, (size_t)nx, (size_t)ny, dx, dy, &r)) != LWT_OK)
        failed = "lwt_filter_run";
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&z);
    if (failed)
        return lwt_py_raise(s, failed);
    /* The bands move into heap blocks one by one: whatever is not yet moved is freed below. */
    PyObject *bands = PyTuple_New(LWT_BAND_COUNT);
    for (int b = 0; bands && b < LWT_BAND_COUNT; b++) {
        PyObject *block = Py_NewRef(Py_None);
        if (r.band[b]) {
            Py_DECREF(block);
            block = lwt_py_heap_block(r.band[b], (size_t)nx * (size_t)ny * sizeof(double));
            r.band[b] = NULL;
        }
        if (!block)
            Py_CLEAR(bands);
        else
            PyTuple_SET_ITEM(bands, b, block);
    }
    lwt_filter_result_free(&r);
    if (!bands)
        return NULL;
    const lwt_band_split *sp = &spec.split;
    return Py_BuildValue(
        "{s:N,s:N,s:(ddd),s:n,s:i,s:s,s:i,s:s,s:d,s:d,s:d,s:s,s:(ddd),"
        "s:{s:i,s:i,s:i,s:i,s:i,s:i,s:d,s:N,s:N,s:N,s:(ii),s:(ii),s:(ii)}}",
        "bands", bands, "form", form_dict(&form), "plane", r.plane.z0, r.plane.sx, r.plane.sy, "n_filled", (Py_ssize_t)r.n_filled, "backend",
        (int)r.backend, "path", r.path == LWT_PATH_LIFTING ? "lifting" : "convolution", "max_level", r.max_level,
        "wavelet", r.wavelet, "ms_fill", r.ms_fill, "ms_transform", r.ms_transform, "ms_total", r.ms_total, "filter",
        filter_name(spec.filter), "nesting", spec.gauss.lambda_s, spec.gauss.lambda_c, spec.gauss.lambda_f,
        "split",
        "levels", sp->levels, "noise_hi", sp->noise_hi, "rough_lo", sp->rough_lo, "rough_hi", sp->rough_hi,
        "wavy_lo", sp->wavy_lo, "wavy_hi", sp->wavy_hi, "spacing", sp->spacing, "lambda_s", pair_tuple(sp->lambda_s),
        "lambda_c", pair_tuple(sp->lambda_c), "lambda_f", pair_tuple(sp->lambda_f), "levels_xy", spec.axes.levels[0],
        spec.axes.levels[1], "rough_lo_xy", spec.axes.rough_lo[0], spec.axes.rough_lo[1], "rough_hi_xy",
        spec.axes.rough_hi[0], spec.axes.rough_hi[1]);
}

/* The arguments the height-map calls share: (z, nx, ny, dx, dy, threads) and, with plane, a
 * (z0, sx, sy) after them; z is held as a checked buffer until grid_release. */
typedef struct grid_args {
    Py_buffer z;
    Py_ssize_t nx, ny;
    double dx, dy;
    int threads;
} grid_args;

static int grid_parse(PyObject *args, int writable, grid_args *g, lwt_plane *plane)
{
    PyObject *zobj;
    int ok = plane ? PyArg_ParseTuple(args, "Onnddi(ddd)", &zobj, &g->nx, &g->ny, &g->dx, &g->dy, &g->threads,
                                      &plane->z0, &plane->sx, &plane->sy)
                   : PyArg_ParseTuple(args, "Onnddi", &zobj, &g->nx, &g->ny, &g->dx, &g->dy, &g->threads);
    return ok ? get_heights(zobj, g->nx, g->ny, writable, &g->z) : -1;
}

static PyObject *iso_value_item(const void *params, int k)
{
    return PyFloat_FromDouble(lwt_iso_param_value(params, k));
}

/* parameters(z, nx, ny, dx, dy, threads) -> (values in lwt_iso_param_name's order, n_valid, n_cells) */
static PyObject *py_parameters(PyObject *self, PyObject *args)
{
    grid_args g;
    if (grid_parse(args, 0, &g, NULL) < 0)
        return NULL;
    /* lwt_iso_params_compute takes the spacing as given (its precondition): a zero spacing
     * would give infinite slopes rather than an error. */
    if (!(g.dx > 0) || !(g.dy > 0) || !isfinite(g.dx) || !isfinite(g.dy)) {
        PyBuffer_Release(&g.z);
        return PyErr_Format(PyExc_ValueError, "the parameters need the spacing: dx and dy must be positive "
                            "(have %g, %g metres)", g.dx, g.dy);
    }
    lwt_iso_params p;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_iso_params_compute(g_ctx, g.z.buf, (size_t)g.nx, (size_t)g.ny, g.dx, g.dy, g.threads, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&g.z);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_iso_params_compute");
    return Py_BuildValue("Nnn", tuple_of(LWT_ISO_PARAM_COUNT, iso_value_item, &p), (Py_ssize_t)p.n_valid,
                         (Py_ssize_t)p.n_cells);
}

static PyObject *mr_value_item(const void *params, int k)
{
    return PyFloat_FromDouble(lwt_mr_param_value(params, k));
}

static PyObject *curve_list(const lwt_material_curve *c, PyObject *at, double (*f)(const lwt_material_curve *, double))
{
    Py_ssize_t n = PyTuple_GET_SIZE(at);
    PyObject *l = PyList_New(n);
    for (Py_ssize_t i = 0; l && i < n; i++)
        PyList_SET_ITEM(l, i, PyFloat_FromDouble(f(c, PyFloat_AsDouble(PyTuple_GET_ITEM(at, i)))));
    return l;
}

/* material(z, nx, ny, threads, (smr_c, smc_mr, p, q, sxp_p, sxp_q, sdc_a, sdc_b, sk_width), mrs, ps)
 * -> (values in lwt_mr_param_name's order, n_valid, mean, [Smc(mr) for mrs], [Vm(p) for ps],
 *     [Vv(p) for ps]); mrs and ps are tuples of floats */
static PyObject *py_material(PyObject *self, PyObject *args)
{
    PyObject *zobj, *mrs, *ps;
    Py_ssize_t nx, ny;
    int threads;
    Py_buffer z;
    lwt_mr_spec sp = lwt_mr_spec_default();
    if (!PyArg_ParseTuple(args, "Onni(ddddddddd)O!O!", &zobj, &nx, &ny, &threads, &sp.smr_c, &sp.smc_mr, &sp.p,
                          &sp.q, &sp.sxp_p, &sp.sxp_q, &sp.sdc_a, &sp.sdc_b, &sp.sk_width, &PyTuple_Type, &mrs,
                          &PyTuple_Type, &ps) ||
        get_heights(zobj, nx, ny, 0, &z) < 0)
        return NULL;
    lwt_material_curve *c = NULL;
    lwt_mr_params p;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_material_curve_create(g_ctx, z.buf, (size_t)nx, (size_t)ny, threads, &c);
    if (s == LWT_OK)
        s = lwt_mr_params_compute(g_ctx, c, &sp, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&z);
    if (s != LWT_OK) {
        lwt_material_curve_destroy(c);
        return lwt_py_raise(s, "lwt_material_curve_create");
    }
    PyObject *r = Py_BuildValue("NndNNN", tuple_of(LWT_MR_PARAM_COUNT, mr_value_item, &p), (Py_ssize_t)p.n_valid,
                                lwt_material_curve_mean(c), curve_list(c, mrs, lwt_material_curve_smc),
                                curve_list(c, ps, lwt_material_curve_vm), curve_list(c, ps, lwt_material_curve_vv));
    lwt_material_curve_destroy(c);
    return r;
}

/* spatial(z, nx, ny, dx, dy, threads, s) -> (Sal, Str, Std) */
static PyObject *py_spatial(PyObject *self, PyObject *args)
{
    grid_args g;
    double thr;
    PyObject *zobj;
    if (!PyArg_ParseTuple(args, "Onnddid", &zobj, &g.nx, &g.ny, &g.dx, &g.dy, &g.threads, &thr) ||
        get_heights(zobj, g.nx, g.ny, 0, &g.z) < 0)
        return NULL;
    lwt_spatial_params p;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_spatial_params_compute(g_ctx, g.z.buf, (size_t)g.nx, (size_t)g.ny, g.dx, g.dy, thr, g.threads, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&g.z);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_spatial_params_compute");
    return Py_BuildValue("(ddd)", p.Sal, p.Str, p.Std);
}

static PyObject *feature_value_item(const void *params, int k)
{
    return PyFloat_FromDouble(lwt_feature_param_value(params, k));
}

/* feature(z, nx, ny, dx, dy, threads, pruning) -> (values in lwt_feature_param_name's order,
   (n_peaks, n_pits, n_closed_hills, n_closed_dales), threshold) */
static PyObject *py_feature(PyObject *self, PyObject *args)
{
    grid_args g;
    double pruning;
    PyObject *zobj;
    if (!PyArg_ParseTuple(args, "Onnddid", &zobj, &g.nx, &g.ny, &g.dx, &g.dy, &g.threads, &pruning) ||
        get_heights(zobj, g.nx, g.ny, 0, &g.z) < 0)
        return NULL;
    lwt_feature_params p;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_feature_params_compute(g_ctx, g.z.buf, (size_t)g.nx, (size_t)g.ny, g.dx, g.dy, pruning, g.threads, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&g.z);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_feature_params_compute");
    return Py_BuildValue("N(nnnn)d", tuple_of(LWT_FEATURE_PARAM_COUNT, feature_value_item, &p), (Py_ssize_t)p.n_peaks,
                         (Py_ssize_t)p.n_pits, (Py_ssize_t)p.n_closed_hills, (Py_ssize_t)p.n_closed_dales,
                         p.threshold);
}

/* plane_fit(z, nx, ny, dx, dy, threads) -> (z0, sx, sy) */
static PyObject *py_plane_fit(PyObject *self, PyObject *args)
{
    grid_args g;
    if (grid_parse(args, 0, &g, NULL) < 0)
        return NULL;
    lwt_plane p;
    lwt_status s;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_plane_fit(g_ctx, g.z.buf, (size_t)g.nx, (size_t)g.ny, g.dx, g.dy, g.threads, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&g.z);
    if (s != LWT_OK)
        return lwt_py_raise(s, "lwt_plane_fit");
    return Py_BuildValue("(ddd)", p.z0, p.sx, p.sy);
}

/* plane_subtract(z, nx, ny, dx, dy, threads, (z0, sx, sy)): z -= plane in place */
static PyObject *py_plane_subtract(PyObject *self, PyObject *args)
{
    grid_args g;
    lwt_plane p;
    if (grid_parse(args, 1, &g, &p) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    lwt_plane_subtract(g.z.buf, (size_t)g.nx, (size_t)g.ny, g.dx, g.dy, &p, g.threads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&g.z);
    Py_RETURN_NONE;
}

static PyObject *iso_name_item(const void *unused, int k) { return PyUnicode_FromString(lwt_iso_param_name(k)); }
static PyObject *iso_height_item(const void *unused, int k) { return PyBool_FromLong(lwt_iso_param_is_height(k)); }
static PyObject *mr_name_item(const void *unused, int k) { return PyUnicode_FromString(lwt_mr_param_name(k)); }
static PyObject *mr_unit_item(const void *unused, int k)
{
    char u[2] = {lwt_mr_param_unit(k), 0};
    return PyUnicode_FromString(u);
}
static PyObject *feature_name_item(const void *unused, int k)
{
    return PyUnicode_FromString(lwt_feature_param_name(k));
}
static PyObject *band_name_item(const void *unused, int b) { return PyUnicode_FromString(lwt_filter_band_name(b)); }

static PyMethodDef core_methods[] = {
    {"wavelet", py_wavelet, METH_VARARGS, "wavelet(name) -> (handle, info dict)"},
    {"wavelet_from_puk", py_wavelet_from_puk, METH_VARARGS,
     "wavelet_from_puk(name, u0, predicts, updates, K) -> (handle, info dict); operators are (start, taps)"},
    {"catalog", py_catalog, METH_NOARGS, "names of the built-in wavelets"},
    {"max_level", py_max_level, METH_VARARGS, "max_level(n, filter_length): PyWavelets' dwt_max_level"},
    {"set_threads", py_set_threads, METH_VARARGS, "set_threads(n): CPU threads of every plan; 0 = all"},
    {"device_count", py_device_count, METH_NOARGS, "CUDA devices usable by this build"},
    {"plan", py_plan, METH_VARARGS,
     "plan(wavelet, shape, levels, mode, f64, batch, backend, algorithm[, device]) -> (handle, info)"},
    {"band", py_band, METH_VARARGS, "band(plan, level, mask) -> (offset, shape) in the packed array"},
    {"forward", py_forward, METH_VARARGS, "forward(plan, signal, packed)"},
#ifdef LWT_PY_CUDA
    {"forward_device", py_forward_device, METH_VARARGS, "forward_device(plan, in_ptr, out_ptr, workspace_ptr, stream)"},
    {"inverse_device", py_inverse_device, METH_VARARGS, "inverse_device(plan, in_ptr, out_ptr, workspace_ptr, stream)"},
    {"device_workspace_size", py_device_workspace_size, METH_VARARGS,
     "device_workspace_size(plan): bytes of device workspace a device-pointer call takes"},
#endif
    {"inverse", py_inverse, METH_VARARGS, "inverse(plan, packed, signal)"},
    {"filter_spec_default", py_filter_spec_default, METH_NOARGS, "lwt_filter_spec_default() as a dict"},
    {"filter", py_filter, METH_VARARGS,
     "filter(z, nx, ny, dx, dy, spec, request) -> dict: lwt_bands_resolve_axes and lwt_filter_run"},
    {"parameters", py_parameters, METH_VARARGS,
     "parameters(z, nx, ny, dx, dy, threads) -> (ISO 25178-2 values, n_valid, n_cells)"},
    {"material", py_material, METH_VARARGS,
     "material(z, nx, ny, threads, spec, mrs, ps) -> (material ratio values, n_valid, mean, Smc(mrs), Vm(ps), Vv(ps))"},
    {"spatial", py_spatial, METH_VARARGS, "spatial(z, nx, ny, dx, dy, threads, s) -> (Sal, Str, Std)"},
    {"feature", py_feature, METH_VARARGS,
     "feature(z, nx, ny, dx, dy, threads, pruning) -> (feature values, (peaks, pits, closed hills, closed dales), "
     "pruning height)"},
    {"form_fit", py_form_fit, METH_VARARGS,
     "form_fit(z, nx, ny, dx, dy, threads, kind, degree) -> (model dict, z less the model as a block)"},
    {"plane_fit", py_plane_fit, METH_VARARGS, "plane_fit(z, nx, ny, dx, dy, threads) -> (z0, sx, sy)"},
    {"plane_subtract", py_plane_subtract, METH_VARARGS, "plane_subtract(z, nx, ny, dx, dy, threads, plane)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "lwt._core", NULL, -1, core_methods, NULL, NULL, NULL, NULL};

/* PyModule_AddObjectRef for a new reference (PyModule_Add is Python 3.13's). */
static int add_owned(PyObject *m, const char *name, PyObject *value)
{
    int rc = value ? PyModule_AddObjectRef(m, name, value) : -1;
    Py_XDECREF(value);
    return rc;
}

PyMODINIT_FUNC PyInit__core(void)
{
    if (lwt_py_module_init(&g_ctx) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m && (PyModule_AddStringConstant(m, "version", lwt_version_string()) < 0 ||
              PyModule_AddIntConstant(m, "MAX_NDIM", LWT_MAX_NDIM) < 0 ||
              add_owned(m, "ISO_PARAM_NAMES", tuple_of(LWT_ISO_PARAM_COUNT, iso_name_item, NULL)) < 0 ||
              add_owned(m, "ISO_PARAM_IS_HEIGHT", tuple_of(LWT_ISO_PARAM_COUNT, iso_height_item, NULL)) < 0 ||
              add_owned(m, "MR_PARAM_NAMES", tuple_of(LWT_MR_PARAM_COUNT, mr_name_item, NULL)) < 0 ||
              add_owned(m, "FEATURE_PARAM_NAMES", tuple_of(LWT_FEATURE_PARAM_COUNT, feature_name_item, NULL)) < 0 ||
              add_owned(m, "MR_PARAM_UNITS", tuple_of(LWT_MR_PARAM_COUNT, mr_unit_item, NULL)) < 0 ||
              add_owned(m, "BAND_NAMES", tuple_of(LWT_BAND_COUNT, band_name_item, NULL)) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
