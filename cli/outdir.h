/*
 * outdir.h - an output folder that appears complete or not at all.
 *
 * outdir_begin creates PARENT (and its parents) and a hidden temporary folder
 * PARENT/.NAME.tmp-PID-N beside the target; the caller writes its files there
 * (outdir_file gives their paths). outdir_commit renames the folder to PARENT/NAME, swapping
 * it with an existing folder of that name in one step where the system allows (Linux
 * renameat2 RENAME_EXCHANGE) and removing the old one. outdir_abort removes the temporary
 * folder and everything in it.
 */
#ifndef LWT_CLI_OUTDIR_H
#define LWT_CLI_OUTDIR_H

#include <stddef.h>

typedef struct cli_outdir {
    char final[4096];
    char tmp[4096];
    int active;
} cli_outdir;

int outdir_begin(cli_outdir *o, const char *parent, const char *name, char *err, size_t errlen);
/** PATH of FILE inside the temporary folder (into buf). */
const char *outdir_file(const cli_outdir *o, const char *file, char *buf, size_t n);
int outdir_commit(cli_outdir *o, char *err, size_t errlen);
void outdir_abort(cli_outdir *o);

#endif
