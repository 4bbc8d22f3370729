/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Section 7: PD_NOWAITPID children, on whichever close-kill path this
 * process gets (NOTES 1.12), against raw clone3 pidfds: create and
 * collect, signal 0, close -> dead, kill -> POLLHUP.  Each pair runs in
 * rounds, subject and baseline interleaved one operation at a time; a
 * goal is judged on the upper quartile of the round ratios, and only on
 * the kernel's path (issue #26's goals; the guardian's are sections 1 to
 * 4).  `bench -k` runs this section alone (make bench-kernel, in a 7.x
 * guest of the kernel matrix).
 */

#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "syscall.h"
#include "bench.h"

/* Per round: creations, signals, kills. */
#define	K_SPAWN		40
#define	K_SIG		2000
#define	K_KILL		20

/* A raw clone3 child with a pidfd, paused or exiting at once. */
static pid_t
raw_child(int *fdp, bool pause)
{
	struct procdesc_clone_args ca;
	pid_t pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)fdp;
	ca.exit_signal = SIGCHLD;
	if ((pid = (pid_t)sys_clone3(&ca)) == 0) {
		if (pause)
			child_pause();
		_exit(0);
	}
	if (pid == -1)
		err(1, "clone3");
	return (pid);
}

static void
raw_reap(int fd)
{
	siginfo_t si;

	if (sys_waitid(P_PIDFD, fd, &si, WEXITED, NULL) == -1)
		err(1, "waitid");
	close(fd);
}

static pid_t
pd_child(int *fdp, bool pause)
{
	pid_t pid;

	if ((pid = pdfork(fdp, PD_NOWAITPID | PD_CLOEXEC)) == 0) {
		if (pause)
			child_pause();
		_exit(0);
	}
	if (pid == -1)
		err(1, "pdfork");
	return (pid);
}

/* Poll fd until one of want shows. */
static void
poll_until(int fd, short want)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = want;
	do {
		pfd.revents = 0;
		if (poll(&pfd, 1, 10000) == 0)
			errx(1, "nothing from the child in 10 s");
	} while ((pfd.revents & want) == 0);
}

/* One round ratio into r, from the samples of s (subject) and b (base). */
static void
round_add(struct samples *r, struct samples *s, struct samples *b,
    size_t from, size_t n)
{

	samples_add(r, round_median(s, from, n) / round_median(b, from, n));
}

static struct samples k_forks;		/* fork+waitpid, for reference. */

static void
k_spawn(struct samples *s, struct samples *b)
{
	int64_t t0;
	pid_t pid;
	int fd, st;

	t0 = now_ns();
	if ((pid = fork()) == 0)
		_exit(0);
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		err(1, "fork/waitpid");
	samples_add(&k_forks, (double)(now_ns() - t0));
	t0 = now_ns();
	(void)raw_child(&fd, false);
	raw_reap(fd);
	samples_add(b, (double)(now_ns() - t0));
	t0 = now_ns();
	(void)pd_child(&fd, false);
	if (pdwait(fd, &st, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	close(fd);
	samples_add(s, (double)(now_ns() - t0));
}

/* close -> dead, and a direct SIGKILL -> dead, seen on pidfd_open files. */
static void
k_kill(struct samples *s, struct samples *b)
{
	int64_t t0;
	pid_t pid;
	int fd, w;

	pid = raw_child(&fd, true);
	if ((w = sys_pidfd_open(pid, 0)) == -1)
		err(1, "pidfd_open");
	t0 = now_ns();
	if (sys_pidfd_send_signal(fd, SIGKILL) == -1)
		err(1, "pidfd_send_signal");
	poll_until(w, POLLIN);
	samples_add(b, (double)(now_ns() - t0));
	raw_reap(fd);
	close(w);
	pid = pd_child(&fd, true);
	if ((w = sys_pidfd_open(pid, 0)) == -1)
		err(1, "pidfd_open");
	t0 = now_ns();
	close(fd);
	poll_until(w, POLLIN);
	samples_add(s, (double)(now_ns() - t0));
	close(w);
}

static size_t k_nohup;			/* First wake-ups without POLLHUP. */

/*
 * SIGKILL -> POLLHUP on the descriptor, and -> POLLIN on a raw pidfd;
 * whether the descriptor's first wake-up for POLLIN | POLLHUP lacked
 * POLLHUP (the kernel's path: its exit, then its reap).
 */
static void
k_hup(struct samples *s, struct samples *b)
{
	struct pollfd pfd;
	int64_t t0;
	int fd;

	(void)raw_child(&fd, true);
	t0 = now_ns();
	if (sys_pidfd_send_signal(fd, SIGKILL) == -1)
		err(1, "pidfd_send_signal");
	poll_until(fd, POLLIN);
	samples_add(b, (double)(now_ns() - t0));
	raw_reap(fd);
	(void)pd_child(&fd, true);
	t0 = now_ns();
	if (pdkill(fd, SIGKILL) == -1)
		err(1, "pdkill");
	pfd.fd = fd;
	pfd.events = POLLIN | POLLHUP;
	if (poll(&pfd, 1, 10000) != 1)
		errx(1, "no wake-up 10 s after pdkill");
	if ((pfd.revents & POLLHUP) == 0) {
		k_nohup++;
		poll_until(fd, POLLHUP);
	}
	samples_add(s, (double)(now_ns() - t0));
	close(fd);
}

static void
k_signals(size_t n, struct samples *s, struct samples *b)
{
	int64_t t0, t1, t2;
	pid_t pid;
	size_t i;
	int fd, pfd;

	pid = pd_child(&fd, true);
	if ((pfd = sys_pidfd_open(pid, 0)) == -1)
		err(1, "pidfd_open");
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (sys_pidfd_send_signal(pfd, 0) == -1)
			err(1, "pidfd_send_signal");
		t1 = now_ns();
		if (pdkill(fd, 0) == -1)
			err(1, "pdkill");
		t2 = now_ns();
		samples_add(b, (double)(t1 - t0));
		samples_add(s, (double)(t2 - t1));
	}
	close(fd);
	poll_until(pfd, POLLIN);
	close(pfd);
}

typedef void pair_fn(struct samples *, struct samples *);

/* n rounds of per operations of fn: its rows, and its ratio's goal. */
static void
k_pair(pair_fn *fn, size_t rounds, size_t per, const char *name,
    const char *bname, double goal)
{
	struct samples s, b, r;
	char title[96];
	size_t i, j;

	samples_init(&s, rounds * per);
	samples_init(&b, rounds * per);
	samples_init(&r, rounds);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < per; j++)
			fn(&s, &b);
		round_add(&r, &s, &b, i * per, per);
	}
	out_time(bname, &b, NULL, NULL, NULL, V_NONE);
	out_time(name, &s, bname, &b, NULL, V_NONE);
	snprintf(title, sizeof(title), "%s / %s, a round", name, bname);
	out_ratio(title, &r, goal);
	samples_free(&s);
	samples_free(&b);
	samples_free(&r);
}

