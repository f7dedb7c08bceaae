/* A plan's own host workspace (ws_cache.h). */
#include "core/ws_cache.h"

#include <stdlib.h>

void lwt_ws_cache_init(lwt_ws_cache *c)
{
    pthread_mutex_init(&c->lock, NULL);
    c->buf = NULL;
    c->bytes = 0;
}

void lwt_ws_cache_free(lwt_ws_cache *c)
{
    free(c->buf);
    c->buf = NULL;
    pthread_mutex_destroy(&c->lock);
}

void *lwt_ws_borrow(lwt_ws_cache *c, size_t bytes, int *held)
{
    *held = 0;
    if (pthread_mutex_trylock(&c->lock) == 0) {
        if (c->bytes < bytes) {
            free(c->buf);
            c->buf = malloc(bytes ? bytes : 1);
            c->bytes = c->buf ? bytes : 0;
        }
        if (c->buf) {
            *held = 1;
            return c->buf;
        }
        pthread_mutex_unlock(&c->lock);
    }
    return malloc(bytes ? bytes : 1);
}

void lwt_ws_return(lwt_ws_cache *c, void *buf, int held)
{
    if (held)
        pthread_mutex_unlock(&c->lock);
    else
        free(buf);
}
