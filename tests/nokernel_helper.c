/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Run by kernel_test under a seccomp filter that makes the kernel look
 * older than 5.4 (no clone3, or no waitid(P_PIDFD)): every call of the
 * library must fail with ENOSYS.  Prints each call that does not; exits
 * with their number.
 */

#include <sys/procdesc.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static int bad;

static void
expect_enosys(const char *call, long r)
{

	if (r == -1 && errno == ENOSYS)
		return;
	printf("%s: %ld, errno %d, not -1/ENOSYS\n", call, r, errno);
	bad++;
}

int
main(void)
{
	int fd;
	pid_t pid;

	fd = -1;
	pid = pdfork(&fd, 0);
	if (pid == 0)
		_exit(0);
	expect_enosys("pdfork", pid);
	expect_enosys("pdrfork", pdrfork(&fd, 0, RFPROC | RFPROCDESC));
	expect_enosys("pdrfork(RFSPAWN)", pdrfork(&fd, 0, (int)RFSPAWN));
	expect_enosys("pdopenpid", pdopenpid(getpid(), PD_DAEMON));
	/* Any fd: the kernel check comes before the fd's. */
	expect_enosys("pdgetpid", pdgetpid(0, &pid));
	expect_enosys("pdkill", pdkill(0, 0));
	expect_enosys("pdwait", pdwait(0, NULL, WEXITED, NULL, NULL));
	expect_enosys("pddupfd", pddupfd(0, 0, 0));
	return (bad);
}
