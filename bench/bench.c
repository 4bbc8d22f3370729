/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * bench: how fast libprocdesc is next to what it replaces (issue #7).
 *
 *	bench [-kq] [-l children] [-o dir] [-t file]
 *
 * Sections, in the order run: 5. scale and 6. the 19,000-children limit
 * (scale.c), first and each in a forked copy of its own, an owner with
 * its own guardians, so that its memory figures start from a fresh
 * process and its registry entries do not linger in ours; 1. spawn and
 * collect with 0, 100 and 1,000 other live children; 1b. spawn by the
 * caller's size (spawn.c); 2. signals;
 * 2b. the application's waits; 3. close -> dead and owner SIGKILL ->
 * dead; 4. exit -> POLLHUP.  Every row is measured against a baseline in
 * the same run; every goal is judged from the measured number.
 * Sections 1, 2 and 3's close -> dead run in rounds (10, 4 with -q),
 * subject and baseline interleaved in each, and judge a ratio goal on
 * the round ratios: met only if the upper quartile meets it
 * (out_ratio()), so that one noisy stretch of a shared machine neither
 * makes nor breaks a verdict.  The goals are those of issue #12,
 * point 7.  -q: fewer iterations, 1,000 children in sections 5 and 6.
 * -l: children in section 6 (19,000, or 1,000 with -q); 0 skips it.
 *
 * Each measured operation is timed on its own with CLOCK_MONOTONIC, so
 * that medians and p99s are per operation.  The guardians are waited for
 * (until they are quiet: guardians_quiet()) outside the timed windows,
 * so that one run's background work does not land in the next one.
 */

#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "syscall.h"
#include "bench.h"

#define	SEC		1000000000LL

/* Iterations: full run, then quick (-q). */
struct iters {
	size_t	it_fork;		/* Spawn rows without exec. */
	size_t	it_exec;		/* Spawn rows with exec. */
	size_t	it_sig;			/* Signals, per call. */
	size_t	it_close;		/* Close-kill runs, each kind. */
	size_t	it_owner;		/* Owner-kill runs. */
	size_t	it_exit;		/* Exit notification runs, each. */
	size_t	it_scale;		/* Live children, scale section, */
	size_t	it_scale_rounds;	/* made this many times. */
	int	it_idle;		/* Idle seconds with them. */
	int	it_budget;		/* Seconds allowed to make them. */
	size_t	it_limit;		/* Live children, limit section. */
	size_t	it_rounds;		/* Rounds of interleaved rows. */
};

static const struct iters iters_full = {
	1000, 300, 20000, 1000, 1000, 1000, 10000, 5, 5, 100, 19000, 10
};
static const struct iters iters_quick = {
	200, 60, 3000, 150, 100, 150, 1000, 3, 1, 8, 1000, 4
};

static char *const true_argv[] = { "true", NULL };
static struct guardians guardians;	/* Ours, found after warm-up. */
/* Shared with children, which stamp the time of their last act in it. */
static volatile int64_t *stamp;

/* One spawn-and-collect operation; returns its duration in ns. */
typedef int64_t	op_fn(void);

static int64_t
op_fork(void)
{
	int64_t t0;
	pid_t pid;
	int st;

	t0 = now_ns();
	if ((pid = fork()) == 0)
		_exit(0);
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		err(1, "fork/waitpid");
	return (now_ns() - t0);
}

static int64_t
op_clone3(void)
{
	struct procdesc_clone_args ca;
	siginfo_t si;
	int64_t t0;
	pid_t pid;
	int fd;

	t0 = now_ns();
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)&fd;
	ca.exit_signal = SIGCHLD;
	if ((pid = (pid_t)sys_clone3(&ca)) == 0)
		_exit(0);
	if (pid == -1 || sys_waitid(P_PIDFD, fd, &si, WEXITED, NULL) == -1)
		err(1, "clone3/waitid");
	close(fd);
	return (now_ns() - t0);
}

static int64_t
op_pdfork(void)
{
	int64_t t0;
	pid_t pid;
	int fd, st;

	t0 = now_ns();
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(0);
	if (pid == -1 || pdwait(fd, &st, WEXITED, NULL, NULL) == -1)
		err(1, "pdfork/pdwait");
	close(fd);
	return (now_ns() - t0);
}

