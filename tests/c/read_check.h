/*
 * read_check.h - reading a file with one of the surface readers and checking how it failed, for
 * the C tests of the readers (test_surface_io_gwy.c, test_surface_io_bin.c, test_surface_io_plux.c,
 * test_surface_io_datx.c). The including file includes check.h and test_log.h first; tlog and
 * tctx are the test's log and context (tctx = test_log_context(&tlog) in main).
 */
#ifndef LWT_TEST_READ_CHECK_H
#define LWT_TEST_READ_CHECK_H

#include <stdio.h>
#include <string.h>

#include "lwt_surface.h"

static test_log tlog;
static lwt_context *tctx;

typedef lwt_status (*reader_fn)(lwt_context *, const char *, lwt_surface *);

/* path read by reader into s; err receives the logged message; exactly one message on failure,
 * none on success */
static lwt_status read_one(reader_fn reader, const char *path, lwt_surface *s, char *err)
{
    test_log_reset(&tlog);
    lwt_status st = reader(tctx, path, s);
    snprintf(err, 1024, "%s", tlog.last);
    CHECK(tlog.errors == (st != LWT_OK), "%s: status %d with %d logged messages (%s)", path, (int)st, tlog.errors,
          tlog.last);
    return st;
}

/* path must fail in lwt_surface_read with code, one line naming the file and holding needle, and
 * an empty surface */
static void expect_error(const char *path, int code, const char *needle)
{
    char err[1024];
    lwt_surface s;
    lwt_status st = read_one(lwt_surface_read, path, &s, err);
    CHECK((int)st == code, "%s: return %d, expected %d (%s)", path, (int)st, code, err);
    CHECK(s.z == NULL && s.nx == 0, "%s: output not empty after failure", path);
    CHECK(strstr(err, path) != NULL, "%s: message does not name the file: %s", path, err);
    CHECK(strstr(err, needle) != NULL, "%s: message lacks '%s': %s", path, needle, err);
    CHECK(strchr(err, '\n') == NULL, "%s: message is not one line", path);
    lwt_surface_free(&s);
}

/* What every reader refuses, in the current folder: a text file named text.EXT (LWT_ERR_FORMAT,
 * not_this_format in the message), missing.EXT (LWT_ERR_IO, cannot open) and a folder. */
static inline void expect_refused_basics(const char *ext, const char *not_this_format)
{
    char text[64], missing[64];
    snprintf(text, sizeof text, "text.%s", ext);
    snprintf(missing, sizeof missing, "missing.%s", ext);
    FILE *f = fopen(text, "w");
    if (f) {
        fputs("not a surface file at all, just text\n", f);
        fclose(f);
    }
    expect_error(text, LWT_ERR_FORMAT, not_this_format);
    expect_error(missing, LWT_ERR_IO, "cannot open");
    expect_error(".", LWT_ERR_IO, "is a directory");
}
#endif
