/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD's waiting rules, flag by flag (pdfork(3) WAITING): a wait for
 * the pid of a child made without PD_NOWAITPID takes it as it would a
 * fork() child, and pdwait still reports it afterwards; with PD_NOWAITPID
 * no wait by pid sees it; a wait for any child or a process group never
 * reports a pdfork child, exec'd or not; the exited child keeps its pid
 * until a wait takes it or its last descriptor closes.
 */

#include <sys/procdesc.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A pdfork child that execs sh, which exits with code on a byte on ctl. */
static pid_t
w_pdfork_exec(int *fdp, int ctl[2], int flags, int code)
{
	char script[32];
	pid_t pid;

	ATF_REQUIRE(pipe(ctl) == 0);
	pid = pdfork(fdp, flags);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		snprintf(script, sizeof(script), "read x; exit %d", code);
		if (close(ctl[1]) == -1 || dup2(ctl[0], 0) == -1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	return (pid);
}

/* A pdfork child with flags that exits with code on a byte on ctl. */
static pid_t
w_pdfork_byte(int *fdp, int ctl[2], int flags, int code)
{
	pid_t pid;
	char c;

	ATF_REQUIRE(pipe(ctl) == 0);
	pid = pdfork(fdp, flags);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)read(ctl[0], &c, 1);
		_exit(code);
	}
	return (pid);
}

/* Let the child on ctl go, and wait (poll) until it has exited. */
static void
w_release(int fd, int ctl[2])
{
	struct pollfd pfd;

	ATF_REQUIRE(write(ctl[1], "\n", 1) == 1);
	pfd.fd = fd;
	pfd.events = POLLHUP;
	ATF_REQUIRE_EQ(poll(&pfd, 1, T_LONG_MS), 1);
	t_close_pipe(ctl);
}

/* pdwait reports exit code code for fd. */
static void
w_pdwait_code(int fd, int code)
{
	int st;

	st = -1;
	ATF_REQUIRE_MSG(pdwait(fd, &st, WEXITED, NULL, NULL) == 0,
	    "pdwait: %s", strerror(errno));
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == code,
	    "pdwait status %#x, want exit %d", st, code);
}

/* pid is a zombie (its pid still reserved). */
static bool
w_zombie(pid_t pid)
{
	char state[16];

	return (t_proc_status(pid, "State:", state, sizeof(state)) &&
	    state[0] == 'Z');
}

T_TC(waitpid__pid_reaps, "waitpid(pid) takes a pdfork child's exit, "
    "pdwait still reports it and pdkill is a no-op")
{
	int ctl[2], fd, st;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 7);
	ATF_CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);
	w_release(fd, ctl);
	ATF_CHECK(w_zombie(pid));
	ATF_CHECK(kill(pid, 0) == 0);
	st = -1;
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, 0) == -1);
	w_pdwait_code(fd, 7);
	w_pdwait_code(fd, 7);
	ATF_CHECK(pdkill(fd, SIGTERM) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static pthread_t w_waiter;
static pid_t w_waiter_tid;

/*
 * waitpid(pid, 0) in this thread, which must report exit code, while
 * fn(arg) runs in another (w_waiter_tid tells it which thread waits).
 */
static void
w_waitpid_while(pid_t pid, int code, void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int st;

	w_waiter = pthread_self();
	w_waiter_tid = (pid_t)syscall(SYS_gettid);
	ATF_REQUIRE(pthread_create(&t, NULL, fn, arg) == 0);
	st = -1;
	ATF_CHECK_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == code,
	    "status %#x, want exit %d", st, code);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
}

