/*
 * lwt._core: the Python binding of liblwt's plan API (include/lwt.h), a plain C extension.
 *
 * Compiled against lwt.h, so the structs it fills (lwt_plan_desc, lwt_plan_info, lwt_band)
 * are the library's own and cannot drift the way a hand-written ctypes mirror can. It
 * exposes only what the Python layer (lwt/_plans.py) needs: wavelets by name with their
 * filter banks, plans with their band layout, and forward/inverse on buffers, run with
 * the GIL released. Everything PyWavelets-shaped (argument checks, axes, coefficient
 * lists) lives in Python.
 *
 * Failures raise lwt.LwtError (a ValueError for bad requests, MemoryError for out of
 * memory, RuntimeError otherwise) with the message liblwt logged for that call: the log
 * callback keeps the last message of each thread in thread-local storage.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "lwt.h"
#ifdef LWT_PY_CUDA
#include "lwt_cuda.h" /* GPU arrays: the device-pointer entry points */
#endif

static lwt_context *g_ctx; /* one per process: lives as long as the module */

static _Thread_local char t_last_message[512];

static void log_to_thread(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    if (level >= LWT_LOG_WARNING) {
        strncpy(t_last_message, message, sizeof t_last_message - 1);
        t_last_message[sizeof t_last_message - 1] = '\0';
    }
}

/* Before each liblwt call: a warning an earlier call logged must not be reported as the
 * reason of this one's failure. */
static void forget_last_message(void) { t_last_message[0] = '\0'; }

/* Raise for a failed liblwt call: the exception type follows the status so that bad
 * requests are ValueErrors, as in PyWavelets. */
static PyObject *raise_status(lwt_status s, const char *what)
{
    PyObject *type = PyExc_RuntimeError;
    if (s == LWT_ERR_INVALID_ARGUMENT || s == LWT_ERR_UNKNOWN_WAVELET || s == LWT_ERR_UNKNOWN_MODE)
        type = PyExc_ValueError;
    else if (s == LWT_ERR_OUT_OF_MEMORY)
        type = PyExc_MemoryError;
    else if (s == LWT_ERR_UNSUPPORTED || s == LWT_ERR_BACKEND_UNAVAILABLE)
        type = PyExc_NotImplementedError;
    if (t_last_message[0])
        PyErr_Format(type, "%s: %s (%s)", what, lwt_status_string(s), t_last_message);
    else
        PyErr_Format(type, "%s: %s", what, lwt_status_string(s));
    t_last_message[0] = '\0';
    return NULL;
}

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

/* (capsule, info dict with the four filters) of a wavelet just made by a liblwt call that
 * returned s; takes ownership of w. */
static PyObject *wavelet_result(lwt_status s, lwt_wavelet *w, const char *what)
{
    if (s != LWT_OK)
        return raise_status(s, what);
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
        return raise_status(s, "lwt_wavelet_get_info");
    }
    PyObject *info = Py_BuildValue(
        "{s:s,s:s,s:i,s:i,s:i,s:N,s:N,s:d,s:d,s:N,s:N,s:N,s:N}", "name", wi.name, "family", wi.family,
        "filter_length", wi.filter_length, "orthogonal", wi.orthogonal, "lifting_steps", wi.lifting_steps,
        "path_f64", path_name(wi.path_f64), "path_f32", path_name(wi.path_f32), "lifting_error_f64",
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
    forget_last_message();
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
    forget_last_message();
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
        return raise_status(s, "lwt_context_set_threads");
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

/* plan(wavelet capsule, shape tuple, levels, mode name, dtype (0 f32, 1 f64), batch, backend,
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
        return raise_status(s, "lwt_mode_from_name");
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
    d.dtype = dtype ? LWT_F64 : LWT_F32;
    d.batch = (size_t)batch;
    d.backend = (lwt_backend)backend;
    d.device = device;
    d.algorithm = (lwt_algorithm)algorithm;
    plan_holder *h = PyMem_Calloc(1, sizeof *h);
    if (!h)
        return PyErr_NoMemory();
    forget_last_message();
    Py_BEGIN_ALLOW_THREADS
    s = lwt_plan_create(g_ctx, &d, &h->plan);
    Py_END_ALLOW_THREADS
    if (s != LWT_OK) {
        PyMem_Free(h);
        return raise_status(s, "lwt_plan_create");
    }
    lwt_plan_get_info(h->plan, &h->info);
    h->itemsize = dtype ? sizeof(double) : sizeof(float);
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
        return raise_status(s, "lwt_plan_band");
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
        forget_last_message();
        Py_BEGIN_ALLOW_THREADS
        s = forward ? lwt_forward(h->plan, src.buf, dst.buf, NULL) : lwt_inverse(h->plan, src.buf, dst.buf, NULL);
        Py_END_ALLOW_THREADS
        if (s != LWT_OK)
            raise_status(s, forward ? "lwt_forward" : "lwt_inverse");
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
    forget_last_message();
    Py_BEGIN_ALLOW_THREADS
    const void *src = (const void *)(uintptr_t)in;
    void *dst = (void *)(uintptr_t)out, *work = (void *)(uintptr_t)ws;
    cudaStream_t st = (cudaStream_t)(uintptr_t)stream;
    s = forward ? lwt_forward_device(h->plan, src, dst, work, st) : lwt_inverse_device(h->plan, src, dst, work, st);
    Py_END_ALLOW_THREADS
    if (s != LWT_OK)
        return raise_status(s, forward ? "lwt_forward_device" : "lwt_inverse_device");
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
        return raise_status(s, "lwt_plan_device_workspace_size");
    return PyLong_FromSize_t(bytes);
}
#endif

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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "lwt._core", NULL, -1, core_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (!g_ctx) {
        lwt_status s = lwt_context_create(&g_ctx);
        if (s != LWT_OK)
            return raise_status(s, "lwt_context_create");
        lwt_context_set_log(g_ctx, log_to_thread, NULL);
    }
    PyObject *m = PyModule_Create(&core_module);
    if (m && (PyModule_AddStringConstant(m, "version", lwt_version_string()) < 0 ||
              PyModule_AddIntConstant(m, "MAX_NDIM", LWT_MAX_NDIM) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
