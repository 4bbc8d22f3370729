/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The pdfork child is as usable as a fork() child (NOTES 5): malloc,
 * stdio and threads while other threads of the parent are busy in them,
 * pthread_atfork handlers, signals to itself, its own pid and tid, nested
 * pdfork, exec; pdfork under a full signal mask, beside the application's
 * own SIGSYS handler, and without touching errno.
 */

#include <sys/procdesc.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define	NCHILDREN	500
#define	NHAMMER		4

/* (a) Busy threads: malloc/free of random sizes and stdio. */

static atomic_bool hammer_stop;
static FILE *hammer_fp;

static void *
hammer_main(void *arg)
{
	unsigned int seed;
	FILE *fp;
	void *p[16];
	size_t i, n;

	seed = (unsigned int)(uintptr_t)arg;
	memset(p, 0, sizeof(p));
	while (!atomic_load(&hammer_stop)) {
		i = (size_t)rand_r(&seed) % 16;
		free(p[i]);
		n = 1 + (size_t)rand_r(&seed) % 70000;
		p[i] = malloc(n);
		if (p[i] != NULL)
			memset(p[i], 1, n < 64 ? n : 64);
		fprintf(hammer_fp, "hammer %u %p\n", seed, p[i]);
		if (rand_r(&seed) % 64 == 0) {
			/* fopen and fclose take glibc's stdio list lock. */
			if ((fp = fopen("/dev/null", "we")) != NULL) {
				fprintf(fp, "x");
				fclose(fp);
			}
		}
	}
	for (i = 0; i < 16; i++)
		free(p[i]);
	return (NULL);
}

static void *
child_thread(void *arg)
{

	return (arg);
}

/* The child of (a): every one of these hangs or crashes if glibc's fork
 * state is not repaired. */
static void __attribute__((noreturn))
busy_child(void)
{
	static int token;
	pthread_t td;
	void *p, *r;
	FILE *fp;

	if ((p = malloc(1000)) == NULL)
		_exit(1);
	memset(p, 2, 1000);
	free(p);
	if (fprintf(hammer_fp, "child %d\n", (int)getpid()) < 0 ||
	    fflush(hammer_fp) != 0)
		_exit(2);
	if ((fp = fopen("/dev/null", "we")) == NULL)
		_exit(3);
	if (fprintf(fp, "child\n") < 0 || fflush(fp) != 0 || fclose(fp) != 0)
		_exit(4);
	if (pthread_create(&td, NULL, child_thread, &token) != 0)
		_exit(5);
	if (pthread_join(td, &r) != 0 || r != &token)
		_exit(6);
	_exit(7);
}

/*
 * A pdfork child can use malloc, stdio and pthread_create while other
 * threads of the parent were inside malloc or stdio at the fork.
 */
T_TC(busy_threads__malloc_stdio, "500 children (50 in an emulated "
    "guest) of a parent whose threads hammer malloc and stdio neither hang "
    "nor crash")
{
	pthread_t td[NHAMMER];
	char what[32];
	size_t i;
	pid_t pid;
	int fd;

#ifdef __SANITIZE_ADDRESS__
	atf_tc_skip("ASan's allocator is not fork-safe: plain fork() children "
	    "hang the same way (NOTES 2.9)");
#endif
#ifndef __GLIBC__
	atf_tc_skip("musl's fork() child keeps a FILE that another thread had "
	    "locked locked: plain fork() children hang the same way (NOTES "
	    "9.3)");
#endif
	T_SKIP_UNDER_TSAN("TSan kills the child of a multi-threaded fork "
	    "whose new thread reuses a parent thread's stack, fork()'s "
	    "included (NOTES 2.9)");
	hammer_fp = fopen("/dev/null", "we");
	ATF_REQUIRE(hammer_fp != NULL);
	atomic_store(&hammer_stop, false);
	for (i = 0; i < NHAMMER; i++)
		ATF_REQUIRE(pthread_create(&td[i], NULL, hammer_main,
		    (void *)(uintptr_t)(i + 1)) == 0);
	for (i = 0; i < (size_t)t_scaled(NCHILDREN); i++) {
		pid = pdfork(&fd, 0);
		if (pid == -1) {
			atomic_store(&hammer_stop, true);
			atf_tc_fail("pdfork %zu: %s", i, strerror(errno));
		}
		if (pid == 0)
			busy_child();
		snprintf(what, sizeof(what), "child %zu", i);
		t_wait_exit_code(fd, 7, what);
	}
	atomic_store(&hammer_stop, true);
	for (i = 0; i < NHAMMER; i++)
		ATF_REQUIRE(pthread_join(td[i], NULL) == 0);
	ATF_REQUIRE(fclose(hammer_fp) == 0);
}

