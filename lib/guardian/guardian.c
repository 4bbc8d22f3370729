/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * procdesc-guardian: kills a process when the last copy of its descriptor
 * is closed, wherever that copy lives and whether or not the owner still
 * exists; hangs the descriptor up at the exit; and tells any holder what
 * its descriptor is.  Started by the library (lib/guardian_start.c) with
 * its control socket as fd 3.  This file is the process: its hygiene, its
 * epoll loop, and the owner's control socket; guard.c has the processes
 * guarded, query.c the holders' queries.  See protocol.h for the messages.
 *
 * One thread, one epoll loop, no thread per child, no timer while nothing
 * happens.
 *
 * Invariants: nothing is ever sent to the owner but PG_HELLO, PG_CLOSED
 * and PG_ANSWER, each in order; every descriptor a message brings is kept
 * or closed; the process exits once the owner is gone and no descriptor
 * is left.
 */

#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "gd.h"
#include "syscall.h"
#include "wire.h"

/*
 * Descriptors kept free of children: stdio, the control socket, epoll,
 * the listener, a PG_GUARD's PG_GUARD_FDS twice, and the queries'
 * connections (query.c's G_QUERY_MAX).
 */
#define	G_RESERVE	(16 + 64)

/* A child's descriptors here: B, its pidfd, its oracle. */
#define	G_FDS_PER_CHILD	3

/* Events per epoll_wait: the rest come with the next call. */
#define	G_EVENTS	64

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define	G_ASAN	1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(G_ASAN)
/*
 * An ASan build (CI's) of the guardian checks no leaks at its exit: it
 * starts with an empty environment, so the tests' ASAN_OPTIONS does not
 * reach it, and LeakSanitizer makes the process dumpable again to stop
 * the world, a window that privilege_test:start_race__* saw (and it then
 * fails with exit status 1 anyway).  Production builds have no such code.
 */
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{

	return ("detect_leaks=0");
}
#endif

int g_ep;
bool g_owner = true;
bool g_pidfs;
size_t g_capacity;

/*
 * What the owner's socket refused for now, oldest first: its send buffer
 * fills after a burst of last closes (a few hundred messages), and a lost
 * PG_CLOSED would leave the child a zombie, and its entry, for as long
 * as the owner lives.  At most one per process guarded.
 */
struct gnote {
	uint64_t	gn_id;
	int32_t		gn_pid;
	uint32_t	gn_op;
};
static struct gnote *g_notes;
static size_t g_nnotes, g_maxnotes;

/* Send one message to the owner without waiting: 0, or an errno value. */
static int
g_send_owner(const struct gnote *gn)
{
	struct pg_msg m;

	memset(&m, 0, sizeof(m));
	m.pm_op = gn->gn_op;
	m.pm_id = gn->gn_id;
	m.pm_pid = gn->gn_pid;
	if (send(PG_CTL_FD, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)sizeof(m))
		return (0);
	return (errno);
}

/* Watch the control socket for reading, and for writing while notes wait. */
static void
g_ctl_watch(void)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | (g_nnotes > 0 ? EPOLLOUT : 0);
	ev.data.u64 = G_EV_CTL;
	(void)epoll_ctl(g_ep, EPOLL_CTL_MOD, PG_CTL_FD, &ev);
}

/* Send the notes that waited, as many as the socket takes now. */
static void
g_flush_owner(void)
{
	size_t i;

	for (i = 0; i < g_nnotes && g_send_owner(&g_notes[i]) == 0; i++)
		;
	if (i == 0)
		return;
	g_nnotes -= i;
	memmove(g_notes, g_notes + i, g_nnotes * sizeof(*g_notes));
	if (g_nnotes == 0)
		g_ctl_watch();
}

/*
 * Tell the owner about descriptor id of process pid (PG_CLOSED, or
 * PG_ANSWER to its PG_ASK): never waits.  What its full socket refuses
 * waits here, in order, until the socket drains (EPOLLOUT).
 */
void
g_tell_owner(uint32_t op, uint64_t id, pid_t pid)
{
	struct gnote gn, *notes;
	size_t max;

	if (!g_owner)
		return;
	gn.gn_op = op;
	gn.gn_id = id;
	gn.gn_pid = pid;
	if (g_nnotes == 0 && g_send_owner(&gn) != EAGAIN)
		return;			/* Sent, or the owner is gone. */
	if (g_nnotes == g_maxnotes) {
		max = g_maxnotes == 0 ? 64 : g_maxnotes * 2;
		if ((notes = realloc(g_notes, max * sizeof(*notes))) == NULL)
			return;		/* The owner keeps a zombie. */
		g_notes = notes;
		g_maxnotes = max;
	}
	g_notes[g_nnotes++] = gn;
	if (g_nnotes == 1)
		g_ctl_watch();
}

/*
 * A read of 0 on the control socket: the owner's end closed, or a message
 * of length 0 (which SOCK_SEQPACKET allows, and which is not an EOF).
 */
static bool
g_ctl_eof(void)
{
	struct pollfd pfd;

	pfd.fd = PG_CTL_FD;
	pfd.events = POLLRDHUP;
	return (poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLRDHUP | POLLHUP)) != 0);
}