int64_t
op_posix_spawn(void)
{
	int64_t t0;
	pid_t pid;
	int error, st;

	t0 = now_ns();
	if ((error = posix_spawn(&pid, "/bin/true", NULL, NULL, true_argv,
	    environ)) != 0) {
		errno = error;
		err(1, "posix_spawn");
	}
	if (waitpid(pid, &st, 0) == -1)
		err(1, "waitpid");
	return (now_ns() - t0);
}

int64_t
op_pdrfork(void)
{
	int64_t t0;
	pid_t pid;
	int fd, st;

	t0 = now_ns();
	if ((pid = pdrfork(&fd, 0, (int)RFSPAWN)) == 0) {
		execve("/bin/true", true_argv, environ);
		_exit(127);
	}
	if (pid == -1 || pdwait(fd, &st, WEXITED, NULL, NULL) == -1)
		err(1, "pdrfork/pdwait");
	close(fd);
	return (now_ns() - t0);
}

struct variant {
	const char	*v_name;
	op_fn		*v_op;
	enum kind	 v_held;	/* Kind of the other live children. */
	int		 v_base;	/* Index of the baseline, or -1. */
	bool		 v_exec;
};

static const struct variant variants[] = {
	{ "fork+waitpid", op_fork, K_FORK, -1, false },
	{ "clone3(CLONE_PIDFD)+waitid(P_PIDFD)", op_clone3, K_CLONE3, 0,
	    false },
	{ "pdfork+pdwait", op_pdfork, K_PD, 0, false },
	{ "posix_spawn(true)+waitpid", op_posix_spawn, K_FORK, -1, true },
	{ "pdrfork(RFSPAWN)+exec(true)+pdwait", op_pdrfork, K_PD, 3, true },
};
#define	NVARIANTS	(sizeof(variants) / sizeof(variants[0]))

/*
 * Let our guardians finish with what the last operations gave them
 * (children to watch, to kill, to forget), so that their work does not
 * land in the next timed window.  Said once should they stay busy.
 */
static void
settle(void)
{
	static bool told;

	if (guardians_quiet(&guardians, 10 * SEC) == -1 && !told) {
		out_printf("  note: the guardian was still busy after 10 s "
		    "(said once)\n");
		told = true;
	}
}

/* nheld paused children of kind k; collect with held_drop(). */
static void
held_make(enum kind k, size_t nheld, pid_t **pidp, int **fdp)
{
	size_t i;

	if ((*pidp = calloc(nheld + 1, sizeof(**pidp))) == NULL ||
	    (*fdp = calloc(nheld + 1, sizeof(**fdp))) == NULL)
		err(1, "calloc");
	for (i = 0; i < nheld; i++)
		(*pidp)[i] = spawn_paused(k, &(*fdp)[i]);
	if (k == K_PD)
		settle();
}

static void
held_drop(enum kind k, size_t nheld, pid_t *pid, int *fd)
{

	collect_all(k, pid, fd, nheld);
	settle();
	free(pid);
	free(fd);
}

static void
run_variant(const struct variant *v, size_t iters, struct samples *s)
{
	size_t i;

	for (i = 0; i < iters / 10 + 2; i++)
		(void)v->v_op();
	for (i = 0; i < iters; i++)
		samples_add(s, (double)v->v_op());
}

/*
 * Does the library reap a pdrfork(RFSPAWN) child that exec'd?  exec(2)
 * resets the child's exit signal to SIGCHLD, which a waitid(__WCLONE)
 * reaper no longer sees; pdwait would then block for ever.  Probe with
 * a timeout, and reap the probe here (we are its parent) if it was not.
 */
static bool
exec_reaped(void)
{
	struct pollfd pfd;
	siginfo_t si;
	pid_t pid;
	int fd;

	if ((pid = pdrfork(&fd, 0, (int)RFSPAWN)) == 0) {
		execve("/bin/true", true_argv, environ);
		_exit(127);
	}
	if (pid == -1)
		err(1, "pdrfork");
	pfd.fd = fd;
	pfd.events = 0;
	(void)poll(&pfd, 1, 2000);
	if ((pfd.revents & POLLHUP) != 0) {
		(void)pdwait(fd, NULL, WEXITED, NULL, NULL);
		close(fd);
		return (true);
	}
	(void)sys_waitid(P_PIDFD, fd, &si, WEXITED | __WALL, NULL);
	close(fd);
	settle();
	return (false);
}

