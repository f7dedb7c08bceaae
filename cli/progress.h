/*
 * progress.h - a progress bar on stderr for lwt filter, drawn only when stderr is a terminal.
 * Whatever else goes to stderr first calls progress_clear so that lines never mix. The calls may
 * come from several threads (a pipelined lwt filter batch computes one file while it writes another).
 */
#ifndef LWT_CLI_PROGRESS_H
#define LWT_CLI_PROGRESS_H

#include <pthread.h>

typedef struct cli_progress {
    int enabled;
    int files, file; /* batch size, current file index (0-based) */
    char name[96];
    int drawn;
    double last; /* time of the last redraw (s) */
    pthread_mutex_t lock;
} cli_progress;

void progress_init(cli_progress *p, int files);
void progress_file(cli_progress *p, int index, const char *name);
/* fraction of the current file done (0..1) and what is happening */
void progress_update(cli_progress *p, double fraction, const char *what);
void progress_clear(cli_progress *p);

#endif
