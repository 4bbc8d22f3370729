/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The hang-up at the exit.  A process descriptor turns readable and hung
 * up in one step, POLLIN and POLLHUP together, never POLLIN first: for
 * every waiter (poll, select, epoll level- and edge-triggered), in every
 * process that holds a copy, for every kind of descriptor; and across pid
 * namespaces, where the pid it names and the process it signals must be
 * the right ones.
 *
 * The waits are real wake-ups: the waiter is seen asleep in the kernel
 * (state S and a wait channel in /proc) before the process is told to
 * exit, and the stress cases run with every CPU kept busy, so that the
 * guardian, the child and the waiter are preempted where they can be.
 */

#include <sys/procdesc.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* posix_spawn with a descriptor, through the overlay, as ported code. */
#include <procdesc-overlay/spawn.h>

#include "testutil.h"
#include "waitstatus.h"

/* Divided by $PROCDESC_TEST_SCALE in the kernel matrix (t_scaled()). */
#define	HU_ROUNDS_POLL	1000	/* The requirement: 0 of >= 300 wrong. */
#define	HU_ROUNDS_OTHER	300	/* select and epoll. */
#define	HU_ROUNDS_HOLD	100	/* Three holders per round. */
#define	HU_ROUNDS_KIND	50	/* Per kind of descriptor. */
#define	HU_MAXSPIN	8	/* Busy threads, one per CPU, at most. */
#define	HU_CODE		23	/* The exit code of the children. */
#define	HU_SH_EXIT	"read x; exit 23"	/* The same, from sh(1). */

extern char **environ;

/* CLOCK_MONOTONIC in seconds. */
static double
hu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/*
 * The load: one spinning thread per CPU, so that every wake-up competes
 * for a CPU and every process involved may be preempted anywhere.
 */
struct hu_load {
	pthread_t	hl_th[HU_MAXSPIN];
	int		hl_n;
	atomic_bool	hl_stop;
};

static void *
hu_spin(void *arg)
{
	atomic_bool *stop;

	stop = arg;
	while (!atomic_load_explicit(stop, memory_order_relaxed))
		;
	return (NULL);
}

static void
hu_load_start(struct hu_load *l)
{
	long n;
	int i;

	n = sysconf(_SC_NPROCESSORS_ONLN);
	l->hl_n = n < 1 ? 1 : n > HU_MAXSPIN ? HU_MAXSPIN : (int)n;
	atomic_init(&l->hl_stop, false);
	for (i = 0; i < l->hl_n; i++)
		ATF_REQUIRE(pthread_create(&l->hl_th[i], NULL, hu_spin,
		    &l->hl_stop) == 0);
}

static void
hu_load_stop(struct hu_load *l)
{
	int i;

	atomic_store(&l->hl_stop, true);
	for (i = 0; i < l->hl_n; i++)
		ATF_REQUIRE(pthread_join(l->hl_th[i], NULL) == 0);
}

/* How a waiter waits for the exit. */
enum hu_how {
	HU_POLL,		/* poll(2), POLLIN | POLLHUP. */
	HU_SELECT,		/* select(2), readable and except sets. */
	HU_EPOLL_LT,		/* epoll(7), level-triggered. */
	HU_EPOLL_ET,		/* epoll(7), edge-triggered. */
	HU_NHOW
};

static const char *const hu_names[HU_NHOW] = {
	"poll", "select", "epoll LT", "epoll ET"
};

/* A waiter thread: what it waits on, and what its first wake-up saw. */
struct hu_wait {
	enum hu_how	hw_how;
	int		hw_fd;		/* The descriptor. */
	int		hw_ep;		/* Its epoll instance, HU_EPOLL_*. */
	_Atomic pid_t	hw_tid;		/* Set just before the wait. */
	int		hw_n;		/* The wait's result... */
	int		hw_errno;	/* ...and errno if it failed. */
	short		hw_revents;	/* poll; select: a poll right after. */
	bool		hw_rd;		/* select: in the readable set, */
	bool		hw_ex;		/* in the except set. */
	uint32_t	hw_events;	/* epoll: the wake-up's events. */
	int		hw_n2;		/* epoll: a second wait, no timeout, */
	uint32_t	hw_events2;	/* and its events. */
};

static void *
hu_waiter(void *arg)
{
	struct epoll_event ev;
	struct pollfd pfd;
	struct timeval tv;
	struct hu_wait *w;
	fd_set rd, ex;

	w = arg;
	pfd.fd = w->hw_fd;
	pfd.events = POLLIN | POLLHUP;
	pfd.revents = 0;
	atomic_store(&w->hw_tid, (pid_t)syscall(SYS_gettid));
	switch (w->hw_how) {
	case HU_POLL:
		w->hw_n = poll(&pfd, 1, T_LONG_MS);
		w->hw_errno = errno;
		w->hw_revents = pfd.revents;
		break;
	case HU_SELECT:
		FD_ZERO(&rd);
		FD_ZERO(&ex);
		FD_SET(w->hw_fd, &rd);
		FD_SET(w->hw_fd, &ex);
		tv.tv_sec = T_LONG_MS / 1000;
		tv.tv_usec = 0;
		w->hw_n = select(w->hw_fd + 1, &rd, NULL, &ex, &tv);
		w->hw_errno = errno;
		w->hw_rd = FD_ISSET(w->hw_fd, &rd);
		w->hw_ex = FD_ISSET(w->hw_fd, &ex);
		/* Readable: the hang-up must be there already. */
		(void)poll(&pfd, 1, 0);
		w->hw_revents = pfd.revents;
		break;
	default:
		memset(&ev, 0, sizeof(ev));
		w->hw_n = epoll_wait(w->hw_ep, &ev, 1, T_LONG_MS);
		w->hw_errno = errno;
		w->hw_events = ev.events;
		memset(&ev, 0, sizeof(ev));
		w->hw_n2 = epoll_wait(w->hw_ep, &ev, 1, 0);
		w->hw_events2 = ev.events;
		break;
	}
	return (NULL);
}

