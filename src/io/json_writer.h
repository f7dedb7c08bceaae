/*
 * json_writer.h - a small JSON writer into a growing memory buffer.
 *
 * Objects are pretty-printed (two-space indent, one member per line); arrays are written on one
 * line. Strings are escaped (quotes, backslash, control characters) and invalid UTF-8 bytes
 * become U+FFFD, so any file name can be written. Non-finite numbers are written as null.
 * Errors (out of memory, unbalanced nesting) are sticky: json_ok() reports them at the end.
 */
#ifndef LWT_IO_JSON_WRITER_H
#define LWT_IO_JSON_WRITER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    char *buf;
    size_t len, cap;
    int failed;
    int depth;
    int count[JSON_MAX_DEPTH];   /* items written so far at each depth */
    char kind[JSON_MAX_DEPTH];   /* '{' or '[' */
    int after_key;
} json_writer;

void json_init(json_writer *w);
void json_free(json_writer *w);
int json_ok(const json_writer *w); /* 1 when complete and no error */

void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s);
void json_number(json_writer *w, double v);
void json_int(json_writer *w, long long v);
void json_bool(json_writer *w, int b);
void json_null(json_writer *w);
/* "key": number, the most common member of a report */
void json_key_number(json_writer *w, const char *key, double v);

#ifdef __cplusplus
}
#endif
#endif /* LWT_IO_JSON_WRITER_H */
