/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A test program without ATF, for builds ATF is not made for: the library
 * linked statically against musl (make check-musl).  It covers what a
 * porter relies on first: pdfork and pdgetpid, a status through pdwait
 * that wait(2) does not see and waitpid(pid) does, POLLIN and POLLHUP, pdkill, the close that
 * kills, and a child of a busy multi-threaded parent that goes through
 * the C library's own fork() (its atfork handlers run, malloc and the
 * thread id work).  Prints one line per check and, last,
 * "N passed, N failed, N skipped"; exits 1 if any check failed.
 *
 * A hang is a failure too: every wait for a child is a poll with
 * SMOKE_HANG_MS as its limit, never a sleep.
 */

#include <sys/prctl.h>
#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	SMOKE_HANG_MS	30000	/* A child this late is stuck. */
#define	SMOKE_CHILDREN	50	/* Forks under load, as in forksafe_test. */
#define	SMOKE_THREADS	4	/* Busy threads while they fork. */
#define	SMOKE_SUD	59	/* PR_SET_SYSCALL_USER_DISPATCH (5.11). */

static int npass, nfail, nskip;
static atomic_bool busy_stop;
static volatile sig_atomic_t atfork_ran, usr1_seen;

static void
check(bool ok, const char *what)
{

	printf("%s: %s\n", ok ? "passed" : "FAILED", what);
	if (ok)
		npass++;
	else
		nfail++;
}

static void
skip(const char *what, const char *why)
{

	printf("skipped: %s (%s)\n", what, why);
	nskip++;
}

/* Wait for events on fd for at most SMOKE_HANG_MS; the revents. */
static short
wait_fd(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	if (poll(&pfd, 1, SMOKE_HANG_MS) != 1)
		return (0);
	return (pfd.revents);
}

/* pdwait for a child that has exited or will; -1 if it hangs. */
static int
reap(int fd, int *status)
{

	if ((wait_fd(fd, POLLIN) & (POLLIN | POLLHUP)) == 0) {
		(void)pdkill(fd, SIGKILL);
		return (-1);
	}
	return (pdwait(fd, status, WEXITED, NULL, NULL));
}

static void
check_exit_status(void)
{
	pid_t pid, got;
	int fd, status;

	if ((pid = pdfork(&fd, 0)) == -1) {
		check(false, "pdfork");
		return;
	}
	if (pid == 0)
		_exit(42);
	check(pdgetpid(fd, &got) == 0 && got == pid,
	    "pdgetpid names the child");
	check(reap(fd, &status) == 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 42, "pdwait reports exit status 42");
	check(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD,
	    "waitpid(-1) does not see the pdfork child");
	close(fd);
}

/* The waiting rules: a wait by pid takes the child, pdwait still sees it. */
static void
check_waitpid(void)
{
	pid_t pid;
	int fd, status;

	if ((pid = pdfork(&fd, 0)) == -1) {
		check(false, "pdfork for waitpid");
		return;
	}
	if (pid == 0)
		_exit(7);
	status = 0;
	check(wait_fd(fd, POLLIN) != 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 7,
	    "waitpid(pid) reports exit status 7");
	status = 0;
	check(pdwait(fd, &status, WEXITED, NULL, NULL) == 0 &&
	    WEXITSTATUS(status) == 7, "pdwait reports it after waitpid");
	close(fd);
}

/* Nothing while the child runs; POLLHUP and POLLIN once it has exited. */
static void
check_pollhup(void)
{
	struct pollfd pfd;
	pid_t pid;
	int fd, p[2], status;
	char c;

	if (pipe(p) == -1 || (pid = pdfork(&fd, 0)) == -1) {
		check(false, "pdfork for poll");
		return;
	}
	if (pid == 0) {
		(void)read(p[0], &c, 1);
		_exit(0);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 0) == 0, "poll reports nothing while it runs");
	(void)write(p[1], "x", 1);
	check((wait_fd(fd, 0) & POLLHUP) != 0, "POLLHUP once it has exited");
	check((wait_fd(fd, POLLIN) & POLLIN) != 0, "POLLIN once it has exited");
	check(reap(fd, &status) == 0 && WIFEXITED(status),
	    "pdwait after poll");
	close(p[0]);
	close(p[1]);
	close(fd);
}