/* NULL if w's first wake-up was the hang-up, else what it was. */
static const char *
hu_judge(const struct hu_wait *w)
{
	static char msg[160];
	const uint32_t both = EPOLLIN | EPOLLHUP;
	const short pboth = POLLIN | POLLHUP;
	const char *name;

	name = hu_names[w->hw_how];
	if (w->hw_n == -1)
		snprintf(msg, sizeof(msg), "%s: %s", name,
		    strerror(w->hw_errno));
	else if (w->hw_n == 0)
		snprintf(msg, sizeof(msg), "%s: no wake-up within %d ms",
		    name, T_LONG_MS);
	else if (w->hw_how == HU_POLL && ((w->hw_revents & pboth) != pboth ||
	    (w->hw_revents & (POLLERR | POLLNVAL)) != 0))
		snprintf(msg, sizeof(msg), "poll: first wake-up revents %#x",
		    (unsigned)w->hw_revents);
	else if (w->hw_how == HU_SELECT && (!w->hw_rd || w->hw_ex))
		snprintf(msg, sizeof(msg), "select: woke with readable %d, "
		    "except %d", w->hw_rd, w->hw_ex);
	else if (w->hw_how == HU_SELECT && (w->hw_revents & pboth) != pboth)
		snprintf(msg, sizeof(msg), "select: readable, but poll right "
		    "after gives revents %#x", (unsigned)w->hw_revents);
	else if (w->hw_how >= HU_EPOLL_LT && ((w->hw_events & both) != both ||
	    (w->hw_events & EPOLLERR) != 0))
		snprintf(msg, sizeof(msg), "%s: first wake-up events %#x",
		    name, w->hw_events);
	else if (w->hw_how == HU_EPOLL_LT && (w->hw_n2 != 1 ||
	    (w->hw_events2 & both) != both))
		snprintf(msg, sizeof(msg), "epoll LT: the level is gone: "
		    "second wait %d, events %#x", w->hw_n2, w->hw_events2);
	else if (w->hw_how == HU_EPOLL_ET && w->hw_n2 != 0)
		snprintf(msg, sizeof(msg), "epoll ET: a second wake-up, "
		    "events %#x after %#x", w->hw_events2, w->hw_events);
	else
		return (NULL);
	return (msg);
}

/*
 * One round: a waiter thread waits on fd as how says; once it is seen
 * asleep, a newline on go (or, go being -1, pdkill SIGTERM) ends the
 * process.  NULL if the first wake-up was the hang-up, else what it was;
 * *sleptp: the waiter was seen asleep before the exit.
 */
static const char *
hu_round(int fd, int go, enum hu_how how, bool *sleptp)
{
	struct epoll_event ev;
	struct hu_wait w;
	pthread_t th;
	pid_t tid;

	memset(&w, 0, sizeof(w));
	w.hw_how = how;
	w.hw_fd = fd;
	w.hw_ep = -1;
	atomic_init(&w.hw_tid, 0);
	if (how == HU_EPOLL_LT || how == HU_EPOLL_ET) {
		ATF_REQUIRE((w.hw_ep = epoll_create1(EPOLL_CLOEXEC)) >= 0);
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP |
		    (how == HU_EPOLL_ET ? EPOLLET : 0);
		ATF_REQUIRE(epoll_ctl(w.hw_ep, EPOLL_CTL_ADD, fd, &ev) == 0);
	}
	ATF_REQUIRE(pthread_create(&th, NULL, hu_waiter, &w) == 0);
	while ((tid = atomic_load(&w.hw_tid)) == 0)
		sched_yield();
	*sleptp = t_task_sleeping(getpid(), tid, T_LONG_MS);
	if (go != -1)
		ATF_REQUIRE(write(go, "\n", 1) == 1);
	else
		ATF_REQUIRE_MSG(pdkill(fd, SIGTERM) == 0, "pdkill: %s",
		    strerror(errno));
	ATF_REQUIRE(pthread_join(th, NULL) == 0);
	if (w.hw_ep != -1)
		ATF_REQUIRE(close(w.hw_ep) == 0);
	return (hu_judge(&w));
}

/* The tally of a case's rounds. */
struct hu_tally {
	const char	*ht_name;
	double		 ht_start;
	int		 ht_rounds;	/* First wake-ups looked at. */
	int		 ht_bad;	/* Not the hang-up. */
	int		 ht_slept;	/* The waiter was seen asleep. */
	char		 ht_first[200];	/* The first bad one. */
};

static void
hu_tally_init(struct hu_tally *t, const char *name)
{

	memset(t, 0, sizeof(*t));
	t->ht_name = name;
	t->ht_start = hu_now();
}

static void
hu_tally_add(struct hu_tally *t, const char *bad, bool slept)
{

	t->ht_rounds++;
	t->ht_slept += slept;
	if (bad != NULL && t->ht_bad++ == 0)
		snprintf(t->ht_first, sizeof(t->ht_first), "round %d: %s",
		    t->ht_rounds, bad);
}

/*
 * Report (on stderr, which kyua report --verbose shows) and judge: no
 * first wake-up without the hang-up, and most waiters seen asleep, else
 * the case tested no wake-up at all.
 */
static void
hu_tally_end(const struct hu_tally *t)
{

	fprintf(stderr, "%s: %d/%d first wake-ups with the hang-up, %d "
	    "waiters seen asleep, %.2f s\n", t->ht_name,
	    t->ht_rounds - t->ht_bad, t->ht_rounds, t->ht_slept,
	    hu_now() - t->ht_start);
	ATF_CHECK_MSG(t->ht_bad == 0, "%s: %d of %d first wake-ups without "
	    "the hang-up; %s", t->ht_name, t->ht_bad, t->ht_rounds,
	    t->ht_first);
	ATF_CHECK_MSG(t->ht_slept * 2 >= t->ht_rounds, "%s: the waiter was "
	    "seen asleep in %d rounds of %d only", t->ht_name, t->ht_slept,
	    t->ht_rounds);
}

/*
 * The status through fd, once hung up: an exit with HU_CODE, si_pid the
 * pid we know, or as expected otherwise (want: a wait status).
 */
static void	hu_check_status(int, const siginfo_t *, pid_t, int,
		    const char *);