/* The goal of variant v's ratio at a level of other children, or NAN. */
static double
spawn_goal(const struct variant *v, size_t level)
{

	if (v->v_op == op_pdfork && level == 0)
		return (1.3);
	if (v->v_op == op_pdfork && level == 1000)
		return (1.5);
	if (v->v_op == op_pdrfork && level == 0)
		return (1.2);
	return (NAN);
}

/*
 * One round at a level of other live children: each variant among
 * children of its own kind (pdfork's among pdfork children, fork's among
 * fork children, ...), half its iterations in the order fork, clone3, pd,
 * half in the reverse order, into sr; then each ratio to its baseline,
 * the medians of this round, into rr, and the round's samples into s.
 */
static void
spawn_round(const struct iters *it, size_t level, bool exec_ok,
    struct samples *s, struct samples *rr)
{
	static const enum kind order[] = {
		K_FORK, K_CLONE3, K_PD, K_PD, K_CLONE3, K_FORK
	};
	struct samples sr[NVARIANTS];
	const struct variant *v;
	size_t h, i, j, k, n, nv;
	pid_t *pid;
	int *fd;

	nv = NVARIANTS;
	for (i = 0; i < nv; i++)
		samples_init(&sr[i], 0);
	for (h = 0; h < sizeof(order) / sizeof(order[0]); h++) {
		held_make(order[h], level, &pid, &fd);
		for (j = 0; j < nv; j++) {
			v = &variants[h < 3 ? j : nv - 1 - j];
			if (v->v_held != order[h] ||
			    (v->v_op == op_pdrfork && !exec_ok))
				continue;
			n = (v->v_exec ? it->it_exec : it->it_fork) /
			    (2 * it->it_rounds);
			run_variant(v, n > 0 ? n : 1, &sr[v - variants]);
		}
		held_drop(order[h], level, pid, fd);
	}
	for (i = 0; i < nv; i++) {
		v = &variants[i];
		if (v->v_base >= 0 && sr[i].s_n > 0 && sr[v->v_base].s_n > 0)
			samples_add(&rr[i], samples_pct(&sr[i], 0.5) /
			    samples_pct(&sr[v->v_base], 0.5));
		for (k = 0; k < sr[i].s_n; k++)
			samples_add(&s[i], sr[i].s_v[k]);
	}
	for (i = 0; i < nv; i++)
		samples_free(&sr[i]);
}

/*
 * Per level of other live children, it_rounds rounds (spawn_round()), so
 * that a drift of the machine falls on subject and baseline alike; a
 * goal is judged on the ratios of the rounds (out_ratio()).
 */
static void
bench_spawn(const struct iters *it)
{
	static const size_t levels[] = { 0, 100, 1000 };
	struct samples s[NVARIANTS], rr[NVARIANTS];
	const struct variant *v;
	char name[64];
	size_t l, i, r, nv;
	bool exec_ok;

	if (!(exec_ok = exec_reaped()))
		out_printf("\nBUG: a pdrfork(RFSPAWN) child that exec'd is "
		    "never reaped by the library\n(exec resets its exit "
		    "signal to SIGCHLD; the reaper waits for __WCLONE\n"
		    "children only), so pdwait blocks for ever.  pdrfork rows "
		    "are skipped.\n");
	nv = NVARIANTS;
	for (l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		out_section("1. Spawn and collect, %zu other live children "
		    "(%zu rounds)", levels[l], it->it_rounds);
		for (i = 0; i < nv; i++) {
			samples_init(&s[i], it->it_fork);
			samples_init(&rr[i], it->it_rounds);
		}
		for (r = 0; r < it->it_rounds; r++)
			spawn_round(it, levels[l], exec_ok, s, rr);
		for (i = 0; i < nv; i++) {
			v = &variants[i];
			if (v->v_op == op_pdrfork && !exec_ok) {
				out_printf("  %-42s NOT MEASURED: the exec'd "
				    "child is never reaped\n", v->v_name);
				continue;
			}
			out_time(v->v_name, &s[i], v->v_base >= 0 ?
			    variants[v->v_base].v_name : NULL,
			    v->v_base >= 0 ? &s[v->v_base] : NULL, NULL, V_NONE);
			if (v->v_base < 0)
				continue;
			snprintf(name, sizeof(name), "%s, a round", v->v_name);
			out_ratio(name, &rr[i], spawn_goal(v, levels[l]));
		}
		for (i = 0; i < nv; i++) {
			samples_free(&s[i]);
			samples_free(&rr[i]);
		}
	}
}