/* (b) pthread_atfork. */

static char af_log[32];
static atomic_int af_len;

static void
af_rec(char c)
{
	int n;

	n = atomic_fetch_add(&af_len, 1);
	if (n < (int)sizeof(af_log) - 1)
		af_log[n] = c;
}

static void af_prepare1(void) { af_rec('P'); af_rec('1'); }
static void af_parent1(void) { af_rec('A'); af_rec('1'); }
static void af_child1(void) { af_rec('C'); af_rec('1'); }
static void af_prepare2(void) { af_rec('P'); af_rec('2'); }
static void af_parent2(void) { af_rec('A'); af_rec('2'); }
static void af_child2(void) { af_rec('C'); af_rec('2'); }

/*
 * Run one fork (pdfork if pd) and return the handler order seen in the
 * parent and, through a pipe, in the child.
 */
static void
af_run(bool pd, char *parent, char *child, size_t len)
{
	ssize_t n;
	pid_t pid;
	int fd, p[2], status;

	ATF_REQUIRE(pipe(p) == 0);
	memset(af_log, 0, sizeof(af_log));
	atomic_store(&af_len, 0);
	pid = pd ? pdfork(&fd, 0) : fork();
	ATF_REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		n = (ssize_t)strlen(af_log);
		_exit(write(p[1], af_log, (size_t)n) == n ? 0 : 1);
	}
	snprintf(parent, len, "%s", af_log);
	ATF_REQUIRE(close(p[1]) == 0);
	memset(child, 0, len);
	n = read(p[0], child, len - 1);
	ATF_REQUIRE(n >= 0);
	ATF_REQUIRE(close(p[0]) == 0);
	if (pd) {
		status = t_bounded_wait(fd, "pdfork");
		ATF_REQUIRE(close(fd) == 0);
	} else
		ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * pthread_atfork prepare, parent and child handlers run for pdfork
 * exactly as for fork(), in the same order.
 */
T_TC(atfork__handlers_order, "pthread_atfork handlers run for pdfork "
    "as for fork, in the same order")
{
	char fp[32], fc[32], pp[32], pc[32];

	ATF_REQUIRE(pthread_atfork(af_prepare1, af_parent1, af_child1) == 0);
	ATF_REQUIRE(pthread_atfork(af_prepare2, af_parent2, af_child2) == 0);
	af_run(false, fp, fc, sizeof(fp));
	af_run(true, pp, pc, sizeof(pp));
	/* POSIX: prepare in reverse order of registration, others in order. */
	ATF_CHECK_STREQ(fp, "P2P1A1A2");
	ATF_CHECK_STREQ(fc, "P2P1C1C2");
	ATF_CHECK_STREQ_MSG(pp, fp, "parent: pdfork %s, fork %s", pp, fp);
	ATF_CHECK_STREQ_MSG(pc, fc, "child: pdfork %s, fork %s", pc, fc);
}

/* (c) Signals, pid and tid in the child. */

static volatile sig_atomic_t usr1_count;

static void
on_usr1(int sig)
{

	(void)sig;
	usr1_count++;
}

struct ids {
	pid_t	getpid;
	pid_t	gettid;
	pid_t	sys_getpid;
};

/*
 * raise(SIGUSR1) in the child reaches the child, not the parent, and
 * getpid()/gettid() in the child are the pid pdfork returned.
 */