static void
hu_status(int fd, pid_t pid, int want, const char *what)
{
	siginfo_t si;
	int status;

	ATF_REQUIRE_MSG(t_reaped_within(fd, T_LONG_MS), "%s: no hang-up",
	    what);
	memset(&si, 0, sizeof(si));
	status = -1;
	ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, NULL, &si) == 0,
	    "%s: pdwait: %s", what, strerror(errno));
	hu_check_status(status, &si, pid, want, what);
}

/*
 * Once the exit is known, si_pid the pid we know and the status the one
 * expected.
 */
static void
hu_check_status(int status, const siginfo_t *sip, pid_t pid, int want,
    const char *what)
{
	const siginfo_t si = *sip;

	ATF_CHECK_MSG(status == want, "%s: status %#x, expected %#x", what,
	    status, want);
	ATF_CHECK_MSG(si.si_pid == pid, "%s: si_pid %d, expected %d", what,
	    (int)si.si_pid, (int)pid);
}

/* The wait status of an exit with code. */
#define	HU_EXITED(code)	W_EXITCODE((code), 0)

/*
 * The status of a process whose parent reaps it at once: where the kernel
 * keeps no exit for pidfd holders (PIDFD_INFO_EXIT, Linux 6.15) it may be
 * lost, and pdwait says so with ECHILD (pdfork(3) BUGS); else as
 * hu_status().
 */
static void
hu_status_lossy(int fd, pid_t pid, const char *what)
{
	siginfo_t si;
	int status;

	ATF_REQUIRE_MSG(t_reaped_within(fd, T_LONG_MS), "%s: no hang-up",
	    what);
	memset(&si, 0, sizeof(si));
	status = -1;
	if (pdwait(fd, &status, WEXITED, NULL, &si) == -1) {
		ATF_CHECK_MSG(errno == ECHILD, "%s: pdwait: %s", what,
		    strerror(errno));
		return;
	}
	hu_check_status(status, &si, pid, HU_EXITED(HU_CODE), what);
}

/*
 * Cases 1 and 2: rounds of a pdfork child that exits when told, a waiter
 * asleep on its descriptor, every CPU busy.
 */
static void
hu_stress(enum hu_how how, int rounds)
{
	struct hu_tally t;
	struct hu_load load;
	const char *bad;
	int ctl[2], fd, i;
	bool slept;
	pid_t pid;

	hu_tally_init(&t, hu_names[how]);
	hu_load_start(&load);
	for (i = 0; i < rounds; i++) {
		pid = t_pdfork_on_byte(&fd, ctl, HU_CODE);
		ATF_REQUIRE(close(ctl[0]) == 0);
		bad = hu_round(fd, ctl[1], how, &slept);
		hu_tally_add(&t, bad, slept);
		hu_status(fd, pid, HU_EXITED(HU_CODE), hu_names[how]);
		ATF_REQUIRE(close(fd) == 0);
		ATF_REQUIRE(close(ctl[1]) == 0);
	}
	hu_load_stop(&load);
	hu_tally_end(&t);
}

T_TC(hangup__poll, "poll: the first wake-up at the exit has POLLHUP and "
    "POLLIN, never POLLIN alone (1000 rounds, CPUs busy)")
{

	hu_stress(HU_POLL, t_scaled(HU_ROUNDS_POLL));
}

T_TC(hangup__select, "select: readable at the exit only with the hang-up "
    "there, the except set empty")
{

	hu_stress(HU_SELECT, t_scaled(HU_ROUNDS_OTHER));
}

T_TC(hangup__epoll_lt, "epoll, level-triggered: the first wake-up has "
    "EPOLLHUP and EPOLLIN, and they stay")
{

	hu_stress(HU_EPOLL_LT, t_scaled(HU_ROUNDS_OTHER));
}

T_TC(hangup__epoll_et, "epoll, edge-triggered: one wake-up, with EPOLLHUP "
    "and EPOLLIN, and no second")
{

	hu_stress(HU_EPOLL_ET, t_scaled(HU_ROUNDS_OTHER));
}

/*
 * Case 3: what a holder other than the owner saw, written back to the
 * test by the holder (no ATF macro there).
 */
struct hu_report {
	int	hr_n;		/* poll's result, */
	short	hr_revents;	/* its revents, */
	int	hr_error;	/* pdwait's errno, or 0, */
	int	hr_status;	/* its status */
	pid_t	hr_pid;		/* and si_pid. */
};

/*
 * In a holder: wait for the exit, then pdwait; report on out, exit.  The
 * pdwait blocks only once the exit was seen: a holder that hung would
 * keep the process alive with its copy when the case fails.
 */
static void __attribute__((noreturn))
hu_holder(int fd, int ready, int out)
{
	struct hu_report r;
	struct pollfd pfd;
	siginfo_t si;

	memset(&r, 0, sizeof(r));
	memset(&si, 0, sizeof(si));
	/* Nothing sleeps between this byte and the poll. */
	t_child_write(ready, "r", 1);
	pfd.fd = fd;
	pfd.events = POLLIN | POLLHUP;
	pfd.revents = 0;
	r.hr_n = poll(&pfd, 1, T_LONG_MS);
	r.hr_revents = pfd.revents;
	r.hr_status = -1;
	if (pdwait(fd, &r.hr_status, WEXITED | (r.hr_n == 1 ? 0 : WNOHANG),
	    NULL, &si) != 0)
		r.hr_error = errno;
	r.hr_pid = si.si_pid;
	t_child_write(out, &r, sizeof(r));
	_exit(0);
}

/* Read exactly len bytes from fd, each part within T_LONG_MS. */
static bool
hu_read_all(int fd, void *buf, size_t len)
{
	struct pollfd pfd;
	size_t got;
	ssize_t n;

	for (got = 0; got < len; got += (size_t)n) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, T_LONG_MS) != 1 ||
		    (n = read(fd, (char *)buf + got, len - got)) <= 0)
			return (false);
	}
	return (true);
}

