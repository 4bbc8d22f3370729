/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Randomized close semantics: pdfork, dup, dup2, close, fork copies,
 * SCM_RIGHTS, copies in flight, pdkill, pdwait, exec and death of holders,
 * checked after every round against a model of who holds which
 * description.  The seed is printed; STRESS_SEED=n replays a run, and
 * STRESS_LONG=1 runs for up to 60 s instead of 10 s.
 *
 * Holders are forked copies of the test process that obey commands on a
 * socket; one may exec /bin/sh, which never linked libprocdesc.  A death
 * is seen on a pidfd_open watch; a non-death after a barrier: a fresh
 * non-daemon sentinel is closed and seen dead, and the guardian's waiters
 * wake in close order.
 */

#include <sys/procdesc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	S_NFD		1024	/* fd numbers tracked. */
#define	S_NCHILD	64	/* Child slots. */
#define	S_MAXLIVE	16	/* Live children at most. */
#define	S_NHOLD		5	/* Holder slots. */
#define	S_DUP2_LO	200	/* dup2 targets for fresh numbers. */
#define	S_DUP2_HI	260

/* A descriptor of child c (-1: none) in some fd table. */
struct s_fd {
	int	c;
	bool	cloexec;
};

struct s_child {
	bool	used;
	pid_t	pid;
	int	w;		/* pidfd_open watch. */
	bool	daemon;
	bool	killed;		/* pdkill'ed or killed through w. */
	bool	dead;		/* Seen dead. */
};

struct s_holder {
	bool	used;
	pid_t	pid;
	int	s;		/* Our end of its socket. */
	bool	execd;		/* Now /bin/sh: only "exit" left. */
	struct s_fd fd[S_NFD];
};

struct s_msg {
	char	op;
	int	fd;
};

static struct s_fd s_tfd[S_NFD];	/* The test's own table. */
static struct s_child s_ch[S_NCHILD];
static struct s_holder s_h[S_NHOLD];
static unsigned int s_rng;
static unsigned long s_ops;
static unsigned long s_nlast, s_ndaemon, s_nkilled;	/* Deaths seen, etc. */
static bool s_bad;

static unsigned int
s_rand(unsigned int n)
{

	/* xorshift32: the same on every libc. */
	s_rng ^= s_rng << 13;
	s_rng ^= s_rng >> 17;
	s_rng ^= s_rng << 5;
	return (n == 0 ? 0 : s_rng % n);
}

static void
s_fail(const char *what, int c)
{

	if (!s_bad)
		atf_tc_fail_nonfatal("op %lu: child %d (pid %d, daemon %d): "
		    "%s", s_ops, c, c >= 0 ? (int)s_ch[c].pid : 0,
		    c >= 0 ? (int)s_ch[c].daemon : 0, what);
	s_bad = true;
}

/* A random fd of table t holding a child, or -1. */
static int
s_pick(const struct s_fd *t)
{
	int fd, n, k;

	n = 0;
	for (fd = 0; fd < S_NFD; fd++)
		if (t[fd].c >= 0)
			n++;
	if (n == 0)
		return (-1);
	k = (int)s_rand((unsigned)n);
	for (fd = 0; fd < S_NFD; fd++)
		if (t[fd].c >= 0 && k-- == 0)
			return (fd);
	return (-1);
}

static int
s_pick_holder(bool execd_ok)
{
	int i, n, k;

	n = 0;
	for (i = 0; i < S_NHOLD; i++)
		if (s_h[i].used && (execd_ok || !s_h[i].execd))
			n++;
	if (n == 0)
		return (-1);
	k = (int)s_rand((unsigned)n);
	for (i = 0; i < S_NHOLD; i++)
		if (s_h[i].used && (execd_ok || !s_h[i].execd) && k-- == 0)
			return (i);
	return (-1);
}

static bool
s_held(int c)
{
	int fd, i;

	for (fd = 0; fd < S_NFD; fd++)
		if (s_tfd[fd].c == c)
			return (true);
	for (i = 0; i < S_NHOLD; i++)
		if (s_h[i].used)
			for (fd = 0; fd < S_NFD; fd++)
				if (s_h[i].fd[fd].c == c)
					return (true);
	return (false);
}

static int
s_nlive(void)
{
	int c, n;

	n = 0;
	for (c = 0; c < S_NCHILD; c++)
		if (s_ch[c].used && !s_ch[c].dead)
			n++;
	return (n);
}

