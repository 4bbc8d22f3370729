/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The torture test: several threads mix every call of the library with the
 * C library's own ways of making processes (fork, vfork, posix_spawn,
 * system, popen), while a 2 ms interval timer, whose handler is installed
 * without SA_RESTART, interrupts all of them and calls the library itself.
 * Every status that comes back is compared with what the child was told to
 * do; at the end no child, zombie or orphan may be left and the open
 * descriptors must be those of the start.
 *
 *   torture [-s seconds] [-S seed] [-t threads]
 *
 * A standalone program, not an ATF one, because CI runs it for 60 s under
 * each sanitizer.  Thread i draws its operations from a generator seeded
 * with seed + i, so a seed replays what each thread chooses as far as the
 * timing allows (not the interleaving, nor where the timer strikes).  The
 * last line says "torture: ok" (exit 0) or "torture: FAIL: why" (exit 1);
 * a thread without progress for TT_HANG_S seconds is a hang: what every
 * thread does is printed, then abort(3) (built with -DTT_HANG_PAUSE the
 * process first waits ten minutes for a debugger).
 */

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/procdesc.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux_pidfd.h"

/*
 * Operations the library got wrong when this test was written, each with
 * a switch to leave it out while a regression is hunted down.  All are
 * fixed and run (1) but TORTURE_RFSPAWN_UNDER_TSAN, a TSan limit.
 *
 * TORTURE_OPENPID_PDWAIT_FIRST: pdwait on a pdopenpid descriptor of our
 * own fork() child that has exited but is not yet reaped.  The guardian
 * waits for a reap that only we would do after pdwait returns, gives up
 * after 5 s and records no status: pdwait fails with ECHILD, for ever.
 * The run reaps with waitpid first instead.
 *
 * TORTURE_REOPEN_WNOHANG: pdwait(WNOHANG) on a pdopenpid descriptor of
 * our own pdfork child, once pdwait on its pdfork descriptor reported the
 * exit.  The second descriptor gets its record from the guardian a moment
 * later, and says EAGAIN, "still running", meanwhile.  The run waits
 * there without WNOHANG instead.
 *
 * TORTURE_RFSPAWN_UNDER_TSAN: pdrfork(RFSPAWN) in a TSan build.  Its
 * child, a raw clone3 of this multi-threaded process, resets the handler
 * of SIGALRM with signal(3), which TSan intercepts; the interceptor locks
 * the sync object of TSan's handler slot, which another thread held at the
 * clone while TSan delivered it the timer's signal, and waits for ever
 * (or, elsewhere, sleeps in TSan's runtime).  The parent waits in clone3
 * meanwhile, and the child holds a copy of every descriptor of ours, so
 * that no close-kill happens any more either.
 *
 * TORTURE_HANDLER_PDKILL_ANYWHERE: pdkill(fd, 0) from the signal handler
 * wherever the timer strikes.  In the owner pdkill takes the library's
 * mutex, so a handler that interrupted the library (or glibc's fork,
 * whose atfork handler holds that mutex) on the same thread deadlocks.
 * The handler then calls pdkill only at points where its thread holds
 * nothing (safe); pdgetpid stays everywhere.
 *
 * TORTURE_HANDLER_PDFORK_IN_LIB: pdfork from the handler while its thread
 * is inside a call of the library.  Failing with EDEADLK would be fine;
 * the library deadlocks on its own mutex instead (or on malloc's, which
 * pdfork's calloc needs).  The handler then pdforks only where its thread
 * holds nothing.
 */
#ifndef TORTURE_REOPEN_WNOHANG
#define	TORTURE_REOPEN_WNOHANG		1
#endif
#ifndef TORTURE_OPENPID_PDWAIT_FIRST
#define	TORTURE_OPENPID_PDWAIT_FIRST	1
#endif
#ifndef TORTURE_RFSPAWN_UNDER_TSAN
#define	TORTURE_RFSPAWN_UNDER_TSAN	0
#endif
#ifndef TORTURE_HANDLER_PDKILL_ANYWHERE
#define	TORTURE_HANDLER_PDKILL_ANYWHERE	1
#endif
#ifndef TORTURE_HANDLER_PDFORK_IN_LIB
#define	TORTURE_HANDLER_PDFORK_IN_LIB	1
#endif

/* ASan's and TSan's allocators are not fork-safe: no malloc in children. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define	TT_SANITIZED	1
#else
#define	TT_SANITIZED	0
#endif
/*
 * Under TSan the fork copies, which call the library in the child of a
 * multi-threaded fork, would run TSan's interceptors there (NOTES 2.9).
 */
#ifdef __SANITIZE_THREAD__
#define	TT_RFSPAWN	TORTURE_RFSPAWN_UNDER_TSAN
#define	TT_COPY		0
#else
#define	TT_RFSPAWN	1
#define	TT_COPY		1
#endif

#ifndef T_GUARDIAN
#define	T_GUARDIAN	"obj/procdesc-guardian"
#endif

#define	TT_MINTHREADS	4
#define	TT_MAXTHREADS	64
#define	TT_NLIVE	8	/* Children in a thread's table at most. */
#define	TT_NORPHAN	4	/* PD_DAEMON children let go, per thread. */
#define	TT_TICK_US	2000	/* The interval timer. */
#define	TT_LONG_MS	10000	/* Bound on a death, a reap, the final wait. */
#define	TT_HANG_S	30	/* A thread without progress this long hangs. */
#define	TT_FINAL_S	120	/* Bound on the checks after the run. */
#define	TT_LIFE		300	/* alarm(2) of pausing children. */
#define	TT_ERRNO	EXDEV	/* errno before a call; success must keep it. */
#define	TT_NOFD		4000	/* A descriptor number nobody here opens. */
#define	TT_HELD_MS	5	/* A child that must live is watched so long. */
#define	TT_SENTRY_COMM	"procdesc-sentry"
#define	TT_MAXSENTRY	8
#define	TT_TAG_ENV	"TORTURE_RUN"

enum tt_op {
	OP_PDFORK, OP_PDRFORK, OP_RFSPAWN, OP_DUP, OP_REOPEN, OP_CLOSE,
	OP_PDKILL, OP_PDWAIT, OP_PDGETPID, OP_OPENPID, OP_FORK, OP_VFORK,
	OP_SPAWN, OP_SYSTEM, OP_POPEN, OP_WAITID, OP_NAP, OP_DAEMONS,
	OP_STOP, OP_FLIGHT, OP_COPY, OP_NOPS,
	OP_CLEANUP = OP_NOPS	/* Not drawn: the end of a thread's run. */
};

static const char *const tt_opname[OP_NOPS + 1] = {
	"pdfork", "pdrfork", "rfspawn", "dup", "reopen", "close", "pdkill",
	"pdwait", "pdgetpid", "openpid", "fork", "vfork", "spawn", "system",
	"popen", "waitid", "nap", "daemons", "stop", "flight", "copy",
	"cleanup",
};

/* How often each operation is drawn. */
static const enum tt_op tt_draw[] = {
	OP_PDFORK, OP_PDFORK, OP_PDFORK, OP_PDFORK, OP_PDRFORK, OP_PDRFORK,
	OP_RFSPAWN, OP_RFSPAWN, OP_DUP, OP_DUP, OP_REOPEN, OP_CLOSE,
	OP_CLOSE, OP_CLOSE, OP_PDKILL, OP_PDKILL, OP_PDKILL, OP_PDWAIT,
	OP_PDWAIT, OP_PDWAIT, OP_PDWAIT, OP_PDGETPID, OP_PDGETPID,
	OP_OPENPID, OP_FORK, OP_VFORK, OP_SPAWN, OP_SYSTEM, OP_POPEN,
	OP_WAITID, OP_WAITID, OP_NAP, OP_NAP, OP_DAEMONS, OP_STOP, OP_FLIGHT,
	OP_COPY,
};

/* What a child does. */
enum tt_kind {
	K_EXIT,		/* _exit(code). */
	K_RAISE,	/* Kills itself with signal code. */
	K_PAUSE,	/* Waits to be killed. */
	K_EXEC,		/* Execs something that exits with code. */
	K_NEST,		/* pdforks a child that exits with code, and
			   exits with it (124, 125: its pdfork, pdwait
			   failed). */
	K_NKINDS
};

static const char *const tt_kindname[K_NKINDS] = {
	"exit", "raise", "pause", "exec", "nest",
};

/* Handler operations, for the hang report and the counts. */
enum tt_hop { H_NONE, H_GETPID, H_KILL0, H_PDFORK, H_NHOPS };
static const char *const tt_hopname[H_NHOPS] = {
	"none", "pdgetpid", "pdkill0", "pdfork",
};

/* Signals a child is killed with: default action "terminate" for all. */
static const int tt_sigs[] = {
	SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGKILL, SIGABRT, SIGPIPE,
};

/* pids the waitid check may meet: what made them. */
enum { PK_NONE, PK_PLAIN, PK_PD, PK_PDEXEC };

struct tchild {
	bool		 used;
	int		 fd;		/* The descriptor, -1 once closed. */
	int		 dup;		/* A second one, or -1. */
	bool		 dup_own;	/* dup is pdopenpid's (PD_DAEMON). */
	pid_t		 pid;
	int		 watch;		/* pidfd_open(2) of a K_PAUSE child. */
	enum tt_kind	 kind;
	int		 code;		/* Exit code, or its signal. */
	uint64_t	 sigs;		/* Signals sent to it, a bit each. */
	bool		 daemon;
	enum tt_op	 how;		/* OP_PDFORK, OP_PDRFORK, OP_RFSPAWN. */
};

/* A PD_DAEMON child whose descriptors are all closed. */
struct torphan {
	pid_t		 pid;
	int		 watch;		/* -1: slot free. */
};

struct tthread {
	int		 idx;
	pthread_t	 td;
	_Atomic pid_t	 tid;
	uint64_t	 rng;
	uint64_t	 hrng;		/* This thread's signal handler's. */
	unsigned int	 gen;		/* Of the slots it publishes. */
	struct tchild	 ch[TT_NLIVE];
	struct torphan	 orph[TT_NORPHAN];
	unsigned long	 n[OP_NOPS];	/* Operations done. */
	enum tt_op	 drawn;		/* The operation under way, */
	bool		 counted;	/* and whether it got to work. */
	unsigned long	 neintr;	/* EINTRs from pdwait. */
	unsigned long	 nclosekill;	/* Deaths by a last close seen. */
	unsigned long	 nwaitid_vague;	/* waitid checks made moot. */
	unsigned long	 nticks;	/* Timer signals this thread took. */
	_Atomic int	 op;		/* What it does now: the hang report. */
	_Atomic pid_t	 oppid;		/* The child it does it to. */
	_Atomic int64_t	 stamp;		/* When it last made progress, ns. */
	_Atomic int	 hop;		/* What its handler does now. */
	_Atomic bool	 done;
	volatile sig_atomic_t in_lib;	/* Inside a call of the library. */
	volatile sig_atomic_t safe;	/* Holds nothing: the handler may. */
};

