/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The reaper: the library's only thread in the owner.  It sees every
 * pdfork child exit, records the exit (child.c) and tells the child's
 * guardian (PG_STATUS), which hands it to the descriptor's other holders;
 * it hears from each guardian when the last copy of a descriptor goes
 * (PG_CLOSED), so that the child is reaped then and not before (its pid
 * stays reserved meanwhile); it relays a wait's question whether that
 * has happened (PG_ASK, answered by PG_ANSWER: child.c); and it fails a
 * dead guardian's children closed.
 *
 * It works from a descriptor table of its own (unshare(CLONE_FILES) when
 * it starts), so that an application that closes every descriptor
 * (closefrom(3)) or reuses their numbers cannot blind it, and its
 * descriptors count against nobody's: a pidfd of each child until its exit
 * is recorded, a copy of each guardian's control socket, a pidfd of each
 * guardian's sentry, and a signalfd.  The other threads hand it work
 * through rp_work, under procdesc_mtx, and a thread-directed SIGURG, which
 * it keeps blocked and reads from the signalfd: so no descriptor of the
 * application's table is needed to wake it, and no handler is installed.
 * It makes its system calls raw (compat/syscall.h), since its descriptor
 * numbers mean other files than everybody else's.
 *
 * Invariants: rp_tid is the thread's while it runs in this process, 0
 * before; every request queued before the thread reads rp_work is seen by
 * it, and every request after comes with a kick.
 */

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "child.h"
#include "closekill.h"
#include "lock.h"
#include "reaper.h"
#include "syscall.h"

/*
 * The thread's stack: its deepest call (a recorded exit that reads
 * /proc/PID/stat for a stalled guardian) needs a few KiB, and glibc's
 * default would reserve 8 MiB of address space per owner for nothing.
 * Under glibc it is the arena's (and so are the thread's descriptor and
 * TLS, which glibc puts at its top): the thread runs at every creation,
 * and a fork neither copies its pages nor makes it fault them again.
 * glibc's fork child only unlinks the other threads' descriptors, zero
 * there; musl's fork child crashed with them wiped (NOTES 2.19).  Made
 * once: a forked copy, where the thread does not exist, finds the same
 * pages there, zero, for its own.
 */
#define	RP_STACK	(64 * 1024)

/* The signal that wakes the thread: thread-directed, blocked, read. */
#define	RP_KICK		SIGURG

/* Events per epoll_wait: the rest come with the next call. */
#define	RP_EVENTS	32

/* What an event is about: epoll data, kind << 56 | fd << 32 | value. */
#define	RP_KIND_KICK	1ULL		/* The signalfd. */
#define	RP_KIND_CHILD	2ULL		/* A child's pidfd; value: pid. */
#define	RP_KIND_CTL	3ULL		/* A guardian's socket; slot. */
#define	RP_KIND_SENTRY	4ULL		/* A sentry's pidfd; slot. */
#define	RP_KIND_ASK	5ULL		/* Work only: PG_ASK; slot. */
#define	RP_DATA(k, fd, v) ((k) << 56 | (uint64_t)(uint32_t)(fd) << 32 | \
			    (uint64_t)(uint32_t)(v))
#define	RP_DATA_KIND(d)	((d) >> 56)
#define	RP_DATA_FD(d)	((int)(((d) >> 32) & 0xffffff))
#define	RP_DATA_VAL(d)	((int)(uint32_t)(d))

/* Work for the thread. */
struct rp_work {
	struct rp_work	*rw_next;
	int		 rw_kind;	/* RP_KIND_CHILD, _CTL or _ASK. */
	int		 rw_val;	/* The pid, or the guardian's slot. */
	uint64_t	 rw_id;		/* RP_KIND_ASK: the descriptor. */
};

static bool rp_running;			/* (l) The thread exists. */
static void *rp_stack;			/* (l) Its stack. */
static pid_t rp_tid;			/* (l) It, once it reads rp_work. */
static struct rp_work *rp_work;		/* (l) Its queue. */

/*
 * The thread's own, in its own descriptor table (or, if it could not have
 * one, in the application's: rp_private false): (r) reaper only.
 */
static bool rp_private;			/* (r) */
static int rp_ep = -1;			/* (r) */
static int rp_self = -1;		/* (r) A pidfd of our process. */
static int *rp_ctl;			/* (r) Guardians' sockets, by slot. */
static int rp_nctl;			/* (r) */

