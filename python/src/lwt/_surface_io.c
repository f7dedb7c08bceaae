/*
 * lwt._surface_io: the surface files of include/lwt_surface.h (liblwt_surface: X3P, SDF, .sur,
 * .plu, .gwy, .al3d, .vk4, .npy readers and the X3P and SDF writers), for lwt/surface.py.
 *
 * A module of its own, not part of lwt._core, because liblwt_surface needs libzip, expat,
 * libcrypto and libpng: it is built only where CMake finds them (CMakeLists.txt,
 * LWT_HAVE_IO_DEPS) and it loads those shared libraries, so a wheel used where they are
 * missing still imports lwt (transforms, filter, parameters) and only lwt.surface.read and
 * write fail, with the loader's reason. It links liblwt.a again (hidden symbols; the file
 * code calls liblwt's lwt_context_log and little else) and has its own context, used only for
 * the messages of its calls.
 *
 * Paths are bytes (os.fsencode); reading and writing run with the GIL released.
 */
#include "_binding.h"

#include <string.h>

#include "lwt_surface.h"

static lwt_context *g_ctx; /* one per process: lives as long as the module */

/* read(path) -> dict: the lwt_surface's fields, z as a heap block of nx * ny doubles */
static PyObject *py_read(PyObject *self, PyObject *args)
{
    const char *path;
    if (!PyArg_ParseTuple(args, "y", &path))
        return NULL;
    lwt_surface s;
    lwt_status st;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    st = lwt_surface_read(g_ctx, path, &s);
    Py_END_ALLOW_THREADS
    if (st != LWT_OK)
        return lwt_py_raise(st, "lwt_surface_read");
    PyObject *z = lwt_py_heap_block(s.z, s.nx * s.ny * sizeof(double)); /* owns s.z from here */
    s.z = NULL;
    if (!z)
        return NULL;
    /* Strings as stored: decoded with errors replaced, since files do not always hold UTF-8. */
    return Py_BuildValue("{s:N,s:n,s:n,s:d,s:d,s:s,s:d,s:N,s:N,s:N,s:N}", "z", z, "nx", (Py_ssize_t)s.nx, "ny",
                         (Py_ssize_t)s.ny, "dx", s.dx, "dy", s.dy, "source_format", s.source_format, "z_resolution",
                         s.z_resolution, "date", PyUnicode_DecodeUTF8(s.date, (Py_ssize_t)strlen(s.date), "replace"),
                         "instrument",
                         PyUnicode_DecodeUTF8(s.instrument, (Py_ssize_t)strlen(s.instrument), "replace"),
                         "creator", PyUnicode_DecodeUTF8(s.creator, (Py_ssize_t)strlen(s.creator), "replace"),
                         "comment", PyUnicode_DecodeUTF8(s.comment, (Py_ssize_t)strlen(s.comment), "replace"));
}

/* Copy one metadata string into its lwt_surface field; ValueError when it does not fit. */
static int set_text(char *field, size_t size, const char *name, const char *value)
{
    if (strlen(value) >= size) {
        PyErr_Format(PyExc_ValueError, "%s is %zu bytes in UTF-8; a surface holds at most %zu", name, strlen(value),
                     size - 1);
        return -1;
    }
    memcpy(field, value, strlen(value) + 1);
    return 0;
}

enum { WRITE_BY_EXTENSION, WRITE_X3P, WRITE_SDF_BINARY, WRITE_SDF_ASCII };

/* write(path, z, nx, ny, dx, dy, (source_format, z_resolution, date, instrument, creator,
 * comment), format): format 0 by extension (lwt_surface_write), 1 X3P, 2 binary SDF, 3 ASCII SDF */
static PyObject *py_write(PyObject *self, PyObject *args)
{
    const char *path, *source_format, *date, *instrument, *creator, *comment;
    PyObject *zobj;
    Py_ssize_t nx, ny;
    int format;
    lwt_surface s;
    lwt_surface_init(&s);
    if (!PyArg_ParseTuple(args, "yOnndd(sdssss)i", &path, &zobj, &nx, &ny, &s.dx, &s.dy, &source_format,
                          &s.z_resolution, &date, &instrument, &creator, &comment, &format))
        return NULL;
    if (set_text(s.source_format, sizeof s.source_format, "source_format", source_format) < 0 ||
        set_text(s.date, sizeof s.date, "date", date) < 0 ||
        set_text(s.instrument, sizeof s.instrument, "instrument", instrument) < 0 ||
        set_text(s.creator, sizeof s.creator, "creator", creator) < 0 ||
        set_text(s.comment, sizeof s.comment, "comment", comment) < 0)
        return NULL;
    if (format < WRITE_BY_EXTENSION || format > WRITE_SDF_ASCII)
        return PyErr_Format(PyExc_ValueError, "unknown write format code %d", format);
    Py_buffer z;
    if (nx < 1 || ny < 1)
        return PyErr_Format(PyExc_ValueError, "a surface needs at least 1 x 1 points, got %zd x %zd", nx, ny);
    if (PyObject_GetBuffer(zobj, &z, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (z.itemsize != sizeof(double) || strcmp(z.format, "d") || z.len != nx * ny * (Py_ssize_t)sizeof(double)) {
        PyBuffer_Release(&z);
        return PyErr_Format(PyExc_ValueError, "heights must be %zd x %zd float64 values", ny, nx);
    }
    s.nx = (size_t)nx;
    s.ny = (size_t)ny;
    s.z = z.buf; /* the writers only read it */
    lwt_status st;
    lwt_py_forget();
    Py_BEGIN_ALLOW_THREADS
    switch (format) {
    case WRITE_X3P:
        st = lwt_surface_write_x3p(g_ctx, path, &s);
        break;
    case WRITE_SDF_BINARY:
    case WRITE_SDF_ASCII:
        st = lwt_surface_write_sdf(g_ctx, path, &s, format == WRITE_SDF_BINARY);
        break;
    default:
        st = lwt_surface_write(g_ctx, path, &s);
        break;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&z);
    if (st != LWT_OK)
        return lwt_py_raise(st, "lwt_surface_write");
    Py_RETURN_NONE;
}

static PyMethodDef io_methods[] = {
    {"read", py_read, METH_VARARGS, "read(path bytes) -> dict of the lwt_surface (z as a buffer of doubles)"},
    {"write", py_write, METH_VARARGS, "write(path bytes, z, nx, ny, dx, dy, metadata tuple, format code)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef io_module = {PyModuleDef_HEAD_INIT, "lwt._surface_io", NULL, -1, io_methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__surface_io(void)
{
    if (lwt_py_module_init(&g_ctx) < 0)
        return NULL;
    return PyModule_Create(&io_module);
}
