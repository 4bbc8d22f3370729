/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdrfork: RFPROC|RFPROCDESC as pdfork, RFFDG, RFSPAWN (the parent held
 * in the kernel until the child execs or exits, caught signals reset in
 * the child, the parent's other threads free to run), and the rfflags,
 * pdflags and fdp it refuses, creating nothing.
 */

#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	RF_PD	(RFPROC | RFPROCDESC)

/*
 * Wait until no child of ours is left, by polling a pidfd of each child
 * for POLLHUP (reaped), never by sleeping.
 */
static void
wait_no_children(void)
{
	pid_t kids[64];
	int fd, i, n, round;

	for (round = 0; round < 100 && t_nchildren() != 0; round++) {
		n = t_children(T_CHILDREN_OTHERS, kids, 64);
		for (i = 0; i < n; i++) {
			fd = (int)syscall(SYS_pidfd_open, kids[i], 0);
			if (fd == -1)
				continue;
			ATF_CHECK_MSG(t_reaped_within(fd, T_LONG_MS),
			    "child %d not reaped", (int)kids[i]);
			ATF_REQUIRE(close(fd) == 0);
		}
	}
	ATF_REQUIRE_EQ(t_nchildren(), 0);
}

/* pdrfork(RFPROC|RFPROCDESC) works like pdfork. */
T_TC(pdrfork__proc_procdesc, "pdrfork(RFPROC|RFPROCDESC) creates a child "
    "and a descriptor")
{
	pid_t pid, got;
	int fd;

	fd = -1;
	pid = pdrfork(&fd, 0, RF_PD);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0)
		_exit(3);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK(pdgetpid(fd, &got) == 0 && got == pid);
	ATF_CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	t_wait_exit_code(fd, 3, "pdrfork");
}

/* pdrfork(RFFDG|RFPROC|RFPROCDESC) works; the child has a copy of our fds. */
T_TC(pdrfork__fdg, "pdrfork with RFFDG: the child gets a copy of the fds")
{
	pid_t pid;
	int fd, p[2];
	char c;

	ATF_REQUIRE(pipe(p) == 0);
	pid = pdrfork(&fd, PD_CLOEXEC, RFFDG | RF_PD);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(p[0]);
		_exit(write(p[1], "f", 1) == 1 ? 0 : 1);
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ATF_CHECK(read(p[0], &c, 1) == 1 && c == 'f');
	ATF_REQUIRE(close(p[0]) == 0);
	t_wait_exit_code(fd, 0, "pdrfork");
}

/* The /proc stat file of the calling thread, for spawner_blocked(). */
static void
spawner_path(char *path, size_t len)
{

	snprintf(path, len, "/proc/%d/task/%d/stat", (int)getpid(),
	    (int)gettid());
}

/*
 * In an RFSPAWN child: true once the thread that called pdrfork, whose
 * stat file is path, sleeps in the kernel's vfork wait (state D), false
 * if it does not within T_LONG_MS.  Async-signal-safe calls only.
 */
static bool
spawner_blocked(const char *path)
{
	struct timespec t0, t;
	char buf[512], *p;
	ssize_t n;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return (false);
		n = read(fd, buf, sizeof(buf) - 1);
		(void)close(fd);
		if (n <= 0)
			return (false);
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
		    p[2] == 'D')
			return (true);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
	    (t.tv_nsec - t0.tv_nsec) / 1000000 < T_LONG_MS);
	return (false);
}

/*
 * RFSPAWN: the parent resumes only once the child has exec'd: it waits in
 * the kernel while the child runs, the child becomes /bin/sh, and the
 * status is the program's.  (The kernel releases the parent at the exec's
 * point of no return; Linux 6.1 updates /proc/pid/exe only after that, so
 * the parent may read it a moment later.)
 */