/* Send a message, with a descriptor if fd >= 0 and op is 'r'. */
static int
s_send(int s, char op, int fd)
{
	struct s_msg m;

	memset(&m, 0, sizeof(m));
	m.op = op;
	m.fd = fd;
	return (t_sendfd(s, &m, sizeof(m), op == 'r' ? fd : -1));
}

/* Receive a message; *fdp the descriptor attached, else -1. */
static int
s_recv(int s, struct s_msg *m, int *fdp)
{

	return (t_recvfd(s, m, sizeof(*m), fdp, MSG_WAITALL) ==
	    (ssize_t)sizeof(*m) ? 0 : -1);
}

/*
 * A holder: a fork of the test, with copies of all its descriptors.
 * 'c' fd: close it; 'r': keep the descriptor attached, answer its
 * number; 'e': exec a shell that says so and exits at a line; 'x': exit.
 */
static void __attribute__((noreturn))
s_holder_main(int s)
{
	struct s_msg m;
	int fd;

	while (s_recv(s, &m, &fd) == 0) {
		switch (m.op) {
		case 'c':
			if (close(m.fd) != 0)
				_exit(1);
			break;
		case 'r':
			if (fd == -1)
				_exit(2);
			m.fd = fd;
			break;
		case 'e':
			/* stdin and stdout (never a pd here): the socket. */
			if (dup2(s, 0) != 0 || dup2(s, 1) != 1)
				_exit(3);
			execl("/bin/sh", "sh", "-c", "echo; read x; exit 0",
			    (char *)NULL);
			_exit(4);
		case 'x':
			_exit(0);
		}
		if (send(s, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
			_exit(5);
	}
	_exit(6);
}

static int
s_holder_do(int h, char op, int fd)
{
	struct s_msg m;
	int rfd;

	if (s_send(s_h[h].s, op, fd) != 0 || s_recv(s_h[h].s, &m, &rfd) != 0 ||
	    m.op != op) {
		s_fail("holder did not answer", -1);
		return (-1);
	}
	return (m.fd);
}

static void
s_holder_reap(int h, bool kill_it)
{
	int status;

	if (kill_it)
		(void)kill(s_h[h].pid, SIGKILL);
	if (waitpid(s_h[h].pid, &status, 0) != s_h[h].pid)
		s_fail("waitpid holder", -1);
	else if (!kill_it && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		s_fail("holder exited badly", -1);
	close(s_h[h].s);
	s_h[h].used = false;
}

/* Operations. */

static void
op_pdfork(void)
{
	int c, fd, flags, rp[2];
	pid_t pid;
	char b;

	if (s_nlive() >= S_MAXLIVE)
		return;
	for (c = 0; c < S_NCHILD && s_ch[c].used; c++)
		;
	if (c == S_NCHILD)
		return;
	flags = (s_rand(4) == 0 ? PD_DAEMON : 0) |
	    (s_rand(2) == 0 ? PD_CLOEXEC : 0);
	ATF_REQUIRE(pipe2(rp, O_CLOEXEC) == 0);
	pid = pdfork(&fd, flags);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		/* Hold nothing of anybody's, then say so. */
		syscall(SYS_close_range, 3, rp[1] - 1, 0);
		syscall(SYS_close_range, rp[1] + 1, ~0U, 0);
		(void)write(rp[1], "r", 1);
		close(rp[1]);
		t_pause();
	}
	ATF_REQUIRE(close(rp[1]) == 0);
	ATF_REQUIRE(read(rp[0], &b, 1) == 1);
	ATF_REQUIRE(close(rp[0]) == 0);
	ATF_REQUIRE(fd >= 0 && fd < S_NFD);
	memset(&s_ch[c], 0, sizeof(s_ch[c]));
	s_ch[c].used = true;
	s_ch[c].pid = pid;
	s_ch[c].w = t_watch(pid);
	s_ch[c].daemon = (flags & PD_DAEMON) != 0;
	s_tfd[fd].c = c;
	s_tfd[fd].cloexec = (flags & PD_CLOEXEC) != 0;
}

static void
op_dup(void)
{
	int fd, nfd;

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	ATF_REQUIRE((nfd = dup(fd)) >= 0 && nfd < S_NFD);
	s_tfd[nfd].c = s_tfd[fd].c;
	s_tfd[nfd].cloexec = false;
}

static void
op_dup2(void)
{
	int fd, to;

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	if (s_rand(2) == 0 && (to = s_pick(s_tfd)) != -1)
		;	/* Over another descriptor: a close of that one. */
	else {
		to = S_DUP2_LO + (int)s_rand(S_DUP2_HI - S_DUP2_LO);
		if (s_tfd[to].c < 0 && fcntl(to, F_GETFD) != -1)
			return;		/* Not ours to clobber. */
	}
	ATF_REQUIRE(dup2(fd, to) == to);
	if (to != fd) {
		s_tfd[to].c = s_tfd[fd].c;
		s_tfd[to].cloexec = false;
	}
}

static void
op_close(void)
{
	int fd;

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	if (s_rand(2) == 0)
		ATF_REQUIRE(close(fd) == 0);
	else
		ATF_REQUIRE(syscall(SYS_close_range, fd, fd, 0) == 0);
	s_tfd[fd].c = -1;
}

static void
op_fork_holder(void)
{
	int h, sv[2];
	pid_t pid;

	for (h = 0; h < S_NHOLD && s_h[h].used; h++)
		;
	if (h == S_NHOLD)
		return;
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
	    0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		close(sv[0]);
		s_holder_main(sv[1]);
	}
	ATF_REQUIRE(close(sv[1]) == 0);
	s_h[h].used = true;
	s_h[h].pid = pid;
	s_h[h].s = sv[0];
	s_h[h].execd = false;
	memcpy(s_h[h].fd, s_tfd, sizeof(s_tfd));
}

static void
op_send(void)
{
	int fd, h, nfd;

	if ((fd = s_pick(s_tfd)) == -1 || (h = s_pick_holder(false)) == -1)
		return;
	if ((nfd = s_holder_do(h, 'r', fd)) < 0 || nfd >= S_NFD)
		return;
	s_h[h].fd[nfd].c = s_tfd[fd].c;
	s_h[h].fd[nfd].cloexec = false;
}

static void
op_holder_close(void)
{
	int fd, h;

	if ((h = s_pick_holder(false)) == -1 || (fd = s_pick(s_h[h].fd)) == -1)
		return;
	if (s_holder_do(h, 'c', fd) == fd)
		s_h[h].fd[fd].c = -1;
}

static void
op_holder_exec(void)
{
	char b;
	int fd, h;

	if ((h = s_pick_holder(false)) == -1)
		return;
	ATF_REQUIRE(s_send(s_h[h].s, 'e', -1) == 0);
	if (read(s_h[h].s, &b, 1) != 1) {
		s_fail("exec'd holder did not answer", -1);
		return;
	}
	s_h[h].execd = true;
	for (fd = 0; fd < S_NFD; fd++)
		if (s_h[h].fd[fd].cloexec)
			s_h[h].fd[fd].c = -1;
}

static void
op_holder_end(void)
{
	int h;

	if ((h = s_pick_holder(true)) == -1)
		return;
	switch (s_rand(2)) {
	case 0:
		if (s_h[h].execd)
			ATF_REQUIRE(write(s_h[h].s, "\n", 1) == 1);
		else
			ATF_REQUIRE(s_send(s_h[h].s, 'x', -1) == 0);
		s_holder_reap(h, false);
		break;
	case 1:
		s_holder_reap(h, true);
		break;
	}
}

static void
op_in_flight(void)
{
	int fd, sv[2];

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
	    0);
	ATF_REQUIRE(s_send(sv[0], 'r', fd) == 0);
	if (s_rand(2) == 0) {
		/* Its only holder now is the socket. */
		ATF_REQUIRE(close(fd) == 0);
		s_tfd[fd].c = -1;
	}
	ATF_REQUIRE(close(sv[0]) == 0);
	ATF_REQUIRE(close(sv[1]) == 0);
}