/* A holder's report: NULL if it saw the hang-up and the status, else why. */
static const char *
hu_report_judge(const struct hu_report *r, pid_t pid)
{
	static char msg[160];
	const short both = POLLIN | POLLHUP;

	if (r->hr_n != 1 || (r->hr_revents & both) != both ||
	    (r->hr_revents & (POLLERR | POLLNVAL)) != 0)
		snprintf(msg, sizeof(msg), "poll %d, first wake-up revents "
		    "%#x", r->hr_n, (unsigned)r->hr_revents);
	else if (r->hr_error != 0)
		snprintf(msg, sizeof(msg), "pdwait: %s",
		    strerror(r->hr_error));
	else if (r->hr_status != HU_EXITED(HU_CODE) || r->hr_pid != pid)
		snprintf(msg, sizeof(msg), "status %#x si_pid %d, expected "
		    "%#x and %d", r->hr_status, (int)r->hr_pid,
		    HU_EXITED(HU_CODE), (int)pid);
	else
		return (NULL);
	return (msg);
}

T_TC(hangup__every_holder, "a fork() copy and an SCM_RIGHTS receiver, "
    "asleep in poll, wake up to the hang-up and read the status")
{
	struct hu_report r[2];
	struct hu_tally t, th;
	struct hu_load load;
	const char *bad, *what;
	int ctl[2], fd, i, j, out[2], ready[2], s[2];
	pid_t h[2], pid;
	bool slept;
	char c;

	hu_tally_init(&t, "owner");
	hu_tally_init(&th, "fork copy and receiver");
	hu_load_start(&load);
	for (i = 0; i < t_scaled(HU_ROUNDS_HOLD); i++) {
		ATF_REQUIRE(pipe2(ready, O_CLOEXEC) == 0);
		ATF_REQUIRE(pipe2(out, O_CLOEXEC) == 0);
		ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
		    0, s) == 0);
		/* The receiver: made before the descriptor, sent it later. */
		ATF_REQUIRE((h[1] = fork()) >= 0);
		if (h[1] == 0) {
			if (t_recvfd(s[1], &c, 1, &fd, MSG_CMSG_CLOEXEC) != 1 ||
			    fd == -1)
				_exit(125);
			hu_holder(fd, ready[1], out[1]);
		}
		pid = t_pdfork_on_byte(&fd, ctl, HU_CODE);
		ATF_REQUIRE(close(ctl[0]) == 0);
		/* The fork() copy. */
		ATF_REQUIRE((h[0] = fork()) >= 0);
		if (h[0] == 0)
			hu_holder(fd, ready[1], out[1]);
		ATF_REQUIRE(t_sendfd(s[0], "d", 1, fd) == 0);
		for (j = 0; j < 2; j++)
			ATF_REQUIRE(t_read_byte(ready[0]) == 'r');
		for (j = 0; j < 2; j++)
			th.ht_slept += t_task_sleeping(h[j], h[j], T_LONG_MS);
		/* The owner's own waiter, then the exit. */
		bad = hu_round(fd, ctl[1], HU_POLL, &slept);
		hu_tally_add(&t, bad, slept);
		for (j = 0; j < 2; j++) {
			ATF_REQUIRE(hu_read_all(out[0], &r[j], sizeof(r[j])));
			th.ht_rounds++;
			if ((bad = hu_report_judge(&r[j], pid)) != NULL &&
			    th.ht_bad++ == 0)
				snprintf(th.ht_first, sizeof(th.ht_first),
				    "round %d: %s", i + 1, bad);
		}
		for (j = 0; j < 2; j++) {
			what = j == 0 ? "fork copy" : "receiver";
			ATF_CHECK_EQ_MSG(t_reap(h[j]), 0, "%s", what);
		}
		hu_status(fd, pid, HU_EXITED(HU_CODE), "owner");
		ATF_REQUIRE(close(fd) == 0);
		ATF_REQUIRE(close(ctl[1]) == 0);
		t_close_pipe(ready);
		t_close_pipe(out);
		t_close_pipe(s);
	}
	hu_load_stop(&load);
	hu_tally_end(&t);
	hu_tally_end(&th);
}

/*
 * Case 4: a process of some kind, its descriptor, and how to end it and
 * clean up after it.
 */
struct hu_kid {
	int	hk_fd;		/* The descriptor. */
	pid_t	hk_pid;		/* Its process. */
	int	hk_go;		/* A newline here: exit with HU_CODE. */
	pid_t	hk_reap;	/* A fork() child of ours to reap, or 0. */
	int	hk_middle;	/* pddupfd: the middle process's pd, */
	int	hk_release;	/* and a byte here lets it finish; or -1. */
	bool	hk_lossy;	/* Its status may be lost: ECHILD. */
};

/* The read end of ctl, close-on-exec, as the new process's stdin. */
static void
hu_stdin(int rfd)
{

	if (dup2(rfd, STDIN_FILENO) == -1)
		_exit(126);
}

static void
hk_pdfork(struct hu_kid *k)
{
	int ctl[2];

	k->hk_pid = t_pdfork_on_byte(&k->hk_fd, ctl, HU_CODE);
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
}

static void
hk_pdrfork(struct hu_kid *k)
{
	int ctl[2];
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	k->hk_pid = pdrfork(&k->hk_fd, 0, RFPROC | RFPROCDESC);
	ATF_REQUIRE_MSG(k->hk_pid >= 0, "pdrfork: %s", strerror(errno));
	if (k->hk_pid == 0) {
		(void)close(ctl[1]);	/* EOF if the test dies. */
		(void)read(ctl[0], &c, 1);
		_exit(HU_CODE);
	}
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
}

/* RFSPAWN: async-signal-safe calls only, then the exec of sh(1). */
static void
hk_rfspawn(struct hu_kid *k)
{
	char *argv[] = { "sh", "-c", HU_SH_EXIT, NULL };
	int ctl[2];

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	k->hk_pid = pdrfork(&k->hk_fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(k->hk_pid >= 0, "pdrfork: %s", strerror(errno));
	if (k->hk_pid == 0) {
		hu_stdin(ctl[0]);
		execve("/bin/sh", argv, environ);
		_exit(127);
	}
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
}

static void
hk_spawn(struct hu_kid *k)
{
	char *argv[] = { "sh", "-c", HU_SH_EXIT, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	int ctl[2], error;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, ctl[0],
	    STDIN_FILENO) == 0);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, &k->hk_fd, 0) == 0);
	error = posix_spawn(&k->hk_pid, "/bin/sh", &fa, &sa, argv, environ);
	ATF_REQUIRE_MSG(error == 0, "posix_spawn: %s", strerror(error));
	ATF_REQUIRE(posix_spawn_file_actions_destroy(&fa) == 0);
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
}

