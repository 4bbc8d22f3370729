/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdkill: a signal caught by the child (and the siginfo it sees), signal
 * 0, signals after the exit (no-ops), SIGKILL and a default action;
 * EINVAL for a bad signal number before the fd is looked at, EBADF, and
 * EPERM from the kernel's permission check.
 */

#include <sys/procdesc.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int usr1_pipe = -1;	/* The child's handler writes here. */
static pid_t usr1_sender;	/* The pid the handler expects as sender. */

static void
on_usr1(int sig, siginfo_t *si, void *uc)
{
	char c;

	(void)uc;
	c = (sig == SIGUSR1 && si->si_code == SI_USER &&
	    si->si_pid == usr1_sender) ? 'u' : 'x';
	(void)write(usr1_pipe, &c, 1);
}

/*
 * pdkill delivers a caught signal: the child's handler runs (and sees
 * SI_USER from the sender, a documented deviation) and the child goes on.
 */
T_TC(pdkill__caught, "pdkill delivers a signal to a handler")
{
	struct sigaction sa;
	sigset_t set, old;
	int c, fd, ready[2], hp[2], status;
	pid_t pid;

	T_SKIP_UNDER_TSAN(T_TSAN_NO_HANDLERS);
	ATF_REQUIRE(pipe(ready) == 0);
	ATF_REQUIRE(pipe(hp) == 0);
	usr1_sender = getpid();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ATF_REQUIRE(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		usr1_pipe = hp[1];
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_usr1;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGUSR1, &sa, NULL) == -1)
			_exit(1);
		(void)write(ready[1], "r", 1);
		sigemptyset(&set);
		(void)sigsuspend(&set);
		_exit(7);
	}
	ATF_REQUIRE(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	ATF_REQUIRE(close(ready[1]) == 0);
	ATF_REQUIRE(close(hp[1]) == 0);
	ATF_REQUIRE_EQ(t_read_byte(ready[0]), 'r');
	ATF_REQUIRE(pdkill(fd, SIGUSR1) == 0);
	c = t_read_byte(hp[0]);
	ATF_CHECK_MSG(c == 'u', "handler: %d ('x': wrong signo/si_code/si_pid, "
	    "-1: did not run)", c);
	if (c != 'u')
		(void)pdkill(fd, SIGKILL);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 7,
	    "status %#x", status);
	ATF_REQUIRE(close(ready[0]) == 0);
	ATF_REQUIRE(close(hp[0]) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdkill with signal 0 on a live child returns 0 and sends nothing: the
 * child still answers afterwards and dies of the next real signal.
 */
T_TC(pdkill__sig0, "pdkill(fd, 0) on a live child: 0, child runs on")
{
	int fd, status, ping[2], pong[2];
	pid_t pid;
	char c;

	ATF_REQUIRE(pipe(ping) == 0);
	ATF_REQUIRE(pipe(pong) == 0);
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		if (read(ping[0], &c, 1) == 1)
			(void)write(pong[1], &c, 1);
		for (;;)
			pause();
	}
	ATF_REQUIRE(close(pong[1]) == 0);
	ATF_CHECK_EQ(pdkill(fd, 0), 0);
	ATF_CHECK_EQ(pdkill(fd, 0), 0);
	ATF_REQUIRE(write(ping[1], "p", 1) == 1);
	ATF_CHECK_EQ_MSG(t_read_byte(pong[0]), 'p', "the child did not answer");
	status = 0;
	ATF_CHECK_ERRNO(EAGAIN,
	    pdwait(fd, &status, WEXITED | WNOHANG, NULL, NULL) == -1);
	ATF_REQUIRE(pdkill(fd, SIGTERM) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "status %#x", status);
	t_close_pipe(ping);
	ATF_REQUIRE(close(pong[0]) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdkill on a child that has exited, while the descriptor is open, is a
 * no-op that returns 0: right after the exit, once reaped, after pdwait.
 */
T_TC(pdkill__after_exit, "pdkill after the exit returns 0")
{
	int ctl[2], fd, w;
	pid_t pid;

	pid = t_pdfork_on_byte(&fd, ctl, 0);
	w = t_watch(pid);
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_CHECK_EQ(pdkill(fd, SIGTERM), 0);
	t_wait_reaped(fd);
	ATF_CHECK_EQ(pdkill(fd, 0), 0);
	ATF_CHECK_EQ(pdkill(fd, SIGKILL), 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_EQ(pdkill(fd, 0), 0);
	ATF_CHECK_EQ(pdkill(fd, SIGTERM), 0);
	t_close_pipe(ctl);
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdkill with signum < 0 or > 128 fails with EINVAL, before the fd. */
T_TC(pdkill__einval, "pdkill: EINVAL for signum -1 and 129, any fd")
{
	const int sigs[] = { -1, 129, INT_MIN, INT_MAX };
	int fd, p[2];
	size_t i;

	ATF_REQUIRE(pipe(p) == 0);
	t_pdfork_pause(&fd, 0);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		ATF_CHECK_ERRNO(EINVAL, pdkill(fd, sigs[i]) == -1);
		ATF_CHECK_ERRNO(EINVAL, pdkill(-1, sigs[i]) == -1);
		ATF_CHECK_ERRNO(EINVAL, pdkill(t_closed_fd(), sigs[i]) == -1);
		ATF_CHECK_ERRNO(EINVAL, pdkill(p[0], sigs[i]) == -1);
	}
	ATF_CHECK_EQ(pdkill(fd, 0), 0);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	t_close_pipe(p);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdkill on a bad fd or an open fd that is not a pd fails with EBADF. */
T_TC(pdkill__ebadf, "pdkill: EBADF for a bad fd and a non-pd fd")
{
	int f, p[2], s[2];

	f = t_regular_file();
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	ATF_CHECK_ERRNO(EBADF, pdkill(-1, 0) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(INT_MAX, SIGKILL) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(t_closed_fd(), SIGTERM) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(f, SIGTERM) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(p[0], 0) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(p[1], SIGKILL) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(s[0], SIGTERM) == -1);
	ATF_REQUIRE(close(f) == 0);
	t_close_pipe(p);
	t_close_pipe(s);
}

/* pdkill SIGKILL kills the child; pdwait reports the signal. */
T_TC(pdkill__sigkill, "pdkill SIGKILL kills")
{
	int fd, status;

	t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	status = 0;
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdkill of a signal whose default action is to terminate kills. */
T_TC(pdkill__sigterm, "pdkill SIGTERM (default action) kills")
{
	int fd, status;

	t_pdfork_pause(&fd, 0);
	ATF_REQUIRE(pdkill(fd, SIGTERM) == 0);
	status = 0;
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * What nobody can do with root's descriptor: see the pid, but not signal
 * the process (FreeBSD checks the holder's right to signal, as kill does).
 * A bit per failed expectation.
 */
static int
kill_as_nobody(int fd, pid_t pid)
{
	pid_t got;
	int bad;

	bad = 0;
	if (pdgetpid(fd, &got) != 0 || got != pid)
		bad |= 1;
	if (pdkill(fd, 0) != -1 || errno != EPERM)
		bad |= 2;
	if (pdkill(fd, SIGTERM) != -1 || errno != EPERM)
		bad |= 4;
	return (bad);
}

/*
 * pdkill is checked by the kernel's permissions: a descriptor passed to
 * a less privileged process grants it no right to signal (EPERM).
 */
T_TC(pdkill__eperm, "pdkill: EPERM for a holder that may not signal")
{
	int fd, w;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to hand a descriptor to nobody");
	pid = t_pdfork_pause(&fd, 0);
	w = t_watch(pid);
	ATF_CHECK_EQ(t_as_nobody(kill_as_nobody, fd, pid), 0);
	ATF_CHECK(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdkill__caught);
	ATF_TP_ADD_TC(tp, pdkill__sig0);
	ATF_TP_ADD_TC(tp, pdkill__after_exit);
	ATF_TP_ADD_TC(tp, pdkill__einval);
	ATF_TP_ADD_TC(tp, pdkill__ebadf);
	ATF_TP_ADD_TC(tp, pdkill__sigkill);
	ATF_TP_ADD_TC(tp, pdkill__sigterm);
	ATF_TP_ADD_TC(tp, pdkill__eperm);
	return (atf_no_error());
}