static void
op_pdkill(void)
{
	int fd, c;

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	c = s_tfd[fd].c;
	if (s_rand(3) == 0) {
		/* Signal 0: 0 whether alive or dead-but-held. */
		if (pdkill(fd, 0) != 0)
			s_fail("pdkill(0)", c);
		return;
	}
	if (pdkill(fd, SIGKILL) != 0)
		s_fail("pdkill(SIGKILL)", c);
	if (!s_ch[c].dead)
		s_ch[c].killed = true;
}

static void
op_pdwait(void)
{
	int fd, c, status;
	pid_t pid;

	if ((fd = s_pick(s_tfd)) == -1)
		return;
	c = s_tfd[fd].c;
	if (pdgetpid(fd, &pid) != 0 || pid != s_ch[c].pid)
		s_fail("pdgetpid", c);
	if (!s_ch[c].killed && !s_ch[c].dead)
		return;		/* It would block, or race a kill. */
	if (pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
	    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		s_fail("pdwait", c);
}

/* Kill a daemon child that nobody holds, through its watch. */
static void
op_kill_orphan(void)
{
	int c;

	for (c = 0; c < S_NCHILD; c++) {
		if (s_ch[c].used && !s_ch[c].dead && !s_ch[c].killed &&
		    s_ch[c].daemon && !s_held(c)) {
			(void)syscall(SYS_pidfd_send_signal, s_ch[c].w,
			    SIGKILL, NULL, 0);
			s_ch[c].killed = true;
			return;
		}
	}
}

/* The barrier: a sentinel's close seen through its death. */
static void
s_barrier(void)
{
	int fd, w;
	pid_t pid;

	pid = t_pdfork_clean(&fd, 0);
	ATF_REQUIRE_MSG(pid > 0, "pdfork: %s", strerror(errno));
	w = t_watch(pid);
	ATF_REQUIRE(close(fd) == 0);
	if (!t_dead_within(w, T_LONG_MS) || !t_reaped_within(w, T_LONG_MS))
		s_fail("sentinel survived its close", -1);
	ATF_REQUIRE(close(w) == 0);
}

/* Check every child against the model. */
static void
s_check(void)
{
	bool held;
	int c;

	s_barrier();
	for (c = 0; c < S_NCHILD; c++) {
		if (!s_ch[c].used)
			continue;
		held = s_held(c);
		if (!s_ch[c].dead) {
			if (s_ch[c].killed || (!held && !s_ch[c].daemon)) {
				if (!t_dead_within(s_ch[c].w, T_LONG_MS))
					s_fail(s_ch[c].killed ? "survived a "
					    "kill" : "survived its last close",
					    c);
				s_ch[c].dead = true;
				if (s_ch[c].killed)
					s_nkilled++;
				else
					s_nlast++;
			} else if (!t_alive(s_ch[c].w)) {
				s_fail(held ? "died while held" :
				    "PD_DAEMON died at its last close", c);
				s_ch[c].dead = true;
			} else if (!held)
				s_ndaemon++;
		}
		if (s_ch[c].dead && !held) {
			/* Reaped by the library: POLLHUP. */
			if (!t_reaped_within(s_ch[c].w, T_LONG_MS))
				s_fail("not reaped", c);
			ATF_REQUIRE(close(s_ch[c].w) == 0);
			s_ch[c].used = false;
		}
	}
}

/* Undo everything: holders, our descriptors, surviving children. */
static void
s_cleanup(void)
{
	int c, fd, h;

	for (h = 0; h < S_NHOLD; h++)
		if (s_h[h].used)
			s_holder_reap(h, true);
	for (fd = 0; fd < S_NFD; fd++) {
		if (s_tfd[fd].c >= 0) {
			ATF_REQUIRE(close(fd) == 0);
			s_tfd[fd].c = -1;
		}
	}
	if (!s_bad)
		s_check();
	for (c = 0; c < S_NCHILD; c++) {
		if (!s_ch[c].used)
			continue;
		/* Daemons (and, after a failure, anything) still running. */
		(void)syscall(SYS_pidfd_send_signal, s_ch[c].w, SIGKILL,
		    NULL, 0);
		ATF_CHECK(t_reaped_within(s_ch[c].w, T_LONG_MS));
		ATF_REQUIRE(close(s_ch[c].w) == 0);
		s_ch[c].used = false;
	}
}

static double
s_elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((double)(t1.tv_sec - t0->tv_sec) +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e9);
}