T_TC(pdrfork__spawn_exec, "pdrfork(RFSPAWN): the parent resumes after "
    "the exec; status of the program")
{
	struct timespec tick = { 0, 1000 * 1000 };
	char exe[PATH_MAX], sh[PATH_MAX], path[64], self[64];
	ssize_t n;
	pid_t pid;
	int fd, i, in[2], status;

	ATF_REQUIRE(realpath("/bin/sh", sh) != NULL);
	ATF_REQUIRE(pipe(in) == 0);
	spawner_path(self, sizeof(self));
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (!spawner_blocked(self))
			_exit(125);
		if (dup2(in[0], 0) == -1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", "read x; exit 3", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (i = 0; i < T_LONG_MS; i++) {
		n = readlink(path, exe, sizeof(exe) - 1);
		exe[n >= 0 ? n : 0] = '\0';
		if (strcmp(exe, sh) == 0 || n < 0)
			break;
		(void)nanosleep(&tick, NULL);
	}
	/* Let the shell go on to exit 3. */
	ATF_REQUIRE(write(in[1], "\n", 1) == 1);
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(in[1]) == 0);
	status = t_bounded_wait(fd, "pdrfork");
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(!WIFEXITED(status) || WEXITSTATUS(status) != 125,
	    "the parent did not wait in the kernel while the child ran");
	ATF_CHECK_MSG(strcmp(exe, sh) == 0, "the child became '%s', not %s",
	    exe, sh);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	    "status %#x, expected exit 3", status);
}

/*
 * RFSPAWN: the parent resumes only once the child has exited: it waits in
 * the kernel while the child runs, and what the child did before _exit is
 * already done.
 */
T_TC(pdrfork__spawn_exit, "pdrfork(RFSPAWN): the parent resumes after "
    "the child's _exit")
{
	char self[64];
	pid_t pid;
	int fd, p[2];
	char c;

	ATF_REQUIRE(pipe2(p, O_NONBLOCK) == 0);
	spawner_path(self, sizeof(self));
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (!spawner_blocked(self))
			_exit(5);
		(void)write(p[1], "e", 1);
		_exit(4);
	}
	ATF_CHECK_MSG(read(p[0], &c, 1) == 1 && c == 'e',
	    "pdrfork returned before the child wrote and exited");
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(p[1]) == 0);
	t_wait_exit_code(fd, 4, "pdrfork");
}

static void
on_usr1(int sig)
{

	(void)sig;
}

/*
 * RFSPAWN resets caught signals to the default in the child, as exec
 * would; ignored signals stay ignored.
 */
T_TC(pdrfork__spawn_sigdfl, "pdrfork(RFSPAWN): caught signals are "
    "SIG_DFL in the child")
{
	struct sigaction sa, cur;
	pid_t pid;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	ATF_REQUIRE(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (sigaction(SIGUSR1, NULL, &cur) != 0)
			_exit(10);
		if (cur.sa_handler != SIG_DFL)
			_exit(11);
		if (sigaction(SIGUSR2, NULL, &cur) != 0 ||
		    cur.sa_handler != SIG_IGN)
			_exit(12);
		_exit(0);
	}
	t_wait_exit_code(fd, 0, "pdrfork");
	/* The parent's handler is untouched. */
	ATF_REQUIRE(sigaction(SIGUSR1, NULL, &cur) == 0);
	ATF_CHECK(cur.sa_handler == on_usr1);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

struct releaser {
	int	done;		/* Readable once pdrfork has returned. */
	int	rel;		/* A byte here lets the grandchild exit. */
	bool	stuck;		/* pdrfork had not returned in time. */
};

static void *
releaser_main(void *arg)
{
	struct releaser *r;
	struct pollfd pfd;

	r = arg;
	pfd.fd = r->done;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) == 0) {
		r->stuck = true;
		(void)write(r->rel, "x", 1);
	}
	return (NULL);
}

/*
 * RFSPAWN: the parent resumes when the child exits, even if the child
 * left a process of its own running (vfork semantics follow the child
 * alone).
 */