static void
check_pdkill(void)
{
	pid_t pid;
	int fd, status;

	if ((pid = pdfork(&fd, 0)) == -1) {
		check(false, "pdfork for pdkill");
		return;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	check(pdkill(fd, SIGTERM) == 0, "pdkill(SIGTERM)");
	check(reap(fd, &status) == 0 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGTERM, "pdwait reports SIGTERM");
	close(fd);
}

/* The last close kills: the child's death seen through a pidfd of ours. */
static void
check_close_kills(void)
{
	pid_t pid;
	int fd, pidfd;

	if ((pid = pdfork(&fd, 0)) == -1) {
		check(false, "pdfork for close");
		return;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd == -1) {
		check(false, "pidfd_open of the child");
		(void)pdkill(fd, SIGKILL);
		close(fd);
		return;
	}
	close(fd);
	check((wait_fd(pidfd, POLLIN) & POLLIN) != 0,
	    "closing the last descriptor kills the child");
	close(pidfd);
}

static void
on_atfork_child(void)
{

	atfork_ran = 1;
}

static void
on_usr1(int sig)
{

	(void)sig;
	usr1_seen = 1;
}

/* A thread that keeps malloc's and stdio's locks taken and released. */
static void *
busy(void *arg)
{
	char buf[64];
	void *p;

	(void)arg;
	while (!atomic_load(&busy_stop)) {
		p = malloc(1 + rand() % 4096);
		snprintf(buf, sizeof(buf), "%p", p);
		flockfile(stdout);
		funlockfile(stdout);
		free(p);
	}
	return (NULL);
}

/*
 * In the child: the C library's fork ran (its atfork handler did), the
 * thread id is right (a signal to ourselves arrives), malloc works.  Not
 * a FILE lock: musl's own fork() leaves one that another thread held
 * locked in the child (93 hangs in 200 plain forks measured), and a
 * pdfork child is a fork child of the C library, no more.  Exit code 0
 * when all hold.
 */
static void
forked_child(void)
{
	char *p;

	if (!atfork_ran)
		_exit(1);
	if (pthread_kill(pthread_self(), SIGUSR1) != 0 || !usr1_seen)
		_exit(2);
	if ((p = malloc(100000)) == NULL)
		_exit(3);
	memset(p, 1, 100000);
	free(p);
	_exit(0);
}

static void
check_fork_under_load(void)
{
	pthread_t th[SMOKE_THREADS];
	pid_t pid;
	int fd, i, ok, status;

	/* Without the dispatch, pdfork is a raw clone: see pdfork(3). */
	if (prctl(SMOKE_SUD, 0, 0, 0, 0) == -1) {
		skip("pdfork children of a busy process",
		    "no syscall user dispatch here");
		return;
	}
	signal(SIGUSR1, on_usr1);
	(void)pthread_atfork(NULL, NULL, on_atfork_child);
	for (i = 0; i < SMOKE_THREADS; i++)
		(void)pthread_create(&th[i], NULL, busy, NULL);
	ok = 0;
	for (i = 0; i < SMOKE_CHILDREN; i++) {
		if ((pid = pdfork(&fd, 0)) == -1)
			break;
		if (pid == 0)
			forked_child();
		if (reap(fd, &status) == 0 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			ok++;
		else {
			/* One is enough: each hang costs SMOKE_HANG_MS. */
			printf("child %d: status %#x\n", (int)pid, status);
			close(fd);
			break;
		}
		close(fd);
	}
	atomic_store(&busy_stop, true);
	for (i = 0; i < SMOKE_THREADS; i++)
		pthread_join(th[i], NULL);
	printf("fork under load: %d of %d children ran the C library's "
	    "fork, malloc, and a signal to their own thread\n", ok,
	    SMOKE_CHILDREN);
	check(ok == SMOKE_CHILDREN, "pdfork children of a busy process");
}

int
main(void)
{

	setvbuf(stdout, NULL, _IONBF, 0);
	check_exit_status();
	check_waitpid();
	check_pollhup();
	check_pdkill();
	check_close_kills();
	check_fork_under_load();
	printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
	return (nfail == 0 ? 0 : 1);
}