/*
 * Signal 0 to one live child: the three calls interleaved, call by call;
 * pdkill's goal judged on the ratios of it_rounds stretches of the run.
 */
static void
bench_signals(const struct iters *it)
{
	struct samples sk, sp, sd, rr;
	int64_t t0, t1, t2, t3;
	pid_t pid;
	size_t i, per;
	int fd, pfd;

	out_section("2. Signals (signal 0 to a live child)");
	pid = spawn_paused(K_PD, &fd);
	/* The descriptor is no pidfd: a raw one of the same child. */
	if ((pfd = sys_pidfd_open(pid, 0)) == -1)
		err(1, "pidfd_open");
	samples_init(&sk, it->it_sig);
	samples_init(&sp, it->it_sig);
	samples_init(&sd, it->it_sig);
	for (i = 0; i < it->it_sig; i++) {
		t0 = now_ns();
		if (kill(pid, 0) == -1)
			err(1, "kill");
		t1 = now_ns();
		if (sys_pidfd_send_signal(pfd, 0) == -1)
			err(1, "pidfd_send_signal");
		t2 = now_ns();
		if (pdkill(fd, 0) == -1)
			err(1, "pdkill");
		t3 = now_ns();
		samples_add(&sk, (double)(t1 - t0));
		samples_add(&sp, (double)(t2 - t1));
		samples_add(&sd, (double)(t3 - t2));
	}
	samples_init(&rr, it->it_rounds);
	per = it->it_sig / it->it_rounds;
	for (i = 0; i < it->it_rounds; i++)
		samples_add(&rr, round_median(&sd, i * per, per) /
		    round_median(&sk, i * per, per));
	out_time("kill(pid, 0)", &sk, NULL, NULL, NULL, V_NONE);
	out_time("pidfd_send_signal(fd, 0)", &sp, "kill", &sk, NULL, V_NONE);
	out_time("pdkill(fd, 0)", &sd, "kill", &sk, NULL, V_NONE);
	out_ratio("pdkill(fd, 0) / kill, a round", &rr, 1.5);
	close(pfd);
	collect_all(K_PD, &pid, &fd, 1);
	settle();
	samples_free(&sk);
	samples_free(&sp);
	samples_free(&sd);
	samples_free(&rr);
}

/*
 * The application's waits through the library (lib/appwait.c), against
 * the system call itself, interleaved: a wait by pid that finds a fork()
 * child running (a registry look-up, then the C library's wait4), and a
 * wait for any child that finds none exited (a look with WNOWAIT first).
 * Then waits by pid for pdfork children running: one whose descriptor is
 * where pdfork put it (the library proves it with one getsockopt), and
 * one whose descriptor was moved (dup, close: the library asks the
 * guardian whether a copy is left, NOTES 1.11).
 */
enum { W_SYS, W_LIB, W_SYSANY, W_LIBANY, W_PDHELD, W_PDMOVED, W_N };