/* Everything the owner sent; false once it is gone. */
static bool
g_control(void)
{
	int fds[PG_WIRE_MAXFDS], nfds;
	struct pg_msg m;
	ssize_t n;
	bool trunc;

	for (;;) {
		if ((n = procdesc_wire_recv(PG_CTL_FD, &m, fds,
		    PG_WIRE_MAXFDS, &nfds, &trunc, MSG_DONTWAIT)) == -1) {
			/*
			 * The owner's end went with our notes unread: the
			 * kernel says so once, before the messages still
			 * queued (new children's registrations), and the
			 * EOF comes after them.
			 */
			if (errno == ECONNRESET)
				continue;
			return (errno == EAGAIN || errno == EINTR);
		}
		if (n == 0 && nfds == 0 && g_ctl_eof())
			return (false);
		if (n == (ssize_t)sizeof(m) && !trunc && m.pm_op == PG_GUARD) {
			g_guard_msg(&m, fds, nfds);
			continue;
		}
		while (nfds-- > 0)
			close(fds[nfds]);
		if (n != (ssize_t)sizeof(m) || trunc)
			continue;
		if (m.pm_op == PG_STATUS)
			g_status_msg(&m);
		else if (m.pm_op == PG_ASK)
			g_ask_msg(&m);
	}
}

/* The owner is gone: children it would have reported settle by pidfd. */
static void
g_orphaned(void)
{

	g_owner = false;
	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, PG_CTL_FD, NULL);
	close(PG_CTL_FD);
	g_guard_orphaned();
}

/*
 * Nothing of the starter's may reach into the guardian: a set-uid owner's
 * invoking user must not be able to signal, ptrace or slow it, so every id
 * becomes the effective one and the process is not dumpable.  Then the
 * usual daemon hygiene: every signal at its default action, but SIGPIPE,
 * ignored (a holder may hang up before its answer); and as many fds as
 * the hard limit allows.
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
	(void)prctl(PR_SET_NAME, PG_GUARDIAN_NAME, 0, 0, 0);
	(void)chdir("/");
	umask(077);
	/*
	 * Through rt_sigaction(2) itself: signal(3) refuses libc's internal
	 * signals, and a sanitizer's run time may have set one of them.
	 */
	memset(&ka, 0, sizeof(ka));
	for (sig = 1; sig < NSIG; sig++) {
		ka.ks_handler = (sig == SIGPIPE) ? SIG_IGN : SIG_DFL;
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sys_rt_sigaction(sig, &ka, NULL);
	}
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

/*
 * Take everything the owner sent so far.  Also before a holder's query is
 * refused: the registration of a descriptor is queued here before pdfork
 * returns it, but the holder's query may be read first.
 */
void
g_ctl_drain(void)
{

	if (g_owner && !g_control())
		g_orphaned();
}

static void
g_event(const struct epoll_event *ev)
{

	if (ev->data.u64 == G_EV_CTL) {
		if ((ev->events & EPOLLOUT) != 0)
			g_flush_owner();
		g_ctl_drain();
	} else if (ev->data.u64 == G_EV_LISTEN)
		g_query_listen_event();
	else if ((ev->data.u64 & G_TAG_MASK) == G_TAG_QUERY)
		g_query_event((struct gquery *)(uintptr_t)(ev->data.u64 &
		    ~G_TAG_MASK), ev->events);
	else
		g_guard_event((uintptr_t)ev->data.u64);
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

/* Epoll, the tables, the listener; PG_HELLO to the owner. */
static bool
g_start(void)
{
	struct epoll_event ev;
	struct pg_msg hello;
	struct statfs sfs;
	uint64_t key;
	int pfd;

	if ((g_ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    g_guard_init() != 0 || g_query_init(&key) != 0)
		return (false);
	/* pidfs (Linux 6.9) raises POLLHUP on a pidfd at the reap. */
	if ((pfd = sys_pidfd_open(getpid(), 0)) != -1) {
		g_pidfs = fstatfs(pfd, &sfs) == 0 && sfs.f_type == PID_FS_MAGIC;
		close(pfd);
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = G_EV_CTL;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, PG_CTL_FD, &ev) == -1)
		return (false);
	memset(&hello, 0, sizeof(hello));
	hello.pm_op = PG_HELLO;
	hello.pm_capacity = (uint32_t)g_capacity;
	hello.pm_pid = getpid();
	hello.pm_id = key;
	(void)send(PG_CTL_FD, &hello, sizeof(hello), MSG_NOSIGNAL);
	return (true);
}

int
main(int argc, char **argv)
{
	struct epoll_event evs[G_EVENTS];
	int i, n, type;
	socklen_t len;

	len = sizeof(type);
	if (getsockopt(PG_CTL_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_SEQPACKET) {
		fprintf(stderr, "procdesc-guardian: started by libprocdesc "
		    "only\n");
		return (2);
	}
	g_sanitize();
	if (!g_tie(argc > 1 ? argv[1] : NULL) || !g_start())
		return (EXIT_FAILURE);
	while (g_owner || g_guard_count() > 0) {
		n = epoll_wait(g_ep, evs, G_EVENTS, g_guard_timeout());
		for (i = 0; i < n; i++)
			g_event(&evs[i]);
		g_guard_expire();
		g_guard_bury();
		g_query_bury();
	}
	return (0);
}
