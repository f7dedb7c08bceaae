/* check.h - the CHECK macro of the surface C tests: count and print failures, keep going. */
#ifndef LWT_TEST_CHECK_H
#define LWT_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            failures++;                                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

/* |a - b| <= tol * max(|b|, floor) */
static inline int close_to(double a, double b, double tol)
{
    double s = b < 0 ? -b : b;
    double d = a - b < 0 ? b - a : a - b;
    return d <= tol * (s > 1e-300 ? s : 1e-300);
}

static inline int finish(const char *name)
{
    if (failures)
        fprintf(stderr, "%s: %d failure%s\n", name, failures, failures == 1 ? "" : "s");
    else
        printf("%s: all checks passed\n", name);
    return failures ? 1 : 0;
}

#endif
