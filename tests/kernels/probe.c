/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Measure, on the running kernel, each kernel feature the library relies
 * on or falls back from (NOTES section 4).  One line per feature:
 * "probe <name> <yes|no> <detail>".  tests/kernels/run collects the lines
 * of every kernel into the support table.  Uses no library code: it
 * measures the kernel, not us.
 */

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syscall.h"

#define	CLONE_AUTOREAP_71		(1ULL << 34)
#define	CLONE_PIDFD_AUTOKILL_71		(1ULL << 36)

static void
report(const char *name, int yes, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
report(const char *name, int yes, const char *fmt, ...)
{
	va_list ap;

	printf("probe %s %s ", name, yes ? "yes" : "no");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A child that waits for a byte on rfd, then exits 7; its pidfd in *fdp. */
static pid_t
spawn(int rfd, uint64_t flags, int *fdp)
{
	struct procdesc_clone_args ca;
	char c;
	long pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD | flags;
	ca.pidfd = (uint64_t)(uintptr_t)fdp;
	ca.exit_signal = 0;
	pid = sys_clone3(&ca);
	if (pid == 0) {
		(void)read(rfd, &c, 1);
		_exit(7);
	}
	return ((pid_t)pid);
}

static int
reap(int pidfd, int options)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return (sys_waitid(P_PIDFD, pidfd, &si, WEXITED | __WALL | options,
	    NULL));
}

static int
fdinfo_has(int fd, const char *what)
{
	char path[64], line[256];
	FILE *fp;
	int found;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((fp = fopen(path, "re")) == NULL)
		return (0);
	found = 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strstr(line, what) != NULL)
			found = 1;
	fclose(fp);
	return (found);
}

static int
revents(int fd)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, 0) == 1 ? pfd.revents : 0);
}

/* Everything a live child lets us measure. */
static void
probe_live(int pidfd, pid_t pid)
{
	struct pidfd_info info;
	struct statfs sfs;
	struct stat st, st2, sst;
	struct flock fl;
	int fd2, got, r, self;

	r = fstatfs(pidfd, &sfs);
	report("pidfs", r == 0 && sfs.f_type == PID_FS_MAGIC,
	    "f_type 0x%lx", r == 0 ? (unsigned long)sfs.f_type : 0UL);
	fd2 = sys_pidfd_open(pid, 0);
	self = sys_pidfd_open(getpid(), 0);
	if (fd2 >= 0 && self >= 0 && fstat(pidfd, &st) == 0 &&
	    fstat(fd2, &st2) == 0 && fstat(self, &sst) == 0)
		report("pidfd_ino_per_process", st.st_ino == st2.st_ino &&
		    st.st_ino != sst.st_ino, "inodes: child %lu and %lu, "
		    "self %lu", (unsigned long)st.st_ino,
		    (unsigned long)st2.st_ino, (unsigned long)sst.st_ino);
	if (self >= 0)
		close(self);
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_PID;
	r = ioctl(pidfd, PIDFD_GET_INFO, &info);
	report("PIDFD_GET_INFO", r == 0 && info.pid == (uint32_t)pid,
	    "%s", r == 0 ? "pid read" : strerror(errno));

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)pid << 24;
	fl.l_len = 1;
	r = fcntl(pidfd, F_OFD_SETLK, &fl);
	got = (fd2 >= 0 && fcntl(fd2, F_OFD_SETLK, &fl) == -1 &&
	    errno == EAGAIN);
	report("ofd_lock", r == 0 && got,
	    "a second description %s the byte",
	    got ? "is refused" : "is NOT refused");
	report("fdinfo_lock", fdinfo_has(pidfd, "OFDLCK"),
	    "fdinfo lists the description's OFD lock");
	if (fd2 >= 0)
		close(fd2);
	report("fdinfo_pid", fdinfo_has(pidfd, "Pid:"), "fdinfo Pid: line");
}

/* Exit and reap: POLLHUP and the wake-up at the reap, PIDFD_INFO_EXIT. */
static void
probe_exit(int pidfd, int wfd)
{
	struct epoll_event ev;
	struct pidfd_info info;
	int ep, woken, hup;

	ep = epoll_create1(EPOLL_CLOEXEC);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLHUP;	/* Only the reap's wake-up counts. */
	(void)epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev);
	(void)write(wfd, "x", 1);
	(void)reap(pidfd, WNOWAIT);	/* A zombie now: POLLIN. */
	report("pollin_at_exit", (revents(pidfd) & POLLIN) != 0,
	    "zombie revents 0x%x", revents(pidfd));
	(void)epoll_wait(ep, &ev, 1, 0);
	(void)reap(pidfd, 0);
	hup = revents(pidfd) & POLLHUP;
	report("pollhup_after_reap", hup != 0, "reaped revents 0x%x",
	    revents(pidfd));
	woken = epoll_wait(ep, &ev, 1, 0);
	report("pollhup_wakes", woken == 1,
	    "a waiter for POLLHUP alone %s at the reap",
	    woken == 1 ? "is woken" : "is NOT woken");
	close(ep);
	report("fdinfo_pid_after_reap", fdinfo_has(pidfd, "Pid:\t-1"),
	    "fdinfo Pid: -1 once reaped");
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	(void)ioctl(pidfd, PIDFD_GET_INFO, &info);
	report("PIDFD_INFO_EXIT", (info.mask & PIDFD_INFO_EXIT) != 0 &&
	    WIFEXITED(info.exit_code) && WEXITSTATUS(info.exit_code) == 7,
	    "exit status for any holder after the reap");
}

static void
probe_flag(const char *name, uint64_t flag)
{
	int p[2], fd;
	pid_t pid;

	if (pipe(p) == -1)
		return;
	fd = -1;
	pid = spawn(p[0], flag, &fd);
	report(name, pid > 0, "clone3: %s",
	    pid > 0 ? "accepted" : strerror(errno));
	if (pid > 0) {
		(void)write(p[1], "x", 1);
		(void)reap(fd, 0);
		close(fd);
	}
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	int p[2], pidfd, r;
	pid_t pid;

	if (pipe(p) == -1)
		return (1);
	pidfd = -1;
	pid = spawn(p[0], 0, &pidfd);
	report("clone3_pidfd", pid > 0 && pidfd >= 0, "%s",
	    pid > 0 ? "clone3(CLONE_PIDFD, exit_signal 0)" : strerror(errno));
	if (pid <= 0)
		return (1);
	probe_live(pidfd, pid);
	r = reap(pidfd, WNOHANG);
	report("waitid_P_PIDFD", r == 0, "%s", r == 0 ? "works" :
	    strerror(errno));
	r = sys_pidfd_getfd(pidfd, 0, 0);
	report("pidfd_getfd", r >= 0, "%s", r >= 0 ? "works" :
	    strerror(errno));
	if (r >= 0)
		close(r);
	probe_exit(pidfd, p[1]);
	close(pidfd);
	close(p[0]);
	close(p[1]);

	r = prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);
	report("syscall_user_dispatch", r == 0, "%s", r == 0 ? "prctl works" :
	    strerror(errno));
	r = sys_close_range(1000000, 1000001, 0);
	report("close_range", r == 0, "%s", r == 0 ? "works" :
	    strerror(errno));
	/* AUTOKILL is refused (EINVAL) without AUTOREAP. */
	probe_flag("CLONE_PIDFD_AUTOKILL", CLONE_AUTOREAP_71 |
	    CLONE_PIDFD_AUTOKILL_71);
	probe_flag("CLONE_AUTOREAP", CLONE_AUTOREAP_71);
	return (0);
}
