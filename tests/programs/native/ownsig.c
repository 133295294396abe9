/* SPDX-License-Identifier: Apache-2.0 */
/* ownsig.c PIDFILE STOPFILE: a daemon that installs its own SIGUSR2 handler (a reload), in
 * the native monitor's place, writes its pid, waits (at most 20 s) for STOPFILE, then prints
 * how many SIGUSR2 its handler took. A scan asked for by that signal would run the program's
 * reload and no scan: `native check --signal` must refuse to send it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t reloads;

static void on_usr2(int sig)
{
    (void)sig;
    reloads++;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr2;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (int i = 0; i < 2000 && access(argv[2], F_OK) != 0; i++)
        usleep(10000);
    printf("reloads %d\n", (int)reloads);
    return 0;
}
