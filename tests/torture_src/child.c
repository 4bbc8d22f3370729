/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What the children of the torture test do: exit, kill themselves, pause
 * until killed, exec, pdfork in turn; and what a fork() copy of the whole
 * process does with a descriptor it inherited.  Children of a
 * multi-threaded process: they call the system calls themselves.
 */

#include <sys/prctl.h>
#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_pidfd.h"
#include "torture.h"

/* ASan's and TSan's allocators are not fork-safe: no malloc in children. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define	TT_SANITIZED	1
#else
#define	TT_SANITIZED	0
#endif

extern char **environ;

/*
 * What children call: the system calls themselves.  A sanitizer
 * intercepts _exit, kill, signal and pause, and in the child of a
 * multi-threaded fork its interceptors may wait for a lock that another
 * thread of the parent held at the fork (TSan's, for ever, with every
 * signal blocked, so that nothing but SIGKILL ends the child).
 */
void __attribute__((noreturn))
tt_exit(int code)
{

	for (;;)
		syscall(SYS_exit_group, code);
}

void
tt_kill_self(int sig)
{

	syscall(SYS_kill, syscall(SYS_getpid), sig);
}

/*
 * A pausing child holds nothing (a copy of a sibling's descriptor would
 * keep the sibling alive, as on FreeBSD), dies with the thread that made
 * it and after TT_LIFE seconds at most, whatever becomes of us.
 */
void __attribute__((noreturn))
tt_pause(void)
{
	struct procdesc_ksigaction ka;

	syscall(SYS_close_range, 0, ~0U, 0);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	memset(&ka, 0, sizeof(ka));
	ka.ks_handler = SIG_DFL;
	syscall(SYS_rt_sigaction, SIGALRM, &ka, NULL, sizeof(ka.ks_mask));
	syscall(SYS_alarm, TT_LIFE);
	for (;;)
		syscall(SYS_pause);
}

/* An exit status computed with malloc and stdio: a usable child. */
static void __attribute__((noreturn))
tt_exit_stdio(int code)
{
	char *p;
	int n;

	if ((p = malloc(32)) == NULL)
		tt_exit(125);
	snprintf(p, 32, "%d", code);
	n = atoi(p);
	free(p);
	tt_exit(n);
}

/* A pdfork child that pdforks in turn: the library in a child of ours. */
static void __attribute__((noreturn))
tt_nested(int code)
{
	pid_t pid;
	int fd, r, st;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		tt_exit(124);
	if (pid == 0)
		tt_exit(code);
	while ((r = pdwait(fd, &st, WEXITED, NULL, NULL)) == -1 &&
	    errno == EINTR)
		;
	tt_exit(r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == code ? code :
	    125);
}

/*
 * What a child of pdfork or pdrfork does; an RFSPAWN child (spawn) calls
 * async-signal-safe functions only, argv was built before the fork.
 */
void __attribute__((noreturn))
tt_child(bool spawn, enum tt_kind kind, int code, char *const *argv)
{
	static char *const sleepv[] = { "sleep", "300", NULL };

	switch (kind) {
	case K_EXIT:
		if (!spawn && !TT_SANITIZED && code % 2 == 0)
			tt_exit_stdio(code);
		tt_exit(code);
	case K_RAISE:
		tt_kill_self(code);
		tt_exit(126);
	case K_PAUSE:
		if (!spawn)
			tt_pause();
		syscall(SYS_close_range, 0, ~0U, 0);
		syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		execve("/bin/sleep", sleepv, environ);
		tt_exit(127);
	case K_EXEC:
		syscall(SYS_close_range, 3, ~0U, 0);
		execve(argv[0], argv + 1, environ);
		tt_exit(127);
	case K_NEST:
		tt_nested(code);
	case K_NKINDS:
		break;
	}
	tt_exit(127);
}

/*
 * In a fork() copy of this process, the descriptor of a running child:
 * pdgetpid, pdkill 0, pdwait(WNOHANG) says EAGAIN; with sig, pdkill and a
 * blocking pdwait for the status.  The copy's exit status is the number
 * of the step that failed, 0 if none.
 */
int
tt_copy_ops(int fd, pid_t want, int sig)
{
	siginfo_t si;
	pid_t pid;
	int r, st;

	if (pdgetpid(fd, &pid) != 0 || pid != want)
		return (1);
	if (pdkill(fd, 0) != 0)
		return (2);
	if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) != -1 ||
	    errno != EAGAIN)
		return (3);
	if (sig == 0)
		return (0);
	if (pdkill(fd, sig) != 0)
		return (4);
	memset(&si, 0, sizeof(si));
	while ((r = pdwait(fd, &st, WEXITED, NULL, &si)) == -1 &&
	    errno == EINTR)
		;
	if (r != 0)
		return (5);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
		return (6);
	if (si.si_pid != want || si.si_code != CLD_KILLED ||
	    si.si_status != sig)
		return (7);
	return (0);
}