T_TC(child__raise_and_ids, "raise in the child signals the child; "
    "getpid and gettid are the child's pid")
{
	struct sigaction sa;
	struct ids ids;
	pid_t pid;
	int fd, p[2];

	T_SKIP_UNDER_TSAN(T_TSAN_NO_HANDLERS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	usr1_count = 0;
	ATF_REQUIRE(pipe(p) == 0);
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		/* The child's own handler, inherited from the parent here. */
		usr1_count = 0;
		ids.getpid = getpid();
		ids.gettid = gettid();
		ids.sys_getpid = (pid_t)syscall(SYS_getpid);
		if (write(p[1], &ids, sizeof(ids)) != sizeof(ids))
			_exit(10);
		if (raise(SIGUSR1) != 0)
			_exit(11);
		_exit(usr1_count == 1 ? 0 : 12);
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_REQUIRE(read(p[0], &ids, sizeof(ids)) == sizeof(ids));
	ATF_REQUIRE(close(p[0]) == 0);
	t_wait_exit_code(fd, 0, "raise");
	ATF_CHECK_EQ_MSG(usr1_count, 0, "the parent got the child's SIGUSR1");
	ATF_CHECK_EQ(ids.sys_getpid, pid);
	ATF_CHECK_EQ_MSG(ids.getpid, pid, "getpid %d, pdfork gave %d",
	    (int)ids.getpid, (int)pid);
	ATF_CHECK_EQ_MSG(ids.gettid, pid, "gettid %d, pdfork gave %d",
	    (int)ids.gettid, (int)pid);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * pthread_self() names the child's thread: pthread_kill and
 * pthread_sigqueue on it signal the child.
 */
T_TC(child__pthread_kill_self, "pthread_kill(pthread_self()) and "
    "pthread_sigqueue work in the child")
{
	struct sigaction sa;
	union sigval sv;
	pid_t pid;
	int fd;

	T_SKIP_UNDER_TSAN(T_TSAN_NO_HANDLERS);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	usr1_count = 0;
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		if (pthread_kill(pthread_self(), SIGUSR1) != 0)
			_exit(10);
		if (usr1_count != 1)
			_exit(11);
		sv.sival_int = 1;
#ifdef __GLIBC__
		if (pthread_sigqueue(pthread_self(), SIGUSR1, sv) != 0)
			_exit(12);
#else
		/* musl has no pthread_sigqueue: its own system call. */
		(void)sv;
		if (pthread_kill(pthread_self(), SIGUSR1) != 0)
			_exit(12);
#endif
		_exit(usr1_count == 2 ? 0 : 13);
	}
	t_wait_exit_code(fd, 0, "pthread_kill");
	ATF_CHECK_EQ(usr1_count, 0);
	signal(SIGUSR1, SIG_DFL);
}

/* (d) The child may pdfork a child of its own and pdwait it. */
T_TC(child__nested_pdfork, "nested pdfork in the child, pdwait there")
{
	pid_t pid;
	int fd;

	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		pid_t gpid;
		int gfd, st;

		gpid = pdfork(&gfd, 0);
		if (gpid == -1)
			_exit(100);
		if (gpid == 0)
			_exit(9);
		if (pdwait(gfd, &st, WEXITED, NULL, NULL) != 0)
			_exit(101);
		if (close(gfd) != 0)
			_exit(102);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 103);
	}
	t_wait_exit_code(fd, 9, "nested");
}

/* (e) exec in the child works and its exit status is reported. */
T_TC(child__exec, "execl in the child gives the program's status")
{
	pid_t pid;
	int fd;

	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
		_exit(127);
	}
	t_wait_exit_code(fd, 5, "exec");
}

/*
 * (f) pdfork works while the application blocks every signal, and leaves
 * the mask as it was, in the parent and in the child.
 */