static uint64_t tt_seed;
static int tt_nthreads = TT_MINTHREADS;
static int tt_seconds = 5;
static int64_t tt_deadline;
static struct tthread *tt_th;
static __thread struct tthread *tt_self;
static char tt_tag[64];			/* TT_TAG_ENV=value, or "". */
static pid_t tt_sentries[TT_MAXSENTRY];	/* Our guardians' sentries. */
static int tt_nsentry;
static _Atomic bool tt_stop;
static bool tt_exit_info_ok;		/* PIDFD_INFO_EXIT (Linux 6.15). */
static bool tt_pollhup_ok;		/* POLLHUP on a reaped pidfd (6.9). */

/* The first failures, in full; the run stops at the first. */
static pthread_mutex_t tt_fail_mtx = PTHREAD_MUTEX_INITIALIZER;
static char tt_fail_msg[1024];
static _Atomic int tt_nfail;

/*
 * The waitid check's view of our pids, indexed by pid: what made each.
 * Between its start and the filing of its pid (for system() and popen(),
 * whose pids are never known: until they return), a creation is
 * untracked, and an unknown pid that waitid reports meanwhile proves
 * nothing: tt_started and tt_finished count them.
 */
static pthread_mutex_t tt_pid_mtx = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned char *tt_pidkind;	/* PK_* | creator << 2. */
static long tt_pidmax;
static _Atomic unsigned long tt_started, tt_finished;

/*
 * Descriptors the signal handler may probe, lock-free: slot i holds
 * gen (12 bits), fd (20 bits) and pid (32 bits), or 0.  A slot is cleared
 * before its descriptor is closed, so a probe that reads the same value
 * before and after its calls used a descriptor that was open throughout.
 */
static _Atomic uint64_t *tt_pub;
static size_t tt_npub;

/* What the handlers did, and the first thing one found wrong. */
static _Atomic unsigned long h_ticks, h_n[H_NHOPS], h_stale, h_edeadlk;
static _Atomic int h_bad;
static struct {
	int	hop, thread, fd, err;
	pid_t	want, got;
	int	status;
} h_badinfo;

extern char **environ;

