/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Where pdwait finds the event it reports, in this order (NOTES 1.9):
 * 1. the owner's entry for its own pdfork child (child.c): its exit, as
 *    its parent saw it, blocking on a pidfd of the child until then;
 * 2. any other descriptor: what its guardian says of it (desc.c's query),
 *    with a pidfd of its process; if we are that process's parent (a
 *    pdopenpid of our own fork() child) we look as the parent,
 *    waitid(P_PIDFD, WNOWAIT), which leaves the zombie for waitpid(2) and
 *    keeps pdwait repeatable; else the guardian's record, waiting for it
 *    in the query.
 * Stops and continues (WUNTRACED, WCONTINUED) are seen by a parent only.
 *
 * A guardian's word is taken only where it could not make us do what it
 * could not do itself (NOTES 6.1): it runs with its owner's credentials,
 * which the kernel names (SO_PEERCRED), and it is believed about a
 * process only if those could signal it.  Each function returns 0 or an
 * errno value.
 */

#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "desc.h"
#include "pidfd.h"
#include "syscall.h"
#include "wait.h"
#include "waitstatus.h"
#include "guardian/protocol.h"

/*
 * Copy len bytes to a user pointer that may be bad: EFAULT instead of a
 * crash.  process_vm_writev(2) on ourselves needs no privilege.
 */
int
procdesc_copyout(void *uaddr, const void *kaddr, size_t len)
{
	struct iovec local, remote;
	ssize_t n;

	if (uaddr == NULL)
		return (EFAULT);
	local.iov_base = (void *)(uintptr_t)kaddr;
	local.iov_len = len;
	remote.iov_base = uaddr;
	remote.iov_len = len;
	n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return (0);
	if (n == -1 && errno != EFAULT) {
		/* process_vm_writev forbidden (seccomp): plain store. */
		memcpy(uaddr, kaddr, len);
		return (0);
	}
	return (EFAULT);
}

/*
 * Whether procdesc_copyout() to the int at uaddr would succeed, found
 * before a child exists (pdfork's fdp): its value read and written back,
 * so that nothing changes.  0 or EFAULT; 0 where process_vm_readv(2) is
 * forbidden (the copy-out then finds out).
 */
int
procdesc_probe_int(int *uaddr)
{
	struct iovec local, remote;
	ssize_t n;
	int v;

	if (uaddr == NULL)
		return (EFAULT);
	local.iov_base = &v;
	local.iov_len = sizeof(v);
	remote.iov_base = uaddr;
	remote.iov_len = sizeof(v);
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n == -1 && errno != EFAULT)
		return (0);
	if (n != (ssize_t)sizeof(v))
		return (EFAULT);
	return (procdesc_copyout(uaddr, &v, sizeof(v)));
}

/* The waitpid(2)-style status word of a waitid(2) siginfo. */
int
procdesc_wait_status(const siginfo_t *si)
{

	switch (si->si_code) {
	case CLD_EXITED:
		return (W_EXITCODE(si->si_status, 0));
	case CLD_KILLED:
		return (W_EXITCODE(0, si->si_status));
	case CLD_DUMPED:
		return (W_EXITCODE(0, si->si_status) | WCOREFLAG);
	case CLD_STOPPED:
	case CLD_TRAPPED:
		return (W_STOPCODE(si->si_status));
	case CLD_CONTINUED:
		return (PROCDESC_W_CONTINUED);
	default:
		return (0);
	}
}

/* What an exit means to pdwait's options. */
static int
wt_exit_result(int options)
{

	if ((options & WEXITED) == 0)
		return ((options & WNOHANG) != 0 ? EAGAIN : ECHILD);
	return (0);
}

/*
 * What the event in si means to waitid(2)-style options: 0, or ECHILD
 * (EAGAIN with WNOHANG) for an exit they do not ask for.
 */
int
procdesc_wait_result(const siginfo_t *si, int options)
{

	if (si->si_code == CLD_STOPPED || si->si_code == CLD_CONTINUED ||
	    si->si_code == CLD_TRAPPED)
		return (0);
	return (wt_exit_result(options));
}

/*
 * Block on pidfd until its process exits, or stops or continues as options
 * ask (without taking that event: the caller looks again).
 */
