/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The public calls, and nothing else.  Each checks its arguments in
 * SPEC.md's order before anything is created, works through the registry,
 * sets errno once on failure and leaves it untouched on success.  The
 * pd_* workers return 0 or an errno value.
 */

#include <sys/eventfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The public calls are the only symbols with default visibility. */
#pragma GCC visibility push(default)
#include "sys/procdesc.h"
#pragma GCC visibility pop
#include "procdesc_impl.h"
#include "syscall.h"

#define	PD_WOPTS	(WNOHANG | WUNTRACED | WCONTINUED | WEXITED | WNOWAIT)
#define	PD_WEVENTS	(WUNTRACED | WCONTINUED | WEXITED)

static int
pd_return(int error, int saved)
{

	errno = (error != 0) ? error : saved;
	return (error != 0 ? -1 : 0);
}

/* Kill and reap a child that could not be registered. */
static void
pd_dispose(int pidfd)
{
	siginfo_t si;

	(void)sys_pidfd_send_signal(pidfd, SIGKILL);
	while (sys_waitid(P_PIDFD, pidfd, &si, WEXITED | __WALL, NULL) == -1 &&
	    errno == EINTR)
		;
	close(pidfd);
	pthread_mutex_lock(&procdesc_mtx);
	procdesc_watchdog_kick();
	pthread_mutex_unlock(&procdesc_mtx);
}

/*
 * pdfork and pdrfork; spawn for RFSPAWN, whose parent resumes once the
 * child has exec'd or exited.  An fd slot is reserved before the clone, so
 * that registering the child (the guardian needs a pidfd of its own)
 * cannot fail with EMFILE once it runs.
 */
static int
pd_fork(int *fdp, int pdflags, bool spawn, pid_t *pidp)
{
	pid_t pid;
	int error, pidfd, resv;

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_watchdog_start()) != 0 ||
	    (error = procdesc_helper_start()) != 0)
		return (error);
	if ((resv = eventfd(0, EFD_CLOEXEC)) == -1)
		return (errno);
	error = spawn ? procdesc_fork_spawn(&pid, &pidfd) :
	    procdesc_fork_clone(&pid, &pidfd);
	close(resv);
	if (error != 0)
		return (error);
	if ((*pidp = pid) == 0)
		return (0);
	if ((pdflags & PD_CLOEXEC) == 0 && fcntl(pidfd, F_SETFD, 0) == -1)
		error = errno;
	if (error == 0)
		error = procdesc_new(pid, pidfd, pdflags, true);
	if (error != 0) {
		pd_dispose(pidfd);
		return (error);
	}
	/*
	 * FreeBSD's child runs on when the copy-out fails.  Closing the only
	 * descriptor then kills it unless PD_DAEMON: nothing leaks.
	 */
	if (procdesc_copyout(fdp, &pidfd, sizeof(pidfd)) != 0) {
		close(pidfd);
		return (EFAULT);
	}
	return (0);
}

pid_t
pdfork(int *fdp, int pdflags)
{
	pid_t pid;
	int error, saved;

	saved = errno;
	error = pd_fork(fdp, pdflags, false, &pid);
	if (pd_return(error, saved) == -1)
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
	if (rf == RFSPAWN)
		error = pd_fork(fdp, pdflags, true, &pid);
	else if ((rf & ~(unsigned int)(RFPROC | RFPROCDESC | RFFDG)) != 0 ||
	    (rf & (RFPROC | RFPROCDESC)) != (RFPROC | RFPROCDESC))
		error = EINVAL;
	else
		error = pd_fork(fdp, pdflags, false, &pid);
	if (pd_return(error, saved) == -1)
		return (-1);
	return (pid);
}

/* Identify fd for a call whose "not a descriptor" error is EBADF. */
static int
pd_ident_badf(int fd, uint64_t *keyp)
{
	int error;

	error = procdesc_ident(fd, keyp);
	return (error == EINVAL ? EBADF : error);
}

static int
pd_getpid(int fd, pid_t *pidp)
{
	struct procdesc *pd;
	uint64_t key;
	pid_t pid;
	int error;

	if ((error = pd_ident_badf(fd, &key)) != 0)
		return (error);
	pthread_mutex_lock(&procdesc_mtx);
	pd = procdesc_find(key);
	pid = (pd != NULL) ? pd->pd_pid : 0;
	pthread_mutex_unlock(&procdesc_mtx);
	if (pd == NULL && (error = procdesc_kernel_pid(fd, &pid)) != 0)
		return (error);
	return (procdesc_copyout(pidp, &pid, sizeof(pid)));
}

int
pdgetpid(int fd, pid_t *pidp)
{
	int saved;

	saved = errno;
	return (pd_return(pd_getpid(fd, pidp), saved));
}

