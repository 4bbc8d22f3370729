/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdopenpid: a descriptor for an existing process (a fork() child of the
 * caller, its pdfork child, the caller itself): pdgetpid, pdkill, poll
 * and pdwait through it, the last close's kill and PD_DAEMON; ESRCH for
 * no such process and for a thread, EINVAL, EBUSY for a zombie.
 */

#include <sys/procdesc.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A plain fork() child that pauses until killed. */
static pid_t
plain_child(void)
{
	pid_t pid;

	pid = fork();
	ATF_REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			pause();
	}
	return (pid);
}

/* Kill plain child pid (watched by watch) unless dead; reap it; status. */
static int
plain_reap(pid_t pid, int watch)
{
	int status;

	if (!t_dead_within(watch, 0))
		(void)kill(pid, SIGKILL);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(close(watch) == 0);
	return (status);
}

/* A plain child, its pidfd watch, and a pdopenpid descriptor of it. */
static int
plain_open(int pdflags, pid_t *pidp, int *watchp)
{
	int fd;

	*pidp = plain_child();
	*watchp = t_watch(*pidp);
	if ((fd = pdopenpid(*pidp, pdflags)) == -1) {
		(void)plain_reap(*pidp, *watchp);
		atf_tc_fail("pdopenpid: %s", strerror(errno));
	}
	return (fd);
}

/*
 * pdopenpid gives a descriptor for an existing process: pdgetpid matches,
 * pdkill signals it, poll reports its exit.
 */
T_TC(pdopenpid__basic, "pdopenpid: pdgetpid, pdkill and poll on a "
    "process we did not pdfork")
{
	struct pollfd pfd;
	pid_t pid, got;
	int fd, status, watch;

	fd = plain_open(PD_DAEMON, &pid, &watch);
	ATF_CHECK(pdgetpid(fd, &got) == 0 && got == pid);
	pfd.fd = fd;
	pfd.events = POLLIN;
	ATF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	ATF_CHECK(pdkill(fd, SIGTERM) == 0);
	pfd.revents = 0;
	ATF_CHECK_EQ(poll(&pfd, 1, T_LONG_MS), 1);
	ATF_CHECK(pfd.revents & POLLIN);
	/* Not the library's child: we reap it. */
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdopenpid of a process that does not exist: ESRCH. */
T_TC(pdopenpid__esrch, "pdopenpid: ESRCH for a nonexistent pid")
{
	FILE *fp;
	pid_t pid;
	long pidmax;

	fp = fopen("/proc/sys/kernel/pid_max", "re");
	ATF_REQUIRE(fp != NULL);
	ATF_REQUIRE(fscanf(fp, "%ld", &pidmax) == 1);
	fclose(fp);
	ATF_CHECK_ERRNO(ESRCH, pdopenpid((pid_t)pidmax + 1, 0) == -1);
	/* A child of ours, exited and reaped. */
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
	ATF_CHECK_ERRNO(ESRCH, pdopenpid(pid, 0) == -1);
}

/* pdopenpid with flag bits outside PD_ALLOWED_AT_FORK: EINVAL. */
T_TC(pdopenpid__einval, "pdopenpid: EINVAL for bad flags")
{

	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), 0x100) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), 8) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), -1) == -1);
}

/* pdopenpid of a zombie (exited, not yet reaped): EBUSY. */
T_TC(pdopenpid__ebusy_zombie, "pdopenpid: EBUSY for a zombie")
{
	siginfo_t si;
	pid_t pid;
	int fd;

	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	errno = 0;
	fd = pdopenpid(pid, PD_DAEMON);
	ATF_CHECK_MSG(fd == -1 && errno == EBUSY, "pdopenpid: %d, %s", fd,
	    strerror(errno));
	if (fd >= 0)
		ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
}

/*
 * pdopenpid of the caller's own fork() child: pdwait gets the status the
 * child's parent can see, with rusage, as often as asked, and leaves the
 * child for waitpid, which still reports it.  (FreeBSD's
 * pdopenpid_fork_then_open.)
 */
