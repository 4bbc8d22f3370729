/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The kernel's path (Linux 7.1+, NOTES 1.12): a PD_NOWAITPID child of a
 * process that may use CLONE_PIDFD_AUTOKILL gets the kernel's pidfd as
 * its descriptor, and the contract stays the same.  The cases that need
 * the kernel's path skip where it is not taken (every kernel before 7.1);
 * the choice, the forced path and the forgeries are checked everywhere.
 */

#include <sys/procdesc.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "linux_pidfd.h"

/* Whether fd is the kernel's close-kill pidfd (its O_TRUNC marker). */
static bool
a_kernel(int fd)
{
	int fl;

	fl = fcntl(fd, F_GETFL);
	ATF_REQUIRE(fl != -1);
	return ((fl & O_TRUNC) != 0);
}

/* Whether the kernel has the flags, probed as the library does. */
static bool
a_kernel_has_flags(void)
{
	struct {
		struct procdesc_clone_args v0;
		uint64_t set_tid, set_tid_size, cgroup;
	} ca;
	int pidfd;

	memset(&ca, 0, sizeof(ca));
	ca.v0.flags = CLONE_PIDFD | CLONE_INTO_CGROUP | CLONE_PIDFD_AUTOKILL |
	    CLONE_AUTOREAP | CLONE_NNP;
	ca.v0.pidfd = (uint64_t)(uintptr_t)&pidfd;
	ca.cgroup = INT_MAX;
	ATF_REQUIRE(syscall(SYS_clone3, &ca, sizeof(ca)) == -1);
	return (errno == EBADF);
}

