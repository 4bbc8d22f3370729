/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The public calls, and nothing else.  Each checks its arguments in the
 * order pdfork(3)'s ERRORS gives before anything is created, orchestrates
 * the other files, sets errno once on failure and leaves it untouched on
 * success.  The pd_* workers return 0 or an errno value.
 *
 * Any holder of a descriptor (the owner, a fork copy, a receiver of
 * SCM_RIGHTS) reads the pid from its name and the exit from its record
 * (descriptor.c); the owner alone also finds its children in the registry,
 * for signals and stops while they run.
 */

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The public calls are the only symbols with default visibility. */
#pragma GCC visibility push(default)
#include "sys/procdesc.h"
#pragma GCC visibility pop
#include "procdesc_impl.h"
#include "syscall.h"
#include "waitstatus.h"
#include "guardian/protocol.h"

#define	PDI_WOPTS	(WNOHANG | WUNTRACED | WCONTINUED | WEXITED | WNOWAIT)
#define	PDI_WEVENTS	(WUNTRACED | WCONTINUED | WEXITED)

/*
 * FreeBSD's _SIG_MAXSIG: pdkill refuses what FreeBSD's refuses, and
 * kill(2) refuses Linux's own limit (65 to 128: EINVAL too).
 */
#define	PDI_SIGMAX	128

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
 * Copy len bytes to a user pointer that may be bad: EFAULT instead of a
 * crash.  process_vm_writev(2) on ourselves needs no privilege.
 */
static int
pd_copyout(void *uaddr, const void *kaddr, size_t len)
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
 * A new descriptor id: random, so that nobody can squat its name.
 * Without entropy yet (early boot), one that is at least unique: the
 * mix is one-to-one, and its input grows with every call.
 */
static uint64_t
pd_new_id(void)
{
	static _Atomic uint64_t seq;
	uint64_t id;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		return (id);
	return (procdesc_mix64((uint64_t)procdesc_now() + ++seq) ^
	    (uint64_t)getpid());
}

/*
 * Kill and reap a child that could not be registered.  If it failed to
 * register itself, its exit status says why (PG_EXIT_ERRNO): that errno
 * value replaces error, which says only that the guardian hung up.
 */
static int
pd_dispose(int pidfd, int error)
{
	siginfo_t si;

	(void)sys_pidfd_send_signal(pidfd, SIGKILL);
	memset(&si, 0, sizeof(si));
	while (sys_waitid(P_PIDFD, pidfd, &si, WEXITED | __WALL, NULL) == -1 &&
	    errno == EINTR)
		;
	close(pidfd);
	procdesc_lock();
	procdesc_reaper_kick();
	procdesc_unlock();
	if (error == EAGAIN && si.si_code == CLD_EXITED &&
	    si.si_status > PG_EXIT_ERRNO &&
	    si.si_status <= PG_EXIT_ERRNO + PG_EXIT_MASK)
		error = si.si_status - PG_EXIT_ERRNO;
	return (error);
}

/*
 * A guardian with room (started first, so that a new one takes the lowest
 * free numbers, as the one it replaces had), and a socketpair for the new
 * descriptor.
 */
static int
pd_prepare(int sv[2], int *gidxp, int *ctlp)
{
	int error;

	if ((error = procdesc_guardian_pick(gidxp, ctlp)) != 0)
		return (error);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0)
		return (0);
	error = errno;
	procdesc_lock();
	procdesc_guardian_release(*gidxp);
	procdesc_unlock();
	return (error);
}

/*
 * The parent's half of registering its new child, which registered itself
 * with the guardian and runs as soon as the guardian guards it: name the
 * descriptor, wait for the guardian's answer, file pd (allocated, and room
 * for it reserved, before the fork: filing cannot fail).
 */
static int
pd_adopt(const struct procdesc_childreq *cr, struct procdesc *pd, int gidx,
    int pidfd, int pdflags)
{
	struct procdesc_name n;
	int error;

	error = procdesc_desc_bind(cr->cr_a, pd->pd_pid, pidfd, cr->cr_id, &n);
	pd->pd_kind = n.pn_kind;	/* Valid on success only: used then. */
	pd->pd_tag = n.pn_tag;
	if (error == 0 && (pdflags & PD_CLOEXEC) == 0 &&
	    fcntl(cr->cr_a, F_SETFD, 0) == -1)
		error = errno;
	if (error == 0)
		error = procdesc_guardian_ack(cr->cr_a);
	procdesc_lock();
	if (error == ETIMEDOUT)
		procdesc_guardian_stalled(gidx);
	if (error == 0 && (error = procdesc_insert(pd)) == 0) {
		procdesc_guardian_hold(gidx, 1);
		procdesc_expire(procdesc_now());
		procdesc_reaper_kick();
	}
	procdesc_guardian_release(gidx);
	procdesc_unlock();
	return (error == ETIMEDOUT ? EAGAIN : error);
}