static int
wt_block_pidfd(int pidfd, int options)
{
	struct pollfd pfd;
	siginfo_t si;

	if ((options & (WUNTRACED | WCONTINUED)) != 0) {
		memset(&si, 0, sizeof(si));
		if (sys_waitid(P_PIDFD, pidfd, &si, WEXITED | (options &
		    (WSTOPPED | WCONTINUED)) | WNOWAIT | __WALL, NULL) == -1 &&
		    errno != ECHILD)
			return (errno);
		return (0);
	}
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, -1) == -1 ? errno : 0);
}

/* Block until the owner's running child dp exits, stops or continues. */
static int
wt_block_child(const struct procdesc_desc *dp, int options)
{
	int error, pidfd;

	if ((error = procdesc_child_pidfd(dp, &pidfd)) != 0)
		return (0);		/* Reaped meanwhile: look again. */
	error = wt_block_pidfd(pidfd, options);
	close(pidfd);
	return (error);
}

/*
 * Whether the guardian that answered for the process behind pidfd could
 * signal it: it runs as root, or with the process's real or saved uid,
 * or the process is gone (and can be signalled by nobody).
 */
static bool
wt_credible(const struct procdesc_info *ip, int pidfd)
{
	uid_t ruid, suid;
	pid_t pid;

	if (ip->in_uid == 0 || procdesc_pidfd_pid(pidfd, &pid) != 0)
		return (true);
	if (procdesc_pidfd_uids(pidfd, pid, &ruid, &suid) != 0)
		return (true);
	return (ip->in_uid == ruid || ip->in_uid == suid);
}

/*
 * What the guardian of descriptor fd says of it, if its word counts: 0,
 * *ip and a pidfd of the process; EINVAL if fd is no process descriptor.
 * wait: not before its exit is recorded.
 */
int
procdesc_wait_foreign(int fd, bool wait, struct procdesc_info *ip,
    int *pidfdp)
{
	int error;

	if ((error = procdesc_desc_query(fd, wait, ip, pidfdp)) != 0)
		return (error);
	if (!wt_credible(ip, *pidfdp)) {
		close(*pidfdp);
		return (EINVAL);
	}
	return (0);
}

/*
 * Our pid namespace's inode: 0 if /proc does not say.  Not cached: the
 * child of a fork() made after unshare(CLONE_NEWPID) or setns(2) is in
 * another namespace than the process whose memory it copied.
 */
static uint64_t
wt_pidns(void)
{
	struct stat st;
	uint64_t v;
	int saved;

	saved = errno;
	v = (stat("/proc/self/ns/pid", &st) == 0) ? (uint64_t)st.st_ino : 0;
	errno = saved;
	return (v);
}

/*
 * The pid of the process behind pidfd as our pid namespace sees it; after
 * its reap, the pid the guardian saw, if the guardian's namespace is ours.
 * ESRCH if our namespace has none for it.
 */
int
procdesc_wait_pid(const struct procdesc_info *ip, int pidfd, pid_t *pidp)
{

	if (procdesc_pidfd_pid(pidfd, pidp) == 0)
		return (0);
	if (ip->in_pidns != 0 && ip->in_pidns == wt_pidns()) {
		*pidp = ip->in_pid;
		return (0);
	}
	return (ESRCH);
}

/*
 * As the parent of the process behind pidfd, if we are: EVENT (in *si and
 * *ru), RUNNING, or NONE if we are not its parent (or it is reaped).
 */
static enum procdesc_view
wt_parent(int pidfd, int options, siginfo_t *si, struct rusage *ru)
{
	int r;

	memset(si, 0, sizeof(*si));
	r = sys_waitid(P_PIDFD, pidfd, si, WEXITED | WNOWAIT | WNOHANG |
	    __WALL, ru);
	if (r == 0 && si->si_pid == 0 &&
	    (options & (WUNTRACED | WCONTINUED)) != 0)
		r = sys_waitid(P_PIDFD, pidfd, si, (options & (WSTOPPED |
		    WCONTINUED | WNOWAIT)) | WNOHANG | __WALL, ru);
	if (r != 0)
		return (PROCDESC_VIEW_NONE);
	return (si->si_pid == 0 ? PROCDESC_VIEW_RUNNING : PROCDESC_VIEW_EVENT);
}