/*
 * pdopenpid of our own fork() child: we stay its parent and reap it with
 * waitpid afterwards.
 */
static void
hk_openpid_child(struct hu_kid *k)
{
	int ctl[2];
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	ATF_REQUIRE((k->hk_pid = fork()) >= 0);
	if (k->hk_pid == 0) {
		(void)close(ctl[1]);	/* EOF if the test dies. */
		(void)read(ctl[0], &c, 1);
		_exit(HU_CODE);
	}
	k->hk_fd = pdopenpid(k->hk_pid, 0);
	ATF_REQUIRE_MSG(k->hk_fd >= 0, "pdopenpid: %s", strerror(errno));
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
	k->hk_reap = k->hk_pid;
}

/*
 * pdopenpid of a grandchild: the child of a helper, which reaps it and
 * exits with its code.
 */
static void
hk_openpid_grandchild(struct hu_kid *k)
{
	int ctl[2], rep[2], st;
	pid_t g;
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE((k->hk_reap = fork()) >= 0);
	if (k->hk_reap == 0) {
		if ((g = fork()) == -1)
			_exit(100);
		if (g == 0) {
			(void)close(ctl[1]);
			(void)read(ctl[0], &c, 1);
			_exit(HU_CODE);
		}
		t_child_write(rep[1], &g, sizeof(g));
		if (waitpid(g, &st, 0) != g)
			_exit(101);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 102);
	}
	ATF_REQUIRE(hu_read_all(rep[0], &k->hk_pid, sizeof(k->hk_pid)));
	k->hk_fd = pdopenpid(k->hk_pid, 0);
	ATF_REQUIRE_MSG(k->hk_fd >= 0, "pdopenpid: %s", strerror(errno));
	t_close_pipe(rep);
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
	k->hk_lossy = !t_kernel_exit_info();
}

/*
 * pddupfd: a pdfork child, the middle, holds the descriptor of a pdfork
 * grandchild; we take a copy of it out of the middle.  The middle reaps
 * the grandchild and exits with its code once released.
 */
static void
hk_dupfd(struct hu_kid *k)
{
	int ctl[2], msg[2], rel[2], rep[2], gfd, st;
	pid_t g, pid;
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(rel, O_CLOEXEC) == 0);
	pid = pdfork(&k->hk_middle, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(rel[1]);	/* EOF if the test dies. */
		if ((g = pdfork(&gfd, 0)) == -1)
			_exit(100);
		if (g == 0) {
			(void)close(ctl[1]);
			(void)read(ctl[0], &c, 1);
			_exit(HU_CODE);
		}
		msg[0] = gfd;
		msg[1] = (int)g;
		t_child_write(rep[1], msg, sizeof(msg));
		(void)read(rel[0], &c, 1);
		if (pdwait(gfd, &st, WEXITED, NULL, NULL) != 0)
			_exit(101);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 102);
	}
	ATF_REQUIRE(hu_read_all(rep[0], msg, sizeof(msg)));
	k->hk_fd = pddupfd(k->hk_middle, msg[0], 0);
	ATF_REQUIRE_MSG(k->hk_fd >= 0, "pddupfd: %s", strerror(errno));
	ATF_REQUIRE(t_is_pd(k->hk_fd));
	k->hk_pid = (pid_t)msg[1];
	t_close_pipe(rep);
	ATF_REQUIRE(close(rel[0]) == 0);
	ATF_REQUIRE(close(ctl[0]) == 0);
	k->hk_go = ctl[1];
	k->hk_release = rel[1];
}

/*
 * Rounds of one kind: the hang-up first, the status after, then the
 * clean-up of the kind, with its own checks.
 */
static void
hu_kind(void (*make)(struct hu_kid *), const char *name)
{
	struct hu_tally t;
	struct hu_load load;
	struct hu_kid k;
	const char *bad;
	int i, status;
	bool slept;

	hu_tally_init(&t, name);
	hu_load_start(&load);
	for (i = 0; i < t_scaled(HU_ROUNDS_KIND); i++) {
		memset(&k, 0, sizeof(k));
		k.hk_middle = k.hk_release = -1;
		make(&k);
		bad = hu_round(k.hk_fd, k.hk_go, HU_POLL, &slept);
		hu_tally_add(&t, bad, slept);
		if (k.hk_lossy)
			hu_status_lossy(k.hk_fd, k.hk_pid, name);
		else
			hu_status(k.hk_fd, k.hk_pid, HU_EXITED(HU_CODE), name);
		if (k.hk_reap != 0 && !k.hk_lossy) {
			/* The parent still has the status to collect... */
			ATF_CHECK_EQ_MSG(t_reap(k.hk_reap), HU_CODE,
			    "%s: waitpid", name);
			/* ...and pdwait still has it after the reap. */
			status = -1;
			ATF_CHECK_MSG(pdwait(k.hk_fd, &status, WEXITED, NULL,
			    NULL) == 0 && status == HU_EXITED(HU_CODE),
			    "%s: after waitpid: pdwait: %s, status %#x", name,
			    strerror(errno), status);
		} else if (k.hk_reap != 0)
			ATF_CHECK_EQ_MSG(t_reap(k.hk_reap), HU_CODE,
			    "%s: waitpid", name);
		ATF_REQUIRE(close(k.hk_fd) == 0);
		ATF_REQUIRE(close(k.hk_go) == 0);
		if (k.hk_middle != -1) {
			ATF_REQUIRE(write(k.hk_release, "g", 1) == 1);
			ATF_REQUIRE(close(k.hk_release) == 0);
			t_wait_exit_code(k.hk_middle, HU_CODE, "middle");
		}
	}
	hu_load_stop(&load);
	hu_tally_end(&t);
}

T_TC(kind__pdfork, "pdfork: hang-up at the exit, then the status")
{

	hu_kind(hk_pdfork, "pdfork");
}

T_TC(kind__pdrfork, "pdrfork(RFPROC | RFPROCDESC): hang-up at the exit, "
    "then the status")
{

	hu_kind(hk_pdrfork, "pdrfork");
}

