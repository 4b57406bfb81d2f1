/*
 * session.h - one pulley-collect run of a program: the agent behind a
 * mutex, so that the main thread (running the program) and the signal
 * thread (SIGINT, SIGTERM, SIGHUP) can race to end the run and only one
 * does.  After a signal the run is committed first, then the signal is
 * raised again with its default action, so the exit status still says
 * "killed by SIGINT".
 */
#ifndef PULLEY_COLLECT_SESSION_H
#define PULLEY_COLLECT_SESSION_H

#include <pthread.h>

#include <pulley/profile.h>

typedef struct collect_session {
    const char *tool;    /* for messages */
    const char *db_path;
    unsigned hz;         /* the rate asked for (0: the default) */
    pthread_mutex_t lock;
    pulleyprof_agent *agent;    /* NULL once the run is closed */
    int close_status;    /* 0, or 1 if closing reported an error */
} collect_session;

/* Block the termination signals in this thread and in every thread it
 * creates from now on (call before the agent starts its threads).
 * Returns 0 or -1. */
int session_block_signals(void);

/* Open the agent; then a thread waits for the blocked signals and ends
 * the run when one comes.  Returns 0, or -1 after printing the error. */
int session_start(collect_session *s, const pulleyprof_config *cfg);

/* The agent, locked; NULL (still locked) once the run has ended.  Every
 * use of the agent goes between session_lock and session_unlock. */
pulleyprof_agent *session_lock(collect_session *s);
void session_unlock(collect_session *s);

/* End the run (if a signal has not already): record the outcome, close
 * the agent and print the one-line summary on stderr.  Returns the exit
 * status to use: exit_status when the run was stored whole, else 1 (after
 * saying what was lost). */
int session_finish(collect_session *s, const char *outcome, int exit_status);

#endif
