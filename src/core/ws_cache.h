/*
 * ws_cache.h - a plan's own host workspace, for calls that pass none (issue 26, item 3).
 *
 * Allocating and first-touching the workspace in every call cost more than the transform's
 * arithmetic: one level of float32 CDF 9/7 on 4096^2 took 683 ms on one thread without a
 * workspace and 400 ms with one (2-core VM). So the first call without one makes a buffer the
 * plan keeps until it is destroyed, and later calls reuse it. A plan stays safe to execute from
 * several threads at once: one call at a time holds the buffer (a try-lock, never a wait), and a
 * call that finds it held allocates its own for that call, as before.
 */
#ifndef LWT_CORE_WS_CACHE_H
#define LWT_CORE_WS_CACHE_H

#include <pthread.h>
#include <stddef.h>

typedef struct lwt_ws_cache {
    pthread_mutex_t lock; /* held by the call using buf */
    void *buf;            /* bytes long, made by the first borrower */
    size_t bytes;
} lwt_ws_cache;

void lwt_ws_cache_init(lwt_ws_cache *c);
void lwt_ws_cache_free(lwt_ws_cache *c);

/* A workspace of `bytes` for one call: the cached one when no other call holds it (*held = 1),
   else a fresh allocation (*held = 0); NULL when out of memory. */
void *lwt_ws_borrow(lwt_ws_cache *c, size_t bytes, int *held);
/* Give back what lwt_ws_borrow returned. */
void lwt_ws_return(lwt_ws_cache *c, void *buf, int held);

#endif