T_TC(sigmask__all_blocked, "pdfork with all signals blocked")
{
	sigset_t all, old, cur;
	pid_t pid;
	int fd, sig;

	sigfillset(&all);
	ATF_REQUIRE(sigprocmask(SIG_BLOCK, &all, &old) == 0);
	pid = pdfork(&fd, 0);
	if (pid == 0) {
		if (sigprocmask(SIG_BLOCK, NULL, &cur) != 0)
			_exit(10);
		for (sig = 1; sig < NSIG; sig++) {
			if (sig == SIGKILL || sig == SIGSTOP ||
			    (sig >= 32 && sig < SIGRTMIN))
				continue;
			if (sigismember(&cur, sig) != 1)
				_exit(sig);
		}
		_exit(0);
	}
	ATF_REQUIRE(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
	ATF_REQUIRE(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	ATF_REQUIRE_MSG(pid > 0, "pdfork: %s", strerror(errno));
	t_wait_exit_code(fd, 0, "blocked");
	ATF_CHECK(sigismember(&cur, SIGSYS) == 1);
	ATF_CHECK(sigismember(&cur, SIGUSR1) == 1);
	ATF_CHECK(sigismember(&cur, SIGCHLD) == 1);
}

static volatile sig_atomic_t sys_count;

static void
app_sigsys(int sig, siginfo_t *si, void *uc)
{

	(void)sig;
	(void)si;
	(void)uc;
	sys_count++;
}

/* The child's check of (f): 0 if SIGSYS is still the application's. */
static int
sigsys_is_app(void)
{
	struct sigaction cur;

	if (sigaction(SIGSYS, NULL, &cur) != 0)
		return (1);
	if ((cur.sa_flags & SA_SIGINFO) == 0 ||
	    cur.sa_sigaction != app_sigsys)
		return (2);
	sys_count = 0;
	if (raise(SIGSYS) != 0 || sys_count != 1)
		return (3);
	return (0);
}

/*
 * (f) An application's SIGSYS handler does not disturb pdfork and is
 * still the application's afterwards, in the parent and in the child.
 */
T_TC(sigsys__app_handler_kept, "the application's SIGSYS handler "
    "survives pdfork, in the parent and the child")
{
	struct sigaction sa, cur;
	pid_t pid;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ATF_REQUIRE(sigaction(SIGSYS, &sa, NULL) == 0);
	sys_count = 0;
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0)
		_exit(sigsys_is_app());
	t_wait_exit_code(fd, 0, "sigsys child");
	ATF_CHECK_EQ_MSG(sys_count, 0, "the application's SIGSYS handler "
	    "ran during pdfork");
	ATF_REQUIRE(sigaction(SIGSYS, NULL, &cur) == 0);
	ATF_CHECK(cur.sa_sigaction == app_sigsys);
	ATF_CHECK((cur.sa_flags & (SA_SIGINFO | SA_RESTART)) ==
	    (SA_SIGINFO | SA_RESTART));
	ATF_REQUIRE(raise(SIGSYS) == 0);
	ATF_CHECK_EQ(sys_count, 1);
	signal(SIGSYS, SIG_DFL);
}

/* (g) A successful pdfork leaves errno alone, in the parent and child. */
T_TC(errno__kept_on_success, "pdfork does not change errno on success")
{
	pid_t pid;
	int fd, saved;

	errno = 1234;
	pid = pdfork(&fd, 0);
	saved = errno;
	if (pid == 0)
		_exit(saved == 1234 ? 0 : 1);
	ATF_REQUIRE_MSG(pid > 0, "pdfork: %s", strerror(saved));
	ATF_CHECK_EQ_MSG(saved, 1234, "errno %d after pdfork", saved);
	t_wait_exit_code(fd, 0, "errno in the child");
}

/* (h) Without the trap: libc's fork() untrapped (NOTES 1.1). */

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define	PR_SET_SYSCALL_USER_DISPATCH	59
#endif

/*
 * Make prctl(PR_SET_SYSCALL_USER_DISPATCH) fail with EINVAL in this
 * thread and its children, as on a kernel before 5.11.
 */
static void
refuse_dispatch(void)
{

	ATF_REQUIRE(t_refuse_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH,
	    EINVAL) == 0);
	ATF_REQUIRE_ERRNO(EINVAL, prctl(PR_SET_SYSCALL_USER_DISPATCH, 0, 0,
	    0, 0) == -1);
}

/*
 * Where syscall user dispatch is refused, pdfork runs libc's fork()
 * untrapped: its child runs, its status is reported, and the library's locks
 * are free in it (it can pdfork and pdwait in turn; malloc is safe there
 * too, since no other thread of this process mallocs).  Success is exit 0,
 * which a thread sanitizer turns into 66 when it reported something.
 */
T_TC(fallback__raw_clone, "without syscall user dispatch the untrapped "
    "fork() child can pdfork and pdwait")
{
	char what[32];
	pid_t gpid, pid;
	int fd, gfd, i, st;

	refuse_dispatch();
	for (i = 0; i < 20; i++) {
		pid = pdfork(&fd, 0);
		ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
		if (pid == 0) {
			if ((gpid = pdfork(&gfd, 0)) == -1)
				_exit(100);
			if (gpid == 0)
				_exit(0);
			if (pdwait(gfd, &st, WEXITED, NULL, NULL) != 0)
				_exit(101);
			if (close(gfd) != 0)
				_exit(102);
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 103);
		}
		snprintf(what, sizeof(what), "fallback child %d", i);
		t_wait_exit_code(fd, 0, what);
	}
}