/* Release the child on *arg once the main thread sleeps in its wait. */
static void *
w_release_when_asleep(void *arg)
{
	int *wfd = arg;

	ATF_CHECK(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	ATF_CHECK(write(*wfd, "x", 1) == 1);
	return (NULL);
}

T_TC(waitpid__blocks, "waitpid(pid, 0) blocks until the exit")
{
	int ctl[2], fd;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 3);
	w_waitpid_while(pid, 3, w_release_when_asleep, &ctl[1]);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

static void *
w_waitpid_thread(void *arg)
{
	int st;

	__atomic_store_n(&w_waiter_tid, (pid_t)syscall(SYS_gettid),
	    __ATOMIC_SEQ_CST);
	(void)waitpid(*(pid_t *)arg, &st, 0);
	return (NULL);
}

T_TC(waitpid__cancel, "pthread_cancel reaches a thread blocked in "
    "waitpid(pid), which leaks nothing")
{
	pthread_t t;
	void *res;
	int fd;
	pid_t pid;

	pid = t_pdfork_pause(&fd, 0);
	w_waiter_tid = 0;
	ATF_REQUIRE(pthread_create(&t, NULL, w_waitpid_thread, &pid) == 0);
	while (__atomic_load_n(&w_waiter_tid, __ATOMIC_SEQ_CST) == 0)
		sched_yield();
	ATF_REQUIRE(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	ATF_REQUIRE(pthread_cancel(t) == 0);
	ATF_REQUIRE(pthread_join(t, &res) == 0);
	ATF_CHECK(res == PTHREAD_CANCELED);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static volatile sig_atomic_t w_usr1;

static void
w_on_usr1(int sig __attribute__((unused)))
{

	w_usr1 = 1;
}

/* Interrupt the main thread once asleep in its wait, then release *arg. */
static void *
w_interrupt_then_release(void *arg)
{
	int *wfd = arg;

	ATF_CHECK(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	ATF_CHECK(pthread_kill(w_waiter, SIGUSR1) == 0);
	while (!w_usr1)
		sched_yield();
	ATF_CHECK(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	ATF_CHECK(write(*wfd, "x", 1) == 1);
	return (NULL);
}

T_TC(waitpid__restart, "a signal handled with SA_RESTART does not end "
    "waitpid(pid); without it, EINTR")
{
	struct sigaction sa;
	pthread_t t;
	int ctl[2], fd, st;
	pid_t pid, r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = w_on_usr1;
	sa.sa_flags = SA_RESTART;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	pid = w_pdfork_byte(&fd, ctl, 0, 6);
	w_waiter = pthread_self();
	w_waiter_tid = (pid_t)syscall(SYS_gettid);
	w_usr1 = 0;
	ATF_REQUIRE(pthread_create(&t, NULL, w_interrupt_then_release,
	    &ctl[1]) == 0);
	r = waitpid(pid, &st, 0);
	ATF_CHECK_EQ(r, pid);
	ATF_CHECK(w_usr1 == 1);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);

	sa.sa_flags = 0;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	pid = w_pdfork_byte(&fd, ctl, 0, 6);
	w_usr1 = 0;
	ATF_REQUIRE(pthread_create(&t, NULL, w_interrupt_then_release,
	    &ctl[1]) == 0);
	ATF_CHECK_ERRNO(EINTR, waitpid(pid, &st, 0) == -1);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	ATF_CHECK_EQ(waitpid(pid, &st, 0), pid);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
	signal(SIGUSR1, SIG_DFL);
}

T_TC(wait4__rusage, "wait4(pid) reports the child's rusage")
{
	struct rusage ru;
	int fd, st;
	pid_t pid;

	pid = pdfork(&fd, 0);
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		struct rusage me;

		do
			(void)getrusage(RUSAGE_SELF, &me);
		while (me.ru_utime.tv_sec == 0 && me.ru_utime.tv_usec < 20000);
		_exit(0);
	}
	memset(&ru, 0, sizeof(ru));
	ATF_REQUIRE_EQ(wait4(pid, &st, 0, &ru), pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ATF_CHECK_MSG(ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec >= 20000,
	    "ru_utime %ld us", (long)ru.ru_utime.tv_usec);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(waitid__pid_and_pidfd, "waitid(P_PID) and waitid(P_PIDFD) see the "
    "child; WNOWAIT leaves it")
{
	siginfo_t si;
	int ctl[2], fd, pidfd;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 5);
	pidfd = t_watch(pid);
	memset(&si, 0xff, sizeof(si));
	ATF_REQUIRE(waitid(P_PIDFD, pidfd, &si, WEXITED | WNOHANG) == 0);
	ATF_CHECK_EQ(si.si_pid, 0);
	w_release(fd, ctl);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0);
	ATF_CHECK(si.si_pid == pid && si.si_code == CLD_EXITED &&
	    si.si_status == 5);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PIDFD, pidfd, &si, WEXITED) == 0);
	ATF_CHECK(si.si_pid == pid && si.si_code == CLD_EXITED &&
	    si.si_status == 5);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_PID, pid, &si, WEXITED) == -1);
	w_pdwait_code(fd, 5);
	ATF_REQUIRE(close(pidfd) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(waitpid__stop_continue, "waitpid(pid, WUNTRACED | WCONTINUED) sees "
    "stops and continues")
{
	int fd, st;
	pid_t pid;

	pid = t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	ATF_REQUIRE_EQ(waitpid(pid, &st, WUNTRACED), pid);
	ATF_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	ATF_REQUIRE(pdkill(fd, SIGCONT) == 0);
	ATF_REQUIRE_EQ(waitpid(pid, &st, WCONTINUED), pid);
	ATF_CHECK(WIFCONTINUED(st));
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(waitpid__bad_args, "waitpid(pid) with bad options or status pointer")
{
	int fd, st;
	pid_t pid;

	pid = t_pdfork_pause(&fd, 0);
	ATF_CHECK_ERRNO(EINVAL, waitpid(pid, &st, 0x1000) == -1);
	ATF_CHECK_ERRNO(EINVAL, waitpid(pid, &st, WEXITED) == -1);
	ATF_CHECK_ERRNO(EINVAL, waitid(P_PID, pid, NULL, WNOHANG) == -1);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_CHECK_ERRNO(EFAULT, waitpid(pid, t_unmapped(), 0) == -1);
	/* The failed copy-out took it all the same, as the kernel does. */
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, WNOHANG) == -1);
	ATF_REQUIRE(pdwait(fd, &st, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(nowaitpid__hidden, "PD_NOWAITPID: no wait by pid sees the child, "
    "exec'd or not")
{
	siginfo_t si;
	int ctl[2], fd, fd2, pidfd, st;
	pid_t pid, pid2;
	bool kernel;

	pid = w_pdfork_byte(&fd, ctl, PD_NOWAITPID, 4);
	/* The kernel's path (NOTES 1.12) reaps at the exit: no zombie. */
	kernel = (fcntl(fd, F_GETFL) & O_TRUNC) != 0;
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, WNOHANG) == -1);
	pidfd = t_watch(pid);
	w_release(fd, ctl);
	ATF_CHECK(kernel || w_zombie(pid));
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, 0) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait4(pid, &st, 0, NULL) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_PID, pid, &si, WEXITED) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_PIDFD, pidfd, &si, WEXITED) == -1);
	ATF_REQUIRE(close(pidfd) == 0);
	w_pdwait_code(fd, 4);

	/* Exec'd, its exit signal is SIGCHLD again: still hidden. */
	pid2 = w_pdfork_exec(&fd2, ctl, PD_NOWAITPID, 6);
	w_release(fd2, ctl);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid2, &st, 0) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait(&st) == -1);
	w_pdwait_code(fd2, 6);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(fd2) == 0);
}

