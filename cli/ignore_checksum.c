/*
 * ignore_checksum.c - lwt --ignore-checksum: read a surface file whose checksum does not match
 * (X3P md5checksum.hex, MD5ChecksumPointData, ...) with a warning instead of refusing it
 * (lwt_context_set_ignore_checksums). Published data sets hold such files; the default stays
 * the refusal, since a mismatch usually means damaged data.
 *
 * Taken out of argv before the command parses its own options (as --max-memory is), so it
 * stands anywhere on the line and reaches every command that reads surfaces through the
 * contexts the CLI makes. The flag is the CLI's own, set once in main.
 */
#include <string.h>

#include "cli.h"
#include "lwt_surface.h"

static int ignore_checksums;

void cli_take_ignore_checksum(int *argc, char **argv)
{
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--ignore-checksum"))
            continue;
        ignore_checksums = 1;
        memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
        (*argc)--;
        i--;
    }
}

void cli_apply_read_options(lwt_context *ctx)
{
    lwt_context_set_memory_limit(ctx, cli_memory_limit());
    lwt_context_set_ignore_checksums(ctx, ignore_checksums);
}