/* Wake the thread tid (0: none yet, nothing to do). */
static void
rp_kick(pid_t tid)
{

	if (tid != 0)
		(void)sys_tgkill(getpid(), tid, RP_KICK);
}

/* Work for the thread, made without procdesc_mtx on the creation path. */
static struct rp_work *
rp_work_new(int kind, int val, uint64_t id)
{
	struct rp_work *w;

	if ((w = procdesc_arena_zalloc(sizeof(*w))) != NULL) {
		w->rw_kind = kind;
		w->rw_val = val;
		w->rw_id = id;
	}
	return (w);
}

/*
 * Queue w for the thread; mtx held.  Returns the thread to wake, or 0:
 * none is needed while the queue was not empty, since the thread reads
 * its wake-ups away before it takes the queue, so one is on its way.
 * The caller wakes it once the mutex is free, rather than have it wake
 * only to wait for the mutex.
 */
static pid_t
rp_push(struct rp_work *w)
{
	pid_t tid;

	PROCDESC_ASSERT_LOCKED();
	tid = (rp_work == NULL) ? rp_tid : 0;
	w->rw_next = rp_work;
	rp_work = w;
	return (tid);
}

/* Queue work; silently dropped if out of memory. */
static void
rp_queue(int kind, int val)
{
	struct rp_work *w;
	pid_t tid;

	if ((w = rp_work_new(kind, val, 0)) == NULL)
		return;
	procdesc_lock();
	tid = rp_push(w);
	procdesc_unlock();
	rp_kick(tid);
}

/* A new child, adopted: watch its exit. */
void
procdesc_reaper_watch_child(pid_t pid)
{

	rp_queue((int)RP_KIND_CHILD, pid);
}

/* A new guardian in slot: hear from it, and see it die. */
void
procdesc_reaper_watch_guardian(int slot)
{

	rp_queue((int)RP_KIND_CTL, slot);
}

/*
 * Ask guardian slot whether the last copy of descriptor id is gone (only
 * our copy of its socket is sure to be there): true if the question is on
 * its way, and procdesc_child_answered(id) comes.  mtx held (the malloc
 * under it is on this rare path only: a wait for a pid whose descriptor
 * is not where pdfork put it).
 */
bool
procdesc_reaper_ask(int slot, uint64_t id)
{
	struct rp_work *w;

	PROCDESC_ASSERT_LOCKED();
	if (!rp_running || (w = rp_work_new((int)RP_KIND_ASK, slot,
	    id)) == NULL)
		return (false);
	rp_kick(rp_push(w));
	return (true);
}

/* Send a queued ask; with none on its way, the asker hears so at once. */
static void
rp_ask(int slot, uint64_t id)
{
	const struct procdesc_ck_ops *ck;

	ck = &procdesc_ck_guardian;
	procdesc_lock();
	if (slot >= rp_nctl || rp_ctl[slot] == -1 ||
	    ck->ck_ask(rp_ctl[slot], id) != 0)
		procdesc_child_answered(id);
	procdesc_unlock();
}

static int
rp_watch(int fd, uint64_t data)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = data;
	return (sys_epoll_ctl(rp_ep, EPOLL_CTL_ADD, fd, &ev));
}

/* Stop watching fd, and close it unless it is the application's. */
static void
rp_unwatch(int fd, bool ours)
{

	(void)sys_epoll_ctl(rp_ep, EPOLL_CTL_DEL, fd, NULL);
	if (ours)
		(void)sys_close(fd);
}

/*
 * A child to watch: a pidfd of it, made here.  Only we reap it, so its pid
 * is its own until then; if it is gone already, the exit is recorded now.
 */
static void
rp_add_child(pid_t pid)
{
	int fd;

	if ((fd = sys_pidfd_open(pid, 0)) == -1 ||
	    rp_watch(fd, RP_DATA(RP_KIND_CHILD, fd, pid)) == -1) {
		if (fd != -1)
			(void)sys_close(fd);
		/* XXX: with no pidfd, its exit is seen by pdwait alone. */
	}
}

/*
 * A guardian to hear from: our copy of its control socket, taken from the
 * application's table (pidfd_getfd(2) on our own process, Linux 5.6) and
 * checked to be the socket we made; and a pidfd of its sentry.
 */
