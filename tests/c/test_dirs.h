/*
 * test_dirs.h - directories for the C tests that write files: the scratch
 * directory (made under the working directory, entered for the tests, removed
 * at the end, kept when something failed) and looking at what is in one.
 * Header-only.
 *
 * The including file defines _XOPEN_SOURCE 700 (for mkdtemp) before any
 * #include.
 */
#ifndef LWT_TEST_DIRS_H
#define LWT_TEST_DIRS_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Removes dir and everything below it (making subdirectories writable first). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[1024];
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(p, 0755);
            remove_tree(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

/* Number of entries of dir other than . and .. whose name starts with prefix
   (all of them for ""); -1 if dir cannot be opened. */
static int count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

/* Whether name exists (a dangling link counts). */
static int exists(const char *name)
{
    struct stat st;
    return lstat(name, &st) == 0;
}

/* Makes a scratch directory from the template dir ("name_scratch.XXXXXX", its
   XXXXXX replaced) and enters it. Returns 0, or -1 after printing
   "<test>: scratch directory: <reason>". */
static int enter_scratch_dir(char *dir, const char *test)
{
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        int e = errno;
        char what[256];
        snprintf(what, sizeof what, "%s: scratch directory", test);
        errno = e;
        perror(what);
        return -1;
    }
    return 0;
}

/* Goes back up from the scratch directory dir and removes it unless keep.
   Returns 0, or -1 if it cannot go back up (dir is then left alone). */
static int leave_scratch_dir(const char *dir, int keep)
{
    if (chdir("..") != 0)
        return -1;
    if (!keep)
        remove_tree(dir);
    return 0;
}

#endif /* LWT_TEST_DIRS_H */
