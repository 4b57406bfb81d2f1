/*
 * session.c - ending a collect run exactly once, from the program's end
 * or from a termination signal (see session.h), and the summary line.
 */
#include "session.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sigset_t termination_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

int session_block_signals(void)
{
    /* A shell starts background jobs with SIGINT ignored, and an ignored
     * signal never reaches sigwait: take the termination signals back. */
    sigset_t set = termination_signals();
    if (signal(SIGINT, SIG_DFL) == SIG_ERR || signal(SIGTERM, SIG_DFL) == SIG_ERR)
        return -1;
    return pthread_sigmask(SIG_BLOCK, &set, NULL) == 0 ? 0 : -1;
}

static void print_summary(const collect_session *s, const pulleyprof_summary *sum)
{
    if (sum->exact) {
        fprintf(stderr, "%s: %llu instructions executed (exact counts) in %.3f s, run %lld in %s\n",
                s->tool, (unsigned long long)sum->executed, (double)sum->duration_ns / 1e9,
                (long long)sum->run_id, s->db_path);
        return;
    }
    double secs = (double)sum->sampled_ns / 1e9;
    double rate = secs > 0 ? (double)sum->samples_taken / secs : 0;
    double per = sum->samples_written ? (double)sum->bytes_stored / (double)sum->samples_written : 0;
    double core = sum->duration_ns ? 100.0 * (double)sum->sampler_cpu_ns / (double)sum->duration_ns
                                   : 0;
    fprintf(stderr,
            "%s: %llu samples (%llu written, %llu dropped) in %.3f s, %.0f Hz, sampler %.2f%% of"
            " a core, %llu bytes (%.3f B/sample), run %lld in %s\n",
            s->tool, (unsigned long long)sum->samples_taken,
            (unsigned long long)sum->samples_written, (unsigned long long)sum->samples_dropped,
            secs, rate, core, (unsigned long long)sum->bytes_stored, per, (long long)sum->run_id,
            s->db_path);
    /* Asked for more than the machine gives: say so (over a tenth of a
     * second, so that the first ticks' jitter does not count). */
    unsigned hz = s->hz ? s->hz : PULLEYPROF_DEFAULT_HZ;
    if (secs >= 0.1 && sum->ticks_missed && rate < 0.5 * hz)
        fprintf(stderr,
                "%s: warning: sampled at %.0f Hz of the %u Hz asked for (%llu ticks missed): the"
                " sampler cannot keep up; ask for less (see --help)\n",
                s->tool, rate, hz, (unsigned long long)sum->ticks_missed);
    if (sum->samples_unattributed)
        fprintf(stderr,
                "%s: warning: %llu samples at addresses of no registered function (stored"
                " without one: pc_samples.function_id NULL)\n",
                s->tool, (unsigned long long)sum->samples_unattributed);
}

int session_finish(collect_session *s, const char *outcome, int exit_status)
{
    pthread_mutex_lock(&s->lock);
    if (s->agent) {
        char err[512] = "";
        pulleyprof_summary sum;
        pulleyprof_set_outcome(s->agent, outcome, exit_status);
        int rc = pulleyprof_close(s->agent, &sum, err, sizeof err);
        if (rc == PULLEYPROF_RUN_LOST) /* no summary: nothing of it is on disk */
            fprintf(stderr, "%s: %s\n", s->tool, err);
        else if (rc != 0)
            fprintf(stderr, "%s: run %lld in %s is incomplete: %s\n", s->tool,
                    (long long)sum.run_id, s->db_path, err);
        if (rc != 0)
            s->close_status = 1;
        s->agent = NULL;
        if (rc != PULLEYPROF_RUN_LOST)
            print_summary(s, &sum);
    }
    int status = s->close_status ? 1 : exit_status;
    pthread_mutex_unlock(&s->lock);
    return status;
}

static void *signal_main(void *arg)
{
    collect_session *s = arg;
    sigset_t set = termination_signals();
    int sig;
    if (sigwait(&set, &sig) != 0)
        return NULL;
    char outcome[64];
    snprintf(outcome, sizeof outcome, "signal %s",
             sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    fflush(stdout); /* the program's output so far */
    session_finish(s, outcome, 128 + sig);
    /* Die of the signal, as the program would have. */
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig);
}

int session_start(collect_session *s, const pulleyprof_config *cfg)
{
    char err[512] = "";
    s->db_path = cfg->db_path;
    s->hz = cfg->sample_hz;
    s->close_status = 0;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        fprintf(stderr, "%s: cannot create a mutex\n", s->tool);
        return -1;
    }
    s->agent = pulleyprof_open(cfg, err, sizeof err);
    if (!s->agent) {
        fprintf(stderr, "%s: %s\n", s->tool, err);
        return -1;
    }
    pthread_t t;
    int rc = pthread_create(&t, NULL, signal_main, s);
    if (rc != 0 || pthread_detach(t) != 0) {
        fprintf(stderr, "%s: cannot start the signal thread: %s\n", s->tool, strerror(rc));
        session_finish(s, "collector failed to start", 1);
        return -1;
    }
    return 0;
}

pulleyprof_agent *session_lock(collect_session *s)
{
    pthread_mutex_lock(&s->lock);
    return s->agent;
}

void session_unlock(collect_session *s) { pthread_mutex_unlock(&s->lock); }
