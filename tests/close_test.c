/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Close kills: closing the last reference to a descriptor's open file
 * description SIGKILLs a child that is not PD_DAEMON.
 */

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/procdesc.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_pidfd.h"
#include "testutil.h"

/* Closing the only descriptor kills the child. */
T_TC(close__kills, "close of the only descriptor kills the child")
{
	int fd, w;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

/*
 * The child behind w (a pidfd from pidfd_open) was killed by SIGKILL, as
 * the kernel tells any holder of a pidfd after the reap (PIDFD_INFO_EXIT,
 * Linux 6.15; not checked before).  A raw pidfd is no process descriptor:
 * nothing of the library's is asked.
 */
static void
killed_status(int w)
{
	struct pidfd_info info;

	if (!t_kernel_exit_info())
		return;
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	ATF_REQUIRE(ioctl(w, PIDFD_GET_INFO, &info) == 0);
	ATF_REQUIRE((info.mask & PIDFD_INFO_EXIT) != 0);
	ATF_CHECK(WIFSIGNALED(info.exit_code));
	ATF_CHECK_EQ(WTERMSIG(info.exit_code), SIGKILL);
}

/* The child dies of SIGKILL, as FreeBSD's close does. */
T_TC(close__sigkill, "the close kills with SIGKILL")
{
	siginfo_t si;
	int fd, w;
	pid_t pid;

	/* pdkill's SIGKILL, seen through the descriptor. */
	pid = t_pdfork_pause(&fd, PD_DAEMON);
	w = t_watch(pid);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, &si) == 0);
	ATF_CHECK_EQ(si.si_code, CLD_KILLED);
	ATF_CHECK_EQ(si.si_status, SIGKILL);
	killed_status(w);
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(close(fd) == 0);

	/* The close's, seen through another description of the process. */
	pid = t_pdfork_pause(&fd, 0);
	w = t_watch(pid);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	killed_status(w);
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	ATF_REQUIRE(close(w) == 0);
}

/* A PD_DAEMON child survives the last close. */
T_TC(close__daemon_survives, "PD_DAEMON: the last close does not kill")
{
	int fd, w;

	w = t_watch(t_pdfork_pause(&fd, PD_DAEMON));
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_CHECK(t_alive(w));
	t_kill_wait(w);
}

/* A copy made by mkcopy keeps the child alive; closing it too kills. */
static void
copy_keeps_alive(int (*mkcopy)(int))
{
	int fd, fd2, w;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE((fd2 = mkcopy(fd)) >= 0);
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_REQUIRE(t_alive(w));
	ATF_REQUIRE(close(fd2) == 0);
	t_expect_death(w);
}

static int
dupfd_high(int fd)
{

	return (fcntl(fd, F_DUPFD_CLOEXEC, 100));
}

/* Of two dup()s, closing one keeps the child; closing both kills it. */
T_TC(close__dup_pair, "the last of two dups kills, the first does not")
{

	copy_keeps_alive(dup);
}

/* F_DUPFD copies keep the child alive like dup(). */
T_TC(close__fdupfd, "an F_DUPFD_CLOEXEC copy keeps the child alive")
{

	copy_keeps_alive(dupfd_high);
}

/* dup2 over the only descriptor is a close: the child dies. */
T_TC(close__dup2_over, "dup2 over the descriptor kills the child")
{
	int fd, w, devnull;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE((devnull = open("/dev/null", O_RDONLY)) >= 0);
	ATF_REQUIRE(dup2(devnull, fd) == fd);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(devnull) == 0);
	ATF_REQUIRE(close(w) == 0);
}

/* close_range over the descriptor is a close. */
T_TC(close__close_range, "close_range over the descriptor kills")
{
	int fd, w;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE(syscall(SYS_close_range, fd, fd, 0) == 0);
	t_expect_death(w);
}

/*
 * Fork a process that holds copies of our descriptors and execs a shell
 * waiting for a line on a pipe; returns its pid, *inp the pipe to it.
 */
