/*
 * memory_limit.c - lwt --max-memory SIZE: the ceiling the CLI puts on every context it makes
 * (lwt_context_set_memory_limit), so that a file declaring more data than the machine can hold
 * fails at its header with a message instead of being allocated (issue 29).
 *
 * Default: 3/4 of the memory this process may use, the smaller of physical RAM and the cgroup's
 * memory.max (a CI container reports the host's RAM in /proc/meminfo). Three quarters: a read
 * that needs more would leave the kernel, the page cache and the process's own further arrays
 * (the filter holds several surfaces) under a quarter, which on a shared machine means swapping
 * or the OOM killer, the failure the limit is there to replace. A real file that large is still
 * read with --max-memory set higher, or 0 (no limit).
 *
 * The option is taken out of argv before the command parses its own, so it may stand anywhere
 * on the line. The value is the CLI's own (a file-scope variable here, set once in main):
 * liblwt only sees it through the context.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static size_t limit_bytes;
static int limit_set;

/* the cgroup v2 memory.max of this process, 0 when there is none or it is "max" */
static uint64_t cgroup_max(void)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

static size_t default_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0, cg = cgroup_max();
    if (cg && (!ram || cg < ram))
        ram = cg;
    uint64_t l = ram / 4 * 3;
    return l > SIZE_MAX ? SIZE_MAX : (size_t)l;
}

size_t cli_memory_limit(void)
{
    if (!limit_set) {
        limit_bytes = default_limit();
        limit_set = 1;
    }
    return limit_bytes;
}

int cli_parse_bytes(const char *s, size_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || v < 0)
        return -1;
    static const char units[] = "KMGTP";
    const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
    if (u && *end) {
        for (const char *k = units; k <= u; k++)
            v *= 1024;
        end++;
        if ((*end & ~0x20) == 'I' && (end[1] & ~0x20) == 'B')
            end += 2;
        else if ((*end & ~0x20) == 'B')
            end++;
    }
    if (*end || v != v || v >= 18446744073709551616.0 || (double)(size_t)v != v)
        return -1;
    *out = (size_t)v;
    return 0;
}

int cli_take_max_memory(int *argc, char **argv)
{
    for (int i = 1; i < *argc; i++) {
        const char *v = NULL;
        int take = 0;
        if (!strcmp(argv[i], "--max-memory")) {
            v = i + 1 < *argc ? argv[i + 1] : NULL;
            take = 2;
        } else if (!strncmp(argv[i], "--max-memory=", 13)) {
            v = argv[i] + 13;
            take = 1;
        } else {
            continue;
        }
        if (!v || cli_parse_bytes(v, &limit_bytes)) {
            fprintf(stderr, "lwt: --max-memory needs a size in bytes, with K, M, G or T for KiB, MiB, GiB, "
                            "TiB (e.g. 64M, 1.5G; 0: no limit), got '%s'\n",
                    v ? v : "");
            return -1;
        }
        limit_set = 1;
        memmove(argv + i, argv + i + take, (size_t)(*argc - i - take + 1) * sizeof *argv);
        *argc -= take;
        i--;
    }
    return 0;
}
