/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A plugin that uses the library, as a PAM or NSS module would: the host
 * (tests/dlopen_helper) dlopens it, calls it and dlcloses it, and the
 * host itself is not linked with the library.
 */

#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

int	plugin_spawn(pid_t *);
int	plugin_run(void);
int	plugin_exec(pid_t *);
int	plugin_collect(int);

/* A child that pauses: its descriptor, which the host keeps; -1 on error. */
int
plugin_spawn(pid_t *pidp)
{
	pid_t pid;
	int fd;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		return (-1);
	if (pid == 0) {
		(void)syscall(SYS_close_range, 3, ~0U, 0);
		alarm(300);
		for (;;)
			pause();
	}
	*pidp = pid;
	return (fd);
}

/* A child that exits 7, waited for: 0, or -1. */
int
plugin_run(void)
{
	pid_t pid;
	int fd, st;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		return (-1);
	if (pid == 0)
		_exit(7);
	if (pdwait(fd, &st, WEXITED, NULL, NULL) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 7) {
		(void)close(fd);
		return (-1);
	}
	return (close(fd));
}

/*
 * A child that execs true(1), so that its exit signals the host (Linux
 * resets the exit signal at exec); its descriptor once it has exited, or
 * -1.
 */
int
plugin_exec(pid_t *pidp)
{
	struct pollfd pfd;
	pid_t pid;
	int fd;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		return (-1);
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1) {
		(void)close(fd);
		return (-1);
	}
	*pidp = pid;
	return (fd);
}

/* The child's exit status through its descriptor, closed; or -1. */
int
plugin_collect(int fd)
{
	int error, st;

	error = pdwait(fd, &st, WEXITED, NULL, NULL);
	(void)close(fd);
	return (error == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st));
}
