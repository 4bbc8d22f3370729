/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The public calls, and nothing else (FreeBSD's sys_pd*() layer): each
 * checks its arguments in the order pdfork(3)'s ERRORS gives before
 * anything is created, hands the work to the file that owns it, copies
 * the results out, sets errno once on failure and leaves it untouched on
 * success.  No lock is taken here and no message is read: the pd_*
 * workers return 0 or an errno value.
 *
 * The owner finds its own descriptors' children in their entries
 * (child.c); any other holder (a fork copy, a receiver of SCM_RIGHTS, a
 * program that kept one across exec) asks the descriptor's guardian
 * (wait.c, desc.c).
 */

#include <sys/wait.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The public calls are the only symbols with default visibility. */
#pragma GCC visibility push(default)
#include "sys/procdesc.h"
#pragma GCC visibility pop
#include "autokill.h"
#include "child.h"
#include "create.h"
#include "desc.h"
#include "fork.h"
#include "kernel.h"
#include "lock.h"
#include "pidfd.h"
#include "syscall.h"
#include "wait.h"
#include "guardian/protocol.h"

#define	PD_WOPTS	(WNOHANG | WUNTRACED | WCONTINUED | WEXITED | WNOWAIT)
#define	PD_WEVENTS	(WUNTRACED | WCONTINUED | WEXITED)

/*
 * FreeBSD's _SIG_MAXSIG: pdkill refuses what FreeBSD's refuses, and
 * kill(2) refuses Linux's own limit (65 to 128: EINVAL too).
 */
#define	PD_SIGMAX	128

/*
 * How deep this thread is in the public calls.  Deeper than 0 at entry: a
 * signal handler interrupted one of them on this thread, maybe holding
 * procdesc_mtx; or it interrupted a fork() between our atfork handlers,
 * which hold it (procdesc_locked()).  A call that takes the lock then
 * fails with EDEADLK at once (locks is true: pdfork, pdrfork, pdwait,
 * pdopenpid); pdgetpid, pdkill and pddupfd work without it
 * (async-signal-safe).  pd_enter() always counts, pd_leave() always
 * uncounts and sets errno: error, or on success the caller's saved value.
 */
static PROCDESC_TLS volatile int pd_depth;

static int
pd_enter(bool locks)
{

	return ((pd_depth++ > 0 || procdesc_locked()) && locks ? EDEADLK : 0);
}

static int
pd_leave(int error, int saved)
{

	pd_depth--;
	errno = (error != 0) ? error : saved;
	return (error != 0 ? -1 : 0);
}

/*
 * pdfork and pdrfork.  An unwritable fdp is found before the clone, so
 * that no child runs anything (NOTES 2.4).  If it becomes unwritable
 * meanwhile (another thread's munmap), the copy-out fails as FreeBSD's
 * does: the child has run, and closing its only descriptor kills it
 * unless PD_DAEMON, so nothing leaks.
 */
static int
pd_fork(int *fdp, int pdflags, bool spawn, pid_t *pidp)
{
	pid_t pid;
	int error, fd;

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if (procdesc_probe_int(fdp) != 0)
		return (EFAULT);
	if ((error = procdesc_create_fork(pdflags, spawn, &pid, &fd)) != 0)
		return (error);
	if (pid != 0 && procdesc_copyout(fdp, &fd, sizeof(fd)) != 0) {
		close(fd);
		return (EFAULT);
	}
	*pidp = pid;
	return (0);
}

pid_t
pdfork(int *fdp, int pdflags)
{
	pid_t pid;
	int error, saved;

	saved = errno;
	if ((error = pd_enter(true)) == 0)
		error = pd_fork(fdp, pdflags, false, &pid);
	if (pd_leave(error, saved) == -1)
		return (-1);
	return (pid);
}

/*
 * pdrfork.  Where fork.c has pdrfork's entry (PROCDESC_VFORK), the entry
 * is pdrfork, which makes RFSPAWN itself and passes every other call on
 * to this.
 */
#if PROCDESC_VFORK
pid_t
procdesc_pdrfork_c(int *fdp, int pdflags, int rfflags)
#else
pid_t
pdrfork(int *fdp, int pdflags, int rfflags)
#endif
{
	unsigned int rf;
	pid_t pid;
	int error, saved;

	saved = errno;
	rf = (unsigned int)rfflags;
	if ((error = pd_enter(true)) != 0)
		;
	else if (rf == RFSPAWN)
		error = pd_fork(fdp, pdflags, true, &pid);
	else if ((rf & ~(unsigned int)(RFPROC | RFPROCDESC | RFFDG)) != 0 ||
	    (rf & (RFPROC | RFPROCDESC)) != (RFPROC | RFPROCDESC))
		error = EINVAL;
	else
		error = pd_fork(fdp, pdflags, false, &pid);
	if (pd_leave(error, saved) == -1)
		return (-1);
	return (pid);
}

/*
 * pdrfork(RFSPAWN) through fork.c's entry, whose child shares our memory:
 * the arguments and everything that can fail, before the clone; the
 * adoption and the copy-out after it, in the parent.  The request is on
 * the heap, since the child returns through our frames and its caller
 * reuses their memory.  This thread's depth in the public calls (pd_enter)
 * counts from begin to end, so that a child calling us sees EDEADLK.
 */
#if PROCDESC_VFORK
struct pd_rfspawn {
	struct procdesc_create	 rs_cc;		/* First: the entry's. */
	int			*rs_fdp;
	int			 rs_saved;	/* The caller's errno. */
};

struct procdesc_vfork *
procdesc_rfspawn_begin(int *fdp, int pdflags)
{
	struct pd_rfspawn *rs;
	int error, saved;

	saved = errno;
	rs = NULL;
	if ((error = pd_enter(true)) == 0) {
		if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
			error = EINVAL;
		else if (procdesc_probe_int(fdp) != 0)
			error = EFAULT;
		else if ((rs = malloc(sizeof(*rs))) == NULL)
			error = EAGAIN;
		else if ((error = procdesc_create_vfork_begin(&rs->rs_cc,
		    pdflags)) != 0)
			free(rs);
	}
	if (error != 0) {
		(void)pd_leave(error, saved);
		return (NULL);
	}
	rs->rs_fdp = fdp;
	rs->rs_saved = saved;
	return (&rs->rs_cc.cc_vf);
}

pid_t
procdesc_rfspawn_end(struct procdesc_vfork *vf, long ret)
{
	struct pd_rfspawn *rs;
	pid_t pid;
	int error, fd;

	rs = (struct pd_rfspawn *)(void *)vf;
	error = procdesc_create_vfork_end(&rs->rs_cc, ret, &pid, &fd);
	if (error == 0 && procdesc_copyout(rs->rs_fdp, &fd, sizeof(fd)) != 0) {
		close(fd);
		error = EFAULT;
	}
	if (pd_leave(error, rs->rs_saved) == -1)
		return (-1);
	return (pid);
}

void
procdesc_rfspawn_done(struct procdesc_vfork *vf)
{
	int saved;

	saved = errno;
	free(vf);
	errno = saved;
}
#endif /* PROCDESC_VFORK */

/*
 * Identify fd.  notpd: the error for an open fd that is not a process
 * descriptor (EBADF for pdgetpid and pdkill, EINVAL for the rest).
 */
static int
pd_ident(int fd, int notpd, struct procdesc_desc *dp)
{
	int error;

	if ((error = procdesc_kernel_ok()) != 0)
		return (error);
	/*
	 * The kernel's mark proves a descriptor of the kernel's path; a
	 * socket's cookie is what the owner's entry (child.c) or else the
	 * guardian then checks.  The hint only orders the two tests, so that
	 * each kind pays for one (a wrong hint costs one call).
	 */
	dp->dd_kernel = procdesc_ak_hinted(fd);
	if (dp->dd_kernel && (error = procdesc_ak_ident(fd)) == EINVAL)
		dp->dd_kernel = false;
	if (!dp->dd_kernel &&
	    (error = procdesc_desc_cookie(fd, &dp->dd_cookie)) == EINVAL &&
	    (error = procdesc_ak_ident(fd)) == 0)
		dp->dd_kernel = true;
	if (error == 0)
		procdesc_ak_hint(fd, dp->dd_kernel);
	return (error == EINVAL ? notpd : error);
}

/*
 * What descriptor fd names, if it is not the owner's own: its guardian's
 * answer and a pidfd of its process.
 */
static int
pd_foreign(int fd, int notpd, struct procdesc_info *ip, int *pidfdp)
{
	int error;

	error = procdesc_wait_foreign(fd, false, ip, pidfdp);
	return (error == EINVAL ? notpd : error);
}

static int
pd_getpid(int fd, pid_t *pidp)
{
	struct procdesc_info in;
	struct procdesc_desc d;
	pid_t pid;
	int error, pidfd;

	if ((error = pd_ident(fd, EBADF, &d)) != 0)
		return (error);
	if (d.dd_kernel) {
		/* ESRCH once it has exited: the kernel freed the pid. */
		if ((error = procdesc_pidfd_pid(fd, &pid)) != 0)
			return (error);
	} else if (!procdesc_child_pid(&d, &pid)) {
		if ((error = pd_foreign(fd, EBADF, &in, &pidfd)) != 0)
			return (error);
		error = procdesc_wait_pid(&in, pidfd, &pid);
		close(pidfd);
		if (error != 0)
			return (error);
	}
	return (procdesc_copyout(pidp, &pid, sizeof(pid)));
}

int
pdgetpid(int fd, pid_t *pidp)
{
	int saved;

	saved = errno;
	(void)pd_enter(false);
	return (pd_leave(pd_getpid(fd, pidp), saved));
}

/*
 * The owner's quick path for its own child, else through a pidfd that
 * its guardian gives.  A process that has exited takes no signal: 0
 * (FreeBSD 16).
 */
static int
pd_kill(int fd, int signum)
{
	struct procdesc_info in;
	struct procdesc_desc d;
	bool mine;
	int error, pidfd;

	if (signum < 0 || signum > PD_SIGMAX)
		return (EINVAL);
	if ((error = pd_ident(fd, EBADF, &d)) != 0)
		return (error);
	if (d.dd_kernel)
		return (procdesc_ak_kill(fd, signum));
	if ((error = procdesc_child_kill(&d, signum, &mine)) != 0 || mine)
		return (error);
	if ((error = pd_foreign(fd, EBADF, &in, &pidfd)) != 0)
		return (error);
	error = 0;
	if ((in.in_state & PG_EXITED) == 0 &&
	    sys_pidfd_send_signal(pidfd, signum) == -1)
		error = errno;
	close(pidfd);
	return (error == ESRCH ? 0 : error);
}

int
pdkill(int fd, int signum)
{
	int saved;

	saved = errno;
	(void)pd_enter(false);
	return (pd_leave(pd_kill(fd, signum), saved));
}

static int
pd_wait(int fd, int *status, int options, struct __wrusage *wrusage,
    siginfo_t *info)
{
	struct procdesc_desc d;
	struct __wrusage wru;
	siginfo_t si;
	int error, st;

	if ((options & ~PD_WOPTS) != 0 || (options & PD_WEVENTS) == 0)
		return (EINVAL);
	if ((error = pd_ident(fd, EINVAL, &d)) != 0)
		return (error);
	memset(&wru, 0, sizeof(wru));
	memset(&si, 0, sizeof(si));
	if (d.dd_kernel)
		error = procdesc_ak_wait(fd, options, &si);
	else
		error = procdesc_wait_event(fd, &d, options, &si,
		    &wru.wru_self);
	if (error != 0)
		return (error);
	st = procdesc_wait_status(&si);
	if (status != NULL &&
	    (error = procdesc_copyout(status, &st, sizeof(st))) != 0)
		return (error);
	if (wrusage != NULL &&
	    (error = procdesc_copyout(wrusage, &wru, sizeof(wru))) != 0)
		return (error);
	if (info != NULL)
		error = procdesc_copyout(info, &si, sizeof(si));
	return (error);
}

int
pdwait(int fd, int *status, int options, struct __wrusage *wrusage,
    siginfo_t *info)
{
	int error, saved;

	saved = errno;
	if ((error = pd_enter(true)) == 0)
		error = pd_wait(fd, status, options, wrusage, info);
	return (pd_leave(error, saved));
}

static int
pd_openpid(pid_t pid, int pdflags, int *fdp)
{

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if (pid <= 0)
		return (ESRCH);
	return (procdesc_create_open(pid, pdflags, fdp));
}

int
pdopenpid(pid_t pid, int pdflags)
{
	int error, fd, saved;

	saved = errno;
	fd = -1;
	if ((error = pd_enter(true)) == 0)
		error = pd_openpid(pid, pdflags, &fd);
	if (pd_leave(error, saved) == -1)
		return (-1);
	return (fd);
}

/* pidfd_getfd(2) from the process, through its pidfd. */
static int
pd_dupfd(int fd, int remotefd, int flags, int *newfdp)
{
	struct procdesc_info in;
	struct procdesc_desc d;
	int error, pidfd;

	if (flags != 0)
		return (EINVAL);
	if ((error = pd_ident(fd, EINVAL, &d)) != 0)
		return (error);
	if (d.dd_kernel)
		return (procdesc_ak_dupfd(fd, remotefd, newfdp));
	if (procdesc_child_pidfd(&d, &pidfd) != 0 &&
	    (error = pd_foreign(fd, EINVAL, &in, &pidfd)) != 0)
		return (error);
	error = 0;
	if ((*newfdp = sys_pidfd_getfd(pidfd, remotefd, 0)) == -1)
		error = errno;
	close(pidfd);
	return (error);
}

int
pddupfd(int fd, int remotefd, int flags)
{
	int error, newfd, saved;

	saved = errno;
	newfd = -1;
	(void)pd_enter(false);
	error = pd_dupfd(fd, remotefd, flags, &newfd);
	if (pd_leave(error, saved) == -1)
		return (-1);
	return (newfd);
}
