/*
 * fuzz_zip.h - the X3P harnesses that fuzz one entry build the rest of the archive around it:
 * fuzz_zip_put writes a zip of the given entries to path with libzip (stored, not deflated:
 * the raw-zip harness covers inflation, these spend their time in the parser behind it).
 */
#ifndef LWT_FUZZ_ZIP_H
#define LWT_FUZZ_ZIP_H

#include <zip.h>

#include "fuzz_common.h"

typedef struct fuzz_entry {
    const char *name;
    const void *data;
    size_t len;
} fuzz_entry;

static inline void fuzz_zip_put(const char *path, const fuzz_entry *e, int n)
{
    int err = 0;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!za)
        abort();
    for (int i = 0; i < n; i++) {
        zip_source_t *src = zip_source_buffer(za, e[i].data, e[i].len, 0);
        zip_int64_t idx = src ? zip_file_add(za, e[i].name, src, ZIP_FL_OVERWRITE) : -1;
        if (idx < 0 || zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0))
            abort();
    }
    if (zip_close(za))
        abort();
}

#endif
