/*
 * read_error.h - the surface reader tests' check of a refusal: the reader returns the status
 * wanted, logs exactly one line that starts with the file's name and says why (text), and
 * leaves no surface behind. Needs check.h's CHECK and a test_log sink on ctx.
 */
#ifndef LWT_TEST_READ_ERROR_H
#define LWT_TEST_READ_ERROR_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lwt_surface.h"
#include "test_log.h"

typedef lwt_status (*test_reader_fn)(lwt_context *ctx, const char *path, lwt_surface *out);

static void expect_read_error(test_reader_fn read, lwt_context *ctx, test_log *log, const char *path, lwt_status want,
                              const char *text)
{
    lwt_surface s;
    test_log_reset(log);
    lwt_status st = read(ctx, path, &s);
    CHECK(st == want, "%s: status %d (%s), want %d; message: %s", path, (int)st, lwt_status_string(st), (int)want,
          log->last);
    CHECK(log->errors == 1, "%s: %d messages logged, want 1", path, log->errors);
    CHECK(strstr(log->last, text) != NULL, "%s: message '%s' lacks '%s'", path, log->last, text);
    CHECK(!strncmp(log->last, path, strlen(path)), "%s: message '%s' does not start with the file", path, log->last);
    CHECK(s.z == NULL && s.nx == 0, "%s: a failed read left a surface", path);
}

/* What every reader refuses, in the current folder: a text file named text.EXT (as FORMAT, with
 * not_this_format in the message), missing.EXT (IO, cannot open) and a folder (IO). */
static void expect_read_basics(test_reader_fn read, lwt_context *ctx, test_log *log, const char *ext,
                               const char *not_this_format)
{
    char text[64], missing[64];
    snprintf(text, sizeof text, "text.%s", ext);
    snprintf(missing, sizeof missing, "missing.%s", ext);
    FILE *f = fopen(text, "w");
    if (f) {
        fputs("not a surface file at all, just text\n", f);
        fclose(f);
    }
    expect_read_error(read, ctx, log, text, LWT_ERR_FORMAT, not_this_format);
    expect_read_error(read, ctx, log, missing, LWT_ERR_IO, "cannot open");
    expect_read_error(read, ctx, log, ".", LWT_ERR_IO, "is a directory");
}

#endif