static int64_t
tt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/* splitmix64: a fine generator from any seed, the same everywhere. */
static uint64_t
tt_mix(uint64_t *s)
{
	uint64_t z;

	z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static unsigned int
tt_rand(struct tthread *t, unsigned int n)
{

	return (n == 0 ? 0 : (unsigned int)(tt_mix(&t->rng) % n));
}

static int
tt_randsig(struct tthread *t)
{

	return (tt_sigs[tt_rand(t, sizeof(tt_sigs) / sizeof(tt_sigs[0]))]);
}

static uint64_t
tt_sigbit(int sig)
{

	return ((uint64_t)1 << sig);
}

/* A wait(2) status in words. */
static const char *
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
static const char *
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
static void __attribute__((format(printf, 2, 3)))
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

/*
 * Progress: the watchdog's proof of life, and the operation under way.
 * The drawn operation counts once it gets to work (it may find nothing to
 * work on).
 */
static void
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

/*
 * A library call: errno is set to TT_ERRNO first, so that a success that
 * changes errno shows (pdfork(3): none of the calls does).  The signal
 * handler looks at in_lib.
 */
#define	LIB(t, call)	((t)->in_lib = 1, errno = TT_ERRNO, (call))
#define	LIBEND(t)	((t)->in_lib = 0)

static bool
tt_errno_kept(struct tthread *t, const char *what)
{

	if (errno == TT_ERRNO)
		return (true);
	tt_fail(t, "%s succeeded but changed errno to %d (%s)", what, errno,
	    strerror(errno));
	return (false);
}

/*
 * The pid map (tt_pidkind): what made pid (an operation, TT_BY_HANDLER
 * for the signal handler, -1 for nothing), and what kind of child it is.
 * The handler stores without the mutex; a byte store is atomic.
 */
#define	TT_BY_HANDLER	(OP_NOPS + 1)

static void
tt_pidstore(pid_t pid, int kind, int by)
{

	if (pid > 0 && pid < tt_pidmax)
		atomic_store(&tt_pidkind[pid],
		    (unsigned char)(kind | (by + 1) << 2));
}

static void
tt_pidset(pid_t pid, int kind, int by)
{

	pthread_mutex_lock(&tt_pid_mtx);
	tt_pidstore(pid, kind, by);
	pthread_mutex_unlock(&tt_pid_mtx);
}

static void
tt_untracked(bool start)
{

	atomic_fetch_add(start ? &tt_started : &tt_finished, 1);
}

/* Descriptor slots for the handler. */
static size_t
tt_slot(const struct tthread *t, const struct tchild *c)
{

	return ((size_t)t->idx * TT_NLIVE + (size_t)(c - t->ch));
}

static void
tt_publish(struct tthread *t, struct tchild *c)
{
	uint64_t v;

	t->gen = (t->gen + 1) & 0xfff;
	v = ((uint64_t)(t->gen | 0x1000) << 52) |
	    ((uint64_t)(unsigned)c->fd << 32) | (uint32_t)c->pid;
	atomic_store(&tt_pub[tt_slot(t, c)], v);
}

static void
tt_unpublish(struct tthread *t, struct tchild *c)
{

	atomic_store(&tt_pub[tt_slot(t, c)], 0);
}

/* poll(2) one descriptor for ms, through EINTR: the events, or 0. */
static short
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
static bool
tt_dead_within(int w, int ms)
{

	return ((tt_poll(w, POLLIN, ms) & (POLLIN | POLLHUP)) != 0);
}

/* ... and has been reaped: POLLHUP on a pidfd (Linux 6.9). */
static bool
tt_reaped_within(int w, int ms)
{

	if (!tt_pollhup_ok)
		return (tt_dead_within(w, ms));
	return ((tt_poll(w, 0, ms) & POLLHUP) != 0);
}

/* The exit status the kernel keeps for a reaped pidfd: 0, or -1. */
static int
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

static int
tt_pidfd_open(pid_t pid)
{

	return ((int)syscall(SYS_pidfd_open, pid, 0));
}

/* waitpid(2) through EINTR. */
static pid_t
tt_waitpid(pid_t pid, int *stp, int options)
{
	pid_t r;

	while ((r = waitpid(pid, stp, options)) == -1 && errno == EINTR)
		;
	return (r);
}

/*
 * What children call: the system calls themselves.  A sanitizer
 * intercepts _exit, kill, signal and pause, and in the child of a
 * multi-threaded fork its interceptors may wait for a lock that another
 * thread of the parent held at the fork (TSan's, for ever, with every
 * signal blocked, so that nothing but SIGKILL ends the child).
 */
static void __attribute__((noreturn))
tt_exit(int code)
{

	for (;;)
		syscall(SYS_exit_group, code);
}

static void
tt_kill_self(int sig)
{

	syscall(SYS_kill, syscall(SYS_getpid), sig);
}

/*
 * A pausing child holds nothing (a copy of a sibling's descriptor would
 * keep the sibling alive, as on FreeBSD), dies with the thread that made
 * it and after TT_LIFE seconds at most, whatever becomes of us.
 */
static void __attribute__((noreturn))
tt_pause(void)
{
	struct procdesc_ksigaction ka;

	syscall(SYS_close_range, 0, ~0U, 0);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	memset(&ka, 0, sizeof(ka));
	ka.ks_handler = SIG_DFL;
	syscall(SYS_rt_sigaction, SIGALRM, &ka, NULL, sizeof(ka.ks_mask));
	syscall(SYS_alarm, TT_LIFE);
	for (;;)
		syscall(SYS_pause);
}

/* An exit status computed with malloc and stdio: a usable child. */
static void __attribute__((noreturn))
tt_exit_stdio(int code)
{
	char *p;
	int n;

	if ((p = malloc(32)) == NULL)
		tt_exit(125);
	snprintf(p, 32, "%d", code);
	n = atoi(p);
	free(p);
	tt_exit(n);
}

/* A pdfork child that pdforks in turn: the library in a child of ours. */
static void __attribute__((noreturn))
tt_nested(int code)
{
	pid_t pid;
	int fd, r, st;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		tt_exit(124);
	if (pid == 0)
		tt_exit(code);
	while ((r = pdwait(fd, &st, WEXITED, NULL, NULL)) == -1 &&
	    errno == EINTR)
		;
	tt_exit(r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == code ? code :
	    125);
}

/*
 * What a child of pdfork or pdrfork does; an RFSPAWN child (spawn) calls
 * async-signal-safe functions only, argv was built before the fork.
 */
static void __attribute__((noreturn))
tt_child(bool spawn, enum tt_kind kind, int code, char *const *argv)
{
	static char *const sleepv[] = { "sleep", "300", NULL };

	switch (kind) {
	case K_EXIT:
		if (!spawn && !TT_SANITIZED && code % 2 == 0)
			tt_exit_stdio(code);
		tt_exit(code);
	case K_RAISE:
		tt_kill_self(code);
		tt_exit(126);
	case K_PAUSE:
		if (!spawn)
			tt_pause();
		syscall(SYS_close_range, 0, ~0U, 0);
		syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		execve("/bin/sleep", sleepv, environ);
		tt_exit(127);
	case K_EXEC:
		syscall(SYS_close_range, 3, ~0U, 0);
		execve(argv[0], argv + 1, environ);
		tt_exit(127);
	case K_NEST:
		tt_nested(code);
	case K_NKINDS:
		break;
	}
	tt_exit(127);
}

/* c's status is known: it exits by itself, or was sent a signal. */
static bool
tc_determinate(const struct tchild *c)
{

	return (c->kind != K_PAUSE || c->sigs != 0);
}

static bool
tc_expected(const struct tchild *c, int st)
{

	if (WIFSIGNALED(st) && !WCOREDUMP(st) &&
	    (c->sigs & tt_sigbit(WTERMSIG(st))) != 0)
		return (true);
	switch (c->kind) {
	case K_EXIT:
	case K_EXEC:
	case K_NEST:
		return (WIFEXITED(st) && WEXITSTATUS(st) == c->code);
	case K_RAISE:
		return (WIFSIGNALED(st) && !WCOREDUMP(st) &&
		    WTERMSIG(st) == c->code);
	case K_PAUSE:
	case K_NKINDS:
		break;
	}
	return (false);
}

/* A random used entry of t's table, or NULL. */
static struct tchild *
tc_pick(struct tthread *t)
{
	unsigned int i, k, n;

	for (n = 0, i = 0; i < TT_NLIVE; i++)
		n += t->ch[i].used;
	if (n == 0)
		return (NULL);
	k = tt_rand(t, n);
	for (i = 0; i < TT_NLIVE; i++)
		if (t->ch[i].used && k-- == 0)
			return (&t->ch[i]);
	return (NULL);
}

/* A random entry of a pausing child nobody signalled yet, or NULL. */
static struct tchild *
tc_pick_running(struct tthread *t)
{
	unsigned int i, k, n;

	for (n = 0, i = 0; i < TT_NLIVE; i++)
		n += t->ch[i].used && !tc_determinate(&t->ch[i]);
	if (n == 0)
		return (NULL);
	k = tt_rand(t, n);
	for (i = 0; i < TT_NLIVE; i++)
		if (t->ch[i].used && !tc_determinate(&t->ch[i]) && k-- == 0)
			return (&t->ch[i]);
	return (NULL);
}

/* One of c's open descriptors. */
static int
tc_anyfd(struct tthread *t, const struct tchild *c)
{

	if (c->fd != -1 && (c->dup == -1 || tt_rand(t, 2) == 0))
		return (c->fd);
	return (c->dup);
}

static void
tc_close(struct tthread *t, struct tchild *c, int *fdp)
{

	if (fdp == &c->fd)
		tt_unpublish(t, c);
	if (close(*fdp) != 0)
		tt_fail(t, "close(%d) of pid %d: %s", *fdp, c->pid,
		    strerror(errno));
	*fdp = -1;
}

/*
 * A process that must die (killed, or its last descriptor closed) does,
 * is reaped by the library and leaves the status the kernel kept; then
 * its watch is closed.
 */
static void
tt_watch_end(struct tthread *t, const struct tchild *c, int w, pid_t pid)
{
	char a[64], b[128];
	int st;

	if (!tt_dead_within(w, TT_LONG_MS))
		tt_fail(t, "pid %d did not die within %d ms (expected %s)",
		    pid, TT_LONG_MS, tt_want(c, b, sizeof(b)));
	else if (!tt_reaped_within(w, TT_LONG_MS))
		tt_fail(t, "pid %d died but was not reaped within %d ms",
		    pid, TT_LONG_MS);
	else if (tt_exit_info_ok && tt_exit_info(w, &st) == 0 &&
	    !tc_expected(c, st))
		tt_fail(t, "pid %d ended with %s, expected %s", pid,
		    tt_st(st, a, sizeof(a)), tt_want(c, b, sizeof(b)));
	close(w);
}

/* A PD_DAEMON child let go: it must run on until we kill it. */
static void
tt_orphan(struct tthread *t, struct tchild *c)
{
	struct torphan *o;
	int i;

	for (i = 0; i < TT_NORPHAN; i++) {
		o = &t->orph[i];
		if (o->watch == -1) {
			o->pid = c->pid;
			o->watch = c->watch;
			return;
		}
	}
	/* No room: kill it now, after its check. */
	if (!tt_dead_within(c->watch, 0)) {
		(void)syscall(SYS_pidfd_send_signal, c->watch, SIGTERM, NULL,
		    0);
		c->sigs |= tt_sigbit(SIGTERM);
	} else
		tt_fail(t, "PD_DAEMON pid %d died at its last close", c->pid);
	tt_watch_end(t, c, c->watch, c->pid);
}

/*
 * Every descriptor of c is closed.  A pausing child must then die (if it
 * was sent a signal, or is not PD_DAEMON) or live on (PD_DAEMON).
 */
static void
tc_end(struct tthread *t, struct tchild *c)
{

	/* The kill of the last close may come before a pending signal. */
	if (!c->daemon && (c->fd != -1 || (c->dup != -1 && !c->dup_own)))
		c->sigs |= tt_sigbit(SIGKILL);
	if (c->fd != -1)
		tc_close(t, c, &c->fd);
	if (c->dup != -1)
		tc_close(t, c, &c->dup);
	if (c->watch != -1) {
		if (c->daemon && c->sigs == 0)
			tt_orphan(t, c);
		else
			tt_watch_end(t, c, c->watch, c->pid);
	}
	memset(c, 0, sizeof(*c));
	c->fd = c->dup = c->watch = -1;
}

/* pdgetpid on fd must say pid. */
static void
tt_check_getpid(struct tthread *t, int fd, pid_t pid)
{
	pid_t got;
	int r;

	got = -1;
	r = LIB(t, pdgetpid(fd, &got));
	LIBEND(t);
	if (r != 0)
		tt_fail(t, "pdgetpid(%d) of pid %d: %s", fd, pid,
		    strerror(errno));
	else if (tt_errno_kept(t, "pdgetpid") && got != pid)
		tt_fail(t, "pdgetpid(%d) said %d, expected %d", fd, got, pid);
}

/*
 * pdwait on fd, blocking (through EINTR, which pdfork(3) allows) unless
 * options has WNOHANG: 0 and *stp, or the errno value.
 */
static int
tt_pdwait(struct tthread *t, const struct tchild *c, int fd, int options,
    int *stp)
{
	struct __wrusage wru;
	siginfo_t si;
	char a[64];
	int r, e, st;

	for (;;) {
		memset(&si, 0, sizeof(si));
		memset(&wru, 0xa5, sizeof(wru));
		st = -1;
		r = LIB(t, pdwait(fd, &st, options, &wru, &si));
		e = errno;
		LIBEND(t);
		if (r == 0 || e != EINTR || (options & WNOHANG) != 0)
			break;
		t->neintr++;
		if (atomic_load(&tt_stop))
			return (EINTR);
	}
	if (r != 0) {
		if (e == EINTR)
			tt_fail(t, "pdwait(WNOHANG) of pid %d: EINTR", c->pid);
		return (e);
	}
	if (!tt_errno_kept(t, "pdwait"))
		return (0);
	*stp = st;
	/* The siginfo and the rusage say what the status says. */
	if (si.si_signo != SIGCHLD || si.si_pid != c->pid ||
	    (WIFEXITED(st) && (si.si_code != CLD_EXITED ||
	    si.si_status != WEXITSTATUS(st))) ||
	    (WIFSIGNALED(st) && ((si.si_code != CLD_KILLED &&
	    si.si_code != CLD_DUMPED) || si.si_status != WTERMSIG(st))) ||
	    (WIFSTOPPED(st) && (si.si_code != CLD_STOPPED ||
	    si.si_status != WSTOPSIG(st))) ||
	    (WIFCONTINUED(st) && (si.si_code != CLD_CONTINUED ||
	    si.si_status != SIGCONT)))
		tt_fail(t, "pdwait of pid %d: %s but siginfo signo %d pid %d "
		    "code %d status %d", c->pid, tt_st(st, a, sizeof(a)),
		    si.si_signo, (int)si.si_pid, si.si_code, si.si_status);
	else if (wru.wru_children.ru_utime.tv_sec != 0 ||
	    wru.wru_children.ru_utime.tv_usec != 0 ||
	    wru.wru_children.ru_maxrss != 0)
		tt_fail(t, "pdwait of pid %d: wru_children not zero", c->pid);
	return (0);
}

/* pdwait until c's status, which must be the expected one; then end c. */
static void
tc_wait_end(struct tthread *t, struct tchild *c, int options)
{
	char a[64], b[128];
	int e, fd, fd2, options0, st, st2;

	options0 = options;
	fd = tc_anyfd(t, c);
	if ((e = tt_pdwait(t, c, fd, options, &st)) != 0) {
		if (e == EAGAIN && (options & WNOHANG) != 0)
			return;		/* Not yet: later. */
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait(%d, %#x) of pid %d (%s): %s", fd,
			    options, c->pid, tt_want(c, b, sizeof(b)),
			    strerror(e));
		tc_end(t, c);
		return;
	}
	if (!tc_expected(c, st)) {
		tt_fail(t, "pdwait of pid %d (%s, %s, %s child): %s, "
		    "expected %s", c->pid, tt_opname[c->how],
		    tt_kindname[c->kind], c->daemon ? "daemon" : "plain",
		    tt_st(st, a, sizeof(a)), tt_want(c, b, sizeof(b)));
		tc_end(t, c);
		return;
	}
	/* Every later call, on any copy, says the same. */
	fd2 = tc_anyfd(t, c);
	options = WEXITED | WNOHANG;
	if (fd2 == c->dup && c->dup_own && !TORTURE_REOPEN_WNOHANG)
		options = WEXITED;
	if ((e = tt_pdwait(t, c, fd2, options, &st2)) != 0 &&
	    (e != EINTR || !atomic_load(&tt_stop)))
		tt_fail(t, "second pdwait of pid %d (fd %d%s, first fd %d "
		    "options %#x said %s): %s", c->pid, fd2,
		    fd2 == c->dup ? (c->dup_own ? " pdopenpid" : " dup") : "",
		    fd, options0, tt_st(st, a, sizeof(a)), strerror(e));
	else if (e == 0 && st2 != st)
		tt_fail(t, "second pdwait of pid %d: %s, first %s", c->pid,
		    tt_st(st2, a, sizeof(a)), tt_st(st, b, sizeof(b)));
	tc_end(t, c);
}

static void tc_finish(struct tthread *, struct tchild *);
static void tt_reap_plain(struct tthread *, pid_t, int, const char *);

/* A free entry of t's table; a full table first ends one. */

static struct tchild *
tc_free(struct tthread *t)
{
	struct tchild *c;
	int i;

	for (i = 0; i < TT_NLIVE; i++)
		if (!t->ch[i].used)
			return (&t->ch[i]);
	c = &t->ch[tt_rand(t, TT_NLIVE)];
	tc_finish(t, c);
	return (c->used ? NULL : c);
}

/*
 * pdfork, pdrfork(RFPROC | RFPROCDESC) and pdrfork(RFSPAWN): a child with
 * a random fate, filed in the table.
 */
static void
op_make(struct tthread *t, enum tt_op op)
{
	char arg[32], *argv[5];
	struct tchild *c;
	enum tt_kind kind;
	pid_t pid;
	int code, e, fd, flags, rf;
	bool execs;

	if ((c = tc_free(t)) == NULL)
		return;
	kind = (enum tt_kind)tt_rand(t, K_NKINDS);
	if (kind == K_NEST && op == OP_RFSPAWN)
		kind = K_EXIT;
	code = kind == K_RAISE ? tt_randsig(t) : (int)tt_rand(t, 126);
	argv[0] = "/bin/sh";
	argv[1] = "sh";
	argv[2] = "-c";
	argv[3] = arg;
	argv[4] = NULL;
	snprintf(arg, sizeof(arg), "exit %d", code);
	if (kind == K_EXEC && op == OP_RFSPAWN && tt_rand(t, 2) == 0) {
		code = (int)tt_rand(t, 2);
		argv[0] = code == 0 ? "/bin/true" : "/bin/false";
		argv[1] = code == 0 ? "true" : "false";
		argv[2] = NULL;
	}
	flags = (tt_rand(t, 4) != 0 ? PD_CLOEXEC : 0) |
	    (tt_rand(t, 5) == 0 ? PD_DAEMON : 0);
	rf = op == OP_RFSPAWN ? (int)RFSPAWN :
	    RFPROC | RFPROCDESC | (tt_rand(t, 2) == 0 ? RFFDG : 0);
	/* Its exec gives it SIGCHLD back: waitid may see it (pdfork(3)). */
	execs = kind == K_EXEC || (kind == K_PAUSE && op == OP_RFSPAWN);
	if (execs)
		tt_untracked(true);
	fd = -1;
	pid = op == OP_PDFORK ? LIB(t, pdfork(&fd, flags)) :
	    LIB(t, pdrfork(&fd, flags, rf));
	e = errno;
	LIBEND(t);
	if (pid == 0)
		tt_child(op == OP_RFSPAWN, kind, code, argv);
	if (pid == -1) {
		tt_fail(t, "%s(%#x, %#x): %s", tt_opname[op], flags, rf,
		    strerror(e));
		if (execs)
			tt_untracked(false);
		return;
	}
	tt_pidset(pid, execs ? PK_PDEXEC : PK_PD, op);
	if (execs)
		tt_untracked(false);
	if (!tt_errno_kept(t, tt_opname[op])) {
		close(fd);
		return;
	}
	tt_doing(t, op, pid);
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->fd = fd;
	c->dup = -1;
	c->watch = -1;
	c->pid = pid;
	c->kind = kind;
	c->code = code;
	c->daemon = (flags & PD_DAEMON) != 0;
	c->how = op;
	/* A pausing child cannot die before we act: its pid is its own. */
	if (kind == K_PAUSE && (c->watch = tt_pidfd_open(pid)) == -1)
		tt_fail(t, "pidfd_open(%d) of a pausing child: %s", pid,
		    strerror(errno));
	tt_check_getpid(t, fd, pid);
	tt_publish(t, c);
}

/* Another copy of a descriptor: dup(2), or F_DUPFD_CLOEXEC. */
static void
op_dup(struct tthread *t)
{
	struct tchild *c;

	if ((c = tc_pick(t)) == NULL || c->fd == -1 || c->dup != -1)
		return;
	tt_doing(t, OP_DUP, c->pid);
	c->dup = tt_rand(t, 2) == 0 ? dup(c->fd) :
	    fcntl(c->fd, F_DUPFD_CLOEXEC, 3);
	c->dup_own = false;
	if (c->dup == -1)
		tt_fail(t, "dup(%d): %s", c->fd, strerror(errno));
	else
		tt_check_getpid(t, c->dup, c->pid);
}

/*
 * A second, PD_DAEMON description of a pausing child of ours from
 * pdopenpid: it neither keeps the child alive nor kills it, and reports
 * its exit too.
 */
static void
op_reopen(struct tthread *t)
{
	struct tchild *c;
	int fd;

	if ((c = tc_pick_running(t)) == NULL || c->fd == -1 || c->dup != -1)
		return;
	tt_doing(t, OP_REOPEN, c->pid);
	fd = LIB(t, pdopenpid(c->pid, PD_DAEMON | PD_CLOEXEC));
	LIBEND(t);
	if (fd == -1) {
		tt_fail(t, "pdopenpid(%d) of a running pdfork child: %s",
		    c->pid, strerror(errno));
		return;
	}
	if (!tt_errno_kept(t, "pdopenpid")) {
		close(fd);
		return;
	}
	c->dup = fd;
	c->dup_own = true;
	tt_check_getpid(t, fd, c->pid);
}

/*
 * Close one descriptor.  The last copy of a description without PD_DAEMON
 * kills a pausing child: seen through its watch, with SIGKILL.
 */
static void
op_close(struct tthread *t)
{
	struct tchild *c;
	bool primary, last;

	if ((c = tc_pick(t)) == NULL)
		return;
	tt_doing(t, OP_CLOSE, c->pid);
	primary = c->fd != -1 && (c->dup == -1 || tt_rand(t, 2) == 0);
	if (primary)
		tc_close(t, c, &c->fd);
	else
		tc_close(t, c, &c->dup);
	/* The last copy of the first description is gone. */
	last = (primary || !c->dup_own) && c->fd == -1 &&
	    (c->dup == -1 || c->dup_own);
	if (last && c->kind == K_PAUSE && !c->daemon) {
		if (c->sigs == 0)
			t->nclosekill++;
		c->sigs |= tt_sigbit(SIGKILL);
		if (!tt_dead_within(c->watch, TT_LONG_MS))
			tt_fail(t, "pid %d survived its last close by %d ms",
			    c->pid, TT_LONG_MS);
	}
	if (c->fd == -1 && c->dup == -1)
		tc_end(t, c);
}

/* pdkill with a known signal, or 0: it succeeds, even after the exit. */
static void
op_pdkill(struct tthread *t)
{
	struct tchild *c;
	int fd, r, sig;

	if ((c = tc_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDKILL, c->pid);
	sig = tt_rand(t, 4) == 0 ? 0 : tt_randsig(t);
	fd = tc_anyfd(t, c);
	r = LIB(t, pdkill(fd, sig));
	LIBEND(t);
	if (r != 0)
		tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig, c->pid,
		    strerror(errno));
	else if (tt_errno_kept(t, "pdkill") && sig != 0)
		c->sigs |= tt_sigbit(sig);
}

/*
 * pdwait: blocking, WNOHANG, after poll(2) said POLLIN (then the record
 * must be there: no WNOHANG window), or WNOWAIT; a running child must
 * give EAGAIN to WNOHANG.
 */
static void
op_pdwait(struct tthread *t)
{
	struct tchild *c;
	int e, fd, st;

	if ((c = tc_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDWAIT, c->pid);
	if (!tc_determinate(c)) {
		fd = tc_anyfd(t, c);
		if ((e = tt_pdwait(t, c, fd, WEXITED | WNOHANG, &st)) !=
		    EAGAIN)
			tt_fail(t, "pdwait(WNOHANG) of running pid %d: %s",
			    c->pid, e == 0 ? "a status" : strerror(e));
		return;
	}
	switch (tt_rand(t, 4)) {
	case 0:
		tc_wait_end(t, c, WEXITED);
		break;
	case 1:
		tc_wait_end(t, c, WEXITED | WNOHANG);
		break;
	case 2:
		fd = tc_anyfd(t, c);
		if ((tt_poll(fd, POLLIN, TT_LONG_MS) & POLLIN) == 0) {
			tt_fail(t, "no POLLIN on pid %d's descriptor within "
			    "%d ms", c->pid, TT_LONG_MS);
			return;
		}
		tc_wait_end(t, c, WEXITED | WNOHANG);
		break;
	case 3:
		tc_wait_end(t, c, WEXITED | WNOWAIT);
		break;
	}
}

/*
 * pddupfd on a running child: a number it has not open (it never has
 * TT_NOFD, nor do we), and a bad flag.
 */
static void
tt_check_dupfd(struct tthread *t, const struct tchild *c)
{
	int e, fd, r;

	fd = tc_anyfd(t, c);
	r = LIB(t, pddupfd(fd, TT_NOFD, 0));
	e = errno;
	LIBEND(t);
	if (r != -1 || e != EBADF) {
		tt_fail(t, "pddupfd(%d, %d) of pid %d: %d, errno %s", fd,
		    TT_NOFD, c->pid, r, strerror(e));
		if (r != -1)
			close(r);
		return;
	}
	r = LIB(t, pddupfd(fd, 0, 1));
	e = errno;
	LIBEND(t);
	if (r != -1 || e != EINVAL) {
		tt_fail(t, "pddupfd(%d, 0, 1) of pid %d: %d, errno %s", fd,
		    c->pid, r, strerror(e));
		if (r != -1)
			close(r);
	}
}

/*
 * pdgetpid on every copy; a pausing child nobody signalled is alive, its
 * descriptor not readable, and pdwait(WNOHANG) says EAGAIN.
 */
static void
op_pdgetpid(struct tthread *t)
{
	struct tchild *c;
	int e, st;

	if ((c = tc_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDGETPID, c->pid);
	if (c->fd != -1)
		tt_check_getpid(t, c->fd, c->pid);
	if (c->dup != -1)
		tt_check_getpid(t, c->dup, c->pid);
	if (c->kind != K_PAUSE || c->sigs != 0)
		return;
	if (tt_dead_within(c->watch, 0))
		tt_fail(t, "pausing pid %d died, held and never signalled",
		    c->pid);
	else if ((tt_poll(tc_anyfd(t, c), POLLIN, 0) & (POLLIN | POLLHUP)) !=
	    0)
		tt_fail(t, "running pid %d: its descriptor polls readable",
		    c->pid);
	else if ((e = tt_pdwait(t, c, tc_anyfd(t, c), WEXITED | WNOHANG,
	    &st)) != EAGAIN)
		tt_fail(t, "pdwait(WNOHANG) of running pid %d: %s", c->pid,
		    e == 0 ? "a status" : strerror(e));
	else
		tt_check_dupfd(t, c);
}

/* pdkill(fd, sig) that must succeed. */
static bool
tt_pdkill(struct tthread *t, const struct tchild *c, int fd, int sig)
{
	int r;

	r = LIB(t, pdkill(fd, sig));
	LIBEND(t);
	if (r != 0) {
		tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig, c->pid,
		    strerror(errno));
		return (false);
	}
	return (tt_errno_kept(t, "pdkill"));
}

/* pdwait(options) for a stop or a continue, which must be what ok says. */
static bool
tt_event(struct tthread *t, const struct tchild *c, int fd, int options,
    bool stop)
{
	char a[64];
	int e, st;

	if ((e = tt_pdwait(t, c, fd, options, &st)) != 0) {
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait(%#x) of pid %d for its %s: %s",
			    options, c->pid, stop ? "stop" : "continue",
			    strerror(e));
		return (false);
	}
	if (stop ? WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP :
	    WIFCONTINUED(st))
		return (true);
	tt_fail(t, "pdwait(%#x) of pid %d: %s, expected %s", options, c->pid,
	    tt_st(st, a, sizeof(a)), stop ? "stopped by 19" : "continued");
	return (false);
}

/*
 * Stop and continue a pausing child through pdkill: the owner's pdwait
 * reports both (WNOWAIT: twice), through the timer's EINTRs.  Only on a
 * copy of the pdfork descriptor: the owner's pdopenpid descriptor of its
 * own child blocks in pdwait(WUNTRACED) until the child exits.
 */
static void
op_stop(struct tthread *t)
{
	struct tchild *c;
	int fd, nowait;

	if ((c = tc_pick_running(t)) == NULL)
		return;
	fd = c->fd != -1 ? c->fd : !c->dup_own ? c->dup : -1;
	if (fd == -1)
		return;
	tt_doing(t, OP_STOP, c->pid);
	nowait = tt_rand(t, 2) == 0 ? WNOWAIT : 0;
	if (!tt_pdkill(t, c, fd, SIGSTOP) ||
	    !tt_event(t, c, fd, WUNTRACED | nowait, true) ||
	    (nowait != 0 && !tt_event(t, c, fd, WUNTRACED, true)) ||
	    !tt_pdkill(t, c, fd, SIGCONT) ||
	    !tt_event(t, c, fd, WCONTINUED | nowait, false) ||
	    (nowait != 0 && !tt_event(t, c, fd, WCONTINUED, false)))
		return;
}

/* Send fd over socket s (SCM_RIGHTS). */
static int
tt_sendfd(int s, int fd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	char b;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	b = 'd';
	iov.iov_base = &b;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.hdr), &fd, sizeof(int));
	return (sendmsg(s, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1);
}

/* Receive a descriptor from s, through EINTR: it, or -1. */
static int
tt_recvfd(int s)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *cmh;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;
	int fd;
	char b;

	do {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = &b;
		iov.iov_len = 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
	} while ((n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR);
	if (n != 1 || (cmh = CMSG_FIRSTHDR(&mh)) == NULL ||
	    cmh->cmsg_type != SCM_RIGHTS)
		return (-1);
	memcpy(&fd, CMSG_DATA(cmh), sizeof(int));
	return (fd);
}

/*
 * The only copy of a descriptor in flight (SCM_RIGHTS, not received yet)
 * keeps its child alive; received, it is the descriptor again; destroyed
 * with its socket, it was the last copy: the child dies.
 */
static void
op_flight(struct tthread *t)
{
	struct tchild *c;
	int sv[2];

	if ((c = tc_pick_running(t)) == NULL || c->daemon || c->fd == -1 ||
	    c->dup != -1)
		return;
	tt_doing(t, OP_FLIGHT, c->pid);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		tt_fail(t, "socketpair: %s", strerror(errno));
		return;
	}
	if (tt_sendfd(sv[0], c->fd) == -1) {
		tt_fail(t, "sendmsg(SCM_RIGHTS): %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return;
	}
	tc_close(t, c, &c->fd);
	if (tt_dead_within(c->watch, TT_HELD_MS))
		tt_fail(t, "pid %d died while a copy was in flight", c->pid);
	if (tt_rand(t, 2) == 0) {
		if ((c->fd = tt_recvfd(sv[1])) == -1)
			tt_fail(t, "recvmsg(SCM_RIGHTS): nothing came");
		else {
			tt_check_getpid(t, c->fd, c->pid);
			tt_publish(t, c);
		}
	} else {
		c->sigs |= tt_sigbit(SIGKILL);
		t->nclosekill++;
	}
	close(sv[0]);
	close(sv[1]);
	if (c->fd == -1)
		tc_end(t, c);
}

/*
 * In a fork() copy of this process, the descriptor of a running child:
 * pdgetpid, pdkill 0, pdwait(WNOHANG) says EAGAIN; with sig, pdkill and a
 * blocking pdwait for the status.  The copy's exit status is the number
 * of the step that failed, 0 if none.
 */
static int
tt_copy_ops(int fd, pid_t want, int sig)
{
	siginfo_t si;
	pid_t pid;
	int r, st;

	if (pdgetpid(fd, &pid) != 0 || pid != want)
		return (1);
	if (pdkill(fd, 0) != 0)
		return (2);
	if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) != -1 ||
	    errno != EAGAIN)
		return (3);
	if (sig == 0)
		return (0);
	if (pdkill(fd, sig) != 0)
		return (4);
	memset(&si, 0, sizeof(si));
	while ((r = pdwait(fd, &st, WEXITED, NULL, &si)) == -1 &&
	    errno == EINTR)
		;
	if (r != 0)
		return (5);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
		return (6);
	if (si.si_pid != want || si.si_code != CLD_KILLED ||
	    si.si_status != sig)
		return (7);
	return (0);
}

