/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The kernel's close-kill (Linux 7.1+, NOTES 1.12): a PD_NOWAITPID child
 * made with CLONE_PIDFD_AUTOKILL | CLONE_AUTOREAP, whose clone3 pidfd is
 * the user's descriptor.  The kernel SIGKILLs the child when the last
 * reference to that file goes, reaps it at its exit and keeps the exit
 * for every holder (PIDFD_INFO_EXIT).  No entry, no guardian, no reaper:
 * this file owns only the choice of path (ak_mode, ak_kernel) and the
 * calls on such a descriptor.
 *
 * Such a descriptor is told from every other file by the O_TRUNC the
 * kernel puts in its file flags: open(2) clears O_TRUNC from a file's
 * flags, fcntl(F_SETFL) cannot set it, and pidfd_open(2) and
 * open_by_handle_at(2) never set it, so only a clone3 with
 * CLONE_PIDFD_AUTOKILL makes such a file, and only its creator and those
 * it passed the file to hold it.  The system call each operation makes
 * (pidfd_send_signal, PIDFD_GET_INFO, pidfd_getfd) then refuses anything
 * that is not a pidfd.
 */

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "autokill.h"
#include "pidfd.h"
#include "syscall.h"

#define	AK_FLAGS	(CLONE_PIDFD_AUTOKILL | CLONE_AUTOREAP)

/* clone_args up to the cgroup field (CLONE_ARGS_SIZE_VER2): Linux 5.7. */
struct ak_clone_args {
	struct procdesc_clone_args ca_v0;
	uint64_t	ca_set_tid;
	uint64_t	ca_set_tid_size;
	uint64_t	ca_cgroup;
};

enum ak_mode { AK_AUTO, AK_KERNEL, AK_GUARDIAN };

static _Atomic int ak_kernel = -1;	/* The flags: -1 unknown, 0, 1. */

/*
 * clone3 with the flags and a cgroup descriptor that cannot be open: the
 * kernel checks the flags and the privilege first, then fails on the
 * cgroup with EBADF, before any child runs.  The errno.  It costs about
 * a fork (the kernel copies the address space before it looks at the
 * cgroup), so it is made once.
 */
static int
ak_try(uint64_t flags)
{
	struct ak_clone_args ca;
	int error, pidfd, saved;

	saved = errno;
	memset(&ca, 0, sizeof(ca));
	ca.ca_v0.flags = CLONE_PIDFD | CLONE_INTO_CGROUP | flags;
	ca.ca_v0.pidfd = (uint64_t)(uintptr_t)&pidfd;
	ca.ca_cgroup = INT_MAX;
	if (syscall(SYS_clone3, &ca, sizeof(ca)) == 0)
		_exit(127);		/* Cannot happen: no such cgroup. */
	error = errno;
	errno = saved;
	return (error);
}

/*
 * LIBPROCDESC_CLOSE_KILL, read at each creation that it concerns (a
 * program may set it after its first pdfork); ignored in a set-uid
 * program.  Any other value is the default.
 */
static enum ak_mode
ak_get_mode(void)
{
	const char *s;

	if ((s = secure_getenv("LIBPROCDESC_CLOSE_KILL")) == NULL)
		return (AK_AUTO);
	if (strcmp(s, "kernel") == 0)
		return (AK_KERNEL);
	if (strcmp(s, "guardian") == 0)
		return (AK_GUARDIAN);
	return (AK_AUTO);
}

/*
 * Whether we have CAP_SYS_ADMIN in our user namespace, which AUTOKILL
 * without CLONE_NNP needs: capget(2)'s effective set, one cheap call.
 */
static bool
ak_cap_sys_admin(void)
{
	struct procdesc_cap_header hdr;
	struct procdesc_cap_data data[2];
	int saved;
	bool ok;

	saved = errno;
	hdr.version = PROCDESC_CAP_VERSION_3;
	hdr.pid = 0;
	ok = syscall(SYS_capget, &hdr, data) == 0 &&
	    (data[0].effective & (1U << PROCDESC_CAP_SYS_ADMIN)) != 0;
	errno = saved;
	return (ok);
}

/* Whether the kernel has the flags: probed once, with no child made. */
static bool
ak_have_kernel(void)
{
	int k;

	if ((k = atomic_load(&ak_kernel)) == -1) {
		k = ak_try(AK_FLAGS | CLONE_NNP) == EBADF;
		atomic_store(&ak_kernel, k);
	}
	return (k == 1);
}

/*
 * The clone flags for a new child: 0 and *cflagsp (0: the guardian), or
 * the errno of a forced kernel path that cannot be had.  The kernel path
 * takes a PD_NOWAITPID child without PD_DAEMON (an autoreaped child can
 * be waited for by nobody, and the kernel always kills), where it changes
 * nothing the child may do: the caller has CAP_SYS_ADMIN (no CLONE_NNP
 * needed; asked each time, since privileges can be dropped), or runs with
 * no_new_privs already (CLONE_NNP then adds nothing).  Should the kernel
 * still refuse (a security module), pdfork fails with its errno.  full:
 * the clone can carry the flags without costing the child anything
 * (RFSPAWN, or pdfork's trap); else only a forced kernel path takes them,
 * and its child is a raw clone3 (NOTES 1.1, 5.2).
 */
