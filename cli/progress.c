/* progress.c - see progress.h. */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BAR 28

void progress_init(cli_progress *p, int files)
{
    memset(p, 0, sizeof *p);
    p->enabled = isatty(STDERR_FILENO);
    p->files = files > 0 ? files : 1;
    pthread_mutex_init(&p->lock, NULL); /* a default mutex: nothing to destroy on Linux */
}

static void update(cli_progress *p, double fraction, const char *what);

void progress_file(cli_progress *p, int index, const char *name)
{
    pthread_mutex_lock(&p->lock);
    p->file = index;
    snprintf(p->name, sizeof p->name, "%s", name);
    update(p, 0, "reading");
    pthread_mutex_unlock(&p->lock);
}

void progress_update(cli_progress *p, double fraction, const char *what)
{
    pthread_mutex_lock(&p->lock);
    update(p, fraction, what);
    pthread_mutex_unlock(&p->lock);
}

static void update(cli_progress *p, double fraction, const char *what)
{
    if (!p->enabled)
        return;
    if (fraction < 0) fraction = 0;
    if (fraction > 1) fraction = 1;
    /* at most ten redraws a second: workers report every chunk */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (p->drawn && fraction < 1 && now - p->last < 0.1)
        return;
    p->last = now;
    double total = (p->file + fraction) / p->files;
    int fill = (int)(total * BAR + 0.5);
    char bar[BAR + 1];
    for (int i = 0; i < BAR; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR] = 0;
    fprintf(stderr, "\r\033[K[%s] %3d%%  %d/%d %s: %s", bar, (int)(total * 100 + 0.5), p->file + 1, p->files,
            p->name, what);
    fflush(stderr);
    p->drawn = 1;
}

void progress_clear(cli_progress *p)
{
    pthread_mutex_lock(&p->lock);
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
    pthread_mutex_unlock(&p->lock);
}