/*
 * Whatever the sequence of copies and closes, a child dies exactly when
 * the last copy of its descriptor is gone (unless PD_DAEMON) or it is
 * killed, and lives while any copy is held.
 */
T_TC(stress__model, "random ops checked against a model of holders")
{
	static void (*const ops[])(void) = {
		op_pdfork, op_pdfork, op_pdfork, op_dup, op_dup, op_dup2,
		op_close, op_close, op_fork_holder, op_send, op_send,
		op_holder_close, op_holder_exec, op_holder_end, op_in_flight,
		op_pdkill, op_pdwait, op_kill_orphan,
	};
	struct timespec t0;
	const char *e;
	double limit;
	unsigned long maxops, rounds;
	unsigned int seed, n;
	int fd;

	if ((e = getenv("STRESS_SEED")) != NULL && *e != '\0')
		seed = (unsigned int)strtoul(e, NULL, 0);
	else
		seed = (unsigned int)time(NULL) ^
		    ((unsigned int)getpid() << 16);
	if (seed == 0)
		seed = 1;
	s_rng = seed;
	e = getenv("STRESS_LONG");
	limit = (e != NULL && *e == '1') ? 60.0 : 10.0;
	maxops = (e != NULL && *e == '1') ? 1000000 : 10000;
	fprintf(stderr, "stress: seed %u (STRESS_SEED=%u to replay), "
	    "%.0f s, %lu ops at most\n", seed, seed, limit, maxops);
	for (fd = 0; fd < S_NFD; fd++)
		s_tfd[fd].c = -1;
	memset(s_ch, 0, sizeof(s_ch));
	memset(s_h, 0, sizeof(s_h));
	s_bad = false;
	s_ops = s_nlast = s_ndaemon = s_nkilled = 0;
	rounds = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!s_bad && s_ops < maxops && s_elapsed(&t0) < limit) {
		for (n = 1 + s_rand(4); n > 0; n--) {
			ops[s_rand(sizeof(ops) / sizeof(ops[0]))]();
			s_ops++;
		}
		s_check();
		rounds++;
	}
	s_cleanup();
	fprintf(stderr, "stress: seed %u: %lu ops in %lu rounds, %.1f s; "
	    "deaths at last close %lu, by kill %lu; unheld daemon checks "
	    "%lu%s\n", seed, s_ops, rounds, s_elapsed(&t0), s_nlast,
	    s_nkilled, s_ndaemon, s_bad ? "; FAILED" : "");
}