/*
 * (b) The application's fork() in one thread while another is inside
 * pdfork: the fork child inherits the library's locks as the pdforking
 * thread held them, without that thread.  Its own pdfork must work.
 */
#define	RACE_FORKS	100	/* 1 in 15 hung before the fix. */

static atomic_bool race_stop;

static void *
race_pdforker(void *arg)
{
	int fd, status;
	pid_t pid;

	(void)arg;
	while (!atomic_load(&race_stop)) {
		if ((pid = pdfork(&fd, PD_CLOEXEC)) == 0)
			_exit(0);
		if (pid > 0) {
			(void)pdwait(fd, &status, WEXITED, NULL, NULL);
			(void)close(fd);
		}
	}
	return (NULL);
}

/* In the fork child: a pdfork, its status, and a pdkill. */
static void __attribute__((noreturn))
race_child(void)
{
	int fd, status;
	pid_t pid;

	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(5);
	if (pid == -1 || pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 5)
		_exit(1);
	if ((pid = pdfork(&fd, 0)) == 0) {
		pause();
		_exit(1);
	}
	if (pid == -1 || pdkill(fd, SIGKILL) != 0 ||
	    pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
	    !WIFSIGNALED(status))
		_exit(2);
	_exit(0);
}

T_TC(race__fork_during_pdfork, "fork() in one thread while another is in "
    "pdfork: the fork child's pdfork neither hangs nor fails")
{
	pthread_t td;
	siginfo_t si, first;
	int i, hung, failed, w;
	pid_t pid;

	memset(&first, 0, sizeof(first));
	atomic_store(&race_stop, false);
	ATF_REQUIRE(pthread_create(&td, NULL, race_pdforker, NULL) == 0);
	hung = failed = 0;
	for (i = 0; i < RACE_FORKS && hung == 0; i++) {
		if ((pid = fork()) == 0)
			race_child();
		ATF_REQUIRE(pid > 0);
		w = t_watch(pid);
		if (!t_dead_within(w, T_LONG_MS)) {
			hung++;
			(void)kill(pid, SIGKILL);
		}
		memset(&si, 0, sizeof(si));
		ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED) == 0);
		if ((si.si_code != CLD_EXITED || si.si_status != 0) &&
		    failed++ == 0)
			first = si;
		(void)close(w);
	}
	atomic_store(&race_stop, true);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_CHECK_MSG(hung == 0, "a fork child hung in pdfork (fork %d)", i);
	/* race_child()'s exit code says which step failed. */
	ATF_CHECK_MSG(failed == 0, "%d of %d fork children failed, the "
	    "first with %s %d", failed, i, first.si_code == CLD_EXITED ?
	    "exit code" : "signal", first.si_status);
}

/*
 * The library's per-child state lives in memory that a fork leaves out of
 * the child (lib/arena.c, NOTES 2.19): the child of an owner whose
 * entries were made and some freed must start afresh there, with none of
 * the parent's blocks on its free lists nor its next block cut over a
 * live one.  FRESH_OWN children in the owner, every other one collected;
 * then a fork() child makes FRESH_NEW children (fewer in an emulated
 * guest), all alive at once, and checks each descriptor's pid and each
 * one's death by SIGKILL; then the owner's remaining children, untouched.
 */
#define	FRESH_OWN	40
#define	FRESH_NEW	100

/* pdkill(SIGKILL), then the pid and the status through the descriptor. */
static bool
fresh_kill(int fd, pid_t pid)
{
	pid_t got;
	int status;

	return (pdgetpid(fd, &got) == 0 && got == pid &&
	    pdkill(fd, SIGKILL) == 0 &&
	    pdwait(fd, &status, WEXITED, NULL, NULL) == 0 &&
	    WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
	    close(fd) == 0);
}

