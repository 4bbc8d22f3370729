/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdgetpid: the pid of a running child, of an exited and of a waited-for
 * one, through a dup; EBADF for closed fds and for open fds that are not
 * process descriptors, EFAULT.
 */

#include <sys/procdesc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include "testutil.h"

/* pdgetpid returns the pid that pdfork returned. */
T_TC(pdgetpid__basic, "pdgetpid gives the child's pid")
{
	pid_t pid, got;
	int fd;

	pid = t_pdfork_pause(&fd, 0);
	got = -1;
	ATF_REQUIRE(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdgetpid still gives the pid after the exit and after pdwait. */
T_TC(pdgetpid__after_exit, "pdgetpid works after exit and after pdwait")
{
	pid_t pid, got;
	int fd;

	pid = t_pdfork_exit(&fd, 0, 0);
	t_wait_reaped(fd);
	got = -1;
	ATF_CHECK(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	got = -1;
	ATF_CHECK(pdgetpid(fd, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdgetpid on an fd that is not open fails with EBADF. */
T_TC(pdgetpid__ebadf_closed, "pdgetpid: EBADF for a closed fd")
{
	const int bad[] = { -1, INT_MAX, 1 << 20, t_closed_fd() };
	size_t i;
	pid_t got;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		got = -42;
		errno = 0;
		ATF_CHECK_ERRNO(EBADF, pdgetpid(bad[i], &got) == -1);
		ATF_CHECK_EQ(got, -42);
	}
}

/* pdgetpid on a regular file, a pipe or a socket fails with EBADF. */
T_TC(pdgetpid__ebadf_file, "pdgetpid: EBADF for a file, pipe, socket")
{
	int f, p[2], s[2];
	pid_t got;

	f = t_regular_file();
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
	got = -42;
	ATF_CHECK_ERRNO(EBADF, pdgetpid(f, &got) == -1);
	ATF_CHECK_ERRNO(EBADF, pdgetpid(p[0], &got) == -1);
	ATF_CHECK_ERRNO(EBADF, pdgetpid(p[1], &got) == -1);
	ATF_CHECK_ERRNO(EBADF, pdgetpid(s[0], &got) == -1);
	ATF_CHECK_EQ(got, -42);
	ATF_REQUIRE(close(f) == 0);
	t_close_pipe(p);
	t_close_pipe(s);
}

/*
 * pdgetpid on other open fds that are not pds fails with EBADF: an
 * eventfd, an epoll fd, a directory, and a /proc/<pid> directory (which
 * pidfd_send_signal(2) would accept).
 */
T_TC(pdgetpid__ebadf_not_pd, "pdgetpid: EBADF for eventfd, epoll, dirs")
{
	int fds[4];
	size_t i;
	pid_t got;

	fds[0] = eventfd(0, EFD_CLOEXEC);
	fds[1] = epoll_create1(EPOLL_CLOEXEC);
	fds[2] = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fds[3] = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < 4; i++) {
		ATF_REQUIRE(fds[i] >= 0);
		got = -42;
		errno = 0;
		ATF_CHECK_ERRNO(EBADF, pdgetpid(fds[i], &got) == -1);
		ATF_CHECK_EQ(got, -42);
	}
	for (i = 0; i < 4; i++)
		ATF_REQUIRE(close(fds[i]) == 0);
}

/* pdgetpid with an unwritable pidp fails with EFAULT. */
T_TC(pdgetpid__efault, "pdgetpid: EFAULT for an unmapped pidp")
{
	int fd;

	t_pdfork_exit(&fd, 0, 0);
	ATF_CHECK_ERRNO(EFAULT, pdgetpid(fd, t_unmapped()) == -1);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_CHECK_ERRNO(EFAULT, pdgetpid(fd, t_unmapped()) == -1);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdgetpid on a dup() of the descriptor gives the same pid. */
T_TC(pdgetpid__dup, "pdgetpid on a dup gives the same pid")
{
	pid_t pid, got;
	int fd, fd2;

	pid = t_pdfork_pause(&fd, 0);
	fd2 = dup(fd);
	ATF_REQUIRE(fd2 >= 0);
	got = -1;
	ATF_REQUIRE(pdgetpid(fd2, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_REQUIRE(pdkill(fd2, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	got = -1;
	ATF_REQUIRE(pdgetpid(fd2, &got) == 0);
	ATF_CHECK_EQ(got, pid);
	ATF_REQUIRE(close(fd2) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdgetpid__basic);
	ATF_TP_ADD_TC(tp, pdgetpid__after_exit);
	ATF_TP_ADD_TC(tp, pdgetpid__ebadf_closed);
	ATF_TP_ADD_TC(tp, pdgetpid__ebadf_file);
	ATF_TP_ADD_TC(tp, pdgetpid__ebadf_not_pd);
	ATF_TP_ADD_TC(tp, pdgetpid__efault);
	ATF_TP_ADD_TC(tp, pdgetpid__dup);
	return (atf_no_error());
}