/*
 * The reaper's sweep: while the application has a zombie of its own, the
 * reaper checks each of our children in turn.  Reaping one may drain the
 * guardian's news, which once freed entries under the sweep's feet (a
 * crash, or an ASan report).  Rounds of SWEEP_N children that exit and are
 * reaped by the sweep, then closed in bulk while another child runs.
 */
#define	SWEEP_N		300
#define	SWEEP_ROUNDS	3

T_TC(sweep__bulk_close_with_app_zombie, "reaper sweep with an "
    "application zombie, descriptors of reaped children closed in bulk")
{
	struct pollfd pfd;
	int fd[SWEEP_N], f2, i, p[2], r, status;
	pid_t zombie, pid;
	char c;

	if ((zombie = fork()) == 0)
		_exit(0);
	ATF_REQUIRE(zombie > 0);
	for (r = 0; r < SWEEP_ROUNDS; r++) {
		for (i = 0; i < SWEEP_N; i++)
			(void)t_pdfork_exit(&fd[i], PD_CLOEXEC, 0);
		/* Each reaped by the reaper: the record raises POLLHUP. */
		for (i = 0; i < SWEEP_N; i++)
			ATF_REQUIRE_MSG(t_reaped_within(fd[i], T_LONG_MS),
			    "child %d of round %d not reaped", i, r);
		ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
		if ((pid = pdfork(&f2, PD_CLOEXEC)) == 0) {
			(void)read(p[0], &c, 1);
			_exit(4);
		}
		ATF_REQUIRE(pid > 0);
		for (i = 0; i < SWEEP_N; i++)
			ATF_REQUIRE(close(fd[i]) == 0);
		ATF_REQUIRE(write(p[1], "x", 1) == 1);
		ATF_REQUIRE(pdwait(f2, &status, WEXITED, NULL, NULL) == 0);
		ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
		pfd.fd = f2;
		pfd.events = POLLIN;
		ATF_CHECK(poll(&pfd, 1, T_LONG_MS) == 1);
		ATF_REQUIRE(close(f2) == 0);
		(void)close(p[0]);
		(void)close(p[1]);
	}
	ATF_REQUIRE(waitpid(zombie, &status, 0) == zombie);
}

/*
 * Bursts: more last closes, or more exits, at once than a socket between
 * the owner and its guardian holds (a few hundred messages of either
 * kind).  A message dropped because that socket was full once left the
 * child a zombie for the owner's lifetime (PG_CLOSED: 140 of 3,000), or
 * its exit unknown to every holder but the owner, whose pdwait then
 * blocked for ever (PG_STATUS: 768 of 3,000).
 *
 * Each runs in a worker process of its own, whose guardian starts with
 * room for all BURST_N children (a small hard RLIMIT_NOFILE, as in the
 * kernel matrix's guests, would start a second one, whose socket the
 * leak check would count), and which takes its guardian along when it
 * exits.  The worker's exit code says what went wrong.
 */