T_TC(kind__rfspawn, "pdrfork(RFSPAWN) and exec: hang-up at the exit, then "
    "the status")
{

	hu_kind(hk_rfspawn, "RFSPAWN");
}

T_TC(kind__posix_spawn, "posix_spawn with a descriptor: hang-up at the "
    "exit, then the status")
{

	hu_kind(hk_spawn, "posix_spawn");
}

T_TC(kind__pdopenpid_child, "pdopenpid of our fork() child: hang-up at the "
    "exit, the status, and waitpid still has it")
{

	hu_kind(hk_openpid_child, "pdopenpid child");
}

T_TC(kind__pdopenpid_grandchild, "pdopenpid of another process's child: "
    "hang-up at the exit, then the status")
{

	hu_kind(hk_openpid_grandchild, "pdopenpid grandchild");
}

T_TC(kind__pddupfd, "pddupfd of a child's descriptor of its own child: "
    "hang-up at the exit, then the status")
{

	hu_kind(hk_dupfd, "pddupfd");
}

/*
 * Case 5: pid namespaces.  A process in a new one, pid 1 there (ns init),
 * talks with the test over a SEQPACKET socket; it makes no ATF call but
 * reports what it saw.
 */

/* Make the next pid of our pid namespace want (ns_last_pid, as root). */
static bool
hu_next_pid(pid_t want)
{
	char buf[32];
	int fd, n;
	bool ok;

	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		return (false);
	n = snprintf(buf, sizeof(buf), "%d", (int)want - 1);
	ok = (write(fd, buf, (size_t)n) == n);
	(void)close(fd);
	return (ok);
}

/* A process that waits to be killed: a decoy that must not be hit. */
static pid_t
hu_decoy(void)
{
	pid_t pid;

	if ((pid = fork()) == 0)
		t_pause();
	return (pid);
}

/* Wait for s to be readable, ms at most. */
static bool
hu_readable_ms(int s, int ms)
{
	struct pollfd pfd;

	pfd.fd = s;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, ms) == 1);
}

/* The same, T_LONG_MS at most. */
static bool
hu_readable(int s)
{

	return (hu_readable_ms(s, T_LONG_MS));
}

/*
 * How long the process in the namespace waits for the test's next step:
 * longer than the test waits for the exit and the status, so that a
 * failure is seen as what it is there, not as the namespace's end (its
 * pid 1 exits, which kills its guardian and so hangs the descriptor up).
 */
#define	HU_NS_MS	(3 * T_LONG_MS)

/*
 * Run fn in a new pid namespace, as its pid 1, with the socket s; its
 * result, or 120 and up if that could not be done.  In a forked helper:
 * unshare(CLONE_NEWPID) applies to the children of its caller only.
 */
static int
hu_in_new_ns(int s, int (*fn)(int))
{
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWPID) == -1)
		return (120);
	if ((pid = fork()) == -1)
		return (121);
	if (pid == 0)
		_exit(fn(s));
	if (waitpid(pid, &st, 0) != pid)
		return (122);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 123);
}

/* What the process in the namespace saw of a descriptor from outside. */
struct hu_into {
	pid_t	hi_decoy;	/* Its decoy's pid, which should be pid. */
	int	hi_getpid;	/* pdgetpid's result, */
	int	hi_getpid_err;	/* errno, */
	pid_t	hi_pid;		/* and the pid it gave. */
	int	hi_kill;	/* pdkill SIGTERM's result, */
	int	hi_kill_err;	/* and errno. */
	/* After the exit: */
	int	hi_n;		/* poll's result, */
	short	hi_revents;	/* its revents. */
	int	hi_wait_err;	/* pdwait's errno, or 0, */
	int	hi_status;	/* its status, */
	pid_t	hi_sipid;	/* and si_pid. */
	int	hi_getpid2;	/* pdgetpid again, */
	pid_t	hi_pid2;	/* and the pid it gave. */
	int	hi_decoy_st;	/* The decoy's wait status: SIGKILL's. */
};

/*
 * In the namespace: receive the descriptor of a process outside and the
 * pid the outside sees, put a decoy at that pid here, then use the
 * descriptor; report twice: before the exit and after.
 */
static int
hu_into_ns(int s)
{
	struct hu_into r;
	struct pollfd pfd;
	siginfo_t si;
	pid_t pid;
	int fd;

	memset(&r, 0, sizeof(r));
	if (!hu_readable(s) ||
	    t_recvfd(s, &pid, sizeof(pid), &fd, MSG_CMSG_CLOEXEC) !=
	    sizeof(pid) || fd == -1)
		return (1);
	if (!hu_next_pid(pid))
		return (2);
	if ((r.hi_decoy = hu_decoy()) == -1)
		return (3);
	errno = 0;
	r.hi_getpid = pdgetpid(fd, &r.hi_pid);
	r.hi_getpid_err = errno;
	errno = 0;
	r.hi_kill = pdkill(fd, SIGTERM);
	r.hi_kill_err = errno;
	t_child_write(s, &r, sizeof(r));
	/* The outside makes it exit, unless pdkill did. */
	pfd.fd = fd;
	pfd.events = POLLIN | POLLHUP;
	pfd.revents = 0;
	r.hi_n = poll(&pfd, 1, HU_NS_MS);
	r.hi_revents = pfd.revents;
	memset(&si, 0, sizeof(si));
	r.hi_status = -1;
	if (pdwait(fd, &r.hi_status, WEXITED | (r.hi_n == 1 ? 0 : WNOHANG),
	    NULL, &si) != 0)
		r.hi_wait_err = errno;
	r.hi_sipid = si.si_pid;
	r.hi_getpid2 = pdgetpid(fd, &r.hi_pid2);
	(void)kill(r.hi_decoy, SIGKILL);
	if (waitpid(r.hi_decoy, &r.hi_decoy_st, 0) != r.hi_decoy)
		r.hi_decoy_st = -1;
	(void)close(fd);
	t_child_write(s, &r, sizeof(r));
	return (0);
}

/*
 * Look up a pid the library cannot see through a pidfd (a reaped process
 * behind a pdopenpid descriptor), as a program may do before it enters a
 * new pid namespace: the library then knows which namespace it is in.
 */
