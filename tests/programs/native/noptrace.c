/* SPDX-License-Identifier: Apache-2.0 */
/* noptrace.c: a service whose seccomp filter refuses ptrace (as systemd's
 * SystemCallFilter=~@debug does), so the scan cannot stop its threads. Four workers each hold
 * 100 blocks of 48 bytes only in a local array while they wait; main loses the only pointers
 * to 5 blocks of 72 bytes, then calls exit() once the workers wait: the at-exit scan. The
 * right answer is 5 leaked blocks (360 bytes): the workers' 400 are held by their stacks. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int waiting;

static void *worker(void *arg)
{
    (void)arg;
    void *mine[100];
    for (int i = 0; i < 100; i++) {
        mine[i] = malloc(48);
        memset(mine[i], 'w', 48);
    }
    pthread_mutex_lock(&lock);
    waiting++;
    pthread_cond_broadcast(&cond);
    for (;;) { /* never signalled again: holds mine for ever */
        pthread_cond_wait(&cond, &lock);
        for (int i = 0; i < 100; i++)
            ((char *)mine[i])[0]++;
    }
    return NULL;
}

__attribute__((noinline)) static void lose(void)
{
    for (int i = 0; i < 5; i++) {
        char *p = malloc(72);
        memset(p, 'l', 72);
        __asm__ volatile("" : : "r"(p) : "memory");
    }
}

int main(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1 /* EPERM */),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        perror("seccomp");
        return 3;
    }
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&lock);
    while (waiting < 4)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    lose();
    char scrub[4096];
    memset(scrub, 0, sizeof scrub); /* no stale copy of a lost pointer on main's stack */
    __asm__ volatile("" : : "r"(scrub) : "memory");
    puts("noptrace exit");
    exit(0);
}
