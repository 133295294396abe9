/* SPDX-License-Identifier: Apache-2.0 */
/* watch_dir.c: the folder the JVM agent writes its dumps to (watch layer), prefix watch_:
 * which dumps stay. Shared by the agent (inside the watched JVM: plain POSIX calls only) and
 * `leakray watch analyze`. */
#define _GNU_SOURCE
#include "watch/watch_dir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A dump of the folder, with when it was written: the names carry the local time of the
 * JVM that wrote them, which two JVMs in other time zones (or a change of summer time) do
 * not agree on. */
typedef struct dumpent {
    char *name;
    struct timespec at;
} dumpent;

static int by_age(const void *a, const void *b)
{
    const dumpent *x = a, *y = b;
    if (x->at.tv_sec != y->at.tv_sec)
        return x->at.tv_sec < y->at.tv_sec ? -1 : 1;
    if (x->at.tv_nsec != y->at.tv_nsec)
        return x->at.tv_nsec < y->at.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Whether e names a dump the agent began, .leakray-STAMP-PID-SEQ.part.hprof, of a process
 * that is gone (killed while it wrote it: the file stays, up to the heap's size). */
static int orphan_part(const char *e)
{
    static const char pre[] = "." WATCH_DUMP_PREFIX;
    size_t l = strlen(e), pl = sizeof pre - 1;
    /* the stamp: YYYYmmdd-HHMMSS, then -PID- */
    if (strncmp(e, pre, pl) != 0 || l < pl + 16 + 11 || strcmp(e + l - 11, ".part.hprof") != 0 ||
        e[pl + 15] != '-')
        return 0;
    char *end;
    long pid = strtol(e + pl + 16, &end, 10);
    if (pid <= 0 || *end != '-')
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* How long an analysis may run: a dump whose report is still being written (NAME.json.part)
 * is not pruned unless that file is older (its analyser was killed). */
#define WATCH_ANALYSIS_MAX_S (24 * 3600)

/* Whether dir/base+ext exists, and its age in seconds in *age. */
static int sibling(const char *dir, const char *base, size_t bl, const char *ext, double *age)
{
    char p[PATH_MAX * 2];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%.*s%s", dir, (int)bl, base, ext);
    if (stat(p, &sb) != 0)
        return 0;
    *age = difftime(time(NULL), sb.st_mtime);
    return 1;
}

void watch_analysis_mark(char *out, size_t cap)
{
    char ns[64] = "";
    ssize_t k = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[k > 0 ? k : 0] = 0;
    snprintf(out, cap, WATCH_ANALYSIS_MARK "%ld %s\n", (long)getpid(), ns[0] ? ns : "-");
}

/* Whether the analysis that wrote dir/base.json.part may still run: the mark `watch analyze`
 * writes at its start names its process and its process namespace, and a process of ours
 * that is gone (killed by -9, which no handler sees) left a stale mark, which kept its dump
 * a day and a place among max-dumps. A process of another namespace (another container
 * sharing the folder) cannot be asked: its mark counts as running, as does a file without
 * the mark (a report being written). A stale mark is removed. */
static int analysis_running(const char *dir, const char *base, size_t bl)
{
    char p[PATH_MAX * 2], buf[128], ns[64], mine[128];
    snprintf(p, sizeof p, "%s/%.*s.json.part", dir, (int)bl, base);
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    long pid = 0, my_pid = 0;
    if (sscanf(buf, WATCH_ANALYSIS_MARK "%ld %63s", &pid, ns) != 2 || pid <= 0)
        return 1;
    watch_analysis_mark(mine, sizeof mine);
    char my_ns[64];
    if (sscanf(mine, WATCH_ANALYSIS_MARK "%ld %63s", &my_pid, my_ns) != 2 ||
        strcmp(ns, my_ns) != 0 || !strcmp(ns, "-"))
        return 1;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
        return 1;
    unlink(p); /* stale: what a kill -9 left */
    return 0;
}

/* Deletes dir/base+ext for each of a dump's report files. */
static void unlink_reports(const char *dir, const char *base, size_t bl, int with_dump)
{
    static const char *const ext[] = {".txt", ".json", ".txt.part", ".json.part", ".hprof"};
    for (int k = 0; k < 4 + with_dump; k++) {
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%.*s%s", dir, (int)bl, base, ext[k]);
        unlink(p);
    }
}

/* The reports left of dumps that are gone (a dump pruned while it was analysed, by another
 * JVM sharing the folder or an analysis that outlived its turn): max bounds them too. */
static void prune_orphans(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        size_t l = strlen(nm), bl = 0;
        if (strncmp(nm, WATCH_DUMP_PREFIX, strlen(WATCH_DUMP_PREFIX)) != 0)
            continue;
        static const char *const ext[] = {".txt", ".json", ".txt.part", ".json.part"};
        for (int k = 0; k < 4 && !bl; k++) {
            size_t el = strlen(ext[k]);
            if (l > el && strcmp(nm + l - el, ext[k]) == 0)
                bl = l - el;
        }
        double age;
        if (!bl || sibling(dir, nm, bl, ".hprof", &age))
            continue;
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s/%s", dir, nm);
        unlink(p);
    }
    closedir(d);
}

unsigned watch_prune_dumps(const char *dir, unsigned max, const char *keep)
{
    /* the dump just written or analysed is the newest, whatever its time says (a copy that
     * kept an old one was deleted with the reports just written of it) */
    const char *kb = keep ? strrchr(keep, '/') : NULL;
    kb = kb ? kb + 1 : keep;
    int kept = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    dumpent *names = NULL;
    size_t n = 0, cap = 0;
    unsigned deleted = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (orphan_part(e->d_name)) {
            char p[PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            deleted += unlink(p) == 0;
            continue;
        }
        if (strncmp(e->d_name, WATCH_DUMP_PREFIX, strlen(WATCH_DUMP_PREFIX)) != 0 || l < 7 ||
            strcmp(e->d_name + l - 6, ".hprof") != 0)
            continue;
        if (kb && strcmp(e->d_name, kb) == 0) {
            kept = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            dumpent *nn = realloc(names, cap * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        char p[PATH_MAX * 2];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &sb) != 0)
            continue;
        /* being analysed (its report not written yet): it stays, and counts as kept */
        double age;
        if (sibling(dir, e->d_name, l - 6, ".json.part", &age) && age < WATCH_ANALYSIS_MAX_S &&
            analysis_running(dir, e->d_name, l - 6)) {
            kept++;
            continue;
        }
        names[n].at = sb.st_mtim;
        names[n].name = strdup(e->d_name);
        if (names[n].name)
            n++;
    }
    closedir(d);
    max = (unsigned)kept < max ? max - (unsigned)kept : 0;
    if (n > max) {
        qsort(names, n, sizeof *names, by_age);
        for (size_t i = 0; i + max < n; i++) {
            unlink_reports(dir, names[i].name, strlen(names[i].name) - 6, 1);
            deleted++;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i].name);
    free(names);
    prune_orphans(dir); /* not counted: dumps are */
    return deleted;
}