/* A registry entry for a child to come, and room to file it. */
static int
pd_entry(struct procdesc **pdp, int pdflags)
{
	struct procdesc *pd;
	int error;

	if ((pd = calloc(1, sizeof(*pd))) == NULL)
		return (ENOMEM);
	pd->pd_flags = pdflags;
	pd->pd_id = pd_new_id();
	procdesc_lock();
	error = procdesc_reserve();
	procdesc_unlock();
	if (error != 0)
		free(pd);
	else
		*pdp = pd;
	return (error);
}

/*
 * pdfork and pdrfork; spawn for RFSPAWN, whose parent resumes once the
 * child has exec'd or exited.  The child registers itself with a guardian
 * before it runs any code of the application (1.5 in NOTES): if the owner
 * is killed at any moment, the child is either guarded, so the death of
 * the owner's copy of the descriptor kills it, or it _exits unguarded.
 */
static int
pd_fork(int *fdp, int pdflags, bool spawn, pid_t *pidp)
{
	struct procdesc_childreq cr;
	struct procdesc *pd;
	pid_t pid;
	int sv[2], error, gidx, pidfd;

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_reaper_start()) != 0 ||
	    (error = pd_entry(&pd, pdflags)) != 0)
		return (error);
	if ((error = pd_prepare(sv, &gidx, &cr.cr_ctl)) != 0) {
		free(pd);
		return (error);
	}
	cr.cr_a = sv[0];
	cr.cr_b = sv[1];
	cr.cr_flags = (uint32_t)pdflags | PG_CHILD;
	cr.cr_id = pd->pd_id;
	error = spawn ? procdesc_fork_spawn(&cr, &pid, &pidfd) :
	    procdesc_fork_clone(&cr, &pid, &pidfd);
	if (error == 0 && pid == 0) {
		/* The child: A and B are closed; pd is the parent's. */
		*pidp = 0;
		return (0);
	}
	/* Only the guardian holds B now; if it has not, A sees EOF. */
	close(sv[1]);
	if (error == 0) {
		pd->pd_pid = pid;
		pd->pd_guardian = gidx;
		if ((error = pd_adopt(&cr, pd, gidx, pidfd, pdflags)) != 0)
			error = pd_dispose(pidfd, error);
		else
			close(pidfd);
	} else {
		procdesc_lock();
		procdesc_guardian_release(gidx);
		procdesc_unlock();
	}
	if (error != 0) {
		free(pd);
		close(sv[0]);
		return (error);
	}
	/*
	 * FreeBSD's child runs on when the copy-out fails.  Closing the only
	 * descriptor then kills it unless PD_DAEMON: nothing leaks.
	 */
	if (pd_copyout(fdp, &sv[0], sizeof(sv[0])) != 0) {
		close(sv[0]);
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

pid_t
pdrfork(int *fdp, int pdflags, int rfflags)
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
 * Identify fd: its name.  notpd: the error for an open fd that is not a
 * process descriptor (EBADF for pdgetpid and pdkill, EINVAL for the rest).
 */
static int
pd_ident(int fd, int notpd, struct procdesc_name *np)
{
	int error;

	if ((error = procdesc_kernel_ok()) != 0)
		return (error);
	error = procdesc_desc_name(fd, np);
	return (error == EINVAL ? notpd : error);
}

/*
 * The owner's entry for descriptor np, if its process is one of our pdfork
 * children: by the descriptor's id, or, for another description of it (a
 * pdopenpid of our own child), by the identity in its name.  mtx held.
 */
static struct procdesc *
pd_mine(const struct procdesc_name *np)
{
	struct procdesc *pd;

	PROCDESC_ASSERT_LOCKED();
	if ((pd = procdesc_find_id(np->pn_id)) != NULL &&
	    pd->pd_pid == np->pn_pid)
		return (pd);
	return (procdesc_find_proc(np->pn_pid, np->pn_kind, np->pn_tag));
}

static int
pd_getpid(int fd, pid_t *pidp)
{
	struct procdesc_name n;
	int error;

	if ((error = pd_ident(fd, EBADF, &n)) != 0)
		return (error);
	return (pd_copyout(pidp, &n.pn_pid, sizeof(n.pn_pid)));
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
 * Signal the process descriptor fd (named np) names, through a pidfd
 * checked against the name, without a lock: anyone may, from anywhere.  A
 * process that has exited takes no signal: 0 (FreeBSD 16).
 */
static int
pd_kill_pidfd(int fd, const struct procdesc_name *np, int signum)
{
	struct pg_msg m;
	int error, pidfd;

	if (procdesc_desc_record(fd, &m) != EAGAIN)
		return (0);
	if ((error = procdesc_desc_pidfd(np, &pidfd)) != 0)
		return (error == ESRCH ? 0 : error);
	error = sys_pidfd_send_signal(pidfd, signum) == -1 ? errno : 0;
	close(pidfd);
	return (error == ESRCH ? 0 : error);
}

/*
 * The owner signals its unreaped child by pid under procdesc_mtx, which the
 * reaper holds to reap: the pid cannot be recycled meanwhile.  That is
 * quicker than a pidfd, but only if the lock is free at once: pdkill may
 * run in a signal handler that interrupted the lock's holder, or a thread
 * that the holder waits for (in malloc, say).  Otherwise, and for anyone
 * else, the pidfd.
 */
static int
pd_kill(int fd, int signum)
{
	struct procdesc_name n;
	struct procdesc *pd;
	int error;

	if (signum < 0 || signum > PDI_SIGMAX)
		return (EINVAL);
	if ((error = pd_ident(fd, EBADF, &n)) != 0)
		return (error);
	if (procdesc_trylock()) {
		if ((pd = pd_mine(&n)) != NULL) {
			error = 0;
			if (!pd->pd_reaped && kill(pd->pd_pid, signum) == -1)
				error = errno;
			procdesc_unlock();
			return (error);
		}
		procdesc_unlock();
	}
	return (pd_kill_pidfd(fd, &n, signum));
}

int
pdkill(int fd, int signum)
{
	int saved;

	saved = errno;
	(void)pd_enter(false);
	return (pd_leave(pd_kill(fd, signum), saved));
}

/* The waitpid(2)-style status word of a waitid(2) siginfo. */
static int
pd_wstatus(const siginfo_t *si)
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
pd_exit_result(int options)
{

	if ((options & WEXITED) == 0)
		return ((options & WNOHANG) != 0 ? EAGAIN : ECHILD);
	return (0);
}

/* What the event in si means to pdwait's options. */
static int
pd_event_result(const siginfo_t *si, int options)
{

	if (si->si_code == CLD_STOPPED || si->si_code == CLD_CONTINUED ||
	    si->si_code == CLD_TRAPPED)
		return (0);
	return (pd_exit_result(options));
}

/*
 * The owner's view of its child for pdwait, through any descriptor of it:
 * its status, once it has exited (1), a stop or continue event (1), or
 * nothing (0, and
 * *runningp says whether the child is still ours and unreaped).  A child
 * somebody else reaped shows as a record while its entry is still here:
 * forget the entry.
 */
static int
pd_wait_owner(const struct procdesc_name *np, int options, bool recorded,
    siginfo_t *si, struct rusage *ru, bool *runningp)
{
	struct procdesc *pd;
	int r;

	*runningp = false;
	procdesc_lock();
	r = 0;
	/* Exited, and the reaper not there yet: reap it now (WNOHANG). */
	if ((pd = pd_mine(np)) != NULL && !pd->pd_reaped)
		(void)procdesc_reaper_reap(pd);
	if (pd != NULL && pd->pd_reaped) {
		*si = pd->pd_si;
		*ru = pd->pd_ru;
		r = 1;
	} else if (pd != NULL && recorded && !pd->pd_lost) {
		procdesc_guardian_hold(pd->pd_guardian, -1);
		procdesc_remove(pd);
	} else if (pd != NULL) {
		*runningp = true;
		if ((options & (WUNTRACED | WCONTINUED)) != 0) {
			memset(si, 0, sizeof(*si));
			if (sys_waitid(P_PID, pd->pd_pid, si, (options &
			    (WSTOPPED | WCONTINUED | WNOWAIT)) | WNOHANG |
			    __WALL, ru) == 0 && si->si_pid != 0)
				r = 1;
		}
	}
	procdesc_unlock();
	return (r);
}

/*
 * Block on pidfd until its process exits, or stops or continues as options
 * ask (without taking that event: the caller looks again).
 */
static int
pd_block_pidfd(int pidfd, int options)
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

/*
 * Block until the owner's running child np exits, or stops or continues as
 * options ask, through a pidfd made while the child is unreaped: the exit
 * wakes us as it wakes the reaper, and whichever is first reaps, so that
 * pdwait costs no trip through the guardian.  -1: not our running child.
 */
static int
pd_block_child(const struct procdesc_name *np, int options)
{
	struct procdesc *pd;
	int error, pidfd;

	pidfd = -1;
	procdesc_lock();
	if ((pd = pd_mine(np)) != NULL && !pd->pd_reaped)
		pidfd = sys_pidfd_open(pd->pd_pid, 0);
	procdesc_unlock();
	if (pidfd == -1)
		return (-1);
	error = pd_block_pidfd(pidfd, options);
	close(pidfd);
	if (error != 0)
		return (error);
	procdesc_lock();
	if ((pd = pd_mine(np)) != NULL)
		(void)procdesc_reaper_reap(pd);
	procdesc_unlock();
	return (0);
}

/*
 * A descriptor of the caller's own child that pdfork did not make (a
 * pdopenpid of a fork() child).  Nobody else can have its status before
 * the caller reaps it, and then only the kernel's copy without rusage: so
 * look at it as its parent, with WNOWAIT, which leaves it for waitpid(2)
 * and keeps pdwait repeatable.  A stop or continue is taken, as waitpid
 * would.  1: an event in *si and *ru; 0: none yet, and *pidfdp to block
 * on; -1: not our child, or reaped.
 */
static int
pd_wait_parent(const struct procdesc_name *np, int options, siginfo_t *si,
    struct rusage *ru, int *pidfdp)
{
	int pidfd, r;

	if (procdesc_desc_pidfd(np, &pidfd) != 0)
		return (-1);
	memset(si, 0, sizeof(*si));
	r = sys_waitid(P_PIDFD, pidfd, si, WEXITED | WNOWAIT | WNOHANG |
	    __WALL, ru);
	if (r == 0 && si->si_pid == 0 &&
	    (options & (WUNTRACED | WCONTINUED)) != 0)
		r = sys_waitid(P_PIDFD, pidfd, si, (options & (WSTOPPED |
		    WCONTINUED | WNOWAIT)) | WNOHANG | __WALL, ru);
	if (r == 0 && si->si_pid == 0) {
		*pidfdp = pidfd;
		return (0);
	}
	close(pidfd);
	return (r == 0 ? 1 : -1);
}

/* Block until the descriptor has its record (or a hang-up). */
static int
pd_block(int fd)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, -1) == -1 ? errno : 0);
}