static void
bench_waits(const struct iters *it)
{
	static const char *names[W_N] = {
		"wait4(pid) system call",
		"waitpid(pid) through the library",
		"wait4(-1) system call",
		"waitpid(-1) through the library",
		"waitpid(pdfork pid), descriptor held",
		"waitpid(pdfork pid), descriptor moved",
	};
	static const int base[W_N] = { -1, W_SYS, -1, W_SYSANY, W_SYS,
	    W_SYS };
	struct samples s[W_N];
	int64_t t[W_N + 1];
	pid_t pid, pdpid[2];
	size_t i, k;
	int fd, pdfd[2], moved, st;

	out_section("2b. The application's waits (WNOHANG, a child running)");
	pid = spawn_paused(K_FORK, &fd);
	pdpid[0] = spawn_paused(K_PD, &pdfd[0]);
	pdpid[1] = spawn_paused(K_PD, &pdfd[1]);
	if ((moved = dup(pdfd[1])) == -1)
		err(1, "dup");
	close(pdfd[1]);
	pdfd[1] = moved;
	for (k = 0; k < W_N; k++)
		samples_init(&s[k], it->it_sig);
	for (i = 0; i < it->it_sig; i++) {
		t[0] = now_ns();
		if (syscall(SYS_wait4, pid, &st, WNOHANG, NULL) != 0)
			err(1, "wait4");
		t[1] = now_ns();
		if (waitpid(pid, &st, WNOHANG) != 0)
			err(1, "waitpid");
		t[2] = now_ns();
		if (syscall(SYS_wait4, -1, &st, WNOHANG, NULL) != 0)
			err(1, "wait4(-1)");
		t[3] = now_ns();
		if (waitpid(-1, &st, WNOHANG) != 0)
			err(1, "waitpid(-1)");
		t[4] = now_ns();
		if (waitpid(pdpid[0], &st, WNOHANG) != 0)
			err(1, "waitpid(pdfork pid)");
		t[5] = now_ns();
		if (waitpid(pdpid[1], &st, WNOHANG) != 0)
			err(1, "waitpid(pdfork pid), moved");
		t[6] = now_ns();
		for (k = 0; k < W_N; k++)
			samples_add(&s[k], (double)(t[k + 1] - t[k]));
	}
	for (k = 0; k < W_N; k++)
		out_time(names[k], &s[k], base[k] >= 0 ? "syscall" : NULL,
		    base[k] >= 0 ? &s[base[k]] : NULL, NULL, V_NONE);
	collect_all(K_FORK, &pid, &fd, 1);
	collect_all(K_PD, pdpid, pdfd, 2);
	settle();
	for (k = 0; k < W_N; k++)
		samples_free(&s[k]);
}

/* ns from now until fd (a pidfd) is readable: the process is dead. */
static int64_t
until_dead(int fd, int64_t t0)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 10000) == -1 && errno == EINTR)
		;
	if (pfd.revents == 0)
		errx(1, "child not dead 10 s after its kill");
	return (now_ns() - t0);
}

/* Is system call nr poll(2)?  arm64 has ppoll alone. */
static bool
in_poll(long nr)
{
#ifdef SYS_poll
	if (nr == SYS_poll)
		return (true);
#endif
	return (nr == SYS_ppoll);
}

/*
 * One wake-up of another process: a helper blocked in poll(2) on the read
 * end of a pipe, woken by the close of the write end; ns from the close
 * to the helper's stamp.  The library's close -> dead is at best such a
 * wake-up (of its guardian) plus a SIGKILL.
 */
static int64_t
wake_once(void)
{
	struct pollfd pfd;
	int64_t t0;
	pid_t pid;
	long nr;
	int p[2], st;

	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe2");
	if ((pid = fork()) == 0) {
		close(p[1]);
		pfd.fd = p[0];
		pfd.events = POLLIN;
		while (poll(&pfd, 1, 10000) == -1 && errno == EINTR)
			;
		*stamp = now_ns();
		_exit(0);
	}
	if (pid == -1)
		err(1, "fork");
	close(p[0]);
	t0 = now_ns();
	while (!in_poll(nr = proc_syscall(pid, pid))) {
		if (now_ns() - t0 > 10 * SEC)
			errx(1, "wake-up helper not in poll after 10 s");
		sleep_ns(20000);
	}
	t0 = now_ns();
	close(p[1]);
	if (waitpid(pid, &st, 0) == -1)
		err(1, "waitpid");
	return (*stamp - t0);
}

/*
 * Close -> dead: the owner closes the only descriptor; a pidfd_open
 * description (not a copy of it) tells when the child is dead.  Against
 * a floor measured in between: a direct SIGKILL of the same kind of
 * child, plus one wake-up of another process (sw, kept for section 4).
 */
static void
bench_closekill(const struct iters *it, struct samples *sc,
    struct samples *sk, struct samples *sw)
{
	struct samples rr;
	int64_t t0;
	pid_t pid;
	size_t i, per;
	double fl;
	int cfd, fd;