/* The guardian's record of the exit, in *si and *ru. */
static int
wt_record(const struct procdesc_info *ip, pid_t pid, int options,
    siginfo_t *si, struct rusage *ru)
{

	memset(si, 0, sizeof(*si));
	si->si_signo = SIGCHLD;
	si->si_pid = pid;
	si->si_code = ip->in_code;
	si->si_status = ip->in_status;
	if ((ip->in_state & PG_RUSAGE) != 0)
		*ru = ip->in_ru;
	if (ip->in_code == 0)
		return (ECHILD);	/* Status lost. */
	return (wt_exit_result(options));
}

/*
 * As the owner of the pdfork child behind pidfd, if we are and a wait took
 * it already: EVENT, else NONE.
 */
static enum procdesc_view
wt_owner(int pidfd, pid_t pid, siginfo_t *si, struct rusage *ru)
{
	struct procdesc_proc pp;

	if (pid != 0 && procdesc_pidfd_proc(pidfd, pid, &pp) == 0 &&
	    procdesc_child_record(&pp, si, ru))
		return (PROCDESC_VIEW_EVENT);
	return (PROCDESC_VIEW_NONE);
}

/*
 * A descriptor that is not the owner's own: the parent's view if we are
 * the process's parent (its owner's record once reaped), else its
 * guardian's record.
 */
static int
wt_foreign_event(int fd, int options, siginfo_t *si, struct rusage *ru)
{
	struct procdesc_info in;
	enum procdesc_view v;
	pid_t pid;
	int error, pidfd;

	for (;;) {
		if ((error = procdesc_wait_foreign(fd, false, &in, &pidfd)) !=
		    0)
			return (error);
		if (procdesc_wait_pid(&in, pidfd, &pid) != 0)
			pid = 0;
		if ((v = wt_parent(pidfd, options, si, ru)) ==
		    PROCDESC_VIEW_RUNNING && (options & WNOHANG) == 0)
			error = wt_block_pidfd(pidfd, options);
		if (v == PROCDESC_VIEW_NONE)
			v = wt_owner(pidfd, pid, si, ru);
		close(pidfd);
		if (v == PROCDESC_VIEW_EVENT)
			return (procdesc_wait_result(si, options));
		if (v == PROCDESC_VIEW_RUNNING) {
			if (error != 0 || (options & WNOHANG) != 0)
				return (error != 0 ? error : EAGAIN);
			continue;
		}
		if ((in.in_state & PG_RECORDED) != 0)
			return (wt_record(&in, pid, options, si, ru));
		/*
		 * Not its parent: only the exit, if asked for.  An exit that
		 * happened (the descriptor hangs up) is never "running", even
		 * with WNOHANG: its record follows at once (the owner's word,
		 * or the kernel's within G_OWNER_MS), so wait for it.
		 */
		if ((options & WEXITED) == 0)
			return (ECHILD);
		if ((options & WNOHANG) != 0 && (in.in_state & PG_EXITED) == 0)
			return (EAGAIN);
		if ((error = procdesc_wait_foreign(fd, true, &in, &pidfd)) !=
		    0)
			return (error);
		close(pidfd);
		if ((in.in_state & PG_RECORDED) != 0)
			return (wt_record(&in, pid, options, si, ru));
	}
}

/* The event pdwait reports for descriptor fd (read as *dp), in *si, *ru. */
int
procdesc_wait_event(int fd, const struct procdesc_desc *dp, int options,
    siginfo_t *si, struct rusage *ru)
{
	int error;

	for (;;) {
		switch (procdesc_child_view(dp, options, si, ru)) {
		case PROCDESC_VIEW_EVENT:
			return (procdesc_wait_result(si, options));
		case PROCDESC_VIEW_RUNNING:
			if ((options & WNOHANG) != 0)
				return (EAGAIN);
			if ((error = wt_block_child(dp, options)) != 0)
				return (error);
			break;
		case PROCDESC_VIEW_NONE:
		case PROCDESC_VIEW_HIDDEN:	/* Only for waits by pid. */
			return (wt_foreign_event(fd, options, si, ru));
		}
	}
}