T_TC(pdrfork__spawn_grandchild, "pdrfork(RFSPAWN): a grandchild that "
    "lives on does not hold the parent")
{
	struct releaser r;
	pthread_t td;
	pid_t pid, gpid;
	int done[2], fd, gfd, gp[2], rel[2];
	char c;

	ATF_REQUIRE(pipe(done) == 0);
	ATF_REQUIRE(pipe(gp) == 0);
	ATF_REQUIRE(pipe(rel) == 0);
	r.done = done[0];
	r.rel = rel[1];
	r.stuck = false;
	ATF_REQUIRE(pthread_create(&td, NULL, releaser_main, &r) == 0);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	if (pid == 0) {
		/* _Fork: the child may call async-signal-safe ones only. */
		gpid = _Fork();
		if (gpid == 0) {
			(void)close(rel[1]);
			_exit(read(rel[0], &c, 1) >= 0 ? 0 : 1);
		}
		_exit(write(gp[1], &gpid, sizeof(gpid)) == sizeof(gpid) ?
		    4 : 5);
	}
	ATF_REQUIRE(write(done[1], "d", 1) == 1);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
	ATF_REQUIRE(close(gp[1]) == 0);
	ATF_REQUIRE(read(gp[0], &gpid, sizeof(gpid)) == sizeof(gpid));
	ATF_REQUIRE(gpid > 0);
	/* Release the grandchild and see it die (init reaps it). */
	gfd = (int)syscall(SYS_pidfd_open, gpid, 0);
	ATF_REQUIRE(write(rel[1], "x", 1) == 1);
	if (gfd >= 0) {
		ATF_CHECK(t_dead_within(gfd, T_LONG_MS));
		ATF_REQUIRE(close(gfd) == 0);
	}
	ATF_REQUIRE(close(gp[0]) == 0);
	ATF_REQUIRE(close(rel[0]) == 0);
	ATF_REQUIRE(close(rel[1]) == 0);
	ATF_REQUIRE(close(done[0]) == 0);
	ATF_REQUIRE(close(done[1]) == 0);
	t_wait_exit_code(fd, 4, "pdrfork");
	ATF_CHECK_MSG(!r.stuck, "pdrfork(RFSPAWN) returned only when the "
	    "grandchild exited, not when the child did");
}

/*
 * Where RFSPAWN shares the caller's memory (FreeBSD's RFSPAWN, pdrfork(3)):
 * where the library has an entry for the architecture, and not under TSan,
 * which keeps the copy (NOTES 2.8, 2.9).
 */
#if (defined(__x86_64__) || defined(__aarch64__)) && \
    !defined(__SANITIZE_THREAD__)
#define	T_RFSPAWN_SHARES	true
#else
#define	T_RFSPAWN_SHARES	false
#endif

static volatile sig_atomic_t rf_mark;

/*
 * RFSPAWN shares the caller's memory, as FreeBSD's does: what the child
 * stores (here a flag, against the vfork rules, to see it) the parent
 * reads once pdrfork has returned.  Elsewhere the child has a copy.
 */
T_TC(pdrfork__spawn_shared_memory, "pdrfork(RFSPAWN): the child shares "
    "the caller's memory")
{
	pid_t pid;
	int fd;

	rf_mark = 0;
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	if (pid == 0) {
		rf_mark = 1;
		_exit(0);
	}
	ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
	t_wait_exit_code(fd, 0, "pdrfork");
	ATF_CHECK_MSG(rf_mark == (T_RFSPAWN_SHARES ? 1 : 0),
	    "the child's store is %sseen by the parent", rf_mark ? "" :
	    "not ");
}

/* Write over n bytes of stack below the caller's frame, as a child may. */
static void __attribute__((noinline))
rf_scribble(size_t n)
{
	volatile unsigned char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = 0xa5;
	if (n > sizeof(buf))
		rf_scribble(n - sizeof(buf));
}

/*
 * The spawning function of rf_frame's test: its locals around the call,
 * then the child's scribble over the stack below, which is where the
 * library's frames were and where the parent's next ones go.  The parent
 * must resume with its return address, registers and locals intact.
 */
static int __attribute__((noinline))
rf_spawn_scribbling(int *fdp, volatile unsigned long *canary)
{
	volatile unsigned long mine[8];
	pid_t pid;
	int i;

	for (i = 0; i < 8; i++)
		mine[i] = 0x5a5a0000UL + (unsigned long)i;
	pid = pdrfork(fdp, 0, (int)RFSPAWN);
	if (pid == 0) {
		rf_scribble(64 * 1024);
		_exit(0);
	}
	for (i = 0; i < 8; i++)
		if (mine[i] != 0x5a5a0000UL + (unsigned long)i)
			return (-2);
	*canary += 1;
	return (pid);
}

/*
 * The child runs on the caller's stack and uses what lies below it; the
 * parent's return from pdrfork, and its caller's frames, survive that.
 */
