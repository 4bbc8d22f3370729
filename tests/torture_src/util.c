/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What every file of the torture test leans on: the clock, the seeded
 * generator, statuses in words, the failure verdict (the first one stops
 * the run), the progress stamp the watchdog reads, and pidfd(2) helpers
 * with what this kernel does with a pidfd.
 */

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux_pidfd.h"
#include "torture.h"

const char *const tt_opname[OP_NOPS + 1] = {
	"pdfork", "pdrfork", "rfspawn", "dup", "reopen", "close", "pdkill",
	"pdwait", "pdgetpid", "openpid", "fork", "vfork", "spawn", "system",
	"popen", "waitid", "nap", "daemons", "stop", "flight", "copy",
	"cleanup",
};

/* Signals a child is killed with: default action "terminate" for all. */
static const int tt_sigs[] = {
	SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGKILL, SIGABRT, SIGPIPE,
};

_Atomic bool tt_stop;
bool tt_exit_info_ok;			/* PIDFD_INFO_EXIT (Linux 6.15). */
static bool tt_pollhup_ok;		/* POLLHUP on a reaped pidfd (6.9). */

/* The first failures, in full; the run stops at the first. */
static pthread_mutex_t tt_fail_mtx = PTHREAD_MUTEX_INITIALIZER;
static char tt_fail_msg[1024];
static _Atomic int tt_nfail;

int64_t
tt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/* splitmix64: a fine generator from any seed, the same everywhere. */
uint64_t
tt_mix(uint64_t *s)
{
	uint64_t z;

	z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

unsigned int
tt_rand(struct tthread *t, unsigned int n)
{

	return (n == 0 ? 0 : (unsigned int)(tt_mix(&t->rng) % n));
}

int
tt_randsig(struct tthread *t)
{

	return (tt_sigs[tt_rand(t, sizeof(tt_sigs) / sizeof(tt_sigs[0]))]);
}

/*
 * The signals the children are killed with take their default action,
 * and none is blocked, whatever we inherited: under nohup(1), say,
 * SIGHUP comes ignored, and every child raising or sent it would
 * survive it (exit 126, or a wait for ever).
 */
void
tt_signals_reset(void)
{
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(tt_sigs) / sizeof(tt_sigs[0]); i++)
		if (tt_sigs[i] != SIGKILL)
			signal(tt_sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

uint64_t
tt_sigbit(int sig)
{

	return ((uint64_t)1 << sig);
}

/* A wait(2) status in words. */
const char *
tt_st(int st, char *buf, size_t len)
{

	if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "signal %d%s", WTERMSIG(st),
		    WCOREDUMP(st) ? " (core)" : "");
	else if (WIFSTOPPED(st))
		snprintf(buf, len, "stopped by %d", WSTOPSIG(st));
	else if (WIFCONTINUED(st))
		snprintf(buf, len, "continued");
	else
		snprintf(buf, len, "status %#x", st);
	return (buf);
}

/* What c may end with, in words. */
const char *
tt_want(const struct tchild *c, char *buf, size_t len)
{
	size_t n;
	int sig;

	n = 0;
	buf[0] = '\0';
	if (c->kind == K_EXIT || c->kind == K_EXEC || c->kind == K_NEST)
		n += (size_t)snprintf(buf, len, "exit %d", c->code);
	else if (c->kind == K_RAISE)
		n += (size_t)snprintf(buf, len, "signal %d", c->code);
	for (sig = 1; sig < 64 && n < len; sig++)
		if ((c->sigs & tt_sigbit(sig)) != 0)
			n += (size_t)snprintf(buf + n, len - n, "%ssignal %d",
			    n > 0 ? " or " : "", sig);
	return (buf);
}

/*
 * A failure: said at once with the seed, the thread and the operation;
 * the first is the verdict.  The run stops.
 */
void
tt_fail(const struct tthread *t, const char *fmt, ...)
{
	char msg[768], line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t != NULL)
		snprintf(line, sizeof(line), "seed %" PRIu64 ", thread %d, "
		    "op %s: %s", tt_seed, t->idx,
		    tt_opname[atomic_load(&t->op)], msg);
	else
		snprintf(line, sizeof(line), "seed %" PRIu64 ": %s", tt_seed,
		    msg);
	pthread_mutex_lock(&tt_fail_mtx);
	if (atomic_fetch_add(&tt_nfail, 1) == 0)
		snprintf(tt_fail_msg, sizeof(tt_fail_msg), "%s", line);
	if (atomic_load(&tt_nfail) <= 10)
		printf("torture: failure: %s\n", line);
	pthread_mutex_unlock(&tt_fail_mtx);
	atomic_store(&tt_stop, true);
}