/* A paused PD_NOWAITPID child on the kernel's path, else skip. */
static pid_t
a_start(int *fdp, int flags)
{
	pid_t pid;

	pid = t_pdfork_pause(fdp, PD_NOWAITPID | flags);
	if (!a_kernel(*fdp)) {
		ATF_REQUIRE(pdkill(*fdp, SIGKILL) == 0);
		ATF_REQUIRE(pdwait(*fdp, NULL, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(close(*fdp) == 0);
		atf_tc_skip("the kernel's close-kill is not taken here "
		    "(Linux 7.1+ and CAP_SYS_ADMIN or no_new_privs: NOTES 1.12)");
	}
	return (pid);
}

/* The same without ATF, in a forked helper: -1 on a failure. */
static int
a_code(int fd)
{
	int st;

	if (pdwait(fd, &st, WEXITED, NULL, NULL) != 0 || !WIFEXITED(st))
		return (-1);
	return (WEXITSTATUS(st));
}

/* A child's exit code through pdwait on fd. */
static int
a_wait_code(int fd)
{
	siginfo_t si;
	int st;

	memset(&si, 0, sizeof(si));
	ATF_REQUIRE_MSG(pdwait(fd, &st, WEXITED, NULL, &si) == 0,
	    "pdwait: %s", strerror(errno));
	ATF_REQUIRE(si.si_code == CLD_EXITED || si.si_code == CLD_KILLED);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

T_TC(choose__paths, "PD_NOWAITPID children take the kernel's path; "
    "the others, and PD_DAEMON ones, the guardian's")
{
	int fd, fd2, fd3;
	pid_t pid;

	pid = a_start(&fd, PD_CLOEXEC);
	ATF_CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC);
	(void)t_pdfork_pause(&fd2, 0);
	ATF_CHECK_MSG(t_is_pd(fd2), "a child without PD_NOWAITPID is the "
	    "guardian's");
	(void)t_pdfork_pause(&fd3, PD_NOWAITPID | PD_DAEMON);
	ATF_CHECK_MSG(t_is_pd(fd3), "PD_DAEMON is the guardian's");
	ATF_REQUIRE(pdkill(fd3, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd3, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd3) == 0 && close(fd2) == 0 && close(fd) == 0);
	(void)pid;
	pid = t_pdfork_pause(&fd, PD_NOWAITPID);
	ATF_CHECK_MSG(fcntl(fd, F_GETFD) == 0, "without PD_CLOEXEC the "
	    "kernel's pidfd is inherited across exec");
	ATF_REQUIRE(close(fd) == 0);
	(void)pid;
}

T_TC(choose__guardian_forced, "LIBPROCDESC_CLOSE_KILL=guardian: no "
    "child takes the kernel's path")
{
	int fd;

	ATF_REQUIRE(setenv("LIBPROCDESC_CLOSE_KILL", "guardian", 1) == 0);
	(void)t_pdfork_pause(&fd, PD_NOWAITPID);
	ATF_CHECK(t_is_pd(fd) && !a_kernel(fd));
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* In a helper that became nobody: pdfork's errno, or 0 and the path. */
static int
a_forced_as_nobody(bool nnp)
{
	pid_t pid, w;
	int fd, r;

	w = fork();
	ATF_REQUIRE(w >= 0);
	if (w == 0) {
		if (!t_become_nobody() ||
		    (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0))
			_exit(255);
		if ((pid = pdfork(&fd, PD_NOWAITPID)) == 0)
			_exit(0);
		if (pid == -1)
			_exit(errno);
		r = (fcntl(fd, F_GETFL) & O_TRUNC) != 0 ? 0 : 254;
		(void)pdwait(fd, NULL, WEXITED, NULL, NULL);
		_exit(r);
	}
	return (t_reap(w));
}

T_TC(choose__kernel_forced, "LIBPROCDESC_CLOSE_KILL=kernel: the kernel's "
    "path, or pdfork fails with no child")
{
	int fd;
	pid_t pid;

	ATF_REQUIRE(setenv("LIBPROCDESC_CLOSE_KILL", "kernel", 1) == 0);
	if (!a_kernel_has_flags()) {
		ATF_CHECK_ERRNO(ENOTSUP, pdfork(&fd, PD_NOWAITPID) == -1);
		ATF_CHECK_EQ(t_nchildren(), 0);
	} else {
		if (geteuid() != 0)
			atf_tc_skip("needs root, to lose CAP_SYS_ADMIN");
		ATF_CHECK_EQ_MSG(a_forced_as_nobody(false), EPERM, "without "
		    "CAP_SYS_ADMIN and without no_new_privs");
		ATF_CHECK_EQ_MSG(a_forced_as_nobody(true), 0, "with "
		    "no_new_privs, CLONE_NNP adds nothing");
	}
	/* A child that must be waited for by pid is the guardian's. */
	pid = t_pdfork_pause(&fd, 0);
	ATF_CHECK(t_is_pd(fd));
	ATF_REQUIRE(close(fd) == 0);
	(void)pid;
}

T_TC(ident__forgeries, "pidfd_open's pidfd, a plain clone3 pidfd and "
    "other files are no descriptors")
{
	struct procdesc_clone_args ca;
	int fd, pfd, plain, reg, st;
	pid_t pid, plainpid;

	pid = t_pdfork_pause(&fd, PD_NOWAITPID);
	pfd = t_watch(pid);
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)&plain;
	ca.exit_signal = SIGCHLD;
	plainpid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	ATF_REQUIRE(plainpid >= 0);
	if (plainpid == 0)
		t_pause();
	ATF_CHECK_ERRNO(EBADF, pdkill(pfd, SIGKILL) == -1);
	ATF_CHECK_ERRNO(EBADF, pdgetpid(pfd, &pid) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdwait(pfd, &st, WEXITED | WNOHANG, NULL,
	    NULL) == -1);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(pfd, 0, 0) == -1);
	ATF_CHECK_ERRNO(EBADF, pdkill(plain, SIGKILL) == -1);
	ATF_CHECK_ERRNO(EBADF, pdgetpid(plain, &pid) == -1);
	reg = t_regular_file();
	ATF_CHECK_ERRNO(EBADF, pdkill(reg, SIGKILL) == -1);
	ATF_REQUIRE(close(reg) == 0);
	ATF_CHECK(t_alive(pfd));
	ATF_REQUIRE(syscall(SYS_pidfd_send_signal, plain, SIGKILL, NULL,
	    0) == 0);
	ATF_REQUIRE(t_reap(plainpid) == -1);
	ATF_REQUIRE(close(plain) == 0);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(pfd);
}

/* A copy of fd held by a forked process until a byte on ctl. */
static pid_t
a_holder(int fd, int ctl[2])
{
	pid_t h;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	h = fork();
	ATF_REQUIRE(h >= 0);
	if (h == 0) {
		(void)t_read_byte(ctl[0]);
		_exit(fcntl(fd, F_GETFD) == -1 ? 1 : 0);
	}
	ATF_REQUIRE(close(ctl[0]) == 0);
	return (h);
}

T_TC(close__every_copy, "the child lives while any copy lives: dup, a "
    "fork copy, a message in flight; the last close kills it")
{
	int ctl[2], sv[2], d, fd, w;
	pid_t h, pid;
	char c;

	pid = a_start(&fd, PD_CLOEXEC);
	w = t_watch(pid);
	ATF_REQUIRE((d = dup(fd)) >= 0);
	h = a_holder(fd, ctl);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	c = 'x';
	ATF_REQUIRE(t_sendfd(sv[0], &c, 1, fd) == 0);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(d) == 0);
	ATF_CHECK_MSG(!t_dead_within(w, 100 * t_scale()), "killed while a "
	    "fork copy and a message in flight held it");
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	ATF_REQUIRE(t_reap(h) == 0);
	ATF_REQUIRE(close(ctl[1]) == 0);
	ATF_CHECK_MSG(!t_dead_within(w, 100 * t_scale()), "killed while a "
	    "message in flight held it");
	ATF_REQUIRE(close(sv[1]) == 0);
	ATF_REQUIRE(close(sv[0]) == 0);
	t_expect_death(w);
}