T_TC(pdrfork__spawn_caller_frame, "pdrfork(RFSPAWN): a child that uses "
    "the stack below the caller leaves the parent intact")
{
	volatile unsigned long canary;
	int fd, i, pid;

	canary = 0;
	for (i = 0; i < 20; i++) {
		pid = rf_spawn_scribbling(&fd, &canary);
		ATF_REQUIRE_MSG(pid != -2, "the caller's locals changed");
		ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
		t_wait_exit_code(fd, 0, "pdrfork");
	}
	ATF_CHECK_EQ(canary, 20);
}

/* A thread with a small stack spawns; its child execs true(1). */
static void *
rf_small_main(void *arg)
{
	static char *const argv[] = { "true", NULL };
	int *fdp;
	pid_t pid;

	fdp = arg;
	pid = pdrfork(fdp, 0, (int)RFSPAWN);
	if (pid == 0) {
		execv("/bin/true", argv);
		_exit(127);
	}
	return ((void *)(intptr_t)(pid > 0 ? 0 : errno));
}

/*
 * The child runs the library's registration on the calling thread's own
 * stack: a thread with the smallest stack glibc allows can spawn.
 */
T_TC(pdrfork__spawn_small_stack, "pdrfork(RFSPAWN) from a thread with a "
    "PTHREAD_STACK_MIN stack")
{
	pthread_attr_t attr;
	pthread_t td;
	void *ret;
	size_t sz;
	int fd;

	sz = PTHREAD_STACK_MIN;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	sz *= 8;	/* The sanitizers' own frames. */
#endif
	fd = -1;
	ATF_REQUIRE(pthread_attr_init(&attr) == 0);
	ATF_REQUIRE(pthread_attr_setstacksize(&attr, sz) == 0);
	ATF_REQUIRE(pthread_create(&td, &attr, rf_small_main, &fd) == 0);
	ATF_REQUIRE(pthread_join(td, &ret) == 0);
	ATF_REQUIRE(pthread_attr_destroy(&attr) == 0);
	ATF_REQUIRE_MSG(ret == NULL, "pdrfork: %s",
	    strerror((int)(intptr_t)ret));
	t_wait_exit_code(fd, 0, "pdrfork");
}

struct others {
	int	run;		/* Readable once the spawn child runs. */
	int	go;		/* A byte here lets the spawn child exit. */
	int	status;		/* Of the pdfork child; -1 if it failed. */
};

/* Another thread of the spawning parent: pdfork and malloc, then go. */
static void *
others_main(void *arg)
{
	struct others *o;
	void *p;
	pid_t pid;
	int fd;
	char c;

	o = arg;
	o->status = -1;
	if (read(o->run, &c, 1) != 1)
		return (NULL);
	pid = pdfork(&fd, 0);
	if (pid == 0)
		_exit(6);
	p = malloc(100000);
	free(p);
	(void)write(o->go, "g", 1);
	if (pid > 0) {
		if (pdwait(fd, &o->status, WEXITED, NULL, NULL) != 0)
			o->status = -1;
		(void)close(fd);
	}
	return (NULL);
}

/*
 * RFSPAWN stops only the calling thread: while its child runs, the
 * parent's other threads can pdfork and malloc (no lock is held across
 * the wait).
 */
