/*
 * test_log.h - a context log sink for the tests: counts the error messages and keeps the last,
 * so that a test asserts on a failure's status AND its one message (the rule of
 * src/core/fail.h: the function where a failure starts logs exactly one line).
 *
 *   test_log log; lwt_context *ctx = test_log_context(&log);
 *   test_log_reset(&log);
 *   CHECK(lwt_surface_read(ctx, "nope.x3p", &s) == LWT_ERR_IO && log.errors == 1 &&
 *         strstr(log.last, "cannot open"), ...);
 */
#ifndef LWT_TEST_LOG_H
#define LWT_TEST_LOG_H

#include <stdio.h>

#include "lwt.h"

typedef struct test_log {
    int errors;      /* messages at level error since the last reset */
    char last[1024]; /* the last of them ("" when none) */
} test_log;

static void test_log_fn(void *user, lwt_log_level level, const char *msg)
{
    test_log *l = (test_log *)user;
    if (level < LWT_LOG_ERROR)
        return;
    l->errors++;
    snprintf(l->last, sizeof l->last, "%s", msg);
}

static inline void test_log_reset(test_log *l)
{
    l->errors = 0;
    l->last[0] = 0;
}

/* A context whose errors go to l (NULL when out of memory). */
static inline lwt_context *test_log_context(test_log *l)
{
    lwt_context *ctx = NULL;
    test_log_reset(l);
    if (lwt_context_create(&ctx) != LWT_OK)
        return NULL;
    lwt_context_set_log(ctx, test_log_fn, l);
    return ctx;
}

#endif