T_TC(close__exec_keeps, "a copy kept across exec (no PD_CLOEXEC) keeps "
    "the child alive until the exec'd program goes")
{
	int fd, w;
	pid_t h, pid;

	pid = a_start(&fd, 0);
	w = t_watch(pid);
	ATF_REQUIRE(fcntl(fd, F_GETFD) == 0);
	h = fork();
	ATF_REQUIRE(h >= 0);
	if (h == 0) {
		execl("/bin/sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(!t_dead_within(w, 100 * t_scale()), "killed while an "
	    "exec'd program held a copy");
	ATF_REQUIRE(kill(h, SIGKILL) == 0);
	ATF_REQUIRE(t_reap(h) == -1);
	t_expect_death(w);
}

T_TC(close__outsiders_keep_nothing, "pidfd_open and /proc/self/fd opens "
    "do not keep the child alive")
{
	char path[64];
	int fd, pfd, pf;
	pid_t pid;

	pid = a_start(&fd, PD_CLOEXEC);
	pfd = t_watch(pid);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pf = open(path, O_RDONLY | O_CLOEXEC);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(pfd);
	if (pf != -1) {
		ATF_CHECK(!a_kernel(pf));
		ATF_CHECK_ERRNO(EBADF, pdkill(pf, 0) == -1);
		ATF_REQUIRE(close(pf) == 0);
	}
}

T_TC(calls__on_the_kernel_path, "pdgetpid, pdkill, pddupfd and pdwait on "
    "the kernel's pidfd")
{
	siginfo_t si;
	pid_t got, pid;
	int fd, nfd, st;

	pid = a_start(&fd, PD_CLOEXEC);
	ATF_REQUIRE(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_CHECK_ERRNO(EAGAIN, pdwait(fd, &st, WEXITED | WNOHANG, NULL,
	    NULL) == -1);
	ATF_CHECK_ERRNO(ECHILD, pdwait(fd, &st, WUNTRACED, NULL,
	    NULL) == -1);
	nfd = pddupfd(fd, 0, 0);
	ATF_CHECK_MSG(nfd >= 0, "pddupfd: %s", strerror(errno));
	if (nfd >= 0)
		ATF_REQUIRE(close(nfd) == 0);
	ATF_CHECK_ERRNO(EINVAL, pdkill(fd, -1) == -1);
	ATF_REQUIRE(pdkill(fd, SIGTERM) == 0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(pdwait(fd, &st, WEXITED, NULL, &si) == 0);
	ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	ATF_CHECK(si.si_code == CLD_KILLED && si.si_status == SIGTERM);
	/* Repeatably, and the exited child takes no signal. */
	ATF_REQUIRE(pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) == 0);
	ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	ATF_CHECK(pdkill(fd, SIGKILL) == 0);
	ATF_CHECK_ERRNO(ESRCH, pdgetpid(fd, &got) == -1);
	ATF_REQUIRE(close(fd) == 0);
}

T_TC(holder__manipulations, "what a holder can do to its copy (read, "
    "write, shutdown, fcntl) changes nothing for the others")
{
	struct pollfd pfd;
	char c;
	int d, fd, st, w;
	pid_t pid;

	pid = a_start(&fd, PD_CLOEXEC);
	w = t_watch(pid);
	ATF_REQUIRE((d = dup(fd)) >= 0);
	ATF_CHECK_ERRNO(EINVAL, read(d, &c, 1) == -1);
	ATF_CHECK_ERRNO(EINVAL, write(d, "x", 1) == -1);
	ATF_CHECK_ERRNO(ENOTSOCK, shutdown(d, SHUT_RDWR) == -1);
	ATF_CHECK_ERRNO(ENOTSOCK, send(d, "x", 1, MSG_NOSIGNAL) == -1);
	ATF_REQUIRE(fcntl(d, F_SETFL, O_NONBLOCK | O_APPEND) == 0);
	/* The mark survives, and the others see a running child. */
	ATF_CHECK(a_kernel(fd));
	pfd.fd = fd;
	pfd.events = POLLIN | POLLHUP;
	ATF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	ATF_CHECK_ERRNO(EAGAIN, pdwait(fd, &st, WEXITED | WNOHANG, NULL,
	    NULL) == -1);
	ATF_CHECK(t_alive(w));
	ATF_REQUIRE(pdkill(d, SIGKILL) == 0);
	ATF_CHECK_EQ(a_wait_code(fd), 128 + SIGKILL);
	ATF_REQUIRE(close(d) == 0 && close(fd) == 0);
	t_expect_death(w);
}

/* As nobody, with a copy of root's descriptor: pdkill(0), pdgetpid. */
static int
a_nobody_uses(int fd, pid_t pid)
{
	pid_t got;

	if (pdkill(fd, SIGKILL) != -1 || errno != EPERM)
		return (1);
	if (pdgetpid(fd, &got) != 0 || got != pid)
		return (2);
	return (0);
}

T_TC(holder__other_uid, "a holder of another uid acts with its own "
    "credentials: it reads the pid, and may not kill root's child")
{
	int fd, w;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root, to hand a copy to nobody");
	pid = a_start(&fd, 0);
	w = t_watch(pid);
	ATF_CHECK_EQ(t_as_nobody(a_nobody_uses, fd, pid), 0);
	ATF_CHECK(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

struct a_waiter {
	int		fd;
	pid_t		tid;
	siginfo_t	si;
	int		error;
};

static void *
a_waiter(void *arg)
{
	struct a_waiter *aw;

	aw = arg;
	aw->tid = (pid_t)syscall(SYS_gettid);
	memset(&aw->si, 0, sizeof(aw->si));
	aw->error = pdwait(aw->fd, NULL, WEXITED, NULL, &aw->si) == 0 ? 0 :
	    errno;
	return (NULL);
}

T_TC(wait__pid_and_uid, "a pdwait begun while the child runs reports "
    "its pid and uid, which the kernel forgets at the reap")
{
	struct a_waiter aw;
	pthread_t t;
	pid_t pid;

	pid = a_start(&aw.fd, PD_CLOEXEC);
	aw.tid = 0;
	ATF_REQUIRE(pthread_create(&t, NULL, a_waiter, &aw) == 0);
	while (__atomic_load_n(&aw.tid, __ATOMIC_SEQ_CST) == 0)
		sched_yield();
	ATF_REQUIRE(t_task_sleeping(getpid(), aw.tid, T_LONG_MS));
	ATF_REQUIRE(pdkill(aw.fd, SIGKILL) == 0);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	ATF_REQUIRE_EQ(aw.error, 0);
	ATF_CHECK(aw.si.si_code == CLD_KILLED && aw.si.si_status == SIGKILL);
	ATF_CHECK_EQ(aw.si.si_pid, pid);
	ATF_CHECK_EQ(aw.si.si_uid, getuid());
	ATF_REQUIRE(close(aw.fd) == 0);
}

T_TC(exit__wnohang_after_wakeup, "pdwait(WNOHANG) right after a poller's "
    "first wake-up at the exit always finds the exit (2,000 exits)")
{
	struct pollfd pfd;
	int fd, i, misses, st;
	pid_t pid;

	pid = a_start(&fd, PD_CLOEXEC);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
	for (misses = i = 0; i < 2000; i++) {
		pid = pdfork(&fd, PD_NOWAITPID | PD_CLOEXEC);
		ATF_REQUIRE(pid >= 0);
		if (pid == 0)
			_exit(3);
		pfd.fd = fd;
		pfd.events = POLLIN | POLLHUP;
		ATF_REQUIRE(poll(&pfd, 1, T_LONG_MS) == 1);
		if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) != 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 3)
			misses++;
		ATF_REQUIRE(close(fd) == 0);
	}
	ATF_CHECK_EQ_MSG(misses, 0, "%d of 2000 pdwait(WNOHANG) found nothing "
	    "after the first wake-up", misses);
}

T_TC(exit__every_holder, "every holder sees POLLHUP and reads the exit: "
    "the owner, a fork copy, a receiver")
{
	int ctl[2], sv[2], fd, rfd;
	struct pollfd pfd;
	pid_t h, pid;
	char c;

	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0);
	pid = pdfork(&fd, PD_NOWAITPID | PD_CLOEXEC);
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		(void)close(ctl[1]);
		_exit(t_read_byte(ctl[0]) == 'x' ? 7 : 1);
	}
	ATF_REQUIRE(close(ctl[0]) == 0);
	if (!a_kernel(fd)) {
		ATF_REQUIRE(close(ctl[1]) == 0);
		ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(close(fd) == 0);
		atf_tc_skip("the kernel's close-kill is not taken here");
	}
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	h = fork();
	ATF_REQUIRE(h >= 0);
	if (h == 0) {
		/* The fork copy, and a receiver of a copy. */
		if (t_recvfd(sv[1], &c, 1, &rfd, 0) != 1 || rfd == -1)
			_exit(2);
		/*
		 * The first wake-up may carry POLLIN alone: the kernel's
		 * reap follows the exit (pdfork(3), Two close-kill paths).
		 */
		pfd.fd = rfd;
		pfd.events = POLLIN;
		do
			if (poll(&pfd, 1, -1) != 1)
				_exit(3);
		while ((pfd.revents & POLLHUP) == 0);
		_exit(a_code(fd) == 7 && a_code(rfd) == 7 ? 0 : 4);
	}
	c = 'x';
	ATF_REQUIRE(t_sendfd(sv[0], &c, 1, fd) == 0);
	ATF_REQUIRE(write(ctl[1], "x", 1) == 1);
	pfd.fd = fd;
	pfd.events = POLLIN | POLLHUP;
	do
		ATF_REQUIRE(poll(&pfd, 1, -1) == 1);
	while ((pfd.revents & POLLHUP) == 0);
	ATF_CHECK_EQ(a_wait_code(fd), 7);
	ATF_CHECK_EQ(a_wait_code(fd), 7);
	ATF_CHECK_EQ(t_reap(h), 0);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, NULL, WNOHANG) == -1);
	ATF_REQUIRE(close(ctl[1]) == 0 && close(sv[0]) == 0 &&
	    close(sv[1]) == 0 && close(fd) == 0);
}