static void
k_signal_pair(size_t rounds, double goal)
{
	struct samples s, b, r;
	size_t i;

	samples_init(&s, rounds * K_SIG);
	samples_init(&b, rounds * K_SIG);
	samples_init(&r, rounds);
	for (i = 0; i < rounds; i++) {
		k_signals(K_SIG, &s, &b);
		round_add(&r, &s, &b, i * K_SIG, K_SIG);
	}
	out_time("pidfd_send_signal(0)", &b, NULL, NULL, NULL, V_NONE);
	out_time("pdkill(fd, 0)", &s, "pidfd_send_signal", &b, NULL, V_NONE);
	out_ratio("pdkill / pidfd_send_signal, a round", &r, goal);
	samples_free(&s);
	samples_free(&b);
	samples_free(&r);
}

/* Whether a PD_NOWAITPID child of ours gets the kernel's pidfd. */
static bool
k_kernel_path(void)
{
	int fd, fl;

	(void)pd_child(&fd, false);
	fl = fcntl(fd, F_GETFL);
	if (pdwait(fd, NULL, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	close(fd);
	return (fl != -1 && (fl & O_TRUNC) != 0);
}

void
bench_kernel(size_t rounds)
{
	bool kernel;

	kernel = k_kernel_path();
	out_section("7. PD_NOWAITPID children, on the %s path (goals: the "
	    "kernel's only)", kernel ? "kernel's" : "guardian's");
	samples_init(&k_forks, rounds * K_SPAWN);
	k_pair(k_spawn, rounds, K_SPAWN, "pdfork+pdwait", "clone3+waitid",
	    kernel ? 1.05 : NAN);
	out_time("fork+waitpid (glibc's fork)", &k_forks, NULL, NULL, NULL,
	    V_NONE);
	samples_free(&k_forks);
	k_signal_pair(rounds, kernel ? 1.2 : NAN);
	k_pair(k_kill, rounds, K_KILL, "close -> dead", "SIGKILL -> dead",
	    kernel ? 1.1 : NAN);
	k_nohup = 0;
	k_pair(k_hup, rounds, K_KILL, "pdkill -> POLLHUP",
	    "SIGKILL -> POLLIN (raw pidfd)", NAN);
	out_val("first wake-ups without POLLHUP", (double)k_nohup, "",
	    NULL, NAN, NULL, V_NONE);
	out_printf("  (of %zu, a poller for POLLIN | POLLHUP)\n",
	    rounds * K_KILL);
}