	out_section("3. Close -> dead (pidfd_open description readable)");
	samples_init(sc, it->it_close);
	samples_init(sk, it->it_close);
	samples_init(sw, it->it_close);
	for (i = 0; i < 3 * it->it_close; i++) {
		if (i % 3 == 2) {
			samples_add(sw, (double)wake_once());
			continue;
		}
		pid = spawn_paused(K_PD, &fd);
		if ((cfd = sys_pidfd_open(pid, 0)) == -1)
			err(1, "pidfd_open");
		settle();
		if (i % 3 == 0) {
			close(fd);
			t0 = now_ns();
			samples_add(sc, (double)until_dead(cfd, t0));
		} else {
			(void)sys_pidfd_send_signal(cfd, SIGKILL);
			t0 = now_ns();
			samples_add(sk, (double)until_dead(cfd, t0));
			(void)pdwait(fd, NULL, WEXITED, NULL, NULL);
			close(fd);
		}
		close(cfd);
	}
	settle();
	samples_init(&rr, it->it_rounds);
	per = it->it_close / it->it_rounds;
	for (i = 0; i < it->it_rounds; i++)
		samples_add(&rr, round_median(sc, i * per, per) /
		    (round_median(sk, i * per, per) +
		    round_median(sw, i * per, per)));
	samples_write(sc, "closekill_close.csv");
	samples_write(sk, "closekill_direct.csv");
	out_time("direct SIGKILL -> dead", sk, NULL, NULL, NULL, V_NONE);
	out_time("pipe close -> other process awake", sw, NULL, NULL, NULL,
	    V_NONE);
	fl = samples_pct(sk, 0.5) + samples_pct(sw, 0.5);
	out_val("floor: SIGKILL + one wake-up (medians)", fl, "ns", NULL,
	    NAN, NULL, V_NONE);
	out_time_vs("close -> dead", sc, "floor", fl, NULL, V_NONE);
	out_ratio("close -> dead / floor, a round", &rr, 1.1);
	samples_free(&rr);
	out_time_vs("close -> dead (p99)", sc, "floor", fl, "p99 < 1 ms",
	    out_goal(samples_pct(sc, 0.99) < 1e6));
}

/* What the owner of bench_ownerkill reports. */
struct ownermsg {
	pid_t			om_child;
	struct guardians	om_gs;
};