/* Every wildcard and process-group wait finds no child to report. */
static void
w_wildcards_echild(void)
{
	siginfo_t si;
	int st;

	ATF_CHECK_ERRNO(ECHILD, wait(&st) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(-1, &st, WNOHANG) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(0, &st, 0) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(-getpgrp(), &st, 0) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait3(&st, WNOHANG, NULL) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait4(-1, &st, 0, NULL) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_ALL, 0, &si, WEXITED) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_PGID, (id_t)getpgrp(), &si,
	    WEXITED | WNOHANG) == -1);
}

T_TC(wildcard__never, "wait, waitpid(-1), waitpid(0), wait3, wait4(-1), "
    "waitid(P_ALL) never report a pdfork child")
{
	int ctl[2], fd, st;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 2);
	w_wildcards_echild();
	w_release(fd, ctl);
	w_wildcards_echild();
	/*
	 * Without the fork trap the child's exit signal is SIGCHLD: the
	 * wildcard waits met its exit and took it (NOTES 3.5, 3.12).
	 */
	ATF_CHECK(w_zombie(pid) || !t_fork_trap());
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * A pdfork child that exec'd (its exit signal is SIGCHLD again: the
 * kernel counts it for a wait for any child) and runs: with no other
 * child such a wait fails with ECHILD at once, blocking or not, as on
 * FreeBSD; with a fork() child beside it the wait reports that one; with
 * it gone, ECHILD again.  (Without the fork trap every pdfork child is
 * such a child from its start.)
 */
