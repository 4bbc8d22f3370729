/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A user's program that needs its guardian for all it does: a child's
 * exit status through pdwait, then a child killed by the close of its
 * descriptor (the child's end of a pipe closes when it dies).  Prints
 * "42 killed".  Built against an installed library by install_test and
 * by tools/deb-test.sh, as a user would.
 */

#include <sys/procdesc.h>
#include <sys/wait.h>
#include <err.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	char c;
	int fd, p[2], status;
	pid_t pid;

	if ((pid = pdfork(&fd, 0)) == -1)
		err(1, "pdfork");
	if (pid == 0)
		_exit(42);
	if (pdwait(fd, &status, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	(void)close(fd);
	if (pipe(p) == -1)
		err(1, "pipe");
	if ((pid = pdfork(&fd, 0)) == -1)
		err(1, "pdfork");
	if (pid == 0) {
		(void)close(p[0]);
		for (;;)
			pause();
	}
	(void)close(p[1]);
	(void)close(fd);
	(void)alarm(10);
	if (read(p[0], &c, 1) != 0)
		errx(1, "the child outlived its descriptor");
	printf("%d killed\n", WEXITSTATUS(status));
	return (0);
}
