/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The processes procdesc-guardian guards.  Per process it holds B, the
 * peer of the user's descriptor A, shut down for reading (so that nothing
 * a holder sends ever reaches it); a pidfd (readable at the exit; the kill
 * goes through it, never through a recycled pid); and an oracle, an epoll
 * instance holding a registration of A, which the kernel removes when the
 * last reference to A goes and only then.
 *
 * The last close: any change on B wakes us (edge-triggered), and the
 * oracle says whether A is gone or a holder merely shut its copy down.
 * The exit: B is shut down for writing, which raises POLLIN | POLLHUP on A
 * in one step; the record (status, rusage) comes from the owner, which as
 * the parent saw it (PG_STATUS), or from the kernel once somebody else
 * reaped the process (PIDFD_INFO_EXIT); holders ask for it (query.c).
 *
 * Invariants: a process is in the tables from its PG_GUARD until the last
 * close of its descriptor, exited or not; then its three descriptors are
 * closed, and, for a pdfork child, the owner is told (PG_CLOSED) so that it
 * reaps the child, whose pid stayed reserved until then.
 */

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "common.h"
#include "gd.h"
#include "pidfd.h"
#include "syscall.h"

/*
 * How long after a pdfork child's exit the owner's PG_STATUS may take
 * before we look whether the child was reaped at all: the owner's message
 * takes microseconds, a second allows for a loaded machine.
 */
#define	G_OWNER_MS	1000

/*
 * How long to wait for the reap of a process that somebody else reaps
 * (init for an orphan, the parent for pdopenpid) before recording what
 * there is, maybe no status: init reaps at once, a parent may never.
 */
#define	G_REAP_MS	5000

/* /proc/self/fdinfo of an oracle with one registration: under 256 bytes. */
#define	G_FDINFO_LEN	512

static struct procdesc_htab g_byid;	/* Guarded, by descriptor id. */
static struct procdesc_htab g_bycookie;	/* And by A's cookie. */
static struct gchild *g_waiting;	/* Those with a deadline. */
static struct gchild *g_grave;		/* Let go of in this batch. */
static pid_t g_self;			/* Our pid, for kcmp(2). */
static bool g_no_kcmp;			/* kcmp(2) refused: read fdinfo. */

int
g_guard_init(void)
{
	int error;

	g_self = getpid();
	if ((error = procdesc_hash_reserve(&g_byid)) == 0)
		error = procdesc_hash_reserve(&g_bycookie);
	return (error);
}

size_t
g_guard_count(void)
{

	return (g_byid.ht_count);
}

static struct gchild *
g_by_id(uint64_t id)
{
	struct procdesc_hlink *l;

	l = procdesc_hash_first(&g_byid, id);
	return (l == NULL ? NULL : PROCDESC_HENTRY(l, struct gchild, gc_byid));
}

struct gchild *
g_guard_by_cookie(uint64_t cookie)
{
	struct procdesc_hlink *l;

	l = procdesc_hash_first(&g_bycookie, cookie);
	return (l == NULL ? NULL :
	    PROCDESC_HENTRY(l, struct gchild, gc_bycookie));
}

static void
g_set_deadline(struct gchild *gc, int ms)
{

	if (gc->gc_deadline == 0) {
		gc->gc_wnext = g_waiting;
		g_waiting = gc;
	}
	gc->gc_deadline = procdesc_now() + ms * PROCDESC_NS_PER_MS;
}

static void
g_clear_deadline(struct gchild *gc)
{
	struct gchild **pp;

	if (gc->gc_deadline == 0)
		return;
	for (pp = &g_waiting; *pp != gc; pp = &(*pp)->gc_wnext)
		;
	*pp = gc->gc_wnext;
	gc->gc_deadline = 0;
}

/*
 * The oracle's registration of A read from /proc/self/fdinfo: where
 * kcmp(2) is refused.  Without /proc the answer is no.
 */
static bool
g_alive_fdinfo(const struct gchild *gc)
{
	char path[64], buf[G_FDINFO_LEN];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", gc->gc_oracle);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (false);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (false);
	buf[n] = '\0';
	return (strstr(buf, "tfd:") != NULL);
}

/*
 * Whether A, the user's descriptor, still exists anywhere: the oracle's
 * registration of it is there.  kcmp(2) finds it in one system call, a
 * seventh of the cost of reading fdinfo; a kernel without kcmp or a
 * seccomp profile that refuses it (ENOSYS, EPERM) sends us to fdinfo for
 * good.  Any other doubt answers no, so that it kills rather than keeps a
 * child alive (fail closed).
 */