T_TC(waits__never, "no wait by pid or for any child sees the child, "
    "before or after its exit")
{
	int fd, w;
	pid_t pid;

	pid = a_start(&fd, PD_CLOEXEC);
	w = t_watch(pid);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, NULL, WNOHANG) == -1);
	ATF_CHECK_ERRNO(ECHILD, waitpid(-1, NULL, WNOHANG) == -1);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, NULL, WNOHANG) == -1);
	ATF_CHECK_ERRNO(ECHILD, wait(NULL) == -1);
	ATF_CHECK_EQ(a_wait_code(fd), 128 + SIGKILL);
	ATF_REQUIRE(close(w) == 0 && close(fd) == 0);
}

static volatile sig_atomic_t a_atfork_ran;

static void
a_atfork_child(void)
{

	a_atfork_ran = 1;
}

T_TC(fork_trap__full_child, "a PD_NOWAITPID child is a full fork() "
    "child: it ran the atfork handlers and knows its own pid; the "
    "kernel's path keeps the fork trap, and without the trap the "
    "guardian's path is taken, but where the kernel's is forced: then "
    "its child is a raw clone3, which runs no atfork handler")
{
	const char *mode;
	int fd, st;
	pid_t pid;
	bool forced;

	mode = getenv("LIBPROCDESC_CLOSE_KILL");
	forced = !t_fork_trap() && mode != NULL && strcmp(mode, "kernel") == 0;
	ATF_REQUIRE(pthread_atfork(NULL, NULL, a_atfork_child) == 0);
	pid = pdfork(&fd, PD_NOWAITPID | PD_CLOEXEC);
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(a_atfork_ran && getpid() == (pid_t)syscall(SYS_getpid) ?
		    0 : 1);
	ATF_CHECK_MSG(t_fork_trap() || forced || !a_kernel(fd), "the "
	    "kernel's path taken without the trap");
	if ((t_fork_trap() || forced) && !a_kernel(fd)) {
		ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(close(fd) == 0);
		atf_tc_skip("the kernel's close-kill is not taken here");
	}
	ATF_REQUIRE(pdwait(fd, &st, WEXITED, NULL, NULL) == 0);
	/* NOTES 1.1, 5.2: only the trap gives the kernel's flags a fork(). */
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == (forced ? 1 : 0),
	    forced ? "the forced kernel's path ran the C library's fork" :
	    "the child missed its atfork handler or its pid");
	ATF_REQUIRE(close(fd) == 0);
}

