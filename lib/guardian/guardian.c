/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * procdesc-guardian: kills a child when the last copy of its descriptor is
 * closed, wherever that copy lives and whether or not the owner still
 * exists, and puts the child's exit record on the descriptor.  Started by
 * the library (lib/guardian_client.c) with its control socket as fd 3.
 *
 * One thread, one epoll loop, no thread per child: per child it holds B,
 * the peer of the user's descriptor A (EPOLLHUP when the last reference to
 * A is gone), and a pidfd (readable at the exit; the kill goes through it,
 * never through a recycled pid).  See protocol.h for the messages.
 *
 * Invariants: a child is in g_hash from its PG_GUARD until its last close
 * or its record, and then both of its descriptors are closed; nothing is
 * ever sent to the owner but PG_HELLO; the process exits once the owner
 * is gone and no child is left.
 */

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "procdesc_impl.h"
#include "syscall.h"
#include "protocol.h"

/*
 * Descriptors kept free of children, so that a PG_GUARD is never cut:
 * stdio, the control socket, epoll and a PG_GUARD's PG_GUARD_FDS, twice.
 */
#define	G_RESERVE	16

/* A child's descriptors here: B and its pidfd. */
#define	G_FDS_PER_CHILD	2

/* Events per epoll_wait: the rest come with the next call. */
#define	G_EVENTS	64

/*
 * How long after a PG_CHILD's exit the owner's PG_EXITED may take before
 * we look whether the child was reaped at all: the reaper's message takes
 * microseconds, a second allows for a loaded machine.
 */
#define	G_OWNER_MS	1000

/*
 * How long to wait for the reap of a child that somebody else reaps
 * (init for an orphan, the parent for pdopenpid) before recording what
 * there is, maybe no status: init reaps at once, a parent may never.
 */
#define	G_REAP_MS	5000

/* A child's tag in epoll data: B or its pidfd. */
#define	G_TAG_PIDFD	1UL

struct gchild {
	struct gchild	*gc_next;	/* Chain by id. */
	struct gchild	*gc_wnext;	/* Chain of those with a deadline. */
	uint64_t	 gc_id;
	int64_t		 gc_deadline;	/* ns, CLOCK_MONOTONIC; 0 none. */
	int		 gc_b;		/* Peer of the user's descriptor. */
	int		 gc_pidfd;
	pid_t		 gc_pid;
	uint32_t	 gc_flags;	/* PD_* | PG_CHILD. */
	bool		 gc_exited;	/* The pidfd was readable. */
	bool		 gc_reapwait;	/* Waiting for the reap by another. */
	bool		 gc_dead;	/* Freed after this epoll batch. */
};

static struct gchild **g_hash;		/* Buckets by id. */
static size_t g_nbuckets;		/* A power of two. */
static size_t g_count;			/* Children guarded. */
static size_t g_capacity;		/* What the fd limit allows. */
static struct gchild *g_waiting;	/* Those with a deadline. */
static struct gchild *g_grave;		/* Let go of in this batch. */
static bool g_owner = true;		/* The control socket is open. */
static bool g_pidfs;			/* POLLHUP at the reap (6.9). */
static int g_ep;

static struct gchild **
g_bucket(uint64_t id)
{

	return (&g_hash[procdesc_mix64(id) & (g_nbuckets - 1)]);
}

static struct gchild *
g_find(uint64_t id)
{
	struct gchild *gc;

	for (gc = *g_bucket(id); gc != NULL; gc = gc->gc_next)
		if (gc->gc_id == id)
			return (gc);
	return (NULL);
}