static void
hu_lookup_reaped(void)
{
	int ctl[2], fd;
	pid_t pid, p;
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		(void)close(ctl[1]);	/* EOF if the test dies. */
		(void)read(ctl[0], &c, 1);
		_exit(0);
	}
	fd = pdopenpid(pid, PD_DAEMON);
	ATF_REQUIRE_MSG(fd >= 0, "pdopenpid: %s", strerror(errno));
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	ATF_REQUIRE(t_reap(pid) == 0);
	ATF_REQUIRE(t_reaped_within(fd, T_LONG_MS));
	p = -1;
	ATF_CHECK_MSG(pdgetpid(fd, &p) == 0 && p == pid, "pdgetpid after the "
	    "reap: %s, %d for %d", strerror(errno), (int)p, (int)pid);
	ATF_REQUIRE(close(fd) == 0);
	t_close_pipe(ctl);
}

/*
 * A descriptor of a process outside, used in a new pid namespace, where
 * the process has no pid and a decoy has its number: pdgetpid fails or
 * gives 0, pdkill reaches the process or fails, never the decoy; poll and
 * pdwait see the exit, with no pid.
 */
static void
hu_into(bool lookup)
{
	struct hu_into r;
	int ctl[2], fd, s[2], want;
	pid_t n, pid;

	if (lookup)
		hu_lookup_reaped();
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s) == 0);
	ATF_REQUIRE((n = fork()) >= 0);
	if (n == 0)
		_exit(hu_in_new_ns(s[1], hu_into_ns));
	pid = t_pdfork_on_byte(&fd, ctl, HU_CODE);
	ATF_REQUIRE(close(ctl[0]) == 0);
	ATF_REQUIRE(t_sendfd(s[0], &pid, sizeof(pid), fd) == 0);
	ATF_REQUIRE_MSG(hu_readable(s[0]) && recv(s[0], &r, sizeof(r), 0) ==
	    (ssize_t)sizeof(r), "no word from the namespace (helper %d)",
	    t_reap(n));
	ATF_CHECK_MSG(r.hi_decoy == pid, "the decoy has pid %d there, not "
	    "%d", (int)r.hi_decoy, (int)pid);
	ATF_CHECK_MSG(r.hi_getpid == -1 || r.hi_pid == 0, "pdgetpid in the "
	    "namespace gave %d, a pid of the wrong namespace (%d is the "
	    "decoy's there)", (int)r.hi_pid, (int)pid);
	if (r.hi_getpid == -1)
		fprintf(stderr, "pdgetpid in the namespace: %s\n",
		    strerror(r.hi_getpid_err));
	want = W_EXITCODE(0, SIGTERM);
	if (r.hi_kill == 0 && !t_reaped_within(fd, T_LONG_MS)) {
		ATF_CHECK_MSG(false, "pdkill in the namespace returned 0, but "
		    "the process it names took no signal");
		ATF_REQUIRE(write(ctl[1], "\n", 1) == 1);
		want = HU_EXITED(HU_CODE);
	} else if (r.hi_kill != 0) {
		fprintf(stderr, "pdkill in the namespace: %s\n",
		    strerror(r.hi_kill_err));
		/* It failed: nothing may have reached the process. */
		ATF_CHECK_ERRNO(EAGAIN, pdwait(fd, NULL, WEXITED | WNOHANG,
		    NULL, NULL) == -1);
		ATF_REQUIRE(write(ctl[1], "\n", 1) == 1);
		want = HU_EXITED(HU_CODE);
	}
	hu_status(fd, pid, want, "outside");
	ATF_REQUIRE_MSG(hu_readable(s[0]) && recv(s[0], &r, sizeof(r), 0) ==
	    (ssize_t)sizeof(r), "no word from the namespace (helper %d)",
	    t_reap(n));
	ATF_CHECK_MSG(r.hi_n == 1 && (r.hi_revents & (POLLIN | POLLHUP)) ==
	    (POLLIN | POLLHUP), "in the namespace: poll %d, revents %#x",
	    r.hi_n, (unsigned)r.hi_revents);
	ATF_CHECK_MSG(r.hi_wait_err == 0 && r.hi_status == want, "in the "
	    "namespace: pdwait: %s, status %#x, expected %#x",
	    strerror(r.hi_wait_err), r.hi_status, want);
	ATF_CHECK_MSG(r.hi_sipid == 0, "in the namespace: si_pid %d, a pid "
	    "of the wrong namespace", (int)r.hi_sipid);
	ATF_CHECK_MSG(r.hi_getpid2 == -1 || r.hi_pid2 == 0, "in the "
	    "namespace, after the exit: pdgetpid gave %d", (int)r.hi_pid2);
	ATF_CHECK_MSG(WIFSIGNALED(r.hi_decoy_st) &&
	    WTERMSIG(r.hi_decoy_st) == SIGKILL, "the decoy %d in the "
	    "namespace: status %#x, it took a signal meant for the process "
	    "outside", (int)pid, r.hi_decoy_st);
	ATF_CHECK_EQ(t_reap(n), 0);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(ctl[1]) == 0);
	t_close_pipe(s);
}

T_TC_MD(pidns__into, "a descriptor from outside, in a new pid namespace: "
    "no pid of the wrong namespace, no signal to the wrong process",
    atf_tc_set_md_var(tc, "require.user", "root"))
{

	hu_into(false);
}

T_TC_MD(pidns__into_after_lookup, "as pidns__into, by a process whose "
    "parent had looked up a reaped pid before it entered the namespace",
    atf_tc_set_md_var(tc, "require.user", "root"))
{

	hu_into(true);
}

/* What the process in the namespace made: the pids of its child. */
struct hu_out {
	pid_t	ho_inner;	/* As pdfork returned it, in there. */
	pid_t	ho_outer;	/* /proc/self of the child: outside's. */
};

/* pid from /proc/self: the pid in the namespace of this /proc. */
static pid_t
hu_proc_self(void)
{
	char buf[32];
	ssize_t n;

	if ((n = readlink("/proc/self", buf, sizeof(buf) - 1)) <= 0)
		return (-1);
	buf[n] = '\0';
	return ((pid_t)atoi(buf));
}

/*
 * In the namespace: start the guardian (its processes take their pids
 * first), then pdfork a child at the pid the outside names, whose number
 * outside is a decoy's; send its descriptor out, wait for the word, and
 * report the status as the owner sees it.
 */
