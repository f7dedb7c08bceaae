/* The uncovered parts of an array (core/boxes.h): along each axis in turn, the
   array is cut at every box edge; a slab no box reaches is a gap whole, and a
   slab some boxes cross is cut again along the next axis with only those. */
#include "core/boxes.h"

#include <stdlib.h>

typedef struct gap_out {
    lwt_box *out;
    size_t max, n;
} gap_out;

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* cur: the region so far (axes before `axis` fixed, the rest whole); live: the
   boxes that cover all of it along the axes before `axis` */
static void cut(const size_t shape[3], const lwt_box *boxes, const size_t *live, size_t nlive, int axis,
                lwt_box cur, size_t *edges, size_t *scratch, gap_out *g)
{
    size_t ne = 0;
    edges[ne++] = 0;
    edges[ne++] = shape[axis];
    for (size_t i = 0; i < nlive; i++) {
        const lwt_box *b = &boxes[live[i]];
        edges[ne++] = b->off[axis] < shape[axis] ? b->off[axis] : shape[axis];
        edges[ne++] = b->off[axis] + b->ext[axis] < shape[axis] ? b->off[axis] + b->ext[axis] : shape[axis];
    }
    qsort(edges, ne, sizeof *edges, cmp_size);
    for (size_t e = 0; e + 1 < ne; e++) {
        const size_t lo = edges[e], hi = edges[e + 1];
        if (lo == hi)
            continue;
        size_t nin = 0;
        for (size_t i = 0; i < nlive; i++) {
            const lwt_box *b = &boxes[live[i]];
            if (b->ext[axis] && b->off[axis] <= lo && hi <= b->off[axis] + b->ext[axis])
                scratch[nin++] = live[i];
        }
        lwt_box slab = cur;
        slab.off[axis] = lo;
        slab.ext[axis] = hi - lo;
        if (!nin) {
            if (g->n < g->max)
                g->out[g->n] = slab;
            g->n++;
        } else if (axis < 2) {
            /* the next axis gets its own edge and scratch space past this level's */
            cut(shape, boxes, scratch, nin, axis + 1, slab, edges + ne, scratch + nin, g);
        }
        /* axis 2 with a covering box: covered */
    }
}

size_t lwt_box_complement(const size_t shape[3], const lwt_box *boxes, size_t nb, lwt_box *out, size_t max)
{
    /* the first live list, then per level of the recursion 2 nb + 2 edges and nb indices */
    size_t *mem = malloc(sizeof(size_t) * (nb + 3 * (2 * nb + 2) + 3 * nb));
    if (!mem)
        return (size_t)-1;
    size_t *live = mem, *edges = mem + nb, *scratch = edges + 3 * (2 * nb + 2);
    for (size_t i = 0; i < nb; i++)
        live[i] = i;
    gap_out g = {out, max, 0};
    lwt_box whole = {{0, 0, 0}, {shape[0], shape[1], shape[2]}};
    if (shape[0] && shape[1] && shape[2])
        cut(shape, boxes, live, nb, 0, whole, edges, scratch, &g);
    free(mem);
    return g.n;
}
