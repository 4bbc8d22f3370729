/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pddupfd: a close-on-exec copy of one of the child's descriptors;
 * EINVAL for flags other than 0 and for an fd that is no process
 * descriptor, EBADF for a descriptor the child lacks, ESRCH once the
 * child has exited, EPERM without the right to trace it.
 */

#include <sys/procdesc.h>
#include <sys/stat.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/*
 * A pdfork child that opens /dev/null, reports the fd number, and waits
 * for a byte on *relp (the write end is returned there) before exiting.
 */
static pid_t
devnull_child(int *fdp, int *remotep, int *relp)
{
	int rep[2], rel[2], n;
	pid_t pid;
	char c;

	ATF_REQUIRE(pipe(rep) == 0);
	ATF_REQUIRE(pipe(rel) == 0);
	pid = pdfork(fdp, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(rep[0]);
		(void)close(rel[1]);
		n = open("/dev/null", O_RDONLY);
		if (write(rep[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(read(rel[0], &c, 1) >= 0 ? 0 : 2);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(rel[0]) == 0);
	ATF_REQUIRE(read(rep[0], remotep, sizeof(*remotep)) ==
	    sizeof(*remotep));
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(*remotep >= 0);
	*relp = rel[1];
	return (pid);
}

static void
devnull_release(int fd, int rel)
{

	ATF_REQUIRE(close(rel) == 0);
	t_wait_exit_code(fd, 0, "the child");
}

/*
 * pddupfd duplicates the child's descriptor into the caller, with
 * FD_CLOEXEC set.
 */
T_TC(pddupfd__basic, "pddupfd: a close-on-exec copy of the child's fd")
{
	struct stat st, dn;
	int fd, newfd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	newfd = pddupfd(fd, remote, 0);
	ATF_CHECK_MSG(newfd >= 0, "pddupfd: %s", strerror(errno));
	if (newfd >= 0) {
		ATF_CHECK_EQ(fcntl(newfd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		ATF_REQUIRE(stat("/dev/null", &dn) == 0);
		ATF_REQUIRE(fstat(newfd, &st) == 0);
		ATF_CHECK(S_ISCHR(st.st_mode) && st.st_rdev == dn.st_rdev);
		ATF_REQUIRE(close(newfd) == 0);
	}
	devnull_release(fd, rel);
}

/* pddupfd with flags other than 0: EINVAL. */
T_TC(pddupfd__einval_flags, "pddupfd: EINVAL for flags != 0")
{
	int fd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, 1) == -1);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, O_CLOEXEC) == -1);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, -1) == -1);
	devnull_release(fd, rel);
}

/* pddupfd on an fd that is not a process descriptor: EINVAL. */
T_TC(pddupfd__einval_not_pd, "pddupfd: EINVAL for a pipe")
{
	int p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(p[0], 0, 0) == -1);
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(p[1]) == 0);
}

/* pddupfd of an fd the child does not have open: EBADF. */
T_TC(pddupfd__ebadf_remote, "pddupfd: EBADF for a bad remotefd")
{
	int fd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	ATF_CHECK_ERRNO(EBADF, pddupfd(fd, 1000, 0) == -1);
	ATF_CHECK_ERRNO(EBADF, pddupfd(fd, -1, 0) == -1);
	devnull_release(fd, rel);
}

/* pddupfd after the child exited: ESRCH. */
T_TC(pddupfd__esrch_exited, "pddupfd: ESRCH once the child has exited")
{
	int fd;

	t_pdfork_exit(&fd, 0, 0);
	(void)t_bounded_wait(fd, "the child");
	ATF_CHECK_ERRNO(ESRCH, pddupfd(fd, 0, 0) == -1);
	ATF_REQUIRE(close(fd) == 0);
}

/* Nobody's pddupfd on root's process: 0 if refused with EPERM. */
static int
dupfd_as_nobody(int fd, pid_t pid)
{

	(void)pid;
	return (pddupfd(fd, 0, 0) == -1 && errno == EPERM ? 0 : 1);
}

/*
 * pddupfd without the right to trace the target: EPERM, even for a holder
 * of a descriptor that a more privileged process made and passed on.
 */
T_TC(pddupfd__eperm, "pddupfd: EPERM for a holder that may not trace")
{
	int fd, w;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to hand a descriptor to nobody");
	pid = t_pdfork_pause(&fd, 0);
	w = t_watch(pid);
	ATF_CHECK_EQ(t_as_nobody(dupfd_as_nobody, fd, pid), 0);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pddupfd__basic);
	ATF_TP_ADD_TC(tp, pddupfd__einval_flags);
	ATF_TP_ADD_TC(tp, pddupfd__einval_not_pd);
	ATF_TP_ADD_TC(tp, pddupfd__ebadf_remote);
	ATF_TP_ADD_TC(tp, pddupfd__esrch_exited);
	ATF_TP_ADD_TC(tp, pddupfd__eperm);
	return (atf_no_error());
}