static pid_t
t_fork_exec_reader(int *inp, int *readyp)
{
	int in[2], ready[2];
	pid_t f;

	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(ready, O_CLOEXEC) == 0);
	f = fork();
	ATF_REQUIRE(f >= 0);
	if (f == 0) {
		/*
		 * stdin: the pipe; fd 9: ready pipe, written after exec (a
		 * number no descriptor of the test's has).
		 */
		if (dup2(in[0], 0) == -1 || dup2(ready[1], 9) == -1 ||
		    fcntl(9, F_SETFD, 0) == -1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", "echo >&9; read x", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(ready[1]) == 0);
	*inp = in[1];
	*readyp = ready[0];
	return (f);
}

static void
t_end_reader(pid_t f, int in, int ready)
{
	int status;

	ATF_REQUIRE(close(in) == 0);	/* EOF: read returns, sh exits. */
	ATF_REQUIRE(waitpid(f, &status, 0) == f);
	ATF_REQUIRE(close(ready) == 0);
}

/* Exec in a forked copy closes a PD_CLOEXEC descriptor: the child dies. */
T_TC(close__exec_cloexec, "exec closing the last PD_CLOEXEC copy kills")
{
	int fd, w, in, ready;
	pid_t f;
	char c;

	w = t_watch(t_pdfork_pause(&fd, PD_CLOEXEC));
	f = t_fork_exec_reader(&in, &ready);
	ATF_REQUIRE(close(fd) == 0);
	/* The fork's copy closes at its exec. */
	ATF_REQUIRE(read(ready, &c, 1) == 1);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	t_end_reader(f, in, ready);
	ATF_REQUIRE(close(w) == 0);
}

/*
 * Without PD_CLOEXEC the forked copy survives the exec and keeps the
 * child alive; that process exiting is the last close.
 */
T_TC(close__exec_kept, "a copy kept across exec keeps the child alive")
{
	int fd, w, in, ready;
	pid_t f;
	char c;

	w = t_watch(t_pdfork_pause(&fd, 0));
	f = t_fork_exec_reader(&in, &ready);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(read(ready, &c, 1) == 1);
	t_close_barrier();
	ATF_CHECK(t_alive(w));
	t_end_reader(f, in, ready);
	t_expect_death(w);
}

#define	NMANY	200

/* 200 children whose descriptors are closed at once all die. */
T_TC(close__many, "200 children closed at once all die")
{
	int fd[NMANY], w[NMANY], i;

	for (i = 0; i < NMANY; i++)
		w[i] = t_watch(t_pdfork_pause(&fd[i], 0));
	for (i = 0; i < NMANY; i++)
		ATF_REQUIRE(close(fd[i]) == 0);
	for (i = 0; i < NMANY; i++) {
		ATF_REQUIRE_MSG(t_dead_within(w[i], T_LONG_MS),
		    "child %d survived", i);
		ATF_REQUIRE(t_reaped_within(w[i], T_LONG_MS));
		ATF_REQUIRE(close(w[i]) == 0);
	}
}

#define	NTHREADS	4
#define	NROUNDS		50

static void *
churn(void *arg)
{
	int fd, w, i, *bad;
	pid_t pid;

	bad = arg;
	for (i = 0; i < NROUNDS; i++) {
		if ((pid = pdfork(&fd, 0)) == -1) {
			(*bad)++;
			continue;
		}
		if (pid == 0) {
			/*
			 * Drop the copies of the other threads' descriptors
			 * that this child inherited: two children holding
			 * each other's would keep each other alive (so they
			 * would on FreeBSD).
			 */
			syscall(SYS_close_range, 3, ~0U, 0);
			for (;;)
				pause();
		}
		w = (int)syscall(SYS_pidfd_open, pid, 0);
		close(fd);
		if (w == -1 || !t_dead_within(w, T_LONG_MS) ||
		    !t_reaped_within(w, T_LONG_MS))
			(*bad)++;
		if (w != -1)
			close(w);
	}
	return (NULL);
}

/* pdfork and close from 4 threads at once: every child dies, no leak. */
T_TC(close__threads, "concurrent pdfork/close from 4 threads")
{
	pthread_t td[NTHREADS];
	int bad[NTHREADS], i;

	for (i = 0; i < NTHREADS; i++) {
		bad[i] = 0;
		ATF_REQUIRE(pthread_create(&td[i], NULL, churn, &bad[i]) == 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		ATF_REQUIRE(pthread_join(td[i], NULL) == 0);
		ATF_CHECK_EQ_MSG(bad[i], 0, "thread %d: %d failures", i,
		    bad[i]);
	}
}

/*
 * The application closing the library's own descriptor (closefrom(3))
 * breaks nothing: children guarded before still die on close, new ones
 * are guarded by a new guardian, pdwait still works.
 */
ATF_TC_WITHOUT_HEAD(close__closefrom_internal);
ATF_TC_BODY(close__closefrom_internal, tc)
{
	int fd, fd2, s, s2, w, status;

	(void)tc;
	t_init();

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE((s = t_guardian_sock()) >= 0);
	ATF_REQUIRE(close(s) == 0);
	/* The number is reused by something else of the application's. */
	ATF_REQUIRE(open("/dev/null", O_RDONLY) == s);
	t_pdfork_exit(&fd2, 0, 9);
	ATF_REQUIRE(pdwait(fd2, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	ATF_REQUIRE(close(fd2) == 0);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
	/* The new guardian guards new children. */
	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
	/* Our /dev/null is untouched; the library has a new socket. */
	ATF_REQUIRE(fcntl(s, F_GETFD) != -1);
	ATF_REQUIRE(close(s) == 0);
	ATF_REQUIRE((s2 = t_guardian_sock()) >= 0);
	ATF_CHECK(s2 != s);
	/* The leak check, but for the library's socket's new number. */
	ATF_CHECK_EQ(t_nchildren(), 0);
}


/*
 * Without close_range (before Linux 5.9), a guardian's sentry still keeps
 * nothing of its owner: a process that holds a copy of another's
 * descriptor when it starts its own guardian does not keep that child
 * alive once every copy is closed.
 */
T_TC(close__sentry_without_close_range, "a guardian started without "
    "close_range holds no copy of its owner's descriptors")
{
	int fd, gfd, st, w, ready[2];
	ssize_t n;
	pid_t y, g;
	char c;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE(pipe(ready) == 0);
	ATF_REQUIRE((y = fork()) != -1);
	if (y == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		(void)close(ready[0]);
		/* The first pdfork here starts this process's guardian. */
		if (t_refuse_syscall(SYS_close_range, T_ANY_ARG, ENOSYS) == -1)
			_exit(100);
		if ((g = pdfork(&gfd, 0)) == 0)
			_exit(0);
		if (g == -1 || pdwait(gfd, &st, WEXITED, NULL, NULL) != 0)
			_exit(101);
		(void)close(gfd);
		(void)close(fd);
		(void)write(ready[1], "r", 1);
		for (;;)
			pause();	/* Keeps its guardian. */
	}
	ATF_REQUIRE(close(ready[1]) == 0);
	n = read(ready[0], &c, 1);
	ATF_REQUIRE(close(fd) == 0);
	if (n == 1)
		ATF_CHECK_MSG(t_dead_within(w, T_LONG_MS),
		    "the other guardian's sentry kept the descriptor");
	/* Its sentry too: a guardian holding a copy would outlive it. */
	if (t_children_of(y, T_CHILDREN_SENTRIES, &g, 1) == 1)
		(void)kill(g, SIGKILL);
	(void)kill(y, SIGKILL);
	ATF_REQUIRE(waitpid(y, &st, 0) == y);
	ATF_CHECK_MSG(n == 1, "the other process failed: status %#x", st);
	ATF_REQUIRE(close(ready[0]) == 0);
	t_kill_wait(w);
}

/*
 * Without pidfd_getfd(2) (before Linux 5.6) the reaper cannot copy its
 * guardian's socket into a descriptor table of its own; it must then work
 * in the application's, or nobody reads the guardian's word of the last
 * close and the exited child stays a zombie for the owner's lifetime.
 */
static int
reap_without_getfd(void)
{
	struct pollfd pfd;
	int64_t deadline;
	pid_t pid;
	int fd, n;

	if (t_refuse_syscall(SYS_pidfd_getfd, T_ANY_ARG, ENOSYS) == -1)
		return (100);
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(0);
	if (pid == -1)
		return (101);
	pfd.fd = fd;
	pfd.events = POLLHUP;
	if (poll(&pfd, 1, T_LONG_MS) != 1)
		return (102);
	(void)close(fd);
	deadline = t_now_ms() + T_LONG_MS;
	while ((n = t_children(T_CHILDREN_OTHERS, NULL, 0)) != 0 &&
	    t_now_ms() < deadline)
		(void)poll(NULL, 0, 1);
	return (n == 0 ? 0 : 103);
}

/*
 * fn's result in a process of its own, whose first pdfork starts its own
 * guardian under the seccomp filter fn installs first.
 */
static int
in_new_owner(int (*fn)(void))
{
	pid_t y;

	ATF_REQUIRE((y = fork()) != -1);
	if (y == 0)
		_exit(fn());
	return (t_reap(y));
}

T_TC(close__reap_without_pidfd_getfd, "without pidfd_getfd the last "
    "close still reaps the child")
{

	ATF_CHECK_EQ_MSG(in_new_owner(reap_without_getfd), 0, "100: no "
	    "seccomp; 103: the exited child stayed a zombie after its last "
	    "close");
}

/*
 * Where kcmp(2) is refused (no CONFIG_KCMP; a container's seccomp profile)
 * the guardian reads its oracle from /proc/self/fdinfo instead: a holder's
 * shutdown(2) still kills nothing, the last close still kills.  Returns 0,
 * or which step failed.
 */
static int
oracle_without_kcmp(void)
{
	struct pollfd pfd;
	int fd, copy, w, bfd, bw;
	pid_t pid, b;

	if (t_refuse_syscall(SYS_kcmp, T_ANY_ARG, ENOSYS) == -1)
		return (100);
	/* The first pdfork here starts this process's guardian. */
	if ((pid = pdfork(&fd, 0)) == 0)
		for (;;)
			pause();
	if (pid == -1 || (w = (int)syscall(SYS_pidfd_open, pid, 0)) == -1 ||
	    (copy = dup(fd)) == -1)
		return (101);
	if (shutdown(copy, SHUT_RDWR) == -1 || close(fd) == -1)
		return (102);
	/* A barrier: the guardian takes B's events in their order. */
	if ((b = pdfork(&bfd, 0)) == 0)
		for (;;)
			pause();
	if (b == -1 || (bw = (int)syscall(SYS_pidfd_open, b, 0)) == -1)
		return (103);
	(void)close(bfd);
	pfd.fd = bw;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) != 1)
		return (103);
	pfd.fd = w;
	if (poll(&pfd, 1, 0) != 0)
		return (104);
	(void)close(copy);
	return (poll(&pfd, 1, T_LONG_MS) == 1 ? 0 : 105);
}

T_TC(close__oracle_without_kcmp, "without kcmp(2) a holder's shutdown "
    "kills nothing and the last close kills")
{

	ATF_CHECK_EQ_MSG(in_new_owner(oracle_without_kcmp), 0, "100: no "
	    "seccomp; 104: a holder's shutdown or the first close killed the "
	    "child; 105: it survived its last close");
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, close__kills);
	ATF_TP_ADD_TC(tp, close__sigkill);
	ATF_TP_ADD_TC(tp, close__daemon_survives);
	ATF_TP_ADD_TC(tp, close__dup_pair);
	ATF_TP_ADD_TC(tp, close__fdupfd);
	ATF_TP_ADD_TC(tp, close__dup2_over);
	ATF_TP_ADD_TC(tp, close__close_range);
	ATF_TP_ADD_TC(tp, close__exec_cloexec);
	ATF_TP_ADD_TC(tp, close__exec_kept);
	ATF_TP_ADD_TC(tp, close__many);
	ATF_TP_ADD_TC(tp, close__threads);
	ATF_TP_ADD_TC(tp, close__closefrom_internal);
	ATF_TP_ADD_TC(tp, close__sentry_without_close_range);
	ATF_TP_ADD_TC(tp, close__reap_without_pidfd_getfd);
	ATF_TP_ADD_TC(tp, close__oracle_without_kcmp);
	return (atf_no_error());
}