T_TC(wildcard__exec_running, "a wait for any child with an exec'd pdfork "
    "child running and no other: ECHILD at once")
{
	siginfo_t si;
	int ctl[2], fctl[2], ready[2], fd, st;
	pid_t f, pid;
	char c;

	ATF_REQUIRE(pipe(ctl) == 0);
	ATF_REQUIRE(pipe(ready) == 0);
	pid = pdfork(&fd, PD_CLOEXEC);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(ctl[0], 0) == -1 || dup2(ready[1], 3) == -1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", "echo >&3; read x; exit 4",
		    (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(close(ready[1]) == 0);
	ATF_REQUIRE(read(ready[0], &c, 1) == 1);	/* It exec'd. */
	ATF_REQUIRE(close(ready[0]) == 0);
	ATF_CHECK_ERRNO(ECHILD, waitpid(-1, &st, WNOHANG) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait(&st) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(0, &st, 0) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_ALL, 0, &si, WEXITED) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitid(P_PGID, 0, &si, WEXITED) == -1);
	ATF_REQUIRE(pipe(fctl) == 0);
	f = fork();
	ATF_REQUIRE(f >= 0);
	if (f == 0) {
		(void)read(fctl[0], &c, 1);
		_exit(3);
	}
	ATF_CHECK_EQ(waitpid(-1, &st, WNOHANG), 0);
	memset(&si, 0, sizeof(si));
	ATF_CHECK(waitid(P_PGID, 0, &si, WEXITED | WNOHANG) == 0 &&
	    si.si_pid == 0);	/* Our own group, as Linux 5.4 reads 0. */
	ATF_REQUIRE(write(fctl[1], "x", 1) == 1);
	ATF_CHECK_EQ(wait(&st), f);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	t_close_pipe(fctl);
	ATF_CHECK_ERRNO(ECHILD, wait(&st) == -1);
	w_release(fd, ctl);
	w_pdwait_code(fd, 4);
	ATF_REQUIRE(close(fd) == 0);
}

struct w_two {
	int	pd;		/* The pdfork child's descriptor, */
	int	pdctl;		/* and its byte's pipe. */
	int	forkctl;	/* The fork() child's byte's pipe. */
};

/*
 * Once the main thread sleeps in its wait: the exec'd pdfork child exits
 * first; once it has (POLLHUP), the fork() child.
 */
static void *
w_release_two(void *arg)
{
	struct w_two *w = arg;
	struct pollfd pfd;

	ATF_CHECK(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	ATF_CHECK(write(w->pdctl, "\n", 1) == 1);
	pfd.fd = w->pd;
	pfd.events = POLLHUP;
	ATF_CHECK_EQ(poll(&pfd, 1, T_LONG_MS), 1);
	ATF_CHECK(write(w->forkctl, "x", 1) == 1);
	return (NULL);
}

T_TC(wildcard__exec_child, "a blocking wait(2) looks past an exec'd "
    "pdfork child's exit; waitpid(pid) and pdwait still get it")
{
	struct w_two w;
	pthread_t t;
	int ctl[2], fctl[2], fd, st;
	pid_t f, pid;
	char c;

	pid = w_pdfork_exec(&fd, ctl, 0, 9);
	ATF_REQUIRE(pipe(fctl) == 0);
	if ((f = fork()) == 0) {
		(void)read(fctl[0], &c, 1);
		_exit(3);
	}
	ATF_REQUIRE(f > 0);
	w.pd = fd;
	w.pdctl = ctl[1];
	w.forkctl = fctl[1];
	w_waiter_tid = (pid_t)syscall(SYS_gettid);
	ATF_REQUIRE(pthread_create(&t, NULL, w_release_two, &w) == 0);
	st = -1;
	ATF_CHECK_EQ(wait(&st), f);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	w_wildcards_echild();
	st = -1;
	ATF_CHECK_EQ(waitpid(pid, &st, WNOHANG), pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, 0) == -1);
	w_pdwait_code(fd, 9);
	t_close_pipe(ctl);
	t_close_pipe(fctl);
	ATF_REQUIRE(close(fd) == 0);
}

