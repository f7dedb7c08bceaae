/*
 * _binding.h - what the package's two extension modules share: liblwt's messages turned into
 * Python exceptions, and heap blocks that liblwt allocated handed to NumPy without a copy.
 *
 * _binding.c is compiled into each module (lwt._core, lwt._surface_io): each links its own
 * copy of liblwt.a with hidden symbols, so each has its own context and its own copy of
 * these functions; nothing here is exported.
 */
#ifndef LWT_PY_BINDING_H
#define LWT_PY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "lwt.h"

/* Before each liblwt call: a message an earlier call logged must not be reported as the
 * reason of this one's failure. */
void lwt_py_forget(void);
/* Raise for a failed liblwt call (what: the call, for the message) and return NULL. The type
 * follows the status: ValueError for bad requests and bad file contents, OSError for files
 * that cannot be opened, read or written, MemoryError, NotImplementedError for what the build
 * or machine cannot do, RuntimeError otherwise. The message carries liblwt's logged line. */
PyObject *lwt_py_raise(lwt_status s, const char *what);
/* An object that owns `data` (malloc'ed, freed with free() when the object goes) and exposes
 * its nbytes as a writable buffer; NumPy views it without a copy (np.frombuffer). Frees data
 * itself when it cannot be made. data may be NULL only with nbytes 0. */
PyObject *lwt_py_heap_block(void *data, size_t nbytes);
/* From the module's init: ready the heap block type and, the first time, create the module's
 * context (*ctx) with lwt_py_log as its log callback. -1 with an exception on failure. */
int lwt_py_module_init(lwt_context **ctx);

#endif
