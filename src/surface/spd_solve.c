/* spd_solve.c - Cholesky on the unit-diagonal scaled system (spd_solve.h). */
#include "surface/spd_solve.h"

#include <math.h>

enum { MAXN = 32 };

int lwt__spd_solve(double *G, double *b, int n, double *x)
{
    double s[MAXN], y[MAXN];
    if (n < 1 || n > MAXN)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!(G[i * n + i] > 0) || !isfinite(G[i * n + i]))
            return -1;
        s[i] = 1 / sqrt(G[i * n + i]);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k <= i; k++)
            G[i * n + k] *= s[i] * s[k];
        b[i] *= s[i];
    }
    /* G = L L^T in the lower triangle */
    for (int j = 0; j < n; j++) {
        double d = G[j * n + j];
        for (int k = 0; k < j; k++)
            d -= G[j * n + k] * G[j * n + k];
        if (!(d > 1e-13))
            return -1;
        d = sqrt(d);
        G[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double v = G[i * n + j];
            for (int k = 0; k < j; k++)
                v -= G[i * n + k] * G[j * n + k];
            G[i * n + j] = v / d;
        }
    }
    for (int i = 0; i < n; i++) { /* L y = b */
        double v = b[i];
        for (int k = 0; k < i; k++)
            v -= G[i * n + k] * y[k];
        y[i] = v / G[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x' = y, x = D x' */
        double v = y[i];
        for (int k = i + 1; k < n; k++)
            v -= G[k * n + i] * y[k];
        y[i] = v / G[i * n + i];
    }
    for (int i = 0; i < n; i++)
        x[i] = y[i] * s[i];
    return 0;
}