/* A helper that pdforks, says the child's pid, then execs or pauses. */
static void
a_owner_goes(bool exec)
{
	int p[2], fd, w;
	pid_t o, pid;

	w = -1;
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	o = fork();
	ATF_REQUIRE(o >= 0);
	if (o == 0) {
		pid = pdfork(&fd, PD_NOWAITPID | PD_CLOEXEC);
		if (pid == 0)
			t_pause();
		if (pid == -1 || !a_kernel(fd))
			pid = 0;
		(void)write(p[1], &pid, sizeof(pid));
		if (exec)
			execl("/bin/sh", "sh", "-c", "exec sleep 300", NULL);
		t_pause();
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_REQUIRE(read(p[0], &pid, sizeof(pid)) == sizeof(pid));
	ATF_REQUIRE(close(p[0]) == 0);
	if (pid > 0)
		w = t_watch(pid);
	if (!exec || pid <= 0)
		ATF_REQUIRE(kill(o, SIGKILL) == 0);
	if (pid > 0)
		ATF_CHECK_MSG(t_dead_within(w, T_LONG_MS), "the child outlived "
		    "its owner's %s", exec ? "exec" : "death");
	if (exec)
		(void)kill(o, SIGKILL);
	(void)t_reap(o);
	if (pid <= 0)
		atf_tc_skip("the kernel's close-kill is not taken here");
	t_expect_death(w);
}

T_TC(owner__death, "the owner's death kills the child")
{

	a_owner_goes(false);
}

T_TC(owner__exec, "the owner's exec closes a PD_CLOEXEC descriptor and "
    "kills the child")
{

	a_owner_goes(true);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, choose__paths);
	ATF_TP_ADD_TC(tp, choose__guardian_forced);
	ATF_TP_ADD_TC(tp, choose__kernel_forced);
	ATF_TP_ADD_TC(tp, ident__forgeries);
	ATF_TP_ADD_TC(tp, close__every_copy);
	ATF_TP_ADD_TC(tp, close__exec_keeps);
	ATF_TP_ADD_TC(tp, close__outsiders_keep_nothing);
	ATF_TP_ADD_TC(tp, calls__on_the_kernel_path);
	ATF_TP_ADD_TC(tp, holder__manipulations);
	ATF_TP_ADD_TC(tp, holder__other_uid);
	ATF_TP_ADD_TC(tp, wait__pid_and_uid);
	ATF_TP_ADD_TC(tp, exit__wnohang_after_wakeup);
	ATF_TP_ADD_TC(tp, exit__every_holder);
	ATF_TP_ADD_TC(tp, waits__never);
	ATF_TP_ADD_TC(tp, fork_trap__full_child);
	ATF_TP_ADD_TC(tp, owner__death);
	ATF_TP_ADD_TC(tp, owner__exec);
	return (atf_no_error());
}