static void __attribute__((noreturn))
fresh_child(void)
{
	pid_t pid[FRESH_NEW];
	int fd[FRESH_NEW], i, j, n;

	n = t_scaled(FRESH_NEW);
	for (i = 0; i < n; i++) {
		if ((pid[i] = pdfork(&fd[i], 0)) == 0)
			t_pause();
		if (pid[i] == -1)
			_exit(10);
		for (j = 0; j < i; j++)
			if (fd[j] == fd[i] || pid[j] == pid[i])
				_exit(11);
	}
	for (i = 0; i < n; i++)
		if (!fresh_kill(fd[i], pid[i]))
			_exit(12);
	_exit(0);
}

T_TC(fork__child_starts_afresh, "a fork() child of an owner with live and "
    "collected children makes, signals and collects its own, and the "
    "owner's are untouched")
{
	pid_t pid[FRESH_OWN], fpid;
	int fd[FRESH_OWN], i, status, bad;

	for (i = 0; i < FRESH_OWN; i++)
		pid[i] = t_pdfork_pause(&fd[i], 0);
	for (i = 0; i < FRESH_OWN; i += 2)
		ATF_REQUIRE(fresh_kill(fd[i], pid[i]));
	if ((fpid = fork()) == 0)
		fresh_child();
	ATF_REQUIRE(fpid > 0);
	ATF_REQUIRE(waitpid(fpid, &status, 0) == fpid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the fork child: status %#x", (unsigned)status);
	for (bad = 0, i = 1; i < FRESH_OWN; i += 2)
		if (!fresh_kill(fd[i], pid[i]))
			bad++;
	ATF_CHECK_MSG(bad == 0, "%d of the owner's children not as they were",
	    bad);
}

/*
 * The first pdfork starts the guardian and waits for its hello; fork() in
 * another thread meanwhile must not wait for that.  The guardian is run
 * through a script that says it started (fifo "started") and then waits
 * for "go", which the other thread sends only after its fork() is done.
 * Were the start made under the lock that fork() takes, the fork would
 * wait for the start, the start for "go", until the start times out.
 */
static char gs_started[256], gs_go[256];
static volatile sig_atomic_t gs_script = -1;	/* A pidfd of the script. */

/*
 * A script that never got "go" outlives a failed case: it has no
 * parent-death signal until it execs the guardian.  Kill it.
 */
static void
gs_kill_script(void)
{

	if (gs_script != -1)
		(void)syscall(SYS_pidfd_send_signal, (int)gs_script, SIGKILL,
		    NULL, 0);
}

static void
gs_alarm(int sig)
{

	(void)sig;
	gs_kill_script();
	_exit(24);
}

static void *
gs_forker(void *arg)
{
	char buf[32];
	pid_t pid;
	ssize_t n;
	int fd, status;

	(void)arg;
	if ((fd = open(gs_started, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return ((void *)"no start");
	(void)close(fd);
	buf[n] = '\0';
	/* Alive until "go": its pid is its own. */
	gs_script = (int)syscall(SYS_pidfd_open, (pid_t)atoi(buf), 0);
	if ((pid = fork()) == 0)
		_exit(0);
	if (pid == -1 || waitpid(pid, &status, 0) != pid)
		return ((void *)"fork");
	if ((fd = open(gs_go, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    write(fd, "g\n", 2) != 2)
		return ((void *)"the start was over before the fork");
	(void)close(fd);
	return (NULL);
}

/* In a process of its own, whose first pdfork starts a guardian. */
static void __attribute__((noreturn))
gs_child(const char *script)
{
	pthread_t td;
	void *why;
	pid_t pid;
	int fd, status;

	(void)signal(SIGALRM, gs_alarm);
	(void)alarm(30);	/* Fail before the case's bound kills us. */
	if (setenv("LIBPROCDESC_GUARDIAN", script, 1) != 0 ||
	    pthread_create(&td, NULL, gs_forker, NULL) != 0)
		_exit(20);
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(3);
	(void)pthread_join(td, &why);
	if (why != NULL || pid == -1)
		gs_kill_script();
	if (why != NULL) {
		fprintf(stderr, "forker: %s\n", (const char *)why);
		_exit(21);
	}
	if (pid == -1) {
		fprintf(stderr, "pdfork: %s\n", strerror(errno));
		_exit(22);
	}
	if (pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 3)
		_exit(23);
	_exit(0);
}

T_TC(race__fork_during_guardian_start, "fork() in another thread while "
    "the first pdfork starts its guardian: neither waits for the other")
{
	char cwd[200], script[256];
	siginfo_t si;
	FILE *fp;
	pid_t pid;
	int w;

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(gs_started, sizeof(gs_started), "%s/started", cwd);
	snprintf(gs_go, sizeof(gs_go), "%s/go", cwd);
	snprintf(script, sizeof(script), "%s/guardian.sh", cwd);
	ATF_REQUIRE(mkfifo(gs_started, 0600) == 0);
	ATF_REQUIRE(mkfifo(gs_go, 0600) == 0);
	ATF_REQUIRE((fp = fopen(script, "we")) != NULL);
	/* "go" is open (read-write: no wait) before "started" is said. */
	fprintf(fp, "#!/bin/sh\nexec 4<>'%s'\necho $$ > '%s'\nread x <&4\n"
	    "exec 4<&-\nexec '%s' \"$@\"\n", gs_go, gs_started, T_GUARDIAN);
	ATF_REQUIRE(fclose(fp) == 0);
	ATF_REQUIRE(chmod(script, 0755) == 0);
	if ((pid = fork()) == 0)
		gs_child(script);
	ATF_REQUIRE(pid > 0);
	w = t_watch(pid);
	if (!t_dead_within(w, 6 * T_LONG_MS))
		(void)kill(pid, SIGKILL);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED) == 0);
	(void)close(w);
	ATF_CHECK_MSG(si.si_code == CLD_EXITED && si.si_status == 0,
	    "code %d status %d (see gs_child)", si.si_code, si.si_status);
}

/*
 * (c) Calls from a signal handler.  A 1 ms interval timer interrupts a
 * loop of library calls; its handler calls the library too.  pdfork there
 * works or fails with EDEADLK (it interrupted a call of ours on this
 * thread); pdgetpid and pdkill always work; fork() works.  Never a
 * deadlock: each run is a process of its own, killed if it hangs.
 */
#define	SIG_CALLS	200	/* Calls made from the handler, */
static int sig_ncalls;		/* scaled (t_scaled()). */
#define	SIG_MAXFDS	32

static int sig_fd = -1;			/* The loop's long-lived child. */
static pid_t sig_pid;
static volatile sig_atomic_t sig_nfds, sig_calls, sig_bad, sig_ok;
static int sig_fds[SIG_MAXFDS];

static void
sig_pdfork_handler(int sig)
{
	pid_t pid, got;
	int fd, saved;

	(void)sig;
	saved = errno;
	if (pdgetpid(sig_fd, &got) != 0 || got != sig_pid ||
	    pdkill(sig_fd, 0) != 0)
		sig_bad++;
	if (sig_nfds < SIG_MAXFDS && sig_calls < sig_ncalls) {
		sig_calls++;
		if ((pid = pdfork(&fd, PD_CLOEXEC)) == 0)
			_exit(0);
		if (pid > 0) {
			sig_fds[sig_nfds++] = fd;
			sig_ok++;
		} else if (errno != EDEADLK)
			sig_bad++;
	}
	errno = saved;
}

static void
sig_fork_handler(int sig)
{
	pid_t pid;
	int saved, status;

	(void)sig;
	if (sig_calls >= sig_ncalls)
		return;
	sig_calls++;
	saved = errno;
	if ((pid = fork()) == 0)
		_exit(0);
	if (pid == -1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status))
		sig_bad++;
	else
		sig_ok++;
	errno = saved;
}

/* Every sig_fds child: exit 0 seen by pdwait; then closed. */
static int
sig_drain(void)
{
	int i, status;

	for (i = 0; i < sig_nfds; i++) {
		if (pdwait(sig_fds[i], &status, WEXITED, NULL, NULL) != 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return (1);
		(void)close(sig_fds[i]);
	}
	sig_nfds = 0;
	return (0);
}

/*
 * In a process of its own: the loop, with handler h on a 1 ms timer (on the
 * host), until the handler has made sig_ncalls calls.  pdfork_too: the
 * loop also pdforks (not with fork() in the handler: glibc's fork is not
 * reentrant).  Exit 0 if all went right: no call failed but with EDEADLK,
 * and fork() (never EDEADLK) worked every time.
 */
static void __attribute__((noreturn))
sig_loop(void (*h)(int), bool pdfork_too)
{
	struct itimerval it;
	struct sigaction sa;
	int fd, i, status;
	pid_t pid;

	sig_ncalls = t_scaled(SIG_CALLS);
	if ((sig_pid = pdfork(&sig_fd, 0)) == 0) {
		pause();
		_exit(0);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	(void)sigaction(SIGALRM, &sa, NULL);	/* No SA_RESTART. */
	/*
	 * A 1 ms timer on the host; slower where the machine is (t_scale()):
	 * a handler that takes longer than the period, as its pdkill through
	 * the guardian does under emulation when the lock is taken, is
	 * called again the moment it returns, and the loop never runs.
	 */
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 1000 * t_scale();
	it.it_value.tv_usec = 1000 * t_scale();
	(void)setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; sig_calls < sig_ncalls; i++) {
		(void)pdkill(sig_fd, 0);
		(void)pdwait(sig_fd, &status, WEXITED | WNOHANG, NULL, NULL);
		if (pdfork_too && i % 5 == 0 && (pid = pdfork(&fd, 0)) >= 0) {
			if (pid == 0)
				_exit(0);
			while (pdwait(fd, &status, WEXITED, NULL, NULL) != 0)
				if (errno != EINTR)
					_exit(10);
			(void)close(fd);
		}
		if (pdfork_too && sig_nfds >= SIG_MAXFDS / 2) {
			sigset_t set, old;

			sigemptyset(&set);
			sigaddset(&set, SIGALRM);
			sigprocmask(SIG_BLOCK, &set, &old);
			if (sig_drain() != 0)
				_exit(11);
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	}
	memset(&it, 0, sizeof(it));
	(void)setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_IGN);
	if (sig_drain() != 0)
		_exit(11);
	(void)pdkill(sig_fd, SIGKILL);
	(void)pdwait(sig_fd, &status, WEXITED, NULL, NULL);
	if (sig_bad != 0)
		_exit(12);
	if (!pdfork_too && sig_ok != sig_ncalls)
		_exit(13);
	_exit(0);
}

static void
sig_run(void (*h)(int), bool pdfork_too)
{
	siginfo_t si;
	pid_t pid;
	int w;

	T_SKIP_UNDER_TSAN(T_TSAN_NO_HANDLERS);
	if ((pid = fork()) == 0)
		sig_loop(h, pdfork_too);
	ATF_REQUIRE(pid > 0);
	w = t_watch(pid);
	if (!t_dead_within(w, 6 * T_LONG_MS)) {
		(void)kill(pid, SIGKILL);
		(void)waitid(P_PID, (id_t)pid, &si, WEXITED);
		(void)close(w);
		atf_tc_fail("deadlock: a call from a signal handler hung");
	}
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED) == 0);
	(void)close(w);
	ATF_CHECK_MSG(si.si_code == CLD_EXITED && si.si_status == 0,
	    "the loop failed: code %d status %d (see sig_loop)", si.si_code,
	    si.si_status);
}

T_TC(sighandler__pdfork, "pdfork, pdgetpid and pdkill from a signal "
    "handler that interrupts library calls: no deadlock; pdfork works or "
    "fails with EDEADLK")
{

	sig_run(sig_pdfork_handler, true);
}

T_TC(sighandler__fork, "fork() from a signal handler that interrupts "
    "library calls holding their lock: no deadlock")
{

	sig_run(sig_fork_handler, false);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, busy_threads__malloc_stdio);
	ATF_TP_ADD_TC(tp, atfork__handlers_order);
	ATF_TP_ADD_TC(tp, child__raise_and_ids);
	ATF_TP_ADD_TC(tp, child__pthread_kill_self);
	ATF_TP_ADD_TC(tp, child__nested_pdfork);
	ATF_TP_ADD_TC(tp, child__exec);
	ATF_TP_ADD_TC(tp, sigmask__all_blocked);
	ATF_TP_ADD_TC(tp, sigsys__app_handler_kept);
	ATF_TP_ADD_TC(tp, errno__kept_on_success);
	ATF_TP_ADD_TC(tp, fallback__raw_clone);
	ATF_TP_ADD_TC(tp, race__fork_during_pdfork);
	ATF_TP_ADD_TC(tp, fork__child_starts_afresh);
	ATF_TP_ADD_TC(tp, race__fork_during_guardian_start);
	ATF_TP_ADD_TC(tp, sighandler__pdfork);
	ATF_TP_ADD_TC(tp, sighandler__fork);
	return (atf_no_error());
}