/*
 * A fork() copy holds every descriptor too and uses a running child's as
 * any holder does (the owner's registry is not its own); the owner then
 * sees what the copy did.
 */
static void
op_copy(struct tthread *t)
{
	struct tchild *c;
	pid_t pid;
	int fd, sig;

	if ((c = tc_pick_running(t)) == NULL)
		return;
	tt_doing(t, OP_COPY, c->pid);
	fd = tc_anyfd(t, c);
	sig = tt_rand(t, 2) == 0 ? tt_randsig(t) : 0;
	tt_untracked(true);
	if ((pid = fork()) == 0)
		tt_exit(tt_copy_ops(fd, c->pid, sig));
	if (pid != -1)
		tt_pidset(pid, PK_PLAIN, OP_COPY);
	tt_untracked(false);
	if (pid == -1) {
		tt_fail(t, "fork: %s", strerror(errno));
		return;
	}
	tt_reap_plain(t, pid, 0, "fork copy (exit: the step that failed)");
	if (sig != 0)
		c->sigs |= tt_sigbit(sig);
}

/* End c however fits: a pausing child is killed or closed first. */
static void
tc_finish(struct tthread *t, struct tchild *c)
{
	int fd, r, sig;

	if (!c->used)
		return;
	tt_doing(t, OP_CLEANUP, c->pid);
	if (!tc_determinate(c)) {
		if (tt_rand(t, 2) == 0) {
			/* Close every copy: the kill on the last close. */
			if (!c->daemon)
				c->sigs |= tt_sigbit(SIGKILL);
			else {
				sig = tt_randsig(t);
				(void)syscall(SYS_pidfd_send_signal, c->watch,
				    sig, NULL, 0);
				c->sigs |= tt_sigbit(sig);
			}
			tc_end(t, c);
			return;
		}
		sig = tt_randsig(t);
		fd = tc_anyfd(t, c);
		r = LIB(t, pdkill(fd, sig));
		LIBEND(t);
		if (r != 0) {
			tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig,
			    c->pid, strerror(errno));
			tc_end(t, c);
			return;
		}
		c->sigs |= tt_sigbit(sig);
	}
	tc_wait_end(t, c, WEXITED);
}