/* The owner of bench_ownerkill: pdfork, report, wait to be killed. */
static void __attribute__((noreturn))
owner_main(int wfd)
{
	struct ownermsg msg;
	const char *how;
	int fd;

	memset(&msg, 0, sizeof(msg));
	if ((msg.om_child = pdfork(&fd, 0)) == 0)
		child_pause();
	if (msg.om_child == -1 ||
	    guardians_find(getpid(), &msg.om_gs, &how) == 0 ||
	    write(wfd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(1);
	for (;;)
		pause();
}

/*
 * Owner SIGKILL -> dead: a forked owner pdforks a child (and so starts a
 * guardian of its own) and hands over the pids; once the guardian is
 * quiet, the owner is SIGKILLed.  Its guardian is let go before the next
 * run.
 */
static void
bench_ownerkill(const struct iters *it, struct samples *sc)
{
	struct ownermsg msg;
	struct samples so;
	pid_t owner;
	int64_t t0;
	size_t i;
	int cfd, p[2], st;

	samples_init(&so, it->it_owner);
	for (i = 0; i < it->it_owner; i++) {
		if (pipe2(p, O_CLOEXEC) == -1)
			err(1, "pipe2");
		if ((owner = fork()) == 0) {
			close(p[0]);
			owner_main(p[1]);
		}
		close(p[1]);
		if (owner == -1 ||
		    read(p[0], &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			errx(1, "owner failed");
		close(p[0]);
		if ((cfd = sys_pidfd_open(msg.om_child, 0)) == -1)
			err(1, "pidfd_open");
		if (guardians_quiet(&msg.om_gs, 10 * SEC) == -1)
			errx(1, "owner's guardian still busy after 10 s");
		t0 = now_ns();
		kill(owner, SIGKILL);
		samples_add(&so, (double)until_dead(cfd, t0));
		close(cfd);
		(void)waitpid(owner, &st, 0);
		if (!guardians_gone(&msg.om_gs, 10 * SEC))
			warnx("owner's guardian still there 10 s after it");
	}
	samples_write(&so, "closekill_owner.csv");
	out_time("owner SIGKILL -> dead", &so, "close -> dead", sc,
	    "median < 5 ms", out_goal(samples_pct(&so, 0.5) < 5e6));
	samples_free(&so);
}

/* Child of bench_exit: stamp the time just before _exit. */
static void __attribute__((noreturn))
exit_child(void)
{

	sleep_ns(300000);
	*stamp = now_ns();
	_exit(0);
}

static int64_t
poll_for(int fd, short events, short want)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = events;
	do {
		pfd.revents = 0;
		if (poll(&pfd, 1, 10000) == -1 && errno != EINTR)
			err(1, "poll");
	} while ((pfd.revents & want) == 0);
	return (now_ns() - *stamp);
}

/*
 * Exit -> notification.  pd: events 0, so that only POLLHUP wakes the
 * owner; and, in separate runs, POLLIN first, then POLLHUP, whose
 * difference is the window in which a pd is readable without POLLHUP.
 * Against a floor: a raw clone3 pidfd's POLLIN, measured in between,
 * plus one wake-up of another process (sw, from section 3), since the
 * news of an exit has to cross from the reaper to the holder.
 */
static void
bench_exit(const struct iters *it, struct samples *sw)
{
	struct procdesc_clone_args ca;
	struct samples sh, sp, sr;
	siginfo_t si;
	int64_t tin;
	size_t i;
	pid_t pid;
	double fl;
	int fd;

	out_section("4. Exit -> notification (child's stamp before _exit)");
	samples_init(&sh, it->it_exit);
	samples_init(&sp, it->it_exit);
	samples_init(&sr, it->it_exit);
	for (i = 0; i < 3 * it->it_exit; i++) {
		if (i % 3 == 2) {
			memset(&ca, 0, sizeof(ca));
			ca.flags = CLONE_PIDFD;
			ca.pidfd = (uint64_t)(uintptr_t)&fd;
			ca.exit_signal = SIGCHLD;
			if ((pid = (pid_t)sys_clone3(&ca)) == 0)
				exit_child();
			if (pid == -1)
				err(1, "clone3");
			samples_add(&sr, (double)poll_for(fd, POLLIN, POLLIN));
			(void)sys_waitid(P_PIDFD, fd, &si, WEXITED, NULL);
			close(fd);
			continue;
		}
		if ((pid = pdfork(&fd, 0)) == 0)
			exit_child();
		if (pid == -1)
			err(1, "pdfork");
		if (i % 3 == 0)
			samples_add(&sh, (double)poll_for(fd, 0, POLLHUP));
		else {
			tin = poll_for(fd, POLLIN, POLLIN);
			samples_add(&sp, (double)(poll_for(fd, 0, POLLHUP) -
			    tin));
		}
		(void)pdwait(fd, NULL, WEXITED, NULL, NULL);
		close(fd);
		settle();
	}
	out_time("raw pidfd: exit -> POLLIN", &sr, NULL, NULL, NULL, V_NONE);
	fl = samples_pct(&sr, 0.5) + samples_pct(sw, 0.5);
	out_val("floor: raw POLLIN + one wake-up (medians)", fl, "ns",
	    NULL, NAN, NULL, V_NONE);
	out_time_vs("pd: exit -> POLLHUP", &sh, "floor", fl,
	    "<= 1.1x floor", out_goal(samples_pct(&sh, 0.5) <= 1.1 * fl));
	out_time("pd: POLLIN -> POLLHUP window", &sp, NULL, NULL, NULL,
	    V_NONE);
	samples_free(&sh);
	samples_free(&sp);
	samples_free(&sr);
}

/* Start the library (and a guardian) in this process; find it. */
static void
warm_up(struct guardians *gs)
{
	const char *how;
	pid_t pid;
	size_t i;
	int fd;

	pid = spawn_paused(K_PD, &fd);
	how = "?";
	if (guardians_find(getpid(), gs, &how) == 0)
		errx(1, "cannot find the guardian process");
	collect_all(K_PD, &pid, &fd, 1);
	if (guardians_quiet(gs, 10 * SEC) == -1)
		warnx("guardian busy after warm-up");
	out_printf("Guardian of pid %d: pid", (int)getpid());
	for (i = 0; i < gs->gs_n; i++)
		out_printf(" %d", (int)gs->gs_pid[i]);
	out_printf(", found as %s.\n", how);
}

static void
section_scale(const struct iters *it, struct guardians *gs)
{

	warm_up(gs);
	bench_scale(it->it_scale, it->it_idle, it->it_budget,
	    it->it_scale_rounds, gs);
}

static void
section_limit(const struct iters *it, struct guardians *gs)
{

	warm_up(gs);
	bench_limit(it->it_limit, gs);
}

/*
 * A section in a forked owner of its own, so that we stay clean: its
 * guardians, then its goals, come back by pipe, and its guardians are
 * waited for until they are gone.
 */
static void
section_forked(void (*fn)(const struct iters *, struct guardians *),
    const struct iters *it)
{
	struct guardians gs;
	pid_t pid;
	int p[2], st;

	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe2");
	fflush(NULL);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		out_goals_clear();
		memset(&gs, 0, sizeof(gs));
		fn(it, &gs);
		if (write(p[1], &gs, sizeof(gs)) != (ssize_t)sizeof(gs))
			warn("write");
		out_goals_export(p[1]);
		fflush(NULL);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &gs, sizeof(gs)) != (ssize_t)sizeof(gs))
		gs.gs_n = 0;
	out_goals_import(p[0]);
	close(p[0]);
	if (waitpid(pid, &st, 0) == -1 || st != 0)
		warnx("a forked section failed (status %#x)", st);
	if (!guardians_gone(&gs, 10 * SEC))
		out_printf("  note: its guardians still ran 10 s after the "
		    "section\n");
}

static void
usage(void)
{

	fprintf(stderr,
	    "usage: bench [-kq] [-l children] [-o dir] [-S 5|6] "
	    "[-t file]\n");
	exit(2);
}

static void
header(bool quick)
{
	struct utsname u;
	time_t t;
	char buf[64];

	uname(&u);
	t = time(NULL);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	out_printf("libprocdesc bench (%s run), %s\n", quick ? "QUICK" :
	    "full", buf);
	out_printf("%s %s %s, %ld CPUs\n", u.sysname, u.release, u.machine,
	    sysconf(_SC_NPROCESSORS_ONLN));
	out_printf("Times: CLOCK_MONOTONIC per operation; p99 nearest rank; "
	    "ratio = median / baseline median.\n");
}

int
main(int argc, char **argv)
{
	struct iters it;
	struct samples sc, sk, sw;
	const char *dir, *txt;
	char *end;
	int64_t t0;
	long limit, only;
	bool kernel, quick;
	int ch;

	dir = "bench/results";
	txt = NULL;
	kernel = quick = false;
	limit = -1;
	only = 0;
	while ((ch = getopt(argc, argv, "kql:o:S:t:")) != -1) {
		switch (ch) {
		case 'k':
			kernel = true;
			break;
		case 'q':
			quick = true;
			break;
		case 'l':
			limit = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || limit < 0)
				usage();
			break;
		case 'o':
			dir = optarg;
			break;
		case 'S':
			only = strtol(optarg, &end, 10);
			if (*end != '\0' || (only != 5 && only != 6))
				usage();
			break;
		case 't':
			txt = optarg;
			break;
		default:
			usage();
		}
	}
	it = quick ? iters_quick : iters_full;
	if (limit >= 0)
		it.it_limit = (size_t)limit;
	t0 = now_ns();
	out_init(dir, txt);
	header(quick);

	if ((stamp = mmap(NULL, sizeof(*stamp), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		err(1, "mmap");

	if (kernel) {
		bench_kernel(it.it_rounds);
		goto done;
	}
	if (only == 0 || only == 5) {
		section_forked(section_scale, &it);
		out_printf("\n");
	}
	if (it.it_limit > 0 && (only == 0 || only == 6)) {
		section_forked(section_limit, &it);
		out_printf("\n");
	}
	if (only != 0)
		goto done;
	warm_up(&guardians);
	bench_spawn(&it);
	bench_spawn_size(it.it_exec / it.it_rounds, it.it_rounds, quick);
	bench_signals(&it);
	bench_waits(&it);
	bench_closekill(&it, &sc, &sk, &sw);
	bench_ownerkill(&it, &sc);
	bench_exit(&it, &sw);
	samples_free(&sc);
	samples_free(&sk);
	samples_free(&sw);
	bench_kernel(it.it_rounds);
done:
	out_summary();
	out_printf("\nTotal time %.1f s.  CSV and plot data in %s/.\n",
	    (double)(now_ns() - t0) / 1e9, dir);
	out_close();
	return (0);
}