T_TC(pdopenpid__fork_child_wait, "pdopenpid of a fork() child: pdwait "
    "reports its exit, repeatably, and waitpid still works")
{
	struct __wrusage wru;
	siginfo_t si;
	pid_t pid;
	int fd, i, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_CHECK_ERRNO(EAGAIN, pdwait(fd, &status, WEXITED | WNOHANG, NULL,
	    NULL) == -1);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	for (i = 0; i < 2; i++) {
		status = 0;
		memset(&wru, 0xff, sizeof(wru));
		ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, &wru, &si) == 0,
		    "pdwait %d: %s", i, strerror(errno));
		ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) ==
		    SIGKILL, "pdwait %d: status %#x", i, status);
		ATF_CHECK_EQ(si.si_pid, pid);
		ATF_CHECK(wru.wru_self.ru_maxrss >= 0 &&
		    wru.wru_self.ru_utime.tv_sec >= 0);
	}
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "waitpid: status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * Two pdopenpid descriptors of one fork() child: both report its exit
 * code.  (FreeBSD's pdopenpid_open_twice.)
 */
T_TC(pdopenpid__open_twice, "two pdopenpid descriptors of a fork() child "
    "both report its exit")
{
	pid_t pid;
	int fd[2], i, p[2], status, watch;
	char c;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		(void)read(p[0], &c, 1);
		_exit(9);
	}
	(void)close(p[0]);
	watch = t_watch(pid);
	fd[0] = pdopenpid(pid, PD_DAEMON);
	fd[1] = pdopenpid(pid, PD_DAEMON);
	ATF_REQUIRE_MSG(fd[0] >= 0 && fd[1] >= 0, "pdopenpid: %s",
	    strerror(errno));
	ATF_REQUIRE(write(p[1], "x", 1) == 1);
	(void)close(p[1]);
	for (i = 0; i < 2; i++) {
		status = 0;
		ATF_REQUIRE_MSG(pdwait(fd[i], &status, WEXITED, NULL,
		    NULL) == 0, "pdwait %d: %s", i, strerror(errno));
		ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 9,
		    "pdwait %d: status %#x", i, status);
	}
	status = plain_reap(pid, watch);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	ATF_REQUIRE(close(fd[0]) == 0);
	ATF_REQUIRE(close(fd[1]) == 0);
}

/*
 * pdwait with WUNTRACED on a pdopenpid descriptor of a fork() child: the
 * stop, then the exit.
 */
T_TC(pdopenpid__fork_child_stop, "pdopenpid of a fork() child: pdwait "
    "WUNTRACED reports the stop, then the exit")
{
	pid_t pid;
	int fd, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	status = 0;
	ATF_REQUIRE(pdwait(fd, &status, WUNTRACED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
	    "status %#x", status);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED | WUNTRACED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
	status = plain_reap(pid, watch);
	ATF_CHECK(WIFSIGNALED(status));
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdopenpid of our own pdfork child: a second descriptor that guards it
 * too.  Closing the first kills the child; the second reports the death.
 * Closing both leaves no registry entry behind (checked by the leak check
 * of a DEBUG=1 build: an entry of the same pid once stayed for good).
 */
T_TC(pdopenpid__own_pdfork_child, "pdopenpid of our own pdfork child: "
    "both descriptors guard it, and both go away cleanly")
{
	pid_t pid, got;
	int fd1, fd2, status, watch;

	pid = t_pdfork_pause(&fd1, 0);
	watch = t_watch(pid);
	fd2 = pdopenpid(pid, 0);
	ATF_REQUIRE_MSG(fd2 >= 0, "pdopenpid: %s", strerror(errno));
	ATF_CHECK(pdgetpid(fd2, &got) == 0 && got == pid);
	ATF_REQUIRE(close(fd1) == 0);
	ATF_CHECK_MSG(t_dead_within(watch, T_LONG_MS),
	    "alive after its first descriptor's last close");
	ATF_CHECK_MSG(t_reaped_within(fd2, T_LONG_MS), "no record on fd2");
	status = 0;
	if (t_kernel_exit_info()) {
		ATF_CHECK_MSG(pdwait(fd2, &status, WEXITED, NULL, NULL) == 0,
		    "pdwait: %s", strerror(errno));
		ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) ==
		    SIGKILL, "status %#x", status);
	}
	ATF_REQUIRE(close(fd2) == 0);
	ATF_REQUIRE(close(watch) == 0);
}

/*
 * Nobody's pdopenpid of root's processes: ESRCH, as on FreeBSD, which
 * requires the right to debug the target; 0 if so.
 */
static int
open_as_nobody(int fd, pid_t pid)
{
	int bad;

	(void)fd;
	bad = 0;
	if (pdopenpid(pid, 0) != -1 || errno != ESRCH)
		bad |= 1;
	if (pdopenpid(1, PD_DAEMON) != -1 || errno != ESRCH)
		bad |= 2;
	return (bad);
}

