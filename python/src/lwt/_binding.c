/* _binding.c - see _binding.h. */
#include "_binding.h"

#include <stdlib.h>
#include <string.h>

/* liblwt's messages are at most 1023 bytes (src/core/context.c) */
static _Thread_local char t_last_message[1024];

/* The context's log callback: keeps the last warning or error of the calling thread. */
static void lwt_py_log(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    if (level >= LWT_LOG_WARNING) {
        strncpy(t_last_message, message, sizeof t_last_message - 1);
        t_last_message[sizeof t_last_message - 1] = '\0';
    }
}

void lwt_py_forget(void) { t_last_message[0] = '\0'; }

PyObject *lwt_py_raise(lwt_status s, const char *what)
{
    PyObject *type = PyExc_RuntimeError;
    switch (s) {
    case LWT_ERR_INVALID_ARGUMENT:
    case LWT_ERR_UNKNOWN_WAVELET:
    case LWT_ERR_UNKNOWN_MODE:
    case LWT_ERR_FORMAT:    /* the file's content is wrong, not the file system */
    case LWT_ERR_CHECKSUM:
    case LWT_ERR_NOT_AREAL:
    case LWT_ERR_NO_DATA:
        type = PyExc_ValueError;
        break;
    case LWT_ERR_IO:
        type = PyExc_OSError;
        break;
    case LWT_ERR_OUT_OF_MEMORY:
        type = PyExc_MemoryError;
        break;
    case LWT_ERR_UNSUPPORTED:
    case LWT_ERR_BACKEND_UNAVAILABLE:
        type = PyExc_NotImplementedError;
        break;
    default:
        break;
    }
    if (t_last_message[0])
        PyErr_Format(type, "%s: %s (%s)", what, lwt_status_string(s), t_last_message);
    else
        PyErr_Format(type, "%s: %s", what, lwt_status_string(s));
    t_last_message[0] = '\0';
    return NULL;
}

typedef struct heap_block {
    PyObject_HEAD
    void *data;
    Py_ssize_t nbytes;
} heap_block;

static void heap_block_dealloc(PyObject *self)
{
    free(((heap_block *)self)->data);
    Py_TYPE(self)->tp_free(self);
}

static int heap_block_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    heap_block *b = (heap_block *)self;
    return PyBuffer_FillInfo(view, self, b->data, b->nbytes, 0, flags);
}

static PyBufferProcs heap_block_buffer = {heap_block_getbuffer, NULL};

static PyTypeObject heap_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lwt.HeapBlock",
    .tp_basicsize = sizeof(heap_block),
    .tp_dealloc = heap_block_dealloc,
    .tp_as_buffer = &heap_block_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "memory liblwt allocated, freed when the last view of it goes",
};

PyObject *lwt_py_heap_block(void *data, size_t nbytes)
{
    heap_block *b = PyObject_New(heap_block, &heap_block_type);
    if (!b) {
        free(data);
        return NULL;
    }
    b->data = data;
    b->nbytes = (Py_ssize_t)nbytes;
    return (PyObject *)b;
}

int lwt_py_module_init(lwt_context **ctx)
{
    if (PyType_Ready(&heap_block_type) < 0)
        return -1;
    if (!*ctx) {
        lwt_status s = lwt_context_create(ctx);
        if (s != LWT_OK)
            return lwt_py_raise(s, "lwt_context_create"), -1;
        lwt_context_set_log(*ctx, lwt_py_log, NULL);
    }
    return 0;
}