/* Kill a child of ours through its pidfd and check how it ended. */
static void
tt_kill_orphan(struct tthread *t, struct torphan *o)
{
	struct tchild c;
	int sig;

	memset(&c, 0, sizeof(c));
	c.kind = K_PAUSE;
	c.pid = o->pid;
	if (tt_dead_within(o->watch, 0))
		tt_fail(t, "PD_DAEMON pid %d died after its last close",
		    o->pid);
	sig = tt_randsig(t);
	(void)syscall(SYS_pidfd_send_signal, o->watch, sig, NULL, 0);
	c.sigs = tt_sigbit(sig);
	tt_watch_end(t, &c, o->watch, o->pid);
	o->watch = -1;
}

/* The PD_DAEMON children we let go: alive until we kill them now. */
static void
op_daemons(struct tthread *t)
{
	int i;

	for (i = 0; i < TT_NORPHAN; i++) {
		if (t->orph[i].watch != -1) {
			tt_doing(t, OP_DAEMONS, t->orph[i].pid);
			tt_kill_orphan(t, &t->orph[i]);
		}
	}
}

/*
 * A plain child: fork() that pauses, for pdopenpid.  The pid is filed for
 * the waitid check before anyone can see it exit.
 */
static pid_t
tt_fork_pause(struct tthread *t)
{
	pid_t pid;

	tt_untracked(true);
	if ((pid = fork()) == 0)
		tt_pause();
	if (pid == -1)
		tt_fail(t, "fork: %s", strerror(errno));
	else
		tt_pidset(pid, PK_PLAIN, OP_OPENPID);
	tt_untracked(false);
	return (pid);
}

/* Reap a plain child, which must end with status want. */
static void
tt_reap_plain(struct tthread *t, pid_t pid, int want, const char *what)
{
	char a[64], b[64];
	int st;

	st = -1;
	if (tt_waitpid(pid, &st, 0) != pid)
		tt_fail(t, "waitpid(%d) of a %s child: %s", pid, what,
		    strerror(errno));
	else if (st != want)
		tt_fail(t, "%s child %d: %s, expected %s", what, pid,
		    tt_st(st, a, sizeof(a)), tt_st(want, b, sizeof(b)));
	tt_pidset(pid, PK_NONE, -1);
}

/*
 * What a descriptor's socket holds, for a message: the exit record (its
 * size), a hang-up without one, or nothing yet.
 */
static const char *
tt_pd_state(int fd, char *buf, size_t len)
{
	char rec[512];
	ssize_t n;

	n = recv(fd, rec, sizeof(rec), MSG_PEEK | MSG_DONTWAIT);
	if (n > 0)
		snprintf(buf, len, "a record of %zd bytes", n);
	else if (n == 0)
		snprintf(buf, len, "a hang-up without a record");
	else
		snprintf(buf, len, "no record (%s)", strerror(errno));
	return (buf);
}

/* pdwait on a pdopenpid descriptor: it must say want. */
static void
tt_openpid_wait(struct tthread *t, int fd, pid_t pid, int want)
{
	struct tchild c;
	char a[64], b[64];
	int e, st;

	memset(&c, 0, sizeof(c));
	c.pid = pid;
	e = tt_pdwait(t, &c, fd, WEXITED, &st);
	if (!tt_exit_info_ok) {
		/* Before Linux 6.15 nobody keeps a status for us. */
		if (e != ECHILD && e != EINTR)
			tt_fail(t, "pdwait of pdopenpid(%d): %s, expected "
			    "ECHILD", pid, e == 0 ? "a status" : strerror(e));
	} else if (e != 0) {
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait of pdopenpid(%d) (%s): %s; the "
			    "descriptor holds %s", pid,
			    tt_st(want, b, sizeof(b)), strerror(e),
			    tt_pd_state(fd, a, sizeof(a)));
	} else if (st != want)
		tt_fail(t, "pdwait of pdopenpid(%d): %s, expected %s", pid,
		    tt_st(st, a, sizeof(a)), tt_st(want, b, sizeof(b)));
}