static int
pd_kill(int fd, int signum)
{
	struct procdesc *pd;
	uint64_t key;
	bool reaped;
	int error;

	if (signum < 0 || signum > 128)
		return (EINVAL);
	if ((error = pd_ident_badf(fd, &key)) != 0)
		return (error);
	pthread_mutex_lock(&procdesc_mtx);
	pd = procdesc_find(key);
	reaped = (pd != NULL && pd->pd_state == PDS_REAPED);
	pthread_mutex_unlock(&procdesc_mtx);
	if (reaped)
		return (0);
	if (sys_pidfd_send_signal(fd, signum) == -1) {
		/* Exited: a no-op while the descriptor is open (FreeBSD 16). */
		return (errno == ESRCH ? 0 : errno);
	}
	return (0);
}

int
pdkill(int fd, int signum)
{
	int saved;

	saved = errno;
	return (pd_return(pd_kill(fd, signum), saved));
}

/*
 * pdwait in a process that is not the parent (a fork copy, a receiver of
 * SCM_RIGHTS, pdopenpid): the kernel keeps the exit status for any holder
 * since Linux 6.15 (PIDFD_INFO_EXIT); it has no rusage to give.  Between
 * the exit and the parent's reap there is nothing to read and nothing to
 * wait on but the clock: sleep 1 ms at a time then.
 */
static int
pd_wait_other(int fd, pid_t pid, int options, siginfo_t *si)
{
	struct timespec ms = { 0, 1000 * 1000 };
	struct pollfd pfd;
	int error;

	if ((options & WEXITED) == 0)
		return ((options & WNOHANG) != 0 ? EAGAIN : ECHILD);
	for (;;) {
		if ((error = procdesc_exit_info(fd, pid, si)) != EAGAIN)
			return (error);
		if ((options & WNOHANG) != 0)
			return (EAGAIN);
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) == -1)
			return (errno);
		if ((pfd.revents & POLLHUP) == 0 &&
		    nanosleep(&ms, NULL) == -1)
			return (errno);
	}
}

/*
 * Wait for the watchdog to reap the child of key (a kick), 100 ms at a
 * time; procdesc_mtx held.  Somebody else may have reaped it: the
 * application's waitpid(-1, __WALL), or the kernel where SIGCHLD is
 * ignored and the child exec'd (exec makes the exit signal SIGCHLD).
 * Then the kernel no longer knows the pid (fdinfo "Pid: -1") while the
 * entry still says running: file what the kernel kept (PIDFD_INFO_EXIT,
 * Linux 6.15, no rusage), or that the status is lost (si_signo 0, pdwait
 * gives ECHILD as waitpid would), and return 1.
 */
static int
pd_wait_reap(int fd, uint64_t key)
{
	struct procdesc *pd;
	struct timespec ts;
	struct rusage ru;
	siginfo_t si;
	pid_t pid;

	procdesc_watchdog_deadline(&ts);
	/*
	 * Look again after a timeout too: the watchdog may have filed the
	 * status (or the last close freed the entry) before the relock.
	 */
	if (pthread_cond_timedwait(&procdesc_cv, &procdesc_mtx, &ts) == 0 ||
	    (pd = procdesc_find(key)) == NULL || pd->pd_state != PDS_RUNNING)
		return (0);
	if (procdesc_kernel_pid(fd, &pid) != ESRCH)
		return (0);
	if (procdesc_exit_info(fd, pd->pd_pid, &si) != 0)
		memset(&si, 0, sizeof(si));
	memset(&ru, 0, sizeof(ru));
	procdesc_exit(pd, &si, &ru);
	return (1);
}

/*
 * Block until the child of key has an event for options: exit through
 * poll (readable at exit; the watchdog reaps right after), stop and
 * continue through waitid(WNOWAIT).  Interrupted by a signal: EINTR.
 */
static int
pd_block(int fd, uint64_t key, int options)
{
	struct procdesc *pd;
	struct pollfd pfd;
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if ((options & (WUNTRACED | WCONTINUED)) != 0) {
		/* Only the events asked for: another would wake us for ever. */
		if (sys_waitid(P_PIDFD, fd, &si, WEXITED | (options &
		    (WSTOPPED | WCONTINUED)) | WNOWAIT | __WALL, NULL) == -1)
			return (errno == ECHILD ? 0 : errno);
		if (si.si_code == CLD_STOPPED || si.si_code == CLD_CONTINUED ||
		    si.si_code == CLD_TRAPPED)
			return (0);
	} else {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) == -1)
			return (errno);
	}
	/* Exited: the watchdog reaps it in a moment. */
	pthread_mutex_lock(&procdesc_mtx);
	while ((pd = procdesc_find(key)) != NULL &&
	    pd->pd_state == PDS_RUNNING) {
		if (pd_wait_reap(fd, key) != 0)
			break;
	}
	pthread_mutex_unlock(&procdesc_mtx);
	return (0);
}