/* Keep about one child per bucket. */
static int
g_grow(void)
{
	struct gchild **old, *gc, *next;
	size_t i, n;

	if (g_count < g_nbuckets)
		return (0);
	old = g_hash;
	n = g_nbuckets;
	g_hash = calloc(n * 2, sizeof(*g_hash));
	if (g_hash == NULL) {
		g_hash = old;
		return (ENOMEM);
	}
	g_nbuckets = n * 2;
	for (i = 0; i < n; i++) {
		for (gc = old[i]; gc != NULL; gc = next) {
			next = gc->gc_next;
			gc->gc_next = *g_bucket(gc->gc_id);
			*g_bucket(gc->gc_id) = gc;
		}
	}
	free(old);
	return (0);
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

/*
 * Forget gc and close its descriptors: POLLHUP on A if it still exists.
 * Its memory goes at the end of the epoll batch, which may still hold an
 * event for it (the kill on the last close makes the pidfd readable).
 */
static void
g_free(struct gchild *gc)
{
	struct gchild **pp;

	for (pp = g_bucket(gc->gc_id); *pp != gc; pp = &(*pp)->gc_next)
		;
	*pp = gc->gc_next;
	if (gc->gc_deadline != 0) {
		for (pp = &g_waiting; *pp != gc; pp = &(*pp)->gc_wnext)
			;
		*pp = gc->gc_wnext;
	}
	/*
	 * Out of epoll before the close: a copy of B elsewhere (a new child
	 * holds one until it runs; a fork from another thread may too) would
	 * keep B's registration, and its events, alive after the close.
	 */
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, gc->gc_b, NULL);
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, gc->gc_pidfd, NULL);
	close(gc->gc_b);
	close(gc->gc_pidfd);
	gc->gc_dead = true;
	gc->gc_next = g_grave;
	g_grave = gc;
	g_count--;
}

static void
g_bury(void)
{
	struct gchild *gc;

	while ((gc = g_grave) != NULL) {
		g_grave = gc->gc_next;
		free(gc);
	}
}

static void
g_send(int fd, struct pg_msg *m, uint32_t op)
{

	m->pm_op = op;
	(void)send(fd, m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Queue the exit record on A and let go of the child: POLLHUP on A. */
static void
g_record(struct gchild *gc, const struct pg_msg *exited)
{
	struct pg_msg m;

	if (exited != NULL)
		m = *exited;
	else
		memset(&m, 0, sizeof(m));
	m.pm_id = gc->gc_id;
	m.pm_pid = gc->gc_pid;
	m.pm_flags = gc->gc_flags;
	g_send(gc->gc_b, &m, PG_RECORD);
	g_free(gc);
}

/*
 * The status the kernel keeps for any holder of a pidfd once the process is
 * reaped (PIDFD_INFO_EXIT, Linux 6.15), into m: true if there is one.  No
 * rusage: only the reaper gets that.
 */
static bool
g_exit_info(struct gchild *gc, struct pg_msg *m)
{
	struct pidfd_info info;
	int st;

	memset(m, 0, sizeof(*m));
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	if (ioctl(gc->gc_pidfd, PIDFD_GET_INFO, &info) == -1 ||
	    (info.mask & PIDFD_INFO_EXIT) == 0)
		return (false);
	st = info.exit_code;
	if (WIFEXITED(st)) {
		m->pm_code = CLD_EXITED;
		m->pm_status = WEXITSTATUS(st);
	} else {
		m->pm_code = WCOREDUMP(st) ? CLD_DUMPED : CLD_KILLED;
		m->pm_status = WTERMSIG(st);
	}
	return (true);
}

/*
 * A child that exited, whose owner will not (or did not) report the
 * status: the owner is gone, it is not the owner's child (pdopenpid), or
 * somebody else reaped it.  The status is what the kernel keeps after the
 * reap; wait for the reap (POLLHUP on the pidfd from Linux 6.9, else the
 * deadline), then record what there is.
 */
static void
g_settle(struct gchild *gc, bool final)
{
	struct epoll_event ev;
	struct pg_msg m;

	if (g_exit_info(gc, &m) || final || !g_pidfs) {
		g_record(gc, &m);
		return;
	}
	gc->gc_reapwait = true;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLONESHOT;	/* EPOLLHUP alone: the reap. */
	ev.data.u64 = (uintptr_t)gc | G_TAG_PIDFD;
	(void)epoll_ctl(g_ep, EPOLL_CTL_MOD, gc->gc_pidfd, &ev);
	g_set_deadline(gc, G_REAP_MS);
}

/* The last copy of the descriptor is gone. */
static void
g_closed(struct gchild *gc)
{

	if ((gc->gc_flags & PD_DAEMON) == 0)
		(void)sys_pidfd_send_signal(gc->gc_pidfd, SIGKILL);
	g_free(gc);
}

/* The pidfd reported the exit, or (second time) the reap. */
static void
g_pidfd_event(struct gchild *gc)
{

	if (gc->gc_exited) {
		g_settle(gc, true);	/* The reap. */
		return;
	}
	gc->gc_exited = true;
	if ((gc->gc_flags & PG_CHILD) != 0 && g_owner)
		g_set_deadline(gc, G_OWNER_MS);	/* PG_EXITED is coming. */
	else
		g_settle(gc, false);
}

/* A deadline passed. */
static void
g_expire(struct gchild *gc)
{
	pid_t pid;

	gc->gc_deadline = 0;
	if ((gc->gc_flags & PG_CHILD) != 0 && g_owner &&
	    procdesc_pidfd_pid(gc->gc_pidfd, &pid) == 0) {
		/* Not reaped yet: the owner will, and tell us. */
		g_set_deadline(gc, G_OWNER_MS);
		return;
	}
	g_settle(gc, gc->gc_reapwait);
}

static void
g_expire_all(void)
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

static int
g_timeout(void)
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

/* Take a child: epoll on B (hang-up only) and on its pidfd (the exit). */
static int
g_add(const struct pg_msg *m, int b, int pidfd)
{
	struct epoll_event ev;
	struct gchild *gc;

	if (g_count >= g_capacity)
		return (EMFILE);
	if (g_grow() != 0 || (gc = calloc(1, sizeof(*gc))) == NULL)
		return (ENOMEM);
	gc->gc_id = m->pm_id;
	gc->gc_pid = m->pm_pid;
	gc->gc_flags = m->pm_flags;
	gc->gc_b = b;
	gc->gc_pidfd = pidfd;
	memset(&ev, 0, sizeof(ev));
	ev.events = 0;
	ev.data.u64 = (uintptr_t)gc;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, b, &ev) == -1) {
		free(gc);
		return (errno);
	}
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.u64 = (uintptr_t)gc | G_TAG_PIDFD;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, pidfd, &ev) == -1) {
		(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, b, NULL);
		free(gc);
		return (errno);
	}
	gc->gc_next = *g_bucket(gc->gc_id);
	*g_bucket(gc->gc_id) = gc;
	g_count++;
	return (0);
}