/*
 * pdopenpid of our own fork() child, then one of: pdkill and both waits
 * (pdwait and waitpid must agree); close (kills unless PD_DAEMON); a kill
 * behind the descriptor's back, then pdkill of a reaped process, whose
 * pid may be somebody else's by now.
 */
static void
op_openpid(struct tthread *t)
{
	pid_t pid;
	int fd, flags, r, sig, w;

	if ((pid = tt_fork_pause(t)) == -1)
		return;
	tt_doing(t, OP_OPENPID, pid);
	flags = PD_CLOEXEC | (tt_rand(t, 4) == 0 ? PD_DAEMON : 0);
	fd = LIB(t, pdopenpid(pid, flags));
	LIBEND(t);
	if (fd == -1) {
		tt_fail(t, "pdopenpid(%d, %#x) of a paused fork child: %s",
		    pid, flags, strerror(errno));
		kill(pid, SIGKILL);
		tt_reap_plain(t, pid, SIGKILL, "pdopenpid");
		return;
	}
	if (tt_errno_kept(t, "pdopenpid"))
		tt_check_getpid(t, fd, pid);
	sig = tt_randsig(t);
	switch (tt_rand(t, 3)) {
	case 0:
		r = LIB(t, pdkill(fd, sig));
		LIBEND(t);
		if (r != 0)
			tt_fail(t, "pdkill(%d, %d) of pdopenpid(%d): %s", fd,
			    sig, pid, strerror(errno));
#if TORTURE_OPENPID_PDWAIT_FIRST
		tt_openpid_wait(t, fd, pid, sig);
		tt_reap_plain(t, pid, sig, "pdopenpid");
#else
		tt_reap_plain(t, pid, sig, "pdopenpid");
		tt_openpid_wait(t, fd, pid, sig);
#endif
		break;
	case 1:
		/* Unreaped, it is ours: its pid is its own. */
		w = tt_pidfd_open(pid);
		close(fd);
		fd = -1;
		if ((flags & PD_DAEMON) != 0) {
			if (tt_dead_within(w, TT_HELD_MS))
				tt_fail(t, "pdopenpid(%d, PD_DAEMON): the "
				    "close killed it", pid);
			kill(pid, sig);
		} else if (!tt_dead_within(w, TT_LONG_MS)) {
			tt_fail(t, "pdopenpid(%d): survived its last close by "
			    "%d ms", pid, TT_LONG_MS);
			kill(pid, SIGKILL);
		}
		if ((flags & PD_DAEMON) == 0)
			sig = SIGKILL;
		close(w);
		tt_reap_plain(t, pid, sig, "pdopenpid");
		break;
	case 2:
		kill(pid, sig);
		tt_reap_plain(t, pid, sig, "pdopenpid");
		tt_openpid_wait(t, fd, pid, sig);
		r = LIB(t, pdkill(fd, SIGKILL));
		LIBEND(t);
		if (r != 0)
			tt_fail(t, "pdkill(%d) of reaped pdopenpid(%d): %s",
			    fd, pid, strerror(errno));
		break;
	}
	if (fd != -1)
		close(fd);
}

/* fork(), vfork(): the child exits or kills itself; waitpid sees it. */
static void
op_fork(struct tthread *t, bool v)
{
	pid_t pid;
	int code, sig;

	code = (int)tt_rand(t, 126);
	sig = tt_rand(t, 2) == 0 ? tt_randsig(t) : 0;
	tt_untracked(true);
	pid = v ? vfork() : fork();
	if (pid == 0) {
		if (sig != 0 && !v)
			tt_kill_self(sig);
		tt_exit(code);
	}
	if (pid == -1) {
		tt_untracked(false);
		tt_fail(t, "%s: %s", v ? "vfork" : "fork", strerror(errno));
		return;
	}
	tt_pidset(pid, PK_PLAIN, v ? OP_VFORK : OP_FORK);
	tt_untracked(false);
	tt_doing(t, v ? OP_VFORK : OP_FORK, pid);
	tt_reap_plain(t, pid, sig != 0 && !v ? sig : W_EXITCODE(code, 0),
	    v ? "vfork" : "fork");
}

static void
op_spawn(struct tthread *t)
{
	char *argv[2];
	pid_t pid;
	int e, code;

	code = (int)tt_rand(t, 2);
	argv[0] = code == 0 ? "true" : "false";
	argv[1] = NULL;
	tt_untracked(true);
	e = posix_spawn(&pid, code == 0 ? "/bin/true" : "/bin/false", NULL,
	    NULL, argv, environ);
	if (e == 0)
		tt_pidset(pid, PK_PLAIN, OP_SPAWN);
	tt_untracked(false);
	if (e != 0) {
		tt_fail(t, "posix_spawn: %s", strerror(e));
		return;
	}
	tt_doing(t, OP_SPAWN, pid);
	tt_reap_plain(t, pid, W_EXITCODE(code, 0), "posix_spawn");
}

