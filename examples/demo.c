/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * make demo: process descriptors at work.  A child exits and its
 * descriptor reports POLLHUP and a status through pdwait; wait(2) sees
 * nothing; a second child is killed by closing its descriptor.
 */

#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
show_status(const char *who, int status)
{

	if (WIFEXITED(status))
		printf("%s: exited with status %d\n", who, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: killed by signal %d (%s)\n", who, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
}

int
main(void)
{
	struct pollfd pfd;
	pid_t pid, pid2;
	int fd, fd2, status, watch;

	setvbuf(stdout, NULL, _IONBF, 0);
	if ((pid = pdfork(&fd, 0)) == -1)
		err(1, "pdfork");
	if (pid == 0)
		_exit(42);
	printf("pdfork: child %d, descriptor %d\n", (int)pid, fd);

	/*
	 * The exit wakes a poll for POLLIN on every kernel (POLLHUP too once
	 * reaped, from Linux 6.9; FreeBSD reports POLLHUP alone, which poll
	 * always returns), and pdwait then gives the status.
	 */
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, -1) == -1)
		err(1, "poll");
	printf("poll: revents%s%s\n", (pfd.revents & POLLHUP) ? " POLLHUP" : "",
	    (pfd.revents & POLLIN) ? " POLLIN" : "");
	if (pdwait(fd, &status, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	show_status("pdwait", status);
	if (waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD)
		printf("waitpid(-1): ECHILD, the child is seen only through "
		    "its descriptor\n");
	close(fd);

	if ((pid2 = pdfork(&fd2, 0)) == -1)
		err(1, "pdfork");
	if (pid2 == 0) {
		for (;;)
			pause();
	}
	/* A second, independent look at the child, to see it die. */
	if ((watch = (int)syscall(SYS_pidfd_open, pid2, 0)) == -1)
		err(1, "pidfd_open");
	printf("pdfork: child %d runs forever; closing descriptor %d\n",
	    (int)pid2, fd2);
	close(fd2);
	pfd.fd = watch;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1)
		errx(1, "the child survived the close");
	printf("child %d is dead: closing its last descriptor killed it\n",
	    (int)pid2);
	close(watch);
	return (0);
}
