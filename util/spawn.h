/* spawn: run a child program that never outlives its parent.  The child
 * gets a stop signal when the parent dies, even by SIGKILL
 * (PR_SET_PDEATHSIG); a SIGINT or SIGTERM to the parent is passed on to
 * the child (or to its whole process group); the parent waits for it.
 * calibrate runs its benchmark and `scitrace run` its job this way. */
#ifndef SCITORUS_SPAWN_H
#define SCITORUS_SPAWN_H

typedef struct spawn_opts {
    const char *prog;      /* for messages: "calibrate", "scitrace: run" */
    int stop_signal;       /* sent on the parent's death and on a stop request */
    int own_group;         /* 1: the child leads a process group of its own and
                              a stop goes to the whole group (an MPI launcher and
                              its ranks); a terminal's Ctrl-C reaches the parent */
    int stdin_null;        /* 1: the child reads /dev/null (0: only when
                              own_group and stdin is a terminal, which a
                              background group may not read) */
    int grace_s;           /* own_group: after a stop, how long the group may
                              take to end once its leader did; then SIGTERM,
                              2 s later SIGKILL */
    void (*setup)(void *arg);   /* runs in the child just before exec */
    void *setup_arg;
    /* When not NULL, set to the child's wall time and the CPU time (user +
     * system) of it and the descendants it waited for, in seconds. */
    double *wall_s, *cpu_s;
} spawn_opts;

/* Runs argv (argv[0] looked up on PATH) and waits for it.  Returns the
 * child's exit status (128 + signal when killed), -1 on a system error
 * (errno set), or -2 when the parent was asked to stop (a stop signal:
 * util/signals.h) and passed it on. */
int spawn_run(char *const argv[], const spawn_opts *o);

#endif