/*
 * WNOHANG: the child has exited but the watchdog has not reaped it yet
 * (the pidfd is readable, POLLHUP not yet raised).  There is something to
 * report, so wait the moment it takes rather than fail with EAGAIN.
 */
static bool
pd_exited(int fd, int options)
{
	struct pollfd pfd;

	if ((options & WEXITED) == 0)
		return (false);
	pfd.fd = fd;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, 0) == 1);
}

/* The event pdwait reports, in *si and *ru. */
static int
pd_wait_event(int fd, uint64_t key, int options, siginfo_t *si,
    struct rusage *ru)
{
	struct procdesc *pd;
	pid_t pid;
	int error;

	for (;;) {
		pthread_mutex_lock(&procdesc_mtx);
		if ((pd = procdesc_find(key)) != NULL &&
		    pd->pd_state == PDS_REAPED) {
			*si = pd->pd_si;
			*ru = pd->pd_ru;
			pthread_mutex_unlock(&procdesc_mtx);
			if ((options & WEXITED) == 0)
				return ((options & WNOHANG) != 0 ?
				    EAGAIN : ECHILD);
			return (si->si_signo != 0 ? 0 : ECHILD);
		}
		if (pd == NULL || !procdesc_mine(pd)) {
			pid = (pd != NULL) ? pd->pd_pid : 0;
			pthread_mutex_unlock(&procdesc_mtx);
			if (pid == 0)
				(void)procdesc_kernel_pid(fd, &pid);
			return (pd_wait_other(fd, pid, options, si));
		}
		pthread_mutex_unlock(&procdesc_mtx);
		if ((options & (WUNTRACED | WCONTINUED)) != 0) {
			memset(si, 0, sizeof(*si));
			if (sys_waitid(P_PIDFD, fd, si, (options &
			    (WSTOPPED | WCONTINUED | WNOWAIT)) | WNOHANG |
			    __WALL, ru) == 0 && si->si_pid != 0)
				return (0);
		}
		if ((options & WNOHANG) != 0 && !pd_exited(fd, options))
			return (EAGAIN);
		if ((error = pd_block(fd, key, options)) != 0)
			return (error);
	}
}

static int
pd_wait(int fd, int *status, int options, struct __wrusage *wrusage,
    siginfo_t *info)
{
	struct __wrusage wru;
	siginfo_t si;
	uint64_t key;
	int error, st;

	if ((options & ~PD_WOPTS) != 0 || (options & PD_WEVENTS) == 0)
		return (EINVAL);
	if ((error = procdesc_ident(fd, &key)) != 0)
		return (error);
	memset(&wru, 0, sizeof(wru));
	memset(&si, 0, sizeof(si));
	if ((error = pd_wait_event(fd, key, options, &si,
	    &wru.wru_self)) != 0)
		return (error);
	st = procdesc_wstatus(&si);
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
	int saved;

	saved = errno;
	return (pd_return(pd_wait(fd, status, options, wrusage, info), saved));
}

/*
 * A descriptor for a process we did not create.  FreeBSD 16 semantics:
 * the last close kills it unless PD_DAEMON.
 */
static int
pd_openpid(pid_t pid, int pdflags, int *fdp)
{
	struct pollfd pfd;
	int error, fd;

	if ((pdflags & ~PD_ALLOWED_AT_FORK) != 0)
		return (EINVAL);
	if (pid <= 0)
		return (ESRCH);
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_watchdog_start()) != 0)
		return (error);
	if ((fd = sys_pidfd_open(pid, 0)) == -1)
		return (errno == EINVAL ? ESRCH : errno);
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) == 1) {
		/* A zombie or exiting. */
		close(fd);
		return (EBUSY);
	}
	if ((pdflags & PD_CLOEXEC) == 0 && fcntl(fd, F_SETFD, 0) == -1)
		error = errno;
	if (error == 0)
		error = procdesc_new(pid, fd, pdflags, false);
	if (error != 0) {
		close(fd);
		return (error);
	}
	*fdp = fd;
	return (0);
}

int
pdopenpid(pid_t pid, int pdflags)
{
	int error, fd, saved;

	saved = errno;
	fd = -1;
	error = pd_openpid(pid, pdflags, &fd);
	if (pd_return(error, saved) == -1)
		return (-1);
	return (fd);
}

static int
pd_dupfd(int fd, int remotefd, int flags, int *newfdp)
{
	uint64_t key;
	int error;

	if (flags != 0)
		return (EINVAL);
	if ((error = procdesc_ident(fd, &key)) != 0)
		return (error);
	if ((*newfdp = sys_pidfd_getfd(fd, remotefd, 0)) == -1)
		return (errno);
	return (0);
}

int
pddupfd(int fd, int remotefd, int flags)
{
	int error, newfd, saved;

	saved = errno;
	newfd = -1;
	error = pd_dupfd(fd, remotefd, flags, &newfd);
	if (pd_return(error, saved) == -1)
		return (-1);
	return (newfd);
}