static void
rp_add_guardian(int slot)
{
	const struct procdesc_ck_ops *ck;
	struct stat st;
	dev_t dev;
	ino_t ino;
	pid_t sentry;
	int *tab, fd, sock;

	ck = &procdesc_ck_guardian;
	procdesc_lock();
	ck->ck_watcher_info(slot, &sock, &dev, &ino, &sentry);
	procdesc_unlock();
	if (slot >= rp_nctl) {
		/* The arena's, so that this thread never uses malloc. */
		if ((tab = procdesc_arena_grow(rp_ctl, rp_nctl * sizeof(*tab),
		    (slot + 1) * sizeof(*tab))) == NULL)
			return;
		for (; rp_nctl <= slot; rp_nctl++)
			tab[rp_nctl] = -1;
		rp_ctl = tab;
	}
	if (rp_ctl[slot] != -1)
		rp_unwatch(rp_ctl[slot], rp_private);
	rp_ctl[slot] = -1;
	fd = -1;
	if (sock != -1 && !rp_private)
		fd = sock;
	else if (sock != -1 && rp_self != -1)
		fd = sys_pidfd_getfd(rp_self, sock, 0);
	if (fd != -1) {
		if (sys_fstat(fd, &st) == 0 && st.st_dev == dev &&
		    st.st_ino == ino &&
		    rp_watch(fd, RP_DATA(RP_KIND_CTL, fd, slot)) == 0)
			rp_ctl[slot] = fd;
		else if (rp_private)
			(void)sys_close(fd);
	}
	if (sentry > 0 && (fd = sys_pidfd_open(sentry, 0)) != -1 &&
	    rp_watch(fd, RP_DATA(RP_KIND_SENTRY, fd, slot)) == -1)
		(void)sys_close(fd);
}

/*
 * Take the queue, and do it in the order it came (a guardian is watched
 * before a question to it is sent).
 */
static void
rp_do_work(void)
{
	struct rp_work *w, *next, *fifo;

	procdesc_lock();
	w = rp_work;
	rp_work = NULL;
	procdesc_unlock();
	for (fifo = NULL; w != NULL; w = next) {
		next = w->rw_next;
		w->rw_next = fifo;
		fifo = w;
	}
	for (w = fifo; w != NULL; w = next) {
		next = w->rw_next;
		if (w->rw_kind == (int)RP_KIND_CHILD)
			rp_add_child(w->rw_val);
		else if (w->rw_kind == (int)RP_KIND_CTL)
			rp_add_guardian(w->rw_val);
		else
			rp_ask(w->rw_val, w->rw_id);
		procdesc_arena_free(w, sizeof(*w));
	}
}