T_TC(pdrfork__spawn_others_run, "pdrfork(RFSPAWN): other threads pdfork "
    "and malloc while the parent waits")
{
	struct releaser r;
	struct others o;
	pthread_t td, tr;
	pid_t pid;
	int done[2], fd, go[2], run[2];
	char c;

	ATF_REQUIRE(pipe(done) == 0);
	ATF_REQUIRE(pipe(go) == 0);
	ATF_REQUIRE(pipe(run) == 0);
	r.done = done[0];
	r.rel = go[1];
	r.stuck = false;
	o.run = run[0];
	o.go = go[1];
	ATF_REQUIRE(pthread_create(&tr, NULL, releaser_main, &r) == 0);
	ATF_REQUIRE(pthread_create(&td, NULL, others_main, &o) == 0);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	if (pid == 0) {
		if (write(run[1], "r", 1) != 1)
			_exit(10);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 11);
	}
	ATF_REQUIRE(write(done[1], "d", 1) == 1);
	ATF_REQUIRE(pthread_join(tr, NULL) == 0);
	ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_REQUIRE(close(done[0]) == 0);
	ATF_REQUIRE(close(done[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
	ATF_REQUIRE(close(run[0]) == 0);
	ATF_REQUIRE(close(run[1]) == 0);
	t_wait_exit_code(fd, 0, "pdrfork");
	ATF_CHECK_MSG(!r.stuck, "another thread's pdfork or malloc waited for "
	    "the RFSPAWN child");
	ATF_CHECK_MSG(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 6,
	    "the other thread's pdfork child: status %#x", o.status);
}

/* Try pdrfork(pdflags, rf), expecting EINVAL and no process. */
static void
expect_einval(int pdflags, int rf)
{
	pid_t pid;
	int fd;

	fd = -42;
	errno = 0;
	pid = pdrfork(&fd, pdflags, rf);
	if (pid == 0)
		_exit(0);
	ATF_CHECK_MSG(pid == -1 && errno == EINVAL, "pdrfork(%#x, %#x): "
	    "%d, %s", pdflags, (unsigned int)rf, (int)pid, strerror(errno));
	if (pid > 0)
		(void)t_dispose(fd);
	else
		ATF_CHECK_EQ(fd, -42);
	ATF_CHECK_EQ(t_nchildren(), 0);
}

/* Bad rfflags: EINVAL, and no process is created. */
T_TC(pdrfork__einval_rfflags, "pdrfork: EINVAL for bad rfflags, nothing "
    "created")
{
	static const int bad[] = {
		RFPROCDESC,
		RFPROC,
		(int)(RFSPAWN | RFPROC),
		RFFDG | RFCFDG | RF_PD,
		RFSTOPPED | RF_PD,
		RFHIGHPID | RF_PD,
		1 << 20,
		(1 << 20) | RF_PD,
		-1,
		0,
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_einval(0, bad[i]);
}

/* Bad pdflags with valid rfflags: EINVAL, and no process is created. */
T_TC(pdrfork__einval_pdflags, "pdrfork: EINVAL for bad pdflags")
{

	expect_einval(0x100, RF_PD);
	expect_einval(-1, RF_PD);
	expect_einval(8, RFFDG | RF_PD);
	expect_einval(0x100, (int)RFSPAWN);
}

/*
 * An unwritable fdp: -1/EFAULT in the parent, found before any child
 * exists, so that no child runs the caller's code (a child that ran
 * would write its byte), and no fd leaked.  20 tries of each.
 */
static int
efault_ran(int rfflags)
{
	int i, p[2], ran;
	pid_t pid;
	char c;

	for (ran = i = 0; i < 20; i++) {
		ATF_REQUIRE(pipe(p) == 0);
		errno = 0;
		if ((pid = pdrfork(t_unmapped(), 0, rfflags)) == 0) {
			(void)write(p[1], "x", 1);
			_exit(0);
		}
		ATF_CHECK_MSG(pid == -1 && errno == EFAULT, "%#x: %d, %s",
		    (unsigned)rfflags, (int)pid, strerror(errno));
		ATF_REQUIRE(close(p[1]) == 0);
		ran += read(p[0], &c, 1) == 1;
		ATF_REQUIRE(close(p[0]) == 0);
	}
	wait_no_children();
	return (ran);
}

T_TC(pdrfork__efault, "pdrfork: EFAULT for an unwritable fdp, no child "
    "runs, nothing left behind")
{

	ATF_CHECK_EQ_MSG(efault_ran(RF_PD), 0, "RFPROC: children ran");
	ATF_CHECK_EQ_MSG(efault_ran((int)RFSPAWN), 0, "RFSPAWN: children ran");
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdrfork__proc_procdesc);
	ATF_TP_ADD_TC(tp, pdrfork__fdg);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_exec);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_exit);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_sigdfl);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_grandchild);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_others_run);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_shared_memory);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_caller_frame);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_small_stack);
	ATF_TP_ADD_TC(tp, pdrfork__einval_rfflags);
	ATF_TP_ADD_TC(tp, pdrfork__einval_pdflags);
	ATF_TP_ADD_TC(tp, pdrfork__efault);
	return (atf_no_error());
}