/* The verdict's reason: the first failure, or NULL. */
const char *
tt_first_failure(void)
{

	return (atomic_load(&tt_nfail) != 0 ? tt_fail_msg : NULL);
}

/*
 * Progress: the watchdog's proof of life, and the operation under way.
 * The drawn operation counts once it gets to work (it may find nothing to
 * work on).
 */
void
tt_doing(struct tthread *t, int op, pid_t pid)
{

	if (op == (int)t->drawn && !t->counted) {
		t->n[op]++;
		t->counted = true;
	}
	atomic_store(&t->op, op);
	atomic_store(&t->oppid, pid);
	atomic_store(&t->stamp, tt_now());
}

/* A success must leave errno as LIB() set it. */
bool
tt_errno_kept(struct tthread *t, const char *what)
{

	if (errno == TT_ERRNO)
		return (true);
	tt_fail(t, "%s succeeded but changed errno to %d (%s)", what, errno,
	    strerror(errno));
	return (false);
}

/* poll(2) one descriptor for ms, through EINTR: the events, or 0. */
short
tt_poll(int fd, short ev, int ms)
{
	struct pollfd pfd;
	int64_t end;
	int r, left;

	end = tt_now() + (int64_t)ms * 1000000;
	left = ms;
	for (;;) {
		pfd.fd = fd;
		pfd.events = ev;
		pfd.revents = 0;
		if ((r = poll(&pfd, 1, left)) >= 0)
			break;
		if (errno != EINTR)
			return (0);
		left = (int)((end - tt_now()) / 1000000);
		if (left < 0)
			left = 0;
	}
	return (r == 1 ? pfd.revents : 0);
}

/* The process behind pidfd w has exited (maybe not reaped) within ms. */
bool
tt_dead_within(int w, int ms)
{

	return ((tt_poll(w, POLLIN, ms) & (POLLIN | POLLHUP)) != 0);
}

/* ... and has been reaped: POLLHUP on a pidfd (Linux 6.9). */
bool
tt_reaped_within(int w, int ms)
{

	if (!tt_pollhup_ok)
		return (tt_dead_within(w, ms));
	return ((tt_poll(w, 0, ms) & POLLHUP) != 0);
}

/* The exit status the kernel keeps for a reaped pidfd: 0, or -1. */
int
tt_exit_info(int w, int *stp)
{
	struct pidfd_info info;

	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	if (ioctl(w, PIDFD_GET_INFO, &info) == -1 ||
	    (info.mask & PIDFD_INFO_EXIT) == 0)
		return (-1);
	*stp = info.exit_code;
	return (0);
}

/* pidfd_open(2): the descriptor, or -1. */
int
tt_pidfd_open(pid_t pid)
{

	return ((int)syscall(SYS_pidfd_open, pid, 0));
}

/* waitpid(2) through EINTR. */
pid_t
tt_waitpid(pid_t pid, int *stp, int options)
{
	pid_t r;

	while ((r = waitpid(pid, stp, options)) == -1 && errno == EINTR)
		;
	return (r);
}

/* What the kernel does with pidfds: see tt_exit_info_ok, tt_pollhup_ok. */
void
tt_probe_kernel(void)
{
	struct pollfd pfd;
	pid_t pid;
	int st;

	if ((pid = fork()) == 0)
		tt_exit(3);
	pfd.fd = tt_pidfd_open(pid);
	pfd.events = 0;
	(void)tt_waitpid(pid, NULL, 0);
	if (pfd.fd == -1)
		return;
	tt_pollhup_ok = poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP);
	tt_exit_info_ok = tt_exit_info(pfd.fd, &st) == 0 &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 3;
	close(pfd.fd);
}