/*
 * PG_GUARD: take the process or refuse, and say so on A; a new child waits
 * on its go pipe, and is let go only once B is watched and not already
 * hung up (its owner may have died meanwhile: then it dies instead).
 */
static void
g_guard(struct pg_msg *m, const int *fds, int nfds)
{
	struct pollfd pfd;
	struct gchild *gc;
	char c;

	if (nfds < PG_GUARD_FDS - 1) {
		/* Cut short: closing what came makes the sender see EOF. */
		while (nfds-- > 0)
			close(fds[nfds]);
		return;
	}
	m->pm_error = g_add(m, fds[0], fds[1]);
	gc = (m->pm_error == 0) ? g_find(m->pm_id) : NULL;
	pfd.fd = fds[0];
	pfd.events = 0;
	if (gc != NULL && poll(&pfd, 1, 0) == 1)
		m->pm_error = EPIPE;	/* Its last copy is gone already. */
	/* The child first, so that it is gone from us when pdfork returns. */
	if (nfds == PG_GUARD_FDS) {
		c = PG_GO;
		if (m->pm_error == 0)
			(void)write(fds[2], &c, 1);
		close(fds[2]);
	}
	g_send(fds[0], m, PG_ACK);
	if (gc != NULL && m->pm_error != 0)
		g_closed(gc);		/* Kills it, closes B and the pidfd. */
	else if (gc == NULL) {
		close(fds[0]);
		close(fds[1]);
	}
}

/*
 * PG_EXITED: the owner reaped the child.  Believe it only if the pidfd says
 * the process has exited: no descriptor reports an exit that did not
 * happen.
 */
static void
g_exited(const struct pg_msg *m)
{
	struct pollfd pfd;
	struct gchild *gc;

	if ((gc = g_find(m->pm_id)) == NULL)
		return;
	pfd.fd = gc->gc_pidfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) == 1)
		g_record(gc, m);
}

/* Everything the owner sent; false once it is gone. */
static bool
g_control(void)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(PG_GUARD_FDS * sizeof(int))];
	} cm;
	int fds[PG_GUARD_FDS];
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	struct pg_msg m;
	ssize_t n;
	int nfds;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = &m;
		iov.iov_len = sizeof(m);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		n = recvmsg(PG_CTL_FD, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n == -1)
			return (errno == EAGAIN || errno == EINTR);
		if (n == 0)
			return (false);
		nfds = 0;
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_RIGHTS && nfds == 0) {
				nfds = (int)((c->cmsg_len - CMSG_LEN(0)) /
				    sizeof(int));
				if (nfds > PG_GUARD_FDS)
					nfds = PG_GUARD_FDS;
				memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
			}
		if (n == (ssize_t)sizeof(m) && m.pm_op == PG_GUARD &&
		    (mh.msg_flags & MSG_CTRUNC) == 0) {
			g_guard(&m, fds, nfds);
			continue;
		}
		while (nfds-- > 0)
			close(fds[nfds]);
		if (n == (ssize_t)sizeof(m) && m.pm_op == PG_EXITED)
			g_exited(&m);
	}
}