static bool
g_alive(const struct gchild *gc)
{

	if (!g_no_kcmp) {
		if (sys_kcmp_epoll_tfd(g_self, gc->gc_oracle, gc->gc_afd) >= 0)
			return (true);
		if (errno != ENOSYS && errno != EPERM)
			return (false);		/* ENOENT: A is gone. */
		g_no_kcmp = true;
	}
	return (g_alive_fdinfo(gc));
}

/*
 * Forget gc and close its descriptors.  Its memory goes at the end of the
 * epoll batch, which may still hold an event for it (the kill on the last
 * close makes the pidfd readable).
 */
static void
g_free(struct gchild *gc)
{

	procdesc_hash_remove(&g_byid, &gc->gc_byid);
	procdesc_hash_remove(&g_bycookie, &gc->gc_bycookie);
	g_clear_deadline(gc);
	g_query_drop_all(gc);
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, gc->gc_b, NULL);
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, gc->gc_pidfd, NULL);
	close(gc->gc_b);
	close(gc->gc_pidfd);
	close(gc->gc_oracle);
	gc->gc_dead = true;
	gc->gc_gnext = g_grave;
	g_grave = gc;
}

void
g_guard_bury(void)
{
	struct gchild *gc;

	while ((gc = g_grave) != NULL) {
		g_grave = gc->gc_gnext;
		free(gc);
	}
}

/*
 * The last copy of the descriptor is gone: kill the process unless it has
 * exited or is a daemon, and let the owner reap a pdfork child.
 */
static void
g_closed(struct gchild *gc)
{

	if (!gc->gc_exited && (gc->gc_flags & PD_DAEMON) == 0)
		(void)sys_pidfd_send_signal(gc->gc_pidfd, SIGKILL);
	if ((gc->gc_flags & PG_CHILD) != 0)
		g_tell_owner(PG_CLOSED, gc->gc_id, gc->gc_pid);
	g_free(gc);
}

/* How the process exited, which holders may now read. */
static void
g_record(struct gchild *gc, int32_t code, int32_t status,
    const struct rusage *ru)
{

	gc->gc_recorded = true;
	gc->gc_code = code;
	gc->gc_status = status;
	gc->gc_rusage = (ru != NULL);
	if (ru != NULL)
		gc->gc_ru = *ru;
	g_clear_deadline(gc);
	g_query_answer_all(gc);
}

/*
 * The status the kernel keeps for any holder of a pidfd once the process
 * is reaped (PIDFD_INFO_EXIT, Linux 6.15), or, while it is a zombie,
 * what /proc shows of it to its own user (pidfd.c): true and recorded if
 * there is one.  No rusage: only the parent gets that.
 */
static bool
g_exit_info(struct gchild *gc)
{
	int code, st, status;

	if (procdesc_pidfd_exit_status(gc->gc_pidfd, &st) != 0 &&
	    procdesc_pidfd_zombie_status(gc->gc_pidfd, &st) != 0)
		return (false);
	procdesc_wstatus_split(st, &code, &status);
	g_record(gc, code, status, NULL);
	return (true);
}

/*
 * A process that exited, whose owner will not (or did not) report the
 * status: the owner is gone, it is not the owner's child (pdopenpid), or
 * somebody else reaped it.  The status is what the kernel keeps after the
 * reap; wait for the reap (POLLHUP on the pidfd from Linux 6.9, else the
 * deadline), then record what there is: code 0, lost, if nothing.
 */
static void
g_settle(struct gchild *gc, bool final)
{
	struct epoll_event ev;

	if (gc->gc_recorded || g_exit_info(gc))
		return;
	if (final || !g_pidfs) {
		g_record(gc, 0, 0, NULL);
		return;
	}
	gc->gc_reapwait = true;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLONESHOT;	/* EPOLLHUP alone: the reap. */
	ev.data.u64 = (uintptr_t)gc | G_TAG_PIDFD;
	(void)epoll_ctl(g_ep, EPOLL_CTL_MOD, gc->gc_pidfd, &ev);
	g_set_deadline(gc, G_REAP_MS);
}

/* The process exited: one step to POLLIN | POLLHUP on A, then the record. */
static void
g_exited(struct gchild *gc)
{

	if (gc->gc_exited)
		return;
	gc->gc_exited = true;
	(void)shutdown(gc->gc_b, SHUT_WR);
	if (gc->gc_recorded)
		return;
	if ((gc->gc_flags & PG_CHILD) != 0 && g_owner)
		g_set_deadline(gc, G_OWNER_MS);	/* PG_STATUS is coming. */
	else
		g_settle(gc, false);
}