struct w_race {
	pid_t	pid;
	int	got;		/* The thread's waitpid: its pid, or -errno. */
};

struct w_forker {
	pid_t	pid;		/* The pdfork child, */
	int	wfd;		/* and its byte's pipe. */
};

/*
 * Once the main thread sleeps in waitpid: fork a copy, which must find no
 * child by that pid (it is not the parent) and not hang, then release
 * the child.
 */
static void *
w_fork_then_release(void *arg)
{
	struct w_forker *w = arg;
	pid_t f;
	int st;

	ATF_CHECK(t_task_sleeping(getpid(), w_waiter_tid, T_LONG_MS));
	if ((f = fork()) == 0)
		_exit(waitpid(w->pid, &st, WNOHANG) == -1 && errno == ECHILD ?
		    0 : 1);
	ATF_CHECK(f > 0);
	if (f > 0)
		ATF_CHECK_EQ(t_reap(f), 0);
	ATF_CHECK(write(w->wfd, "\n", 1) == 1);
	return (NULL);
}

T_TC(waitpid__fork_in_thread, "a fork() in another thread while waitpid(pid) "
    "blocks: the copy finds no child, the wait still takes the exit")
{
	struct w_forker w;
	int ctl[2], fd;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 13);
	w.pid = pid;
	w.wfd = ctl[1];
	w_waitpid_while(pid, 13, w_fork_then_release, &w);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

static void *
w_race_thread(void *arg)
{
	struct w_race *w = arg;
	int st;

	w->got = waitpid(w->pid, &st, 0);
	if (w->got == -1)
		w->got = -errno;
	return (NULL);
}

T_TC(waitpid__two_threads, "two threads wait for the same pid: one gets "
    "the child, the other ECHILD, and pdwait still reports it")
{
	struct w_race w[2];
	pthread_t t[2];
	int ctl[2], fd, i;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 12);
	for (i = 0; i < 2; i++) {
		w[i].pid = pid;
		ATF_REQUIRE(pthread_create(&t[i], NULL, w_race_thread,
		    &w[i]) == 0);
	}
	ATF_REQUIRE(write(ctl[1], "\n", 1) == 1);
	for (i = 0; i < 2; i++)
		ATF_REQUIRE(pthread_join(t[i], NULL) == 0);
	ATF_CHECK_MSG((w[0].got == pid && w[1].got == -ECHILD) ||
	    (w[1].got == pid && w[0].got == -ECHILD),
	    "got %d and %d for %d", w[0].got, w[1].got, (int)pid);
	w_pdwait_code(fd, 12);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(waitpid__after_pdwait, "pdwait reaps: a later waitpid(pid) finds no "
    "child")
{
	int fd, st;
	pid_t pid;

	pid = t_pdfork_exit(&fd, 0, 1);
	w_pdwait_code(fd, 1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, WNOHANG) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, 0) == -1);
	w_pdwait_code(fd, 1);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(waitpid__fork_copy, "in a fork() copy, which is not the parent, "
    "waitpid(pid) finds no child and pdwait works")
{
	int ctl[2], fd, st;
	pid_t f, pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 8);
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	if ((f = fork()) == 0) {
		if (waitpid(pid, &st, 0) != -1 || errno != ECHILD)
			_exit(1);
		if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 8)
			_exit(2);
		_exit(0);
	}
	ATF_REQUIRE(f > 0);
	ATF_CHECK_EQ(t_reap(f), 0);
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(close__reaps_unwaited, "the last close reaps an exited child nobody "
    "waited for; a later waitpid(pid) finds no child")
{
	int ctl[2], fd, pidfd, st;
	pid_t pid;

	pid = w_pdfork_byte(&fd, ctl, 0, 0);
	pidfd = t_watch(pid);
	w_release(fd, ctl);
	ATF_CHECK(w_zombie(pid));
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK(t_reaped_within(pidfd, T_LONG_MS));
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &st, WNOHANG) == -1);
	ATF_REQUIRE(close(pidfd) == 0);
}

