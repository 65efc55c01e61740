/*
** tmpdir.h -- removing a test's temporary directory (made with mkdtemp) and every file in it.
*/
#ifndef STRATA_TEST_TMPDIR_H
#define STRATA_TEST_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* tmpdir_remove unlinks the files directly inside dir, then dir itself; errors are ignored. */
static inline void tmpdir_remove(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

#endif