/* The pidfd reported the exit, or (second time) the reap. */
static void
g_pidfd_event(struct gchild *gc)
{

	if (!gc->gc_exited)
		g_exited(gc);
	else
		g_settle(gc, true);	/* The reap. */
}

/* Something changed on B: the last close, or a holder's shutdown. */
static void
g_b_event(struct gchild *gc)
{

	if (!g_alive(gc))
		g_closed(gc);
}

void
g_guard_event(uintptr_t data)
{
	struct gchild *gc;

	gc = (struct gchild *)(data & ~G_TAG_MASK);
	if (gc->gc_dead)
		return;
	if ((data & G_TAG_MASK) == G_TAG_PIDFD)
		g_pidfd_event(gc);
	else
		g_b_event(gc);
}

/* A deadline passed. */
static void
g_expire(struct gchild *gc)
{
	pid_t pid;

	gc->gc_deadline = 0;
	if ((gc->gc_flags & PG_CHILD) != 0 && g_owner &&
	    procdesc_pidfd_pid(gc->gc_pidfd, &pid) == 0) {
		/*
		 * A zombie still (the owner reaps only after the last close),
		 * and no PG_STATUS: the owner's socket to us was full after a
		 * burst of exits, and it dropped the message.  Take what the
		 * kernel shows of the zombie, without rusage; without /proc,
		 * wait on.
		 */
		if (!g_exit_info(gc))
			g_set_deadline(gc, G_OWNER_MS);
		return;
	}
	g_settle(gc, gc->gc_reapwait);
}

void
g_guard_expire(void)
{
	struct gchild *gc, *next, **pp;
	int64_t now;

	now = procdesc_now();
	for (pp = &g_waiting; (gc = *pp) != NULL; ) {
		next = gc->gc_wnext;
		if (gc->gc_deadline > now) {
			pp = &gc->gc_wnext;
			continue;
		}
		*pp = next;
		g_expire(gc);
	}
}

int
g_guard_timeout(void)
{
	struct gchild *gc;
	int64_t first, now;

	if (g_waiting == NULL)
		return (-1);
	first = INT64_MAX;
	for (gc = g_waiting; gc != NULL; gc = gc->gc_wnext)
		if (gc->gc_deadline < first)
			first = gc->gc_deadline;
	now = procdesc_now();
	return (first <= now ? 0 :
	    (int)((first - now) / PROCDESC_NS_PER_MS) + 1);
}

/* The owner is gone: children it would have reported settle by pidfd. */
void
g_guard_orphaned(void)
{
	struct gchild *gc;

	for (gc = g_waiting; gc != NULL; gc = gc->gc_wnext)
		gc->gc_deadline = procdesc_now();
}

/*
 * Watch B (edge-triggered: every change), the pidfd (the exit) and the
 * oracle's registration of A; 0 or an errno value.
 */
static int
g_watch(struct gchild *gc, int a)
{
	struct epoll_event ev;
	int error;

	if ((gc->gc_oracle = epoll_create1(EPOLL_CLOEXEC)) == -1)
		return (errno);
	memset(&ev, 0, sizeof(ev));
	if (epoll_ctl(gc->gc_oracle, EPOLL_CTL_ADD, a, &ev) == -1)
		goto fail;
	gc->gc_afd = a;			/* The registration's key. */
	ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
	ev.data.u64 = (uintptr_t)gc | G_TAG_B;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, gc->gc_b, &ev) == -1)
		goto fail;
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.u64 = (uintptr_t)gc | G_TAG_PIDFD;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, gc->gc_pidfd, &ev) == -1) {
		(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, gc->gc_b, NULL);
		goto fail;
	}
	return (0);
fail:
	error = errno;
	close(gc->gc_oracle);
	return (error);
}

/*
 * Take a process: 0, or why not.  fds: A, B, the pidfd.  A is closed here
 * once it is registered with the oracle; B and the pidfd are the record's
 * from now on.
 */