/*
 * The last close (pdfork(3) WAITING, FreeBSD 15.1): from the moment close(2)
 * of the last copy returns, a wait for the pid fails with ECHILD, though the
 * guardian's word of it may not have reached the owner yet.  Each case
 * tries W_TRIES times, since the window it closes is short.
 */
#define	W_TRIES	100

/* waitpid(pid, WNOHANG) fails with ECHILD; else count a miss. */
static void
w_echild(pid_t pid, int *missp)
{
	int st;

	errno = 0;
	if (waitpid(pid, &st, WNOHANG) != -1 || errno != ECHILD)
		(*missp)++;
}

T_TC(lastclose__exited, "after the last close of an exited child's "
    "descriptor, waitpid(pid) fails with ECHILD at once")
{
	siginfo_t si;
	int fd, i, miss, watch;
	pid_t pid;

	for (miss = i = 0; i < W_TRIES; i++) {
		pid = t_pdfork_exit(&fd, 0, 0);
		watch = t_watch(pid);
		memset(&si, 0, sizeof(si));
		ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) ==
		    0);
		ATF_REQUIRE(close(fd) == 0);
		w_echild(pid, &miss);
		ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
		ATF_REQUIRE(close(watch) == 0);
	}
	ATF_CHECK_MSG(miss == 0, "%d of %d waits saw the child", miss, W_TRIES);
}

T_TC(lastclose__running, "after the last close of a running child's "
    "descriptor, waitpid(pid, WNOHANG) fails with ECHILD at once")
{
	int fd, i, miss, watch;
	pid_t pid;

	for (miss = i = 0; i < W_TRIES; i++) {
		pid = t_pdfork_pause(&fd, 0);
		watch = t_watch(pid);
		ATF_REQUIRE(close(fd) == 0);
		w_echild(pid, &miss);
		ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
		ATF_REQUIRE(close(watch) == 0);
	}
	ATF_CHECK_MSG(miss == 0, "%d of %d waits did not fail", miss,
	    W_TRIES);
}

T_TC(lastclose__daemon_exits_later, "a PD_DAEMON child whose descriptor "
    "was closed: waitpid(pid) fails with ECHILD before and after its exit, "
    "and the library reaps it")
{
	int ctl[2], fd, i, miss, st, watch;
	pid_t pid;

	for (miss = i = 0; i < W_TRIES; i++) {
		pid = w_pdfork_byte(&fd, ctl, PD_DAEMON, 5);
		watch = t_watch(pid);
		ATF_REQUIRE(close(fd) == 0);
		w_echild(pid, &miss);
		ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
		errno = 0;
		if (waitpid(pid, &st, 0) != -1 || errno != ECHILD)
			miss++;
		ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
		ATF_REQUIRE(close(watch) == 0);
		t_close_pipe(ctl);
	}
	ATF_CHECK_MSG(miss == 0, "%d of %d waits did not fail", miss,
	    2 * W_TRIES);
}

struct w_blocked {
	pid_t	wb_pid;
	pid_t	wb_tid;		/* The waiter, once it runs. */
	pid_t	wb_got;
	int	wb_errno;
};

static void *
w_blocked_waiter(void *arg)
{
	struct w_blocked *wb = arg;
	int st;

	__atomic_store_n(&wb->wb_tid, (pid_t)syscall(SYS_gettid),
	    __ATOMIC_SEQ_CST);
	errno = 0;
	wb->wb_got = waitpid(wb->wb_pid, &st, 0);
	wb->wb_errno = errno;
	return (NULL);
}