static int
hu_out_ns(int s)
{
	struct hu_out o;
	int fd, p[2], st;
	pid_t want;
	char c;

	if (!hu_readable(s) || recv(s, &want, sizeof(want), 0) !=
	    (ssize_t)sizeof(want))
		return (1);
	if ((o.ho_inner = pdfork(&fd, 0)) == -1)
		return (2);
	if (o.ho_inner == 0)
		_exit(0);
	if (pdwait(fd, NULL, WEXITED, NULL, NULL) != 0 || close(fd) != 0)
		return (3);
	if (pipe2(p, O_CLOEXEC) != 0 || !hu_next_pid(want))
		return (4);
	if ((o.ho_inner = pdfork(&fd, 0)) == -1)
		return (5);
	if (o.ho_inner == 0) {
		o.ho_outer = hu_proc_self();
		t_child_write(p[1], &o.ho_outer, sizeof(o.ho_outer));
		t_pause();
	}
	if (!hu_readable(p[0]) || read(p[0], &o.ho_outer,
	    sizeof(o.ho_outer)) != (ssize_t)sizeof(o.ho_outer))
		return (6);
	if (t_sendfd(s, &o, sizeof(o), fd) != 0)
		return (7);
	if (!hu_readable_ms(s, HU_NS_MS) || recv(s, &c, 1, 0) != 1)
		return (8);
	if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0)
		return (9);
	(void)close(fd);
	return (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM ? 0 : 10);
}

/* The NSpid line of /proc/pid/status: "outer inner", or false. */
static bool
hu_nspid(pid_t pid, pid_t *outerp, pid_t *innerp)
{
	char path[64], line[256];
	FILE *fp;
	bool ok;
	int o, i;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (false);
	ok = false;
	while (!ok && fgets(line, sizeof(line), fp) != NULL)
		ok = (sscanf(line, "NSpid: %d %d", &o, &i) == 2);
	fclose(fp);
	if (ok) {
		*outerp = o;
		*innerp = i;
	}
	return (ok);
}

T_TC_MD(pidns__out, "a descriptor made in a new pid namespace, outside: "
    "pdgetpid gives the pid seen outside, pdkill reaches the process "
    "and not the one with its inner number",
    atf_tc_set_md_var(tc, "require.user", "root"))
{
	struct hu_out o;
	int dw, fd, s[2], st;
	pid_t decoy, n, inner, outer, p;
	bool slept;
	const char *bad;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s) == 0);
	ATF_REQUIRE((decoy = hu_decoy()) > 0);
	dw = t_watch(decoy);
	ATF_REQUIRE((n = fork()) >= 0);
	if (n == 0)
		_exit(hu_in_new_ns(s[1], hu_out_ns));
	ATF_REQUIRE(send(s[0], &decoy, sizeof(decoy), 0) ==
	    (ssize_t)sizeof(decoy));
	ATF_REQUIRE_MSG(hu_readable(s[0]) && t_recvfd(s[0], &o, sizeof(o),
	    &fd, MSG_CMSG_CLOEXEC) == (ssize_t)sizeof(o) && fd != -1,
	    "no descriptor from the namespace (helper %d)", t_reap(n));
	ATF_CHECK_MSG(o.ho_inner == decoy, "the child has pid %d in the "
	    "namespace, not the decoy's %d", (int)o.ho_inner, (int)decoy);
	ATF_REQUIRE(hu_nspid(o.ho_outer, &outer, &inner));
	ATF_REQUIRE_MSG(outer == o.ho_outer && inner == o.ho_inner,
	    "NSpid %d %d, expected %d %d", (int)outer, (int)inner,
	    (int)o.ho_outer, (int)o.ho_inner);
	p = -1;
	ATF_CHECK_MSG(pdgetpid(fd, &p) == 0 && p == outer, "pdgetpid: %s, "
	    "%d; the child is %d here, %d in its namespace", strerror(errno),
	    (int)p, (int)outer, (int)inner);
	/* The exit by pdkill, with a waiter asleep on the descriptor. */
	bad = hu_round(fd, -1, HU_POLL, &slept);
	/* Had the signal gone to the decoy, it would be dead by now. */
	ATF_CHECK_MSG(t_alive(dw), "the decoy %d died: it took the signal",
	    (int)decoy);
	ATF_REQUIRE_MSG(bad == NULL, "%s", bad);
	hu_status(fd, outer, W_EXITCODE(0, SIGTERM), "outside");
	p = -1;
	ATF_CHECK_MSG(pdgetpid(fd, &p) == 0 && p == outer, "pdgetpid after "
	    "the exit: %s, %d, expected %d", strerror(errno), (int)p,
	    (int)outer);
	ATF_REQUIRE(kill(decoy, SIGKILL) == 0);
	ATF_REQUIRE(waitpid(decoy, &st, 0) == decoy);
	ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the "
	    "decoy: status %#x", st);
	ATF_REQUIRE(close(dw) == 0);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(send(s[0], "d", 1, 0) == 1);
	ATF_CHECK_EQ_MSG(t_reap(n), 0, "the owner in the namespace");
	t_close_pipe(s);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, hangup__poll);
	ATF_TP_ADD_TC(tp, hangup__select);
	ATF_TP_ADD_TC(tp, hangup__epoll_lt);
	ATF_TP_ADD_TC(tp, hangup__epoll_et);
	ATF_TP_ADD_TC(tp, hangup__every_holder);
	ATF_TP_ADD_TC(tp, kind__pdfork);
	ATF_TP_ADD_TC(tp, kind__pdrfork);
	ATF_TP_ADD_TC(tp, kind__rfspawn);
	ATF_TP_ADD_TC(tp, kind__posix_spawn);
	ATF_TP_ADD_TC(tp, kind__pdopenpid_child);
	ATF_TP_ADD_TC(tp, kind__pdopenpid_grandchild);
	ATF_TP_ADD_TC(tp, kind__pddupfd);
	ATF_TP_ADD_TC(tp, pidns__into);
	ATF_TP_ADD_TC(tp, pidns__into_after_lookup);
	ATF_TP_ADD_TC(tp, pidns__out);
	return (0);
}
