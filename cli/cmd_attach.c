/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_attach.c: `leakray attach PID [OPTIONS]` (cli). Loads the JVM agent
 * (libleakray_agent.so) into a running HotSpot JVM through the JDK's attach mechanism, the
 * `JVMTI.agent_load` diagnostic command run by `jcmd`. The options are the agent's own
 * (src/watch/watch_opts.h), checked here first with the same parser so a typo is reported
 * in this terminal rather than in the target's stderr; relative paths in them are made
 * absolute against this shell's directory, not the target's. Docs: docs/agent.md. */
#define _GNU_SOURCE /* memmem */
#include "base/url.h"
#include "cli.h"
#include "report/status.h"
#include "watch/watch_opts.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LEAKRAY_AGENT_INSTALL_PATH
#define LEAKRAY_AGENT_INSTALL_PATH "/usr/local/lib/libleakray_agent.so"
#endif

/* The agent beside this binary (build tree), in ../lib (install), or where it was installed. */
static int find_agent(char *out, size_t n) /* n >= PATH_MAX + 32 */
{
    char self[PATH_MAX - 64];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l > 0) {
        self[l] = 0;
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = 0;
        snprintf(out, n, "%s/libleakray_agent.so", self);
        if (access(out, R_OK) == 0)
            return 0;
        snprintf(out, n, "%s/../lib/libleakray_agent.so", self);
        if (access(out, R_OK) == 0)
            return 0;
    }
    snprintf(out, n, "%s", LEAKRAY_AGENT_INSTALL_PATH);
    return access(out, R_OK) == 0 ? 0 : -1;
}

/* Copies the option string, making the values of path options absolute. */
static int absolutize(const char *opts, char *out, size_t n)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    size_t o = 0;
    out[0] = 0;
    const char *p = opts;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        static const char *const keys[] = {"dump-dir=", "rules=", "leakray=", "store="};
        int w;
        int done = 0;
        for (int k = 0; k < 4 && !done; k++) {
            size_t kl = strlen(keys[k]);
            int none = len - kl == 4 && strncmp(p + kl, "none", 4) == 0;
            /* a store is a path unless it is a URL, a libpq key=value string or "default" */
            int not_path = k == 3 && (memmem(p + kl, len - kl, "://", 3) ||
                                      memchr(p + kl, '=', len - kl) ||
                                      (len - kl == 7 && !strncmp(p + kl, "default", 7)));
            if (len > kl && strncmp(p, keys[k], kl) == 0 && p[kl] != '/' && !none &&
                !not_path) {
                w = snprintf(out + o, n - o, "%s%s%s/%.*s", o ? "," : "", keys[k], cwd,
                             (int)(len - kl), p + kl);
                done = 1;
                if (w < 0 || (size_t)w >= n - o)
                    return -1;
                o += (size_t)w;
            }
        }
        if (!done) {
            w = snprintf(out + o, n - o, "%s%.*s", o ? "," : "", (int)len, p);
            if (w < 0 || (size_t)w >= n - o)
                return -1;
            o += (size_t)w;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* What process pid has mapped: HotSpot's libjvm.so (jcmd takes 10 s to give up on any other
 * process, then prints a Java stack trace) and this agent (a JVM loads an agent library
 * once; a second attach gets a bare "return code: -1"). -1 when the maps are not ours to
 * read: jcmd will say. */
static int maps_of(const char *pid, int *jvm, int *agent)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%s/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    *jvm = *agent = 0;
    while (fgets(line, sizeof line, f)) {
        *jvm |= strstr(line, "/libjvm.so") != NULL;
        *agent |= strstr(line, "/libleakray_agent.so") != NULL;
    }
    fclose(f);
    return 0;
}

/* What the agent would refuse at start, said here: the JVM writes the agent's reason on its
 * own stderr and answers jcmd with a bare "return code: -1". Returns 0, or an exit code. */