static void
op_system(struct tthread *t)
{
	char cmd[32], a[64];
	int code, st;

	tt_doing(t, OP_SYSTEM, 0);
	code = (int)tt_rand(t, 126);
	snprintf(cmd, sizeof(cmd), "exit %d", code);
	tt_untracked(true);
	st = system(cmd);
	tt_untracked(false);
	if (st == -1)
		tt_fail(t, "system(\"%s\"): %s", cmd, strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
		tt_fail(t, "system(\"%s\"): %s", cmd, tt_st(st, a, sizeof(a)));
}

static void
op_popen(struct tthread *t)
{
	char cmd[32], line[32], a[64];
	FILE *fp;
	char *p;
	int code, st;

	tt_doing(t, OP_POPEN, 0);
	code = (int)tt_rand(t, 126);
	snprintf(cmd, sizeof(cmd), "echo x; exit %d", code);
	tt_untracked(true);
	if ((fp = popen(cmd, "re")) == NULL) {
		tt_untracked(false);
		tt_fail(t, "popen(\"%s\"): %s", cmd, strerror(errno));
		return;
	}
	/* A read that the timer interrupts fails; stdio keeps no data. */
	while ((p = fgets(line, sizeof(line), fp)) == NULL && ferror(fp) &&
	    errno == EINTR)
		clearerr(fp);
	st = pclose(fp);
	tt_untracked(false);
	if (p == NULL || strcmp(line, "x\n") != 0)
		tt_fail(t, "popen(\"%s\") read %s", cmd,
		    p == NULL ? "nothing" : line);
	else if (st == -1)
		tt_fail(t, "pclose: %s", strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
		tt_fail(t, "pclose of \"%s\": %s", cmd,
		    tt_st(st, a, sizeof(a)));
}

/* /proc/PID/stat up to the state, for a message. */
static const char *
tt_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return ("gone");
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return (buf);
}

/*
 * What wait(2) without __WALL reports must be a child of fork, vfork,
 * posix_spawn, system or popen, or a pdfork child that exec'd (exec gives
 * it SIGCHLD back, pdfork(3) COMPATIBILITY); never a pdfork child.
 * WNOWAIT: nothing is reaped.
 */
static void
op_waitid(struct tthread *t)
{
	char comm[128];
	unsigned long f0, s0;
	siginfo_t si;
	int by, kind, r;
	pid_t pid;

	tt_doing(t, OP_WAITID, 0);
	pthread_mutex_lock(&tt_pid_mtx);
	/*
	 * Nothing untracked ran at any moment of the check: none was under
	 * way when it began (finished read first: a count that is off errs
	 * towards "moot"), and none began until it ended.
	 */
	f0 = atomic_load(&tt_finished);
	s0 = atomic_load(&tt_started);
	do {
		memset(&si, 0, sizeof(si));
		r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
	} while (r == -1 && errno == EINTR);
	pid = si.si_pid;
	kind = (r == 0 && pid > 0 && pid < tt_pidmax) ?
	    atomic_load(&tt_pidkind[pid]) : PK_NONE;
	by = (kind >> 2) - 1;
	kind &= 3;
	if (r == 0 && pid != 0 && kind != PK_PLAIN && kind != PK_PDEXEC) {
		if (s0 != f0 || atomic_load(&tt_started) != s0)
			t->nwaitid_vague++;
		else
			tt_fail(t, "waitid(P_ALL) reported pid %d (%s), %s "
			    "(last made by %s)", pid,
			    tt_comm(pid, comm, sizeof(comm)),
			    kind == PK_PD ? "a pdfork child that never "
			    "exec'd" : "a child we did not make",
			    by == TT_BY_HANDLER ? "the handler's pdfork" :
			    by == -1 ? "nothing" : tt_opname[by]);
	} else if (r == -1 && errno != ECHILD)
		tt_fail(t, "waitid(P_ALL): %s", strerror(errno));
	pthread_mutex_unlock(&tt_pid_mtx);
}

/*
 * A point where the thread holds nothing, not even malloc's locks: the
 * handler may pdfork and pdkill here whatever the library's rules.
 */
static void
op_nap(struct tthread *t)
{

	tt_doing(t, OP_NAP, 0);
	t->safe = 1;
	(void)poll(NULL, 0, 1);
	t->safe = 0;
}

static void
tt_op(struct tthread *t, enum tt_op op)
{

	t->drawn = op;
	t->counted = false;
	atomic_store(&t->op, op);
	atomic_store(&t->oppid, 0);
	atomic_store(&t->stamp, tt_now());
	switch (op) {
	case OP_RFSPAWN:
		if (TT_RFSPAWN)
			op_make(t, op);
		break;
	case OP_PDFORK:
	case OP_PDRFORK:
		op_make(t, op);
		break;
	case OP_DUP:
		op_dup(t);
		break;
	case OP_REOPEN:
		op_reopen(t);
		break;
	case OP_CLOSE:
		op_close(t);
		break;
	case OP_PDKILL:
		op_pdkill(t);
		break;
	case OP_PDWAIT:
		op_pdwait(t);
		break;
	case OP_PDGETPID:
		op_pdgetpid(t);
		break;
	case OP_OPENPID:
		op_openpid(t);
		break;
	case OP_FORK:
		op_fork(t, false);
		break;
	case OP_VFORK:
		op_fork(t, true);
		break;
	case OP_SPAWN:
		op_spawn(t);
		break;
	case OP_SYSTEM:
		op_system(t);
		break;
	case OP_POPEN:
		op_popen(t);
		break;
	case OP_WAITID:
		op_waitid(t);
		break;
	case OP_NAP:
		op_nap(t);
		break;
	case OP_DAEMONS:
		op_daemons(t);
		break;
	case OP_STOP:
		op_stop(t);
		break;
	case OP_FLIGHT:
		op_flight(t);
		break;
	case OP_COPY:
		if (TT_COPY)
			op_copy(t);
		break;
	case OP_NOPS:
		break;
	}
}

/* The signal handler.  Whatever it finds wrong goes to h_badinfo. */
static void
h_fail(struct tthread *t, int hop, int fd, pid_t want, pid_t got, int err,
    int status)
{
	int zero;

	zero = 0;
	if (atomic_compare_exchange_strong(&h_bad, &zero, 1)) {
		h_badinfo.hop = hop;
		h_badinfo.thread = t->idx;
		h_badinfo.fd = fd;
		h_badinfo.want = want;
		h_badinfo.got = got;
		h_badinfo.err = err;
		h_badinfo.status = status;
		atomic_store(&h_bad, 2);
	}
	atomic_store(&tt_stop, true);
}

/*
 * pdgetpid (and pdkill(fd, 0) where allowed) on a published descriptor of
 * any thread.  Only a slot unchanged across the calls proves anything.
 */
static void
h_probe(struct tthread *t, bool kill0)
{
	uint64_t v1;
	size_t slot;
	pid_t pid, got;
	int e, e2, fd, r, r2;

	slot = (size_t)(tt_mix(&t->hrng) % tt_npub);
#ifdef __SANITIZE_THREAD__
	/*
	 * Another thread may be closing its descriptor at this moment (the
	 * staleness check below catches that), which TSan reports as a race
	 * on the fd: only this thread's own, which cannot close meanwhile.
	 */
	slot = (size_t)t->idx * TT_NLIVE + slot % TT_NLIVE;
#endif
	if ((v1 = atomic_load(&tt_pub[slot])) == 0)
		return;
	fd = (int)((v1 >> 32) & 0xfffff);
	pid = (pid_t)(uint32_t)v1;
	got = -1;
	atomic_store(&t->hop, H_GETPID);
	errno = TT_ERRNO;
	r = pdgetpid(fd, &got);
	e = errno;
	r2 = 0;
	e2 = TT_ERRNO;
	if (kill0) {
		atomic_store(&t->hop, H_KILL0);
		errno = TT_ERRNO;
		r2 = pdkill(fd, 0);
		e2 = errno;
	}
	atomic_store(&t->hop, H_NONE);
	if (atomic_load(&tt_pub[slot]) != v1) {
		atomic_fetch_add(&h_stale, 1);
		return;
	}
	atomic_fetch_add(&h_n[H_GETPID], 1);
	if (r != 0 || got != pid || e != TT_ERRNO)
		h_fail(t, H_GETPID, fd, pid, got, e, r);
	if (kill0) {
		atomic_fetch_add(&h_n[H_KILL0], 1);
		if (r2 != 0 || e2 != TT_ERRNO)
			h_fail(t, H_KILL0, fd, pid, 0, e2, r2);
	}
}

/*
 * pdfork from the handler: the child exits at once, the handler waits for
 * it and closes it.  EDEADLK is a fair answer when the handler interrupted
 * a call of the library on this thread.
 */
static void
h_pdfork(struct tthread *t)
{
	pid_t pid;
	int e, fd, r, st;

	atomic_store(&t->hop, H_PDFORK);
	errno = TT_ERRNO;
	fd = -1;
	if ((pid = pdfork(&fd, PD_CLOEXEC)) == 0)
		tt_exit(0);
	e = errno;
	tt_pidstore(pid, PK_PD, TT_BY_HANDLER);
	if (pid == -1) {
		if (e == EDEADLK && t->in_lib)
			atomic_fetch_add(&h_edeadlk, 1);
		else
			h_fail(t, H_PDFORK, -1, 0, 0, e, -1);
		atomic_store(&t->hop, H_NONE);
		return;
	}
	st = -1;
	while ((r = pdwait(fd, &st, WEXITED, NULL, NULL)) == -1 &&
	    errno == EINTR)
		;
	e = r == -1 ? errno : 0;
	if (r != 0 || st != 0)
		h_fail(t, H_PDFORK, fd, pid, 0, e, st);
	close(fd);
	atomic_fetch_add(&h_n[H_PDFORK], 1);
	atomic_store(&t->hop, H_NONE);
}

static void
h_alarm(int sig)
{
	struct tthread *t;
	uint64_t r;
	int saved;

	(void)sig;
	saved = errno;
	atomic_fetch_add(&h_ticks, 1);
	if ((t = tt_self) == NULL || atomic_load(&tt_stop)) {
		errno = saved;
		return;
	}
	t->nticks++;
	r = tt_mix(&t->hrng);
	if (t->safe) {
		/* Rare (naps are short): use each. */
		h_probe(t, true);
		if (r % 2 == 0)
			h_pdfork(t);
	} else {
		if (r % 4 == 0)
			h_probe(t, TORTURE_HANDLER_PDKILL_ANYWHERE);
		if ((r >> 8) % 16 == 0 && TORTURE_HANDLER_PDFORK_IN_LIB &&
		    t->in_lib)
			h_pdfork(t);
	}
	errno = saved;
}

/* A worker: random operations until the deadline, then end them all. */
static void *
tt_main(void *arg)
{
	struct tthread *t;
	sigset_t alrm;
	int i;

	t = arg;
	tt_self = t;
	atomic_store(&t->tid, (pid_t)syscall(SYS_gettid));
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	while (!atomic_load(&tt_stop) && tt_now() < tt_deadline)
		tt_op(t, tt_draw[tt_rand(t, sizeof(tt_draw) /
		    sizeof(tt_draw[0]))]);
	for (i = 0; i < TT_NLIVE; i++)
		tc_finish(t, &t->ch[i]);
	for (i = 0; i < TT_NORPHAN; i++)
		if (t->orph[i].watch != -1)
			tt_kill_orphan(t, &t->orph[i]);
	tt_doing(t, OP_CLEANUP, 0);
	atomic_store(&t->done, true);
	return (NULL);
}

/* /proc/self/task/TID/NAME, one line, for the hang report. */
static void
tt_task_file(pid_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A hang: what every thread was doing, then abort. */
static void __attribute__((noreturn))
tt_hang(const char *why)
{
	char sc[128], wchan[64];
	struct tthread *t;
	int64_t now;
	int i;

	now = tt_now();
	for (i = 0; i < tt_nthreads; i++) {
		t = &tt_th[i];
		tt_task_file(atomic_load(&t->tid), "syscall", sc, sizeof(sc));
		tt_task_file(atomic_load(&t->tid), "wchan", wchan,
		    sizeof(wchan));
		printf("torture: thread %d (tid %d)%s: op %s pid %d for "
		    "%.1f s, handler %s, syscall [%s], wchan %s\n", i,
		    (int)atomic_load(&t->tid), atomic_load(&t->done) ?
		    " done" : "", tt_opname[atomic_load(&t->op)],
		    (int)atomic_load(&t->oppid),
		    (double)(now - atomic_load(&t->stamp)) / 1e9,
		    tt_hopname[atomic_load(&t->hop)], sc, wchan);
	}
	printf("torture: FAIL: seed %" PRIu64 ": hang: %s\n", tt_seed, why);
	fflush(stdout);
#ifdef TT_HANG_PAUSE
	/* Built with -DTT_HANG_PAUSE: time to attach a debugger. */
	sleep(600);
#endif
	abort();
}

static pthread_t tt_mon;
static _Atomic bool tt_mon_done;
static _Atomic int64_t tt_final_start;	/* The checks after the run. */

/* The hang watchdog: any thread without progress for TT_HANG_S. */
static void *
tt_monitor(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	char why[128];
	int64_t now, fs;
	int i;

	(void)arg;
	while (!atomic_load(&tt_mon_done)) {
		nanosleep(&ts, NULL);
		now = tt_now();
		for (i = 0; i < tt_nthreads; i++) {
			if (atomic_load(&tt_th[i].done) ||
			    now - atomic_load(&tt_th[i].stamp) <
			    (int64_t)TT_HANG_S * 1000000000)
				continue;
			snprintf(why, sizeof(why), "thread %d made no "
			    "progress for %d s", i, TT_HANG_S);
			tt_hang(why);
		}
		fs = atomic_load(&tt_final_start);
		if (fs != 0 && now - fs > (int64_t)TT_FINAL_S * 1000000000)
			tt_hang("the checks after the run took too long");
	}
	return (NULL);
}

/*
 * Whether pid inherited the tag of this run in its environment (all our
 * descendants but the guardians, whose environment is empty).
 */
static bool
tt_tagged(pid_t pid)
{
	char path[64], env[16384];
	size_t tl;
	ssize_t n, i;
	int fd;

	if (tt_tag[0] == '\0')
		return (false);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (false);
	n = read(fd, env, sizeof(env));
	close(fd);
	tl = strlen(tt_tag);
	for (i = 0; n > 0 && i + (ssize_t)tl <= n; i += (ssize_t)strnlen(env +
	    i, (size_t)(n - i)) + 1)
		if (memcmp(env + i, tt_tag, tl) == 0 &&
		    (i + (ssize_t)tl == n || env[i + tl] == '\0'))
			return (true);
	return (false);
}

static bool
tt_sentry(pid_t pid)
{
	int i;

	for (i = 0; i < tt_nsentry; i++)
		if (tt_sentries[i] == pid)
			return (true);
	return (false);
}

/*
 * What is left of the run: our children (zombies included) but the
 * sentries of our guardians, and any process anywhere that carries the
 * run's tag (an orphan init adopted, a grandchild).  How many, how many
 * zombies, the first few described in buf.  snapshot: file our sentries
 * instead (after the warm-up).
 */
static int
tt_leftovers(int *zombiesp, char *buf, size_t len, bool snapshot)
{
	char path[300], st[512], *p, state;
	struct dirent *de;
	size_t off;
	DIR *d;
	FILE *fp;
	pid_t pid;
	int n, ppid;
	bool ours;

	n = *zombiesp = 0;
	off = 0;
	buf[0] = '\0';
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    (pid = atoi(de->d_name)) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		ours = fgets(st, sizeof(st), fp) != NULL &&
		    (p = strrchr(st, ')')) != NULL &&
		    sscanf(p + 2, "%c %d", &state, &ppid) == 2 &&
		    (ppid == getpid() || tt_tagged(pid));
		fclose(fp);
		if (!ours)
			continue;
		if (snapshot) {
			if (ppid == getpid() && strstr(st, "(" TT_SENTRY_COMM
			    ")") != NULL && tt_nsentry < TT_MAXSENTRY)
				tt_sentries[tt_nsentry++] = pid;
			continue;
		}
		if (tt_sentry(pid))
			continue;
		n++;
		if (state == 'Z')
			(*zombiesp)++;
		*p = '\0';
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off,
			    "%s) %c ppid %d; ", st, state, ppid);
	}
	closedir(d);
	return (n);
}