/* The owner is gone: children it would have reported settle by pidfd. */
static void
g_orphaned(void)
{
	struct gchild *gc, *next;

	g_owner = false;
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, PG_CTL_FD, NULL);
	close(PG_CTL_FD);
	for (gc = g_waiting; gc != NULL; gc = next) {
		next = gc->gc_wnext;
		gc->gc_deadline = procdesc_now();
	}
}

/*
 * Nothing of the starter's may reach into the guardian: a set-uid owner's
 * invoking user must not be able to signal, ptrace or slow it, so every id
 * becomes the effective one and the process is not dumpable.  Then the
 * usual daemon hygiene, and as many fds as the hard limit allows.
 */
static void
g_sanitize(void)
{
	struct procdesc_ksigaction ka;
	struct rlimit rl;
	sigset_t none;
	int sig;

	(void)setresgid(getegid(), getegid(), getegid());
	(void)setresuid(geteuid(), geteuid(), geteuid());
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)chdir("/");
	umask(077);
	/*
	 * Through rt_sigaction(2) itself: signal(3) refuses libc's internal
	 * signals, and a sanitizer's run time may have set one of them.
	 */
	memset(&ka, 0, sizeof(ka));
	ka.ks_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sys_rt_sigaction(sig, &ka, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	errno = 0;
	(void)setpriority(PRIO_PROCESS, 0, 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	g_capacity = rl.rlim_cur > G_RESERVE ?
	    (size_t)(rl.rlim_cur - G_RESERVE) / G_FDS_PER_CHILD : 0;
}

static void
g_event(const struct epoll_event *ev)
{
	struct gchild *gc;

	if (ev->data.u64 == 0) {
		if (!g_control())
			g_orphaned();
		return;
	}
	gc = (struct gchild *)(uintptr_t)(ev->data.u64 & ~G_TAG_PIDFD);
	if (gc->gc_dead)
		return;
	if ((ev->data.u64 & G_TAG_PIDFD) != 0)
		g_pidfd_event(gc);
	else
		g_closed(gc);
}

/*
 * Die with the sentry (the owner's child that stands for us), so that
 * whoever kills it kills us, and the owner then fails closed.  Set after
 * the credential change, which clears it.
 */
static bool
g_tie(const char *sentry)
{

	if (sentry == NULL ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		return (false);
	return (getppid() == (pid_t)atoi(sentry));
}

int
main(int argc, char **argv)
{
	struct epoll_event ev, evs[G_EVENTS];
	struct pg_msg hello;
	struct statfs sfs;
	int i, n, type, pfd;
	socklen_t len;

	len = sizeof(type);
	if (getsockopt(PG_CTL_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_SEQPACKET) {
		fprintf(stderr, "procdesc-guardian: started by libprocdesc "
		    "only\n");
		return (2);
	}
	g_sanitize();
	if (!g_tie(argc > 1 ? argv[1] : NULL))
		return (EXIT_FAILURE);
	g_nbuckets = PROCDESC_HASH_MIN;
	if ((g_hash = calloc(g_nbuckets, sizeof(*g_hash))) == NULL ||
	    (g_ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		return (EXIT_FAILURE);
	/* pidfs (Linux 6.9) raises POLLHUP on a pidfd at the reap. */
	if ((pfd = sys_pidfd_open(getpid(), 0)) != -1) {
		g_pidfs = fstatfs(pfd, &sfs) == 0 && sfs.f_type == PID_FS_MAGIC;
		close(pfd);
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = 0;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, PG_CTL_FD, &ev) == -1)
		return (EXIT_FAILURE);
	memset(&hello, 0, sizeof(hello));
	hello.pm_capacity = (uint32_t)g_capacity;
	hello.pm_pid = getpid();
	g_send(PG_CTL_FD, &hello, PG_HELLO);
	while (g_owner || g_count > 0) {
		n = epoll_wait(g_ep, evs, G_EVENTS, g_timeout());
		for (i = 0; i < n; i++)
			g_event(&evs[i]);
		g_expire_all();
		g_bury();
	}
	return (0);
}