/* Until the reaper has the status of a child whose guardian died. */
static void
pd_wait_lost(const struct procdesc_name *np)
{
	struct procdesc *pd;
	struct timespec ts;

	procdesc_lock();
	while ((pd = pd_mine(np)) != NULL && !pd->pd_reaped) {
		procdesc_recheck_deadline(&ts);
		(void)pthread_cond_timedwait(&procdesc_reap_cv, &procdesc_mtx,
		    &ts);
	}
	procdesc_unlock();
}

/* The event pdwait reports, in *si and *ru. */
static int
pd_wait_event(int fd, const struct procdesc_name *np, int options,
    siginfo_t *si, struct rusage *ru)
{
	struct pg_msg m;
	bool running;
	int error, pidfd, r;

	for (;;) {
		error = procdesc_desc_record(fd, &m);
		if (pd_wait_owner(np, options, error == 0, si, ru,
		    &running) != 0)
			return (pd_event_result(si, options));
		/* No record, or one without a status: ours to reap? */
		pidfd = -1;
		if (!running && (error != 0 || m.pm_code == 0) &&
		    (r = pd_wait_parent(np, options, si, ru, &pidfd)) == 1)
			return (pd_event_result(si, options));
		if (pidfd == -1 && error == 0) {
			memset(si, 0, sizeof(*si));
			si->si_signo = SIGCHLD;
			si->si_pid = np->pn_pid;
			si->si_code = m.pm_code;
			si->si_status = m.pm_status;
			*ru = m.pm_ru;
			if (m.pm_code == 0)
				return (ECHILD);	/* Status lost. */
			return (pd_exit_result(options));
		}
		if (error == ECHILD && running) {
			pd_wait_lost(np);	/* The guardian died. */
			continue;
		}
		if (pidfd == -1 && error != EAGAIN)
			return (error);
		/* Neither owner nor parent: only the exit, not asked for. */
		if (!running && pidfd == -1 && (options & WEXITED) == 0)
			return (ECHILD);
		if ((options & WNOHANG) != 0)
			error = EAGAIN;
		else if (pidfd != -1)
			error = pd_block_pidfd(pidfd, options);
		else if ((error = running ? pd_block_child(np, options) :
		    -1) == -1)
			error = pd_block(fd);
		if (pidfd != -1)
			close(pidfd);
		if (error != 0)
			return (error);
	}
}