#define	BURST_N		2000

/*
 * How many: BURST_N, fewer in the kernel matrix's emulated guests
 * (t_scaled()), but never so few that one socket's buffer holds them.
 */
static int
burst_n(void)
{

	return (t_scaled(BURST_N) < 500 ? 500 : t_scaled(BURST_N));
}

/* In the worker: room for BURST_N descriptors here and in its guardian. */
static void
burst_nofile(void)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = 4 * BURST_N + 256;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		_exit(2);
}

/* Run fn in a worker: its exit code (0: all well; 2: no room). */
static int
burst_run(int (*fn)(void))
{
	pid_t w;
	int code;

	ATF_REQUIRE((w = fork()) >= 0);
	if (w == 0) {
		burst_nofile();
		_exit(fn());
	}
	code = t_reap(w);
	if (code == 2)
		atf_tc_skip("cannot raise RLIMIT_NOFILE to %d",
		    4 * BURST_N + 256);
	return (code);
}

/* Every exit first (not waited for), then the closes make the reaps. */
static int
burst_closes(void)
{
	static int fd[BURST_N];
	struct pollfd pfd;
	int64_t deadline;
	pid_t pid;
	int i, n, nb;

	nb = burst_n();
	for (i = 0; i < nb; i++)
		if ((pid = pdfork(&fd[i], PD_CLOEXEC)) == 0)
			_exit(0);
		else if (pid == -1) {
			fprintf(stderr, "pdfork %d of %d: %s\n", i, nb,
			    strerror(errno));
			return (10);
		}
	for (i = 0; i < nb; i++) {
		pfd.fd = fd[i];
		pfd.events = POLLHUP;
		if (poll(&pfd, 1, T_LONG_MS) != 1) {
			fprintf(stderr, "child %d of %d: no POLLHUP\n", i, nb);
			return (11);
		}
	}
	for (i = 0; i < nb; i++)
		(void)close(fd[i]);
	deadline = t_now_ms() + T_LONG_MS;
	while ((n = t_nchildren()) != 0 && t_now_ms() < deadline)
		(void)poll(NULL, 0, 1);
	if (n != 0)
		fprintf(stderr, "%d of %d children left zombies after the "
		    "last close\n", n, nb);
	return (n == 0 ? 0 : 12);
}

T_TC(burst__closes_reach_owner, "every child of a burst of last closes "
    "is reaped")
{

	int code;

	code = burst_run(burst_closes);
	ATF_CHECK_EQ_MSG(code, 0, "burst_closes() gave %d", code);
}

/* A fork copy, a holder, learns every exit of a burst of kills. */
static int
burst_exits(void)
{
	static int fd[BURST_N];
	int i, n, nb, p[2], st;
	pid_t copy, pid;

	nb = burst_n();
	for (i = 0; i < nb; i++)
		if ((pid = pdfork(&fd[i], PD_CLOEXEC)) == 0)
			t_pause();
		else if (pid == -1)
			return (10);
	if (pipe2(p, O_CLOEXEC) == -1 || (copy = fork()) == -1)
		return (11);
	if (copy == 0) {
		/* Not the owner: it asks the guardian. */
		alarm(T_LONG_MS / 1000 * 3);
		n = 0;
		for (i = 0; i < nb; i++)
			if (pdwait(fd[i], &st, WEXITED, NULL, NULL) == 0 &&
			    WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
				n++;
		t_child_write(p[1], &n, sizeof(n));
		_exit(0);
	}
	(void)close(p[1]);
	for (i = 0; i < nb; i++)
		if (pdkill(fd[i], SIGKILL) != 0)
			return (12);
	if (read(p[0], &n, sizeof(n)) != (ssize_t)sizeof(n))
		n = -1;
	if (t_reap(copy) != 0 || n != nb) {
		fprintf(stderr, "the fork copy's pdwait gave %d of %d statuses "
		    "(-1: it hung)\n", n, nb);
		return (13);
	}
	return (0);
}

T_TC(burst__exits_reach_holders, "a fork copy learns every exit of a "
    "burst")
{

	ATF_CHECK_EQ_MSG(burst_run(burst_exits), 0, "see burst_exits()");
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, stress__model);
	ATF_TP_ADD_TC(tp, sweep__bulk_close_with_app_zombie);
	ATF_TP_ADD_TC(tp, burst__closes_reach_owner);
	ATF_TP_ADD_TC(tp, burst__exits_reach_holders);
	return (atf_no_error());
}
