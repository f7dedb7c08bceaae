/* outdir.c - atomic output folders (see outdir.h). */
#define _GNU_SOURCE

#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s: %s", path, what, strerror(errno));
    return -1;
}

/* mkdir -p */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, path, "cannot create the output folder");
    }
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST)
                return fail(err, errlen, p, "cannot create the output folder");
            *s = '/';
        }
    if (mkdir(p, 0777) && errno != EEXIST)
        return fail(err, errlen, p, "cannot create the output folder");
    struct stat st;
    if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return fail(err, errlen, p, "output folder");
    }
    return 0;
}

int outdir_begin(cli_outdir *o, const char *parent, const char *name, char *err, size_t errlen)
{
    o->active = 0;
    if (make_dirs(parent, err, errlen))
        return -1;
    if (snprintf(o->final, sizeof o->final, "%s/%s", parent, name) >= (int)sizeof o->final) {
        errno = ENAMETOOLONG;
        return fail(err, errlen, parent, "output path");
    }
    for (int k = 0; k < 1000; k++) {
        snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmp-%ld-%d", parent, name, (long)getpid(), k);
        if (mkdir(o->tmp, 0777) == 0) {
            o->active = 1;
            return 0;
        }
        if (errno != EEXIST)
            return fail(err, errlen, o->tmp, "cannot create a temporary folder");
    }
    return fail(err, errlen, o->tmp, "cannot create a temporary folder");
}

const char *outdir_file(const cli_outdir *o, const char *file, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", o->tmp, file);
    return buf;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int outdir_commit(cli_outdir *o, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(o->final, &st) != 0) {
        if (rename(o->tmp, o->final) != 0) {
            fail(err, errlen, o->final, "cannot rename the output folder into place");
            outdir_abort(o);
            return -1;
        }
        o->active = 0;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        fail(err, errlen, o->final, "exists and is not a folder");
        outdir_abort(o);
        return -1;
    }
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0) {
        remove_tree(o->tmp); /* now the old folder */
        o->active = 0;
        return 0;
    }
#endif
    char old[4200];
    snprintf(old, sizeof old, "%s.old-%ld", o->tmp, (long)getpid());
    if (rename(o->final, old) != 0 || rename(o->tmp, o->final) != 0) {
        fail(err, errlen, o->final, "cannot replace the output folder");
        outdir_abort(o);
        return -1;
    }
    remove_tree(old);
    o->active = 0;
    return 0;
}

void outdir_abort(cli_outdir *o)
{
    if (o->active)
        remove_tree(o->tmp);
    o->active = 0;
}