T_TC(lastclose__daemon_blocked_waiter, "a waitpid(pid) blocked before "
    "the last close of a PD_DAEMON child's descriptor fails with ECHILD "
    "at the child's later exit (capsicum-test's PipePdforkDaemon)")
{
	struct w_blocked wb;
	pthread_t t;
	int ctl[2], fd, i, miss, watch;

	for (miss = i = 0; i < W_TRIES / 5; i++) {
		memset(&wb, 0, sizeof(wb));
		wb.wb_pid = w_pdfork_byte(&fd, ctl, PD_DAEMON, 5);
		watch = t_watch(wb.wb_pid);
		ATF_REQUIRE(pthread_create(&t, NULL, w_blocked_waiter, &wb) ==
		    0);
		while (__atomic_load_n(&wb.wb_tid, __ATOMIC_SEQ_CST) == 0)
			sched_yield();
		ATF_REQUIRE(t_task_sleeping(getpid(), wb.wb_tid, T_LONG_MS));
		ATF_REQUIRE(close(fd) == 0);
		ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
		ATF_REQUIRE(pthread_join(t, NULL) == 0);
		if (wb.wb_got != -1 || wb.wb_errno != ECHILD)
			miss++;
		ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
		ATF_REQUIRE(close(watch) == 0);
		t_close_pipe(ctl);
	}
	ATF_CHECK_MSG(miss == 0, "%d of %d blocked waits took the child", miss,
	    W_TRIES / 5);
}

T_TC(lastclose__copies_elsewhere, "the owner's close is not the last "
    "while a dup or a fork() child holds a copy: waitpid(pid) still sees "
    "the child; after the copy's close, ECHILD at once")
{
	int ctl[2], fd, fd2, miss, st, watch;
	pid_t f, pid;
	char c;

	miss = 0;
	pid = t_pdfork_pause(&fd, 0);
	watch = t_watch(pid);
	ATF_REQUIRE((fd2 = dup(fd)) != -1);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);
	ATF_REQUIRE(close(fd2) == 0);
	w_echild(pid, &miss);
	ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
	ATF_REQUIRE(close(watch) == 0);

	pid = t_pdfork_pause(&fd, 0);
	watch = t_watch(pid);
	ATF_REQUIRE(pipe(ctl) == 0);
	if ((f = fork()) == 0) {
		(void)read(ctl[0], &c, 1);
		_exit(0);
	}
	ATF_REQUIRE(f > 0);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_EQ(waitpid(pid, &st, WNOHANG), 0);
	ATF_CHECK(t_alive(watch));
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	ATF_CHECK_EQ(t_reap(f), 0);
	w_echild(pid, &miss);
	ATF_REQUIRE(t_reaped_within(watch, T_LONG_MS));
	ATF_REQUIRE(close(watch) == 0);
	t_close_pipe(ctl);
	ATF_CHECK_MSG(miss == 0, "%d waits after the last close did not fail",
	    miss);
}

static void *
w_wait_any(void *arg)
{
	int st;

	errno = 0;
	*(int *)arg = wait(&st) == -1 ? errno : 0;
	return (NULL);
}

T_TC(lastclose__owed_exit, "an exec'd child's exit taken out of the way "
    "by a wildcard wait in another thread, then the last close: "
    "waitpid(pid) fails with ECHILD, not the owed exit")
{
	pthread_t t;
	int ctl[2], ex[2], fd, i, miss, werr;
	pid_t pid;
	char c;

	for (miss = i = 0; i < W_TRIES / 2; i++) {
		/* ex: EOF once the child has exec'd, and sends SIGCHLD. */
		ATF_REQUIRE(pipe2(ex, O_CLOEXEC) == 0);
		pid = w_pdfork_exec(&fd, ctl, 0, 4);
		ATF_REQUIRE(close(ex[1]) == 0);
		ATF_REQUIRE(read(ex[0], &c, 1) == 0);
		ATF_REQUIRE(close(ex[0]) == 0);
		ATF_REQUIRE(pthread_create(&t, NULL, w_wait_any, &werr) == 0);
		w_release(fd, ctl);
		ATF_REQUIRE(pthread_join(t, NULL) == 0);
		ATF_CHECK_EQ(werr, ECHILD);
		ATF_REQUIRE(close(fd) == 0);
		w_echild(pid, &miss);
	}
	ATF_CHECK_MSG(miss == 0, "%d of %d waits took the owed exit", miss,
	    W_TRIES / 2);
}