T_TC(pdopenpid__esrch_unprivileged, "pdopenpid: ESRCH for a process the "
    "caller may not debug")
{
	int fd, w;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to run a helper as nobody");
	pid = t_pdfork_pause(&fd, 0);
	w = t_watch(pid);
	ATF_CHECK_EQ(t_as_nobody(open_as_nobody, -1, pid), 0);
	ATF_CHECK(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

/* pdopenpid of a thread id that is not a process: ESRCH. */
static void *
tid_thread(void *arg)
{
	int *a = arg;
	char c;

	__atomic_store_n(&a[0], (int)gettid(), __ATOMIC_RELEASE);
	(void)read(a[1], &c, 1);	/* Until the case is done. */
	return (NULL);
}

T_TC(pdopenpid__tid, "pdopenpid of a thread's id: ESRCH")
{
	pthread_t td;
	int p[2], arg[2];

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	arg[0] = 0;
	arg[1] = p[0];
	ATF_REQUIRE(pthread_create(&td, NULL, tid_thread, arg) == 0);
	while (__atomic_load_n(&arg[0], __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	ATF_CHECK_ERRNO(ESRCH, pdopenpid(arg[0], PD_DAEMON) == -1);
	ATF_REQUIRE(write(p[1], "x", 1) == 1);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	(void)close(p[0]);
	(void)close(p[1]);
}

/* pdopenpid of oneself: the last close kills the caller (as documented). */
T_TC(pdopenpid__self_close_kills, "pdopenpid(getpid()) then close kills "
    "the caller")
{
	siginfo_t si;
	pid_t pid;
	int fd;

	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		if ((fd = pdopenpid(getpid(), 0)) == -1)
			_exit(1);
		(void)close(fd);
		for (;;)
			pause();
	}
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED) == 0);
	ATF_CHECK_MSG(si.si_code == CLD_KILLED && si.si_status == SIGKILL,
	    "code %d status %d", si.si_code, si.si_status);
}

/* Closing the last copy of a pdopenpid descriptor kills the process. */
T_TC(pdopenpid__close_kills, "pdopenpid: the last close kills without "
    "PD_DAEMON")
{
	pid_t pid;
	int fd, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(t_dead_within(watch, T_LONG_MS),
	    "alive %d ms after the last close", T_LONG_MS);
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
}

/*
 * With PD_DAEMON, closing the last copy leaves the process running (seen
 * after a non-daemon child closed later has died).
 */
T_TC(pdopenpid__daemon_survives, "pdopenpid: PD_DAEMON, the last close "
    "does not kill")
{
	pid_t pid, bpid;
	int bfd, bwatch, fd, status, watch;

	fd = plain_open(PD_DAEMON, &pid, &watch);
	ATF_REQUIRE(close(fd) == 0);
	/* Barrier: a later close of a non-daemon child has taken effect. */
	bpid = t_pdfork_pause(&bfd, 0);
	bwatch = t_watch(bpid);
	ATF_REQUIRE(close(bfd) == 0);
	ATF_CHECK(t_dead_within(bwatch, T_LONG_MS));
	t_kill_wait(bwatch);
	ATF_CHECK_MSG(t_alive(watch), "PD_DAEMON process killed by close");
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdopenpid__basic);
	ATF_TP_ADD_TC(tp, pdopenpid__esrch);
	ATF_TP_ADD_TC(tp, pdopenpid__einval);
	ATF_TP_ADD_TC(tp, pdopenpid__ebusy_zombie);
	ATF_TP_ADD_TC(tp, pdopenpid__fork_child_wait);
	ATF_TP_ADD_TC(tp, pdopenpid__open_twice);
	ATF_TP_ADD_TC(tp, pdopenpid__fork_child_stop);
	ATF_TP_ADD_TC(tp, pdopenpid__own_pdfork_child);
	ATF_TP_ADD_TC(tp, pdopenpid__esrch_unprivileged);
	ATF_TP_ADD_TC(tp, pdopenpid__tid);
	ATF_TP_ADD_TC(tp, pdopenpid__self_close_kills);
	ATF_TP_ADD_TC(tp, pdopenpid__close_kills);
	ATF_TP_ADD_TC(tp, pdopenpid__daemon_survives);
	return (atf_no_error());
}