/* The open descriptors, as "0 1 2 ...". */
static void
tt_fds(char *buf, size_t len)
{
	struct dirent *de;
	size_t n;
	DIR *d;
	int dfd;

	buf[0] = '\0';
	if ((d = opendir("/proc/self/fd")) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dfd)
			continue;
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s ", de->d_name);
	}
	closedir(d);
}

/* What the kernel does with pidfds: see tt_exit_info_ok, tt_pollhup_ok. */
static void
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

/* Start the library (guardian, reaper) before the descriptor snapshot. */
static bool
tt_warm_up(void)
{
	pid_t pid;
	int fd, st;

	if ((pid = pdfork(&fd, 0)) == -1) {
		printf("torture: FAIL: warm-up pdfork: %s\n", strerror(errno));
		return (false);
	}
	if (pid == 0)
		tt_exit(7);
	if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 7) {
		printf("torture: FAIL: warm-up pdwait\n");
		return (false);
	}
	close(fd);
	return (true);
}

/* The end: nothing of ours left running, no zombie, no descriptor. */
static void
tt_final_checks(const char *fds0)
{
	char list[512], fds[4096];
	int64_t end;
	int n, zombies;

	end = tt_now() + (int64_t)TT_LONG_MS * 1000000;
	while ((n = tt_leftovers(&zombies, list, sizeof(list), false)) != 0 &&
	    tt_now() < end)
		usleep(10000);
	if (n != 0)
		tt_fail(NULL, "%d process%s of the run left after %d ms (%d "
		    "zombie%s): %s", n, n == 1 ? "" : "es", TT_LONG_MS,
		    zombies, zombies == 1 ? "" : "s", list);
	tt_fds(fds, sizeof(fds));
	if (strcmp(fds, fds0) != 0)
		tt_fail(NULL, "descriptors at the start [%s], at the end [%s]",
		    fds0, fds);
}

static void
tt_report_handler(void)
{
	char a[64];

	if (atomic_load(&h_bad) == 0)
		return;
	while (atomic_load(&h_bad) != 2)
		;
	tt_fail(NULL, "signal handler on thread %d: %s(fd %d) of pid %d: "
	    "returned %d, errno %d (%s), got pid %d%s%s",
	    h_badinfo.thread, tt_hopname[h_badinfo.hop], h_badinfo.fd,
	    (int)h_badinfo.want, h_badinfo.status, h_badinfo.err,
	    strerror(h_badinfo.err), (int)h_badinfo.got,
	    h_badinfo.hop == H_PDFORK ? ", status " : "",
	    h_badinfo.hop == H_PDFORK ? tt_st(h_badinfo.status, a, sizeof(a)) :
	    "");
}

/* One line: how often each operation ran. */
static void
tt_summary(void)
{
	unsigned long n[OP_NOPS], eintr, closekill, vague;
	char line[1024], ticks[256];
	size_t off, toff;
	int i, op;

	memset(n, 0, sizeof(n));
	eintr = closekill = vague = 0;
	toff = 0;
	ticks[0] = '\0';
	for (i = 0; i < tt_nthreads; i++) {
		if (toff < sizeof(ticks))
			toff += (size_t)snprintf(ticks + toff,
			    sizeof(ticks) - toff, "%s%lu", i == 0 ? "" : "/",
			    tt_th[i].nticks);
		for (op = 0; op < OP_NOPS; op++)
			n[op] += tt_th[i].n[op];
		eintr += tt_th[i].neintr;
		closekill += tt_th[i].nclosekill;
		vague += tt_th[i].nwaitid_vague;
	}
	off = 0;
	for (op = 0; op < OP_NOPS && off < sizeof(line); op++)
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%s %lu, ", tt_opname[op], n[op]);
	printf("torture: %sclose-kills %lu, pdwait EINTR %lu, waitid moot "
	    "%lu; handler: ticks %lu (per thread %s), pdgetpid %lu, pdkill0 "
	    "%lu, pdfork %lu, EDEADLK %lu, stale %lu\n", line, closekill,
	    eintr, vague, atomic_load(&h_ticks), ticks,
	    atomic_load(&h_n[H_GETPID]),
	    atomic_load(&h_n[H_KILL0]), atomic_load(&h_n[H_PDFORK]),
	    atomic_load(&h_edeadlk), atomic_load(&h_stale));
}

/*
 * Tag the run: every process it makes inherits TT_TAG_ENV in its
 * environment, through exec too, so that the final check finds any of
 * them, wherever it was reparented.  /proc/PID/environ shows what a
 * process was exec'd with, so the run execs itself once to carry the tag
 * (whose value starts with our pid: an inherited one is not ours).
 */
static void
tt_tag_run(char **argv)
{
	char val[48], pre[16], self[4096];
	const char *v;
	uint64_t r;
	ssize_t n;

	snprintf(pre, sizeof(pre), "%d.", (int)getpid());
	if ((v = getenv(TT_TAG_ENV)) != NULL &&
	    strncmp(v, pre, strlen(pre)) == 0) {
		snprintf(tt_tag, sizeof(tt_tag), TT_TAG_ENV "=%s", v);
		return;
	}
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)time(NULL);
	snprintf(val, sizeof(val), "%s%016" PRIx64, pre, r);
	setenv(TT_TAG_ENV, val, 1);
	/* By its name, not /proc/self/exe: the name is the command's. */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		execv(self, argv);
	}
	fprintf(stderr, "torture: cannot exec itself (%s): orphans go "
	    "unchecked\n", strerror(errno));
	unsetenv(TT_TAG_ENV);
}

static void __attribute__((noreturn))
tt_usage(void)
{

	fprintf(stderr, "usage: torture [-s seconds] [-S seed] "
	    "[-t threads (%d to %d)]\n", TT_MINTHREADS, TT_MAXTHREADS);
	exit(2);
}

static void
tt_options(int argc, char **argv)
{
	char *end;
	int ch;
	bool seeded;

	seeded = false;
	while ((ch = getopt(argc, argv, "s:S:t:")) != -1) {
		switch (ch) {
		case 's':
			tt_seconds = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || tt_seconds < 0)
				tt_usage();
			break;
		case 'S':
			tt_seed = strtoull(optarg, &end, 0);
			if (*end != '\0')
				tt_usage();
			seeded = true;
			break;
		case 't':
			tt_nthreads = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || tt_nthreads < TT_MINTHREADS ||
			    tt_nthreads > TT_MAXTHREADS)
				tt_usage();
			break;
		default:
			tt_usage();
		}
	}
	if (optind != argc)
		tt_usage();
	if (!seeded && getrandom(&tt_seed, sizeof(tt_seed), 0) !=
	    sizeof(tt_seed))
		tt_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/*
 * Everything process-wide before the threads: no core files (children die
 * of SIGABRT), the guardian of the build tree, the pid map.
 */
static bool
tt_setup(void)
{
	struct rlimit rl = { 0, 0 };
	FILE *fp;

	if (getenv("LIBPROCDESC_GUARDIAN") == NULL)
		setenv("LIBPROCDESC_GUARDIAN", T_GUARDIAN, 1);
	(void)setrlimit(RLIMIT_CORE, &rl);
	tt_pidmax = 4194304;
	if ((fp = fopen("/proc/sys/kernel/pid_max", "re")) != NULL) {
		if (fscanf(fp, "%ld", &tt_pidmax) != 1)
			tt_pidmax = 4194304;
		fclose(fp);
	}
	tt_pidmax++;
	tt_npub = (size_t)tt_nthreads * TT_NLIVE;
	if ((tt_pidkind = calloc((size_t)tt_pidmax, 1)) == NULL ||
	    (tt_pub = calloc(tt_npub, sizeof(*tt_pub))) == NULL ||
	    (tt_th = calloc((size_t)tt_nthreads, sizeof(*tt_th))) == NULL) {
		printf("torture: FAIL: out of memory\n");
		return (false);
	}
	tt_probe_kernel();
	return (true);
}

/* Start the threads and the timer; join them. */
static bool
tt_run(void)
{
	struct itimerval it;
	struct sigaction sa;
	struct tthread *t;
	int i, j;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* No SA_RESTART: calls see EINTR. */
	sigaction(SIGALRM, &sa, NULL);
	tt_deadline = tt_now() + (int64_t)tt_seconds * 1000000000;
	for (i = 0; i < tt_nthreads; i++) {
		t = &tt_th[i];
		t->idx = i;
		t->rng = tt_seed + (uint64_t)i;
		t->hrng = (tt_seed + (uint64_t)i) ^ 0x5bd1e9955bd1e995ULL;
		for (j = 0; j < TT_NLIVE; j++)
			t->ch[j].fd = t->ch[j].dup = t->ch[j].watch = -1;
		for (j = 0; j < TT_NORPHAN; j++)
			t->orph[j].watch = -1;
		atomic_store(&t->stamp, tt_now());
	}
	if (pthread_create(&tt_mon, NULL, tt_monitor, NULL) != 0)
		return (false);
	for (i = 0; i < tt_nthreads; i++)
		if (pthread_create(&tt_th[i].td, NULL, tt_main, &tt_th[i]) !=
		    0) {
			printf("torture: FAIL: pthread_create\n");
			exit(1);
		}
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = TT_TICK_US;
	it.it_value.tv_usec = TT_TICK_US;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < tt_nthreads; i++)
		pthread_join(tt_th[i].td, NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	atomic_store(&tt_final_start, tt_now());
	return (true);
}

int
main(int argc, char **argv)
{
	static char fds0[4096];
	char list[16];
	sigset_t alrm;
	int n;

	tt_tag_run(argv);
	tt_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("torture: seed %" PRIu64 ", %d threads, %d s\n", tt_seed,
	    tt_nthreads, tt_seconds);
	/* Only the workers take the timer's signal. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	if (!tt_setup() || !tt_warm_up())
		return (1);
	tt_fds(fds0, sizeof(fds0));
	(void)tt_leftovers(&n, list, sizeof(list), true);
	if (!tt_run())
		return (1);
	tt_report_handler();
	tt_final_checks(fds0);
	atomic_store(&tt_mon_done, true);
	pthread_join(tt_mon, NULL);
	tt_summary();
	if (atomic_load(&tt_nfail) != 0) {
		printf("torture: FAIL: %s\n", tt_fail_msg);
		return (1);
	}
	printf("torture: ok\n");
	return (0);
}