/* The kick's signals, read away. */
static void
rp_drain(int fd)
{
	struct signalfd_siginfo ssi;

	while (sys_read(fd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
		;
}

/*
 * A child exited: record it and tell its guardian, through our copy of its
 * socket (else the application's, if that is still the one we made).
 */
static void
rp_child(int fd, pid_t pid)
{
	const struct procdesc_ck_ops *ck;
	struct rusage ru;
	siginfo_t si;
	uint64_t id;
	int w;

	ck = &procdesc_ck_guardian;
	rp_unwatch(fd, true);
	procdesc_lock();
	if (procdesc_child_exit_seen(pid, &w, &id, &si, &ru))
		(void)ck->ck_status(w, w < rp_nctl ? rp_ctl[w] : -1, id, pid,
		    &si, &ru);
	procdesc_unlock();
}

/* A guardian's messages: the last closes of its descriptors, answers. */
static void
rp_ctl_event(int fd, int slot)
{
	const struct procdesc_ck_ops *ck;
	uint64_t id;
	int error;
	bool closed;

	ck = &procdesc_ck_guardian;
	while ((error = ck->ck_recv(fd, &id, &closed)) == 0) {
		procdesc_lock();
		if (closed)
			procdesc_child_closed(id);
		else
			procdesc_child_answered(id);
		procdesc_unlock();
	}
	if (error != EAGAIN && error != EINTR) {
		/* Gone: its sentry's pidfd says so too, and we act then. */
		rp_unwatch(fd, rp_private);
		rp_ctl[slot] = -1;
	}
}

/* A guardian died (its sentry's exit): fail its children closed. */
static void
rp_sentry(int fd, int slot)
{
	const struct procdesc_ck_ops *ck;

	ck = &procdesc_ck_guardian;
	rp_unwatch(fd, true);
	procdesc_lock();
	ck->ck_died(slot);
	procdesc_child_orphans(slot);
	procdesc_unlock();
}

static void
rp_event(uint64_t d)
{

	switch (RP_DATA_KIND(d)) {
	case RP_KIND_KICK:
		rp_drain(RP_DATA_FD(d));
		rp_do_work();
		break;
	case RP_KIND_CHILD:
		rp_child(RP_DATA_FD(d), RP_DATA_VAL(d));
		break;
	case RP_KIND_CTL:
		rp_ctl_event(RP_DATA_FD(d), RP_DATA_VAL(d));
		break;
	case RP_KIND_SENTRY:
		rp_sentry(RP_DATA_FD(d), RP_DATA_VAL(d));
		break;
	}
}

/*
 * The thread's own descriptor table: a copy of the application's, emptied
 * at once (the copies would keep the application's descriptors, process
 * descriptors among them, open).  Only where pidfd_getfd(2) (Linux 5.6)
 * can copy the guardians' sockets into it, else nobody would read their
 * PG_CLOSED (EBADF for descriptor -1 says the call exists); and where
 * unshare(2) is allowed (seccomp).  Else the application's table, which
 * its closefrom(3) can empty under us.  Then its epoll, its signalfd and
 * a pidfd of our process.  false if any of it fails: the thread then does
 * nothing, and pdwait alone sees exits.
 */
static bool
rp_setup(void)
{
	uint64_t mask;
	int sfd;

	if (sys_pidfd_getfd(-1, 0, 0) == -1 && errno == EBADF &&
	    (rp_private = sys_unshare(CLONE_FILES) == 0))
		(void)sys_close_range(0, ~0U, 0);
	mask = 1ULL << (RP_KICK - 1);
	if ((rp_ep = sys_epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (sfd = sys_signalfd(&mask, SFD_NONBLOCK | SFD_CLOEXEC)) == -1 ||
	    rp_watch(sfd, RP_DATA(RP_KIND_KICK, sfd, 0)) == -1)
		return (false);
	rp_self = sys_pidfd_open(getpid(), 0);
	return (true);
}

static void *
rp_main(void *arg)
{
	struct epoll_event evs[RP_EVENTS];
	int i, n;

	(void)arg;
	if (!rp_setup())
		return (NULL);
	procdesc_lock();
	rp_tid = sys_gettid();
	procdesc_unlock();
	rp_do_work();
	for (;;) {
		if ((n = sys_epoll_wait(rp_ep, evs, RP_EVENTS, -1)) == -1)
			continue;
		for (i = 0; i < n; i++)
			rp_event(evs[i].data.u64);
	}
	return (NULL);
}

/* The thread, detached, on stack (RP_STACK bytes), or NULL: glibc's. */
static int
rp_create(void *stack)
{
	pthread_attr_t attr;
	pthread_t td;
	int error;

	pthread_attr_init(&attr);
	if (stack != NULL)
		pthread_attr_setstack(&attr, stack, RP_STACK);
	else
		pthread_attr_setstacksize(&attr, RP_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	error = pthread_create(&td, &attr, rp_main, NULL);
	pthread_attr_destroy(&attr);
	return (error);
}

/*
 * Start the reaper unless it runs: all signals blocked, so that it never
 * runs an application handler (and RP_KICK stays pending for its
 * signalfd), and a small stack.
 */
int
procdesc_reaper_start(void)
{
	sigset_t all, old;
	int error;

	procdesc_lock();
	if (rp_running) {
		procdesc_unlock();
		return (0);
	}
#ifdef __GLIBC__
	if (rp_stack == NULL)
		rp_stack = procdesc_arena_stack(RP_STACK);
#endif
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/*
	 * glibc's own stack where ours will not do: glibc puts the static
	 * TLS in a given stack too, and refuses one too small for it (a
	 * thread sanitizer's TLS is that large).
	 */
	if ((error = rp_create(rp_stack)) == EINVAL && rp_stack != NULL)
		error = rp_create(NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (error == 0)
		rp_running = true;
	procdesc_unlock();
	return (error);
}

/*
 * In a forked copy: the thread did not survive the fork, nor did its
 * descriptor table.  Its queue is the parent's: dropped, not freed.
 */
void
procdesc_reaper_atfork_child(void)
{

	rp_running = false;
	rp_tid = 0;
	rp_work = NULL;
	rp_private = false;
	rp_ep = -1;
	rp_self = -1;
	rp_ctl = NULL;
	rp_nctl = 0;
}