int
procdesc_ak_choose(int pdflags, bool full, uint64_t *cflagsp)
{
	enum ak_mode m;

	*cflagsp = 0;
	if ((pdflags & (PD_NOWAITPID | PD_DAEMON)) != PD_NOWAITPID ||
	    (m = ak_get_mode()) == AK_GUARDIAN || (m == AK_AUTO && !full))
		return (0);
	if (!ak_have_kernel())
		return (m == AK_KERNEL ? ENOTSUP : 0);
	if (ak_cap_sys_admin())
		*cflagsp = AK_FLAGS;
	else if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		*cflagsp = AK_FLAGS | CLONE_NNP;
	else if (m == AK_KERNEL)
		return (EPERM);
	return (0);
}

/*
 * Whether fd is a descriptor of the kernel's path: 0, EBADF if fd is not
 * open, EINVAL if it is another file.
 */
int
procdesc_ak_ident(int fd)
{
	int fl, saved;

	saved = errno;
	fl = fcntl(fd, F_GETFL);
	errno = saved;
	if (fl == -1)
		return (EBADF);
	return ((fl & O_TRUNC) != 0 ? 0 : EINVAL);
}

_Atomic bool procdesc_ak_hints[PROCDESC_AK_HINTS];

/* PIDFD_GET_INFO of fd with mask: 0, or the errno. */
static int
ak_info(int fd, uint64_t mask, struct pidfd_info *ip)
{
	int error, saved;

	saved = errno;
	memset(ip, 0, sizeof(*ip));
	ip->mask = mask;
	error = ioctl(fd, PIDFD_GET_INFO, ip) == -1 ? errno : 0;
	errno = saved;
	return (error);
}

/* The signal; 0 once the child has exited, as on the guardian's path. */
int
procdesc_ak_kill(int fd, int signum)
{
	int error;

	error = sys_pidfd_send_signal(fd, signum) == -1 ? errno : 0;
	return (error == ESRCH ? 0 : error);
}

/*
 * The exit of the reaped child, in *si: 0, or ECHILD if the kernel kept
 * none.  It keeps no pid or uid for a reaped process: those of *alive,
 * read before, if any.
 */
static int
ak_exit(int fd, const struct pidfd_info *alive, siginfo_t *si)
{
	int st;

	if (procdesc_pidfd_exit_status(fd, &st) != 0)
		return (ECHILD);
	memset(si, 0, sizeof(*si));
	si->si_signo = SIGCHLD;
	si->si_pid = (pid_t)alive->pid;
	si->si_uid = (uid_t)alive->ruid;
	procdesc_wstatus_split(st, &si->si_code, &si->si_status);
	return (0);
}

/*
 * pdwait on the kernel's path: the exit, which every holder reads, as
 * often as it likes.  Stops and continues of an autoreaped child reach
 * nobody (waitid(2) fails with ECHILD), so a wait for them alone fails
 * with ECHILD, as for an exit not asked for.  The exit is read after the
 * hang-up (POLLHUP: the child reaped), not after the POLLIN that comes
 * first, when PIDFD_INFO_EXIT may still be missing.  With WNOHANG, a
 * POLLIN without the POLLHUP means the child has exited and the kernel is
 * reaping it: wait for that, so that a poller woken by the exit never
 * finds nothing.  The pid and uid are known only while the child runs:
 * read first.
 */
int
procdesc_ak_wait(int fd, int options, siginfo_t *si)
{
	struct pidfd_info alive;
	struct pollfd pfd;
	bool hang;

	if ((options & WEXITED) == 0)
		return ((options & WNOHANG) != 0 ? EAGAIN : ECHILD);
	if (ak_info(fd, PIDFD_INFO_PID, &alive) != 0)
		memset(&alive, 0, sizeof(alive));
	pfd.fd = fd;
	hang = (options & WNOHANG) == 0;
	for (;;) {
		pfd.events = hang ? 0 : POLLIN;	/* 0: POLLHUP alone. */
		pfd.revents = 0;
		if (poll(&pfd, 1, hang ? -1 : 0) == -1) {
			if (errno == EINTR && (options & WNOHANG) != 0)
				continue;	/* The reap is under way. */
			return (errno);
		}
		if ((pfd.revents & POLLNVAL) != 0)
			return (EBADF);
		if ((pfd.revents & POLLHUP) != 0)
			break;
		if ((pfd.revents & POLLIN) == 0)
			return (EAGAIN);
		hang = true;		/* Exited, not yet reaped. */
	}
	return (ak_exit(fd, &alive, si));
}

/* pidfd_getfd(2) through the descriptor itself. */
int
procdesc_ak_dupfd(int fd, int remotefd, int *newfdp)
{

	if ((*newfdp = sys_pidfd_getfd(fd, remotefd, 0)) == -1)
		return (errno);
	return (0);
}