static int
g_add(const struct pg_msg *m, const int *fds, struct gchild **gcp)
{
	struct gchild *gc;
	socklen_t len;
	int error;

	if (g_guard_count() >= g_capacity)
		return (EMFILE);
	if (procdesc_hash_reserve(&g_byid) != 0 ||
	    procdesc_hash_reserve(&g_bycookie) != 0 ||
	    (gc = calloc(1, sizeof(*gc))) == NULL)
		return (ENOMEM);
	gc->gc_id = m->pm_id;
	gc->gc_pid = m->pm_pid;
	gc->gc_flags = m->pm_flags;
	gc->gc_b = fds[1];
	gc->gc_pidfd = fds[2];
	len = sizeof(gc->gc_cookie);
	if (getsockopt(fds[0], SOL_SOCKET, SO_COOKIE, &gc->gc_cookie,
	    &len) == -1 || shutdown(gc->gc_b, SHUT_RD) == -1)
		error = errno;
	else
		error = g_watch(gc, fds[0]);
	if (error != 0) {
		free(gc);
		return (error);
	}
	procdesc_hash_insert(&g_byid, &gc->gc_byid, gc->gc_id);
	procdesc_hash_insert(&g_bycookie, &gc->gc_bycookie, gc->gc_cookie);
	*gcp = gc;
	return (0);
}

/*
 * Whether this guardian, with the owner's credentials, may guard the
 * process behind pidfd: it could debug it (pidfd_getfd(2)'s check, which
 * pdopenpid makes too; a new child of the owner passes).
 */
static int
g_may_guard(int pidfd)
{

	if (sys_pidfd_getfd(pidfd, -1, 0) == -1 && errno == EPERM)
		return (EPERM);
	return (0);
}

/*
 * PG_GUARD: take the process or refuse.  fds: A, B and a pidfd, exactly;
 * anything else is closed and ignored.  A new child's (PG_CHILD: sent by
 * its parent, or after RFSPAWN by the child) gets no answer, and the
 * child runs on: its owner counted our room before the clone, so a
 * refusal (no memory) or a descriptor gone already (its owner died
 * meanwhile) kills it.  pdopenpid's owner waits for PG_ACK on A.
 */
void
g_guard_msg(struct pg_msg *m, int *fds, int nfds)
{
	struct gchild *gc;
	bool child;
	int i;

	child = (m->pm_flags & PG_CHILD) != 0;
	if (nfds != PG_GUARD_FDS) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return;
	}
	gc = NULL;
	if ((m->pm_error = child ? 0 : g_may_guard(fds[2])) == 0)
		m->pm_error = g_add(m, fds, &gc);
	close(fds[0]);			/* A: the oracle has it. */
	if (gc != NULL && !g_alive(gc))
		m->pm_error = EPIPE;	/* Its last copy is gone already. */
	if (!child) {
		m->pm_op = PG_ACK;
		(void)send(fds[1], m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (gc != NULL && m->pm_error != 0)
		g_closed(gc);		/* Kills it, closes B and the pidfd. */
	else if (gc == NULL) {
		if (child) {
			(void)sys_pidfd_send_signal(fds[2], SIGKILL);
			g_tell_owner(PG_CLOSED, m->pm_id, m->pm_pid);
		}
		close(fds[1]);
		close(fds[2]);
	}
}

/*
 * PG_STATUS: the owner, the parent, saw the child exit.  Believe it only
 * if the pidfd says the process has exited: no descriptor reports an exit
 * that did not happen.  If the owner found no status (somebody else
 * reaped the child), the kernel's record is taken where there is one.
 */
void
g_status_msg(const struct pg_msg *m)
{
	struct pollfd pfd;
	struct gchild *gc;

	if ((gc = g_by_id(m->pm_id)) == NULL || gc->gc_recorded)
		return;
	pfd.fd = gc->gc_pidfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1)
		return;
	g_exited(gc);
	/* Code 0: reaped behind the owner's back; the kernel may know. */
	if (m->pm_code != 0 || !g_exit_info(gc))
		g_record(gc, m->pm_code, m->pm_status, &m->pm_ru);
}

/*
 * PG_ASK: the owner waits for a pid and asks whether the last copy of
 * descriptor pm_id is gone, since a wait for the pid then fails with
 * ECHILD.  The oracle is asked now, so that a last close whose event is
 * still on its way is acted upon (PG_CLOSED) before the answer; the
 * answer follows every PG_CLOSED owed for pm_id on the same socket.
 */
void
g_ask_msg(const struct pg_msg *m)
{
	struct gchild *gc;

	if ((gc = g_by_id(m->pm_id)) != NULL &&
	    (gc->gc_flags & PG_CHILD) != 0 && !g_alive(gc))
		g_closed(gc);
	g_tell_owner(PG_ANSWER, m->pm_id, 0);
}