static int
pd_wait(int fd, int *status, int options, struct __wrusage *wrusage,
    siginfo_t *info)
{
	struct procdesc_name n;
	struct __wrusage wru;
	siginfo_t si;
	int error, st;

	if ((options & ~PDI_WOPTS) != 0 || (options & PDI_WEVENTS) == 0)
		return (EINVAL);
	if ((error = pd_ident(fd, EINVAL, &n)) != 0)
		return (error);
	memset(&wru, 0, sizeof(wru));
	memset(&si, 0, sizeof(si));
	if ((error = pd_wait_event(fd, &n, options, &si,
	    &wru.wru_self)) != 0)
		return (error);
	st = pd_wstatus(&si);
	if (status != NULL &&
	    (error = pd_copyout(status, &st, sizeof(st))) != 0)
		return (error);
	if (wrusage != NULL &&
	    (error = pd_copyout(wrusage, &wru, sizeof(wru))) != 0)
		return (error);
	if (info != NULL)
		error = pd_copyout(info, &si, sizeof(si));
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

/*
 * A descriptor for a process we did not create.  FreeBSD 16 semantics:
 * the last close kills it unless PD_DAEMON.  The owner hands the guardian
 * the process itself; the guardian records its exit from the pidfd.
 */
static int
pd_openpid(pid_t pid, int pdflags, int *fdp)
{
	struct pollfd pfd;
	uint64_t id;
	int sv[2], error, gidx, ctl, pidfd;

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if (pid <= 0)
		return (ESRCH);
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_reaper_start()) != 0)
		return (error);
	if ((pidfd = sys_pidfd_open(pid, 0)) == -1)
		return (errno == EINVAL || errno == ENOENT ? ESRCH : errno);
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) == 1) {
		close(pidfd);
		return (EBUSY);		/* A zombie or exiting. */
	}
	if ((error = pd_prepare(sv, &gidx, &ctl)) != 0) {
		close(pidfd);
		return (error);
	}
	id = pd_new_id();
	if ((error = procdesc_desc_bind(sv[0], pid, pidfd, id, NULL)) == 0)
		error = procdesc_guardian_send(ctl, id, pid, pdflags, sv[1],
		    pidfd);
	close(sv[1]);
	close(pidfd);
	if (error == 0)
		error = procdesc_guardian_ack(sv[0]);
	procdesc_lock();
	if (error == ETIMEDOUT)
		procdesc_guardian_stalled(gidx);
	procdesc_guardian_release(gidx);
	procdesc_unlock();
	if (error == 0 && (pdflags & PD_CLOEXEC) == 0 &&
	    fcntl(sv[0], F_SETFD, 0) == -1)
		error = errno;
	if (error != 0) {
		close(sv[0]);
		return (error == ETIMEDOUT ? EAGAIN : error);
	}
	*fdp = sv[0];
	return (0);
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

static int
pd_dupfd(int fd, int remotefd, int flags, int *newfdp)
{
	struct procdesc_name n;
	int error, pidfd;

	if (flags != 0)
		return (EINVAL);
	if ((error = pd_ident(fd, EINVAL, &n)) != 0)
		return (error);
	if ((error = procdesc_desc_pidfd(&n, &pidfd)) != 0)
		return (error);
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
