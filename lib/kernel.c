/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The kernel's minimum, probed once at run time, never by version number.
 * clone3 (Linux 5.3) and waitid(P_PIDFD) (5.4) are what the library is
 * built on: without either every call fails with ENOSYS rather than fall
 * back to semantics that would be wrong (a SIGCHLD child that wait(2)
 * steals, or no way to reap by descriptor).  Newer features (pidfs,
 * PIDFD_GET_INFO, PIDFD_INFO_EXIT, syscall user dispatch) are probed where
 * they are used, with the fallbacks of NOTES section 4.
 */

#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "kernel.h"
#include "syscall.h"

/* -1 until probed; then 0 or ENOSYS.  Racing probes find the same. */
static _Atomic int kn_error = -1;

static int
kn_probe(void)
{
	struct procdesc_clone_args ca;
	siginfo_t si;
	int error, saved;

	saved = errno;
	error = 0;
	/* A bad exit signal: EINVAL, before anything is created. */
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = ~(uint64_t)0;
	if (sys_clone3(&ca) == -1 && errno == ENOSYS)
		error = ENOSYS;
	/* No such descriptor: EBADF from a kernel that knows P_PIDFD. */
	memset(&si, 0, sizeof(si));
	if (sys_waitid(P_PIDFD, INT_MAX, &si, WEXITED | WNOHANG, NULL) == -1 &&
	    errno != EBADF)
		error = ENOSYS;
	errno = saved;
	return (error);
}

/*
 * 0 if the kernel can host process descriptors, else ENOSYS.  No lock and
 * no pthread_once: a signal handler may call this while it runs.
 */
int
procdesc_kernel_ok(void)
{
	int error;

	if ((error = atomic_load(&kn_error)) == -1) {
		error = kn_probe();
		atomic_store(&kn_error, error);
	}
	return (error);
}
