/*
 * inflate_records.c - a zlib stream inside a file, inflated piece by piece into fixed-size
 * records (the compressed .sur's point streams). Neither the compressed nor the inflated stream
 * is ever held whole: 256 KiB of input and 1 MiB of output at a time, so that memory stays the
 * surface plus about 1.3 MiB whatever the file declares.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IN_CHUNK ((size_t)256 << 10)
#define OUT_CHUNK ((size_t)1 << 20)

/* bytes p[0..k) into the sink: first the rest of a record cut before, then whole records, then
 * the start of the next */
static void sink_put(lwt__record_sink *s, const unsigned char *p, size_t k)
{
    if (s->npart) {
        size_t take = s->es - s->npart < k ? s->es - s->npart : k;
        memcpy(s->part + s->npart, p, take);
        s->npart += take;
        p += take;
        k -= take;
        if (s->npart < s->es)
            return;
        s->decode(s->user, s->part, s->next++, 1);
        s->npart = 0;
    }
    size_t whole = k / s->es;
    if (whole) {
        s->decode(s->user, p, s->next, whole);
        s->next += whole;
    }
    memcpy(s->part, p + whole * s->es, k - whole * s->es);
    s->npart = k - whole * s->es;
}

lwt_status lwt__inflate_records(lwt_context *ctx, const char *path, int fd, uint64_t off, uint64_t zipped,
                                uint64_t raw, lwt__record_sink *sink, const char *what)
{
    unsigned char *in = (unsigned char *)malloc(IN_CHUNK), *out = (unsigned char *)malloc(OUT_CHUNK);
    z_stream z;
    memset(&z, 0, sizeof z);
    lwt_status rc = LWT_OK;
    int zrc = Z_OK, started = 0;
    uint64_t got = 0, fed = 0;
    if (!in || !out) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
        goto done;
    }
    if (inflateInit(&z) != Z_OK) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "cannot start zlib: %s", z.msg ? z.msg : "?");
        goto done;
    }
    started = 1;
    while (zrc != Z_STREAM_END) {
        if (z.avail_in == 0) {
            if (fed == zipped) {
                rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                    "corrupt: %s ends (%llu zipped bytes) before its zlib stream does", what,
                                    (unsigned long long)zipped);
                goto done;
            }
            size_t k = zipped - fed < IN_CHUNK ? (size_t)(zipped - fed) : IN_CHUNK;
            if ((rc = lwt__read_at(ctx, path, fd, in, k, off + fed)))
                goto done;
            fed += k;
            z.next_in = in;
            z.avail_in = (uInt)k;
        }
        /* room for one byte more than the stream may give, so that a longer stream shows */
        uint64_t room = raw - got + 1;
        z.next_out = out;
        z.avail_out = (uInt)(room < OUT_CHUNK ? room : OUT_CHUNK);
        zrc = inflate(&z, Z_NO_FLUSH);
        if (zrc != Z_OK && zrc != Z_STREAM_END && zrc != Z_BUF_ERROR) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt: %s: zlib says %s", what,
                                z.msg ? z.msg : zrc == Z_NEED_DICT ? "it needs a dictionary" : "data error");
            goto done;
        }
        size_t produced = (size_t)(z.next_out - out);
        if (got + produced > raw) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "corrupt: %s inflates to more than the %llu bytes its directory declares", what,
                                (unsigned long long)raw);
            goto done;
        }
        sink_put(sink, out, produced);
        got += produced;
    }
    if (got != raw)
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "corrupt: %s inflates to %llu bytes, its directory declares %llu", what,
                            (unsigned long long)got, (unsigned long long)raw);
done:
    if (started)
        inflateEnd(&z);
    free(in);
    free(out);
    return rc;
}