static int precheck(const cli_common *co, const char *pid, const watch_opts *wo)
{
    int jvm = 0, agent = 0, m = maps_of(pid, &jvm, &agent);
    if (m == 0 && !jvm)
        return cli_fail(co, LR_ERR_NOT_FOUND, "process %s is not a HotSpot JVM (no libjvm.so "
                        "mapped)", pid);
    /* maps this user may not read: nor may it attach (the JDK's attach mechanism takes the
     * JVM's own user), and jcmd would take 10 s to say so in a Java stack trace */
    if (m != 0 && (errno == EACCES || errno == EPERM))
        return cli_fail(co, LR_ERR_IO, "process %s: cannot read /proc/%s/maps (%s): attach as "
                        "the user the JVM runs as", pid, pid, strerror(errno));
    if (jvm && agent)
        return cli_fail(co, LR_ERR_USAGE, "the agent is already loaded in %s (leakray watch "
                        "status %s)", pid, pid);
    /* the agent refuses a leakray= that cannot run; said here, before jcmd runs */
    if (wo->leakray[0] && strchr(wo->leakray, '/') && access(wo->leakray, X_OK) != 0)
        return cli_fail(co, LR_ERR_USAGE, "leakray=%s: %s", wo->leakray, strerror(errno));
    if (wo->rules[0] && strcmp(wo->rules, "none") != 0) {
        struct stat st;
        if (stat(wo->rules, &st) != 0)
            return cli_fail(co, LR_ERR_USAGE, "rules=%s: %s", wo->rules, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return cli_fail(co, LR_ERR_USAGE, "rules=%s: not a rules file", wo->rules);
    }
    if (wo->dump_dir[0]) {
        /* the nearest folder that exists must be one this user can write into */
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s", wo->dump_dir);
        struct stat st;
        while (stat(d, &st) != 0) {
            char *slash = strrchr(d, '/');
            if (!slash || slash == d) {
                snprintf(d, sizeof d, "%s", slash == d ? "/" : ".");
                break;
            }
            *slash = 0;
        }
        if (stat(d, &st) == 0 && !S_ISDIR(st.st_mode))
            return cli_fail(co, LR_ERR_USAGE, "dump-dir=%s: %s is not a folder", wo->dump_dir,
                            d);
        if (access(d, W_OK | X_OK) != 0)
            return cli_fail(co, LR_ERR_USAGE, "dump-dir=%s: %s is not writable", wo->dump_dir,
                            d);
    }
    return 0;
}

int cmd_attach(int argc, char **argv)
{
    const char *agent = NULL, *jcmd = NULL;
    const cli_optdef opts[] = {
        {"--agent", CLI_OPT_STR, &agent, "SO", "the agent library (default: found beside leakray)",
         NULL},
        {"--jcmd", CLI_OPT_STR, &jcmd, "PATH", "the JDK's jcmd (default: $JAVA_HOME/bin/jcmd, "
         "then PATH)", NULL},
        {0}};
    const cli_spec spec = {
        "attach", "PID [OPTIONS]",
        "Load the leak-watching JVM agent into a running JVM.", opts, 1, 2,
        "OPTIONS are the agent's, comma-separated (docs/agent.md): dump-dir=DIR threshold=N\n"
        "delay-ms=N watch=CLASS#METHOD report=text|json|db store=URL max-dumps=N\n"
        "max-watched=N rules=FILE|none leakray=PATH quiet. The JVM must run as the same\n"
        "user and allow dynamic agents (JDK 21+ warns unless\n"
        "-XX:+EnableDynamicAgentLoading). Attached, watch rules\n"
        "(jvm.rules, watch=) apply as at start: the classes already loaded are hooked then.\n"
        "Example: leakray attach 4242 dump-dir=/var/tmp/leaks,threshold=3"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *pid = co.pos[0];
    for (const char *q = pid; *q; q++)
        if (*q < '0' || *q > '9')
            return cli_usage_error(&co, "PID must be a process id, got '%s'", pid);
    const char *raw = co.n_pos > 1 ? co.pos[1] : "";
    watch_opts wo;
    char err[300];
    if (watch_opts_parse(raw, &wo, err, sizeof err) != 0)
        return cli_usage_error(&co, "%s", err);
    char abs_opts[8192];
    if (absolutize(raw, abs_opts, sizeof abs_opts) != 0)
        return cli_usage_error(&co, "options too long");
    char so[PATH_MAX];
    if (agent)
        snprintf(so, sizeof so, "%s", agent);
    else if (find_agent(so, sizeof so) != 0)
        return cli_fail(&co, LR_ERR_NOT_FOUND, "libleakray_agent.so not found (--agent SO)");
    char so_abs[PATH_MAX];
    if (!realpath(so, so_abs))
        return cli_fail(&co, LR_ERR_IO, "%s: %s", so, strerror(errno));
    char jbuf[PATH_MAX];
    if (!jcmd) {
        const char *jh = getenv("JAVA_HOME");
        jcmd = "jcmd";
        if (jh && *jh) {
            snprintf(jbuf, sizeof jbuf, "%s/bin/jcmd", jh);
            if (access(jbuf, X_OK) == 0)
                jcmd = jbuf;
        }
    }
    char snapshot[PATH_MAX];
    snprintf(snapshot, sizeof snapshot, "/proc/%s", pid);
    if (access(snapshot, F_OK) != 0)
        return cli_fail(&co, LR_ERR_NOT_FOUND, "no process %s", pid);
    watch_opts wabs;
    if (watch_opts_parse(abs_opts, &wabs, err, sizeof err) != 0)
        return cli_usage_error(&co, "%s", err);
    if ((rc = precheck(&co, pid, &wabs)) != 0)
        return rc;

    /* jcmd prints the command's answer on stdout; read it to tell success from refusal */
    int pfd[2];
    if (pipe(pfd) != 0)
        return cli_fail(&co, LR_ERR_IO, "pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t ch = fork();
    if (ch < 0)
        return cli_fail(&co, LR_ERR_IO, "fork: %s", strerror(errno));
    if (ch == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        char cmdname[] = "JVMTI.agent_load";
        /* jcmd re-parses its arguments as `key=value` pairs; a quoted argument is taken
         * whole, '=' and ',' included */
        char quoted[sizeof abs_opts + 2];
        snprintf(quoted, sizeof quoted, "\"%s\"", abs_opts);
        char *args[] = {(char *)jcmd, (char *)pid, cmdname, so_abs, quoted, NULL};
        if (!abs_opts[0])
            args[4] = NULL;
        execvp(jcmd, args);
        fprintf(stderr, "cannot run %s: %s\n", jcmd, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    char out[4096];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof out - 1 && (r = read(pfd[0], out + n, sizeof out - 1 - n)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        n += (size_t)r;
    }
    out[n] = 0;
    close(pfd[0]);
    int st = 0;
    while (waitpid(ch, &st, 0) < 0 && errno == EINTR)
        ;
    int jrc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    /* the JVM answers "return code: 0" (JDK 17) or nothing on success; a failed
     * Agent_OnAttach gives a non-zero return code, an error names an exception */
    int ok = jrc == 0 && !strstr(out, "return code: -") && !strstr(out, "Exception") &&
             !strstr(out, "rror");
    if (!ok) {
        for (char *q = out; *q; q++)
            if (*q == '\n' && q[1])
                *q = ' ';
        return cli_fail(&co, LR_ERR_IO, "attaching to %s failed (jcmd exit %d): %s", pid, jrc,
                        n ? out : "no output");
    }
    char sp[96];
    snprintf(sp, sizeof sp, "/tmp/leakray-watch-%s.status", pid);
    char shown[sizeof abs_opts]; /* a store URL's password stays out of the terminal */
    url_hide_password(abs_opts, shown, sizeof shown);
    rep_attach res = {pid, so_abs, shown, sp};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_status_attach_json(&w, &res);
        jsonw_obj_end(&w);
        jsonw_finish(&w);
    } else {
        rep_status_attach_text(stdout, &res);
    }
    return CLI_EXIT_OK;
}