/*
 * In a new pid namespace, as its init: the exited, unwaited child's pid
 * is not handed out again even when ns_last_pid points the next fork at
 * it, kill(pid) reaches only the zombie, and waitpid(pid) still reports
 * it.  The exit code says which check failed.
 */
static int
w_reuse_in_ns(void)
{
	int ctl[2], fd, st;
	pid_t again, pid;
	char buf[16];
	int n, nsfd;

	if (mount("proc", "/proc", "proc", 0, NULL) == -1)
		return (10);
	pid = w_pdfork_byte(&fd, ctl, 0, 11);
	w_release(fd, ctl);
	if ((nsfd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)) == -1)
		return (11);
	n = snprintf(buf, sizeof(buf), "%d", (int)pid - 1);
	if (write(nsfd, buf, (size_t)n) != n)
		return (12);
	close(nsfd);
	if ((again = fork()) == 0)
		_exit(0);
	if (again == pid)
		return (13);
	if (kill(pid, 0) != 0 || !w_zombie(pid))
		return (14);
	if (waitpid(again, &st, 0) != again)
		return (15);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 11)
		return (16);
	close(fd);
	return (0);
}

T_TC(pid__reserved_until_waited, "the exited child's pid is not reused "
    "while it is unwaited and its descriptor open (ns_last_pid)")
{
	pid_t f;

	if (geteuid() != 0)
		atf_tc_skip("needs root: a pid namespace and ns_last_pid");
	if ((f = fork()) == 0) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
			_exit(20);
		if ((f = fork()) == 0)
			_exit(w_reuse_in_ns());
		_exit(f > 0 ? t_reap(f) : 21);
	}
	ATF_REQUIRE(f > 0);
	ATF_CHECK_EQ(t_reap(f), 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, waitpid__pid_reaps);
	ATF_TP_ADD_TC(tp, waitpid__blocks);
	ATF_TP_ADD_TC(tp, waitpid__cancel);
	ATF_TP_ADD_TC(tp, waitpid__restart);
	ATF_TP_ADD_TC(tp, wait4__rusage);
	ATF_TP_ADD_TC(tp, waitid__pid_and_pidfd);
	ATF_TP_ADD_TC(tp, waitpid__stop_continue);
	ATF_TP_ADD_TC(tp, waitpid__bad_args);
	ATF_TP_ADD_TC(tp, nowaitpid__hidden);
	ATF_TP_ADD_TC(tp, wildcard__never);
	ATF_TP_ADD_TC(tp, wildcard__exec_child);
	ATF_TP_ADD_TC(tp, wildcard__exec_running);
	ATF_TP_ADD_TC(tp, waitpid__two_threads);
	ATF_TP_ADD_TC(tp, waitpid__fork_in_thread);
	ATF_TP_ADD_TC(tp, waitpid__after_pdwait);
	ATF_TP_ADD_TC(tp, waitpid__fork_copy);
	ATF_TP_ADD_TC(tp, close__reaps_unwaited);
	ATF_TP_ADD_TC(tp, pid__reserved_until_waited);
	ATF_TP_ADD_TC(tp, lastclose__exited);
	ATF_TP_ADD_TC(tp, lastclose__running);
	ATF_TP_ADD_TC(tp, lastclose__daemon_exits_later);
	ATF_TP_ADD_TC(tp, lastclose__daemon_blocked_waiter);
	ATF_TP_ADD_TC(tp, lastclose__copies_elsewhere);
	ATF_TP_ADD_TC(tp, lastclose__owed_exit);
	return (atf_no_error());
}
