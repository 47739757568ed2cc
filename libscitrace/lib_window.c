/* lib_window: the rank file's mapped windows (lib_log.c writes the
 * records into them).  A window's blocks are allocated and written with
 * zeros before it is mapped, and its pages faulted in writable: a full disk
 * is an error when it is prepared, never a SIGBUS in a call, and a record
 * lands in a page already there.  The next window is prepared by a thread
 * of the library while the calls write into the current one. */
#include "libscitrace/lib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- the next window, prepared by the library's thread while the calls
 * write into the current one.  Its mutex and condition are touched once
 * per window; the file's size changes only between `busy` set and clear,
 * after `closing` is seen clear, so that a closing file is cut for good. */
enum { NX_IDLE, NX_WANT, NX_BUSY, NX_READY, NX_FAILED };
static struct {
    int started, state, err;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a request, an old window, a result */
    uint64_t base, len;         /* the window asked for, then prepared */
    char *win;
    char *old;                  /* a window to unmap */
    uint64_t old_len;
} nx = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
static int nx_busy, nx_closing;
static int win_fd = -1;
static uint64_t win_size, filled;   /* filled: the file holds blocks (zeros) up to here */
static _Thread_local int nx_self;   /* 1 in the library's thread */

/* 0 when the file may change size now (then nx_end_change), -1 once it is
 * closing: sequentially consistent, with trace_win_closing's pair of accesses. */
static int nx_begin_change(void)
{
    if (!nx_self)
        return 0;
    __atomic_store_n(&nx_busy, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&nx_closing, __ATOMIC_SEQ_CST))
        return 0;
    __atomic_store_n(&nx_busy, 0, __ATOMIC_SEQ_CST);
    errno = ECANCELED;
    return -1;
}

static void nx_end_change(void)
{
    if (nx_self)
        __atomic_store_n(&nx_busy, 0, __ATOMIC_SEQ_CST);
}

void trace_win_closing(void)
{
    __atomic_store_n(&nx_closing, 1, __ATOMIC_SEQ_CST);
    while (!nx_self && __atomic_load_n(&nx_busy, __ATOMIC_SEQ_CST))
        ;   /* one step: a fallocate, a pwrite of zeros or a populate */
}

static void *nx_main(void *arg)
{
    (void)arg;
    nx_self = 1;
    pthread_mutex_lock(&nx.mu);
    for (;;) {
        while (nx.state != NX_WANT && !nx.old)
            pthread_cond_wait(&nx.cv, &nx.mu);
        char *old = nx.old, *win = NULL;
        uint64_t old_len = nx.old_len, base = nx.base, len = nx.len;
        int want = nx.state == NX_WANT;
        nx.old = NULL;
        if (want)
            nx.state = NX_BUSY;
        pthread_mutex_unlock(&nx.mu);
        if (old)
            munmap(old, old_len);
        int rc = want ? trace_win_make(base, len, &win) : 0, err = errno;
        pthread_mutex_lock(&nx.mu);
        if (want) {
            nx.win = win, nx.err = err;
            nx.state = rc == 0 ? NX_READY : NX_FAILED;
            pthread_cond_broadcast(&nx.cv);
        }
    }
    return NULL;
}

/* The child of a fork has no such thread: it moves its windows itself. */
static void nx_forked(void)
{
    nx.started = 0;
}

void trace_win_init(int fd, uint64_t window)
{
    win_fd = fd, win_size = window, filled = 0;
}

/* Every signal blocked in the library's thread: a process's signal then
 * goes to the program's threads.  Without the thread, the calling thread
 * prepares its windows itself. */
void trace_win_start(uint64_t base, uint64_t len)
{
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);
    nx.started = pthread_create(&nx.th, NULL, nx_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (nx.started) {
        pthread_detach(nx.th);
        pthread_atfork(NULL, NULL, nx_forked);
        trace_win_request(base, len);
    }
}

/* Asks for the window after [base, base + len): from its last page on,
 * where a record that does not fit at its end starts.  nx.mu held. */
static void nx_request(uint64_t base, uint64_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    nx.base = base + len - (uint64_t)page, nx.len = win_size;
    nx.state = NX_WANT;
    pthread_cond_broadcast(&nx.cv);
}

void trace_win_request(uint64_t base, uint64_t len)
{
    if (!nx.started)
        return;
    pthread_mutex_lock(&nx.mu);
    nx_request(base, len);
    pthread_mutex_unlock(&nx.mu);
}

int trace_win_swap(uint64_t pos, size_t need, char **win, uint64_t *base, uint64_t *len)
{
    if (!nx.started)
        return 0;
    /* a request the thread has not taken yet (it was not given a core in
     * time) is withdrawn: the calling thread makes the window itself */
    pthread_mutex_lock(&nx.mu);
    while (nx.state == NX_BUSY)
        pthread_cond_wait(&nx.cv, &nx.mu);
    int rc = 0;
    if (nx.state == NX_FAILED) {
        errno = nx.err;
        rc = -1;
    } else if (nx.state == NX_READY && nx.base <= pos && pos + need <= nx.base + nx.len) {
        if (nx.old)
            munmap(nx.old, nx.old_len);
        nx.old = *win, nx.old_len = *len;
        *win = nx.win, *base = nx.base, *len = nx.len;
        nx_request(*base, *len);
        rc = 1;
    } else if (nx.state == NX_READY) {
        munmap(nx.win, nx.len);
    }
    if (rc != 1)
        nx.state = NX_IDLE;
    pthread_mutex_unlock(&nx.mu);
    return rc;
}

int trace_win_make(uint64_t base, uint64_t len, char **win)
{
    /* blocks allocated now: a full disk is an error here, not a SIGBUS later */
    if (nx_begin_change() != 0)
        return -1;
    int rc = posix_fallocate(win_fd, (off_t)base, (off_t)len);
    nx_end_change();
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* and written with zeros: a record then lands in a page of the page
     * cache, where the first write to a page the file system has only
     * reserved costs a fault of several steps (make bench-trace) */
    static char zeros[1u << 18];   /* never written: .bss, no file or memory */
    for (uint64_t at = filled > base ? filled : base; at < base + len;) {
        size_t n = base + len - at < sizeof zeros ? (size_t)(base + len - at) : sizeof zeros;
        if (nx_begin_change() != 0)
            return -1;
        ssize_t got = pwrite(win_fd, zeros, n, (off_t)at);
        nx_end_change();
        if (got <= 0)
            return -1;
        at += (uint64_t)got;
        filled = at;
    }
    void *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, win_fd, (off_t)base);
    if (w == MAP_FAILED)
        return -1;
    /* each page's write fault taken here, not in the calls (MAP_POPULATE
     * would map the pages read-only and leave a dearer fault to the first
     * write); a kernel without it (before Linux 5.14) faults as before */
#ifdef MADV_POPULATE_WRITE
    if (nx_begin_change() != 0) {
        munmap(w, len);
        return -1;
    }
    (void)madvise(w, len, MADV_POPULATE_WRITE);
    nx_end_change();
#endif
    *win = w;
    return 0;
}

