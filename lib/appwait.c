/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The application's waits: wait, waitpid, wait3, wait4 and waitid, which
 * the library replaces (symbol interposition) so that they follow
 * FreeBSD's rules for pdfork children (NOTES 1.11, 2.16):
 * - a wait for the pid of a child made without PD_NOWAITPID, in its
 *   owner (waitpid(pid), wait4(pid), waitid(P_PID), waitid(P_PIDFD)),
 *   takes it as it would a fork() child: it blocks until the exit,
 *   returns the status and rusage, and reaps; pdwait keeps the status;
 * - the same wait for a PD_NOWAITPID child fails with ECHILD;
 * - a wait for any child or for a process group never reports a pdfork
 *   child.  Linux hides a child whose exit signal is 0 from it already;
 *   one that exec'd has SIGCHLD again, so the wait looks with WNOWAIT
 *   first and child.c takes our child's event out of the way.
 * Everything else is the C library's call: its wait4 and waitid, found
 * at load time behind us (dlsym(RTLD_NEXT)), so that cancellation and
 * SA_RESTART work as they do there; a static program, which has no next
 * object, makes the system calls itself.  A signal handler that
 * interrupted this thread inside the library (procdesc_mtx held) gets the
 * kernel's answer.  Each call sets errno once, on failure.
 */

#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "lock.h"
#include "pidfd.h"
#include "registry.h"
#include "syscall.h"
#include "wait.h"

/* The options each call accepts, as the kernel checks them. */
#define	AW_W4OPTS	(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | \
			    __WCLONE | __WALL)
#define	AW_WIDOPTS	(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | \
			    WCONTINUED | __WNOTHREAD | __WCLONE | __WALL)
#define	AW_WIDEVENTS	(WEXITED | WSTOPPED | WCONTINUED)

/* <sys/wait.h> declares them without a visibility: say it here. */
#define	AW_PUBLIC	__attribute__((visibility("default")))

static pid_t	aw_sys_wait4(pid_t, int *, int, struct rusage *);
static int	aw_sys_waitid(idtype_t, id_t, siginfo_t *, int);

/* The C library's calls; the system calls until aw_init() ran. */
static pid_t	(*aw_wait4)(pid_t, int *, int, struct rusage *) =
		    aw_sys_wait4;
static int	(*aw_waitid)(idtype_t, id_t, siginfo_t *, int) =
		    aw_sys_waitid;

static pid_t
aw_sys_wait4(pid_t pid, int *status, int options, struct rusage *ru)
{

	return ((pid_t)syscall(SYS_wait4, pid, status, options, ru));
}

static int
aw_sys_waitid(idtype_t type, id_t id, siginfo_t *si, int options)
{

	return (sys_waitid((int)type, (int)id, si, options, NULL));
}

static void __attribute__((constructor))
aw_init(void)
{
	void *p;

	if ((p = dlsym(RTLD_NEXT, "wait4")) != NULL)
		aw_wait4 = (pid_t (*)(pid_t, int *, int, struct rusage *))p;
	if ((p = dlsym(RTLD_NEXT, "waitid")) != NULL)
		aw_waitid = (int (*)(idtype_t, id_t, siginfo_t *, int))p;
}

/* A cancelled wait's pidfd. */
static void
aw_close(void *arg)
{

	close(*(int *)arg);
}

/*
 * A wait with waitid(2)'s options for our child pid: 0 and the event in
 * *si and *ru (si_pid 0: nothing yet, with WNOHANG); ESRCH if pid is no
 * child of ours, for the kernel to answer; else an errno value.
 */
static int
aw_child(pid_t pid, int options, siginfo_t *si, struct rusage *ru)
{
	enum procdesc_view v;
	siginfo_t ev;
	int error, pidfd;

	if (procdesc_locked())
		return (ESRCH);
	for (;;) {
		if ((error = procdesc_child_waitpid(pid, options, si, ru, &v,
		    &pidfd)) != 0)
			return (error);
		switch (v) {
		case PROCDESC_VIEW_NONE:
			return (ESRCH);
		case PROCDESC_VIEW_HIDDEN:
			return (ECHILD);
		case PROCDESC_VIEW_EVENT:
			if ((error = procdesc_wait_result(si, options)) ==
			    EAGAIN) {
				memset(si, 0, sizeof(*si));
				error = 0;
			}
			return (error);
		case PROCDESC_VIEW_RUNNING:
			break;
		}
		if (pidfd == -1) {
			memset(si, 0, sizeof(*si));	/* WNOHANG. */
			return (0);
		}
		/* As the parent: SA_RESTART and cancellation as in wait4. */
		memset(&ev, 0, sizeof(ev));
		pthread_cleanup_push(aw_close, &pidfd);
		error = aw_waitid(P_PIDFD, (id_t)pidfd, &ev, WEXITED |
		    (options & (WSTOPPED | WCONTINUED)) | WNOWAIT | __WALL) ==
		    -1 && errno != ECHILD ? errno : 0;
		pthread_cleanup_pop(1);
		if (error != 0)
			return (error);
	}
}

/* Room for the pids of one read of a children file. */
#define	AW_PIDS		256

/* prefix, then n in decimal, then suffix, in buf (len > 40 + both). */
static void
aw_path(char *buf, const char *prefix, long n, const char *suffix)
{
	char digits[24];
	int i;

	i = 0;
	do
		digits[i++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (*prefix != '\0')
		*buf++ = *prefix++;
	while (i > 0)
		*buf++ = digits[--i];
	while ((*buf++ = *suffix++) != '\0')
		;
}

/* The decimal number at *pp, *pp past it; -1 if there is none. */
static long
aw_num(const char **pp)
{
	const char *p;
	long v;

	p = *pp;
	if (*p < '0' || *p > '9')
		return (-1);
	for (v = 0; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	*pp = p;
	return (v);
}

/*
 * Whether our child pid, neither a pdfork child nor a sentry, is one that
 * a wait for type and id with options waits for: in process group id for
 * P_PGID; and with __WCLONE, an exit signal other than SIGCHLD (field 38
 * of its stat, after the command's closing parenthesis).  Without
 * __WCLONE it is taken to have SIGCHLD, which saves reading its stat: a
 * child of the application's own clone(2) with another exit signal then
 * counts, and the wait gets the kernel's answer.  True if it cannot tell;
 * false if it is gone.
 */
static bool
aw_eligible(pid_t pid, idtype_t type, id_t id, int options)
{
	char path[64], buf[1024];
	const char *p;
	pid_t pgrp;
	ssize_t n;
	long sig;
	int fd, field;

	if (type == P_PGID && (pgrp = getpgid(pid)) != (pid_t)id)
		return (pgrp == -1 && errno != ESRCH);
	if ((options & (__WCLONE | __WALL)) != __WCLONE)
		return (true);
	aw_path(path, "/proc/", pid, "/stat");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (errno != ENOENT && errno != ESRCH);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (n == -1 && errno != ESRCH);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return (true);
	sig = -1;
	for (field = 2; field < 38 && *p != '\0'; ) {
		while (*p != '\0' && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		if (++field == 38)
			sig = aw_num(&p);
	}
	return (sig != SIGCHLD);
}

/* Whether any of the n children in pids is aw_eligible() and not ours. */
static bool
aw_any_eligible(pid_t *pids, size_t n, idtype_t type, id_t id, int options)
{
	size_t i;

	n = procdesc_child_others(pids, n);
	for (i = 0; i < n; i++) {
		if (aw_eligible(pids[i], type, id, options))
			return (true);
	}
	return (false);
}

/*
 * Whether thread tid has a child, not a pdfork child of ours, that a wait
 * for type and id with options waits for: 1 or 0 from its children file,
 * read in pieces (a pid may be cut between two); -1 if it cannot be read.
 */
static int
aw_task_other(pid_t tid, idtype_t type, id_t id, int options)
{
	char path[64], buf[512];
	pid_t pids[AW_PIDS];
	size_t i, npid;
	ssize_t n;
	pid_t cur;
	int fd, found;
	bool digit;

	aw_path(path, "/proc/self/task/", tid, "/children");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	found = 0;
	cur = 0;
	digit = false;
	npid = 0;
	do {
		if ((n = read(fd, buf, sizeof(buf))) == -1)
			found = -1;
		for (i = 0; i < (size_t)n && found == 0; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				cur = cur * 10 + (buf[i] - '0');
				digit = true;
				continue;
			}
			if (digit)
				pids[npid++] = cur;
			cur = 0;
			digit = false;
			if (npid == AW_PIDS) {
				found = aw_any_eligible(pids, npid, type, id,
				    options);
				npid = 0;
			}
		}
	} while (found == 0 && n > 0);
	close(fd);
	if (found == 0 && digit)
		pids[npid++] = cur;
	if (found == 0)
		found = aw_any_eligible(pids, npid, type, id, options);
	return (found);
}

/*
 * aw_task_other() for every thread but self: 1 at the first such child,
 * -1 if the threads cannot be listed, else 0.
 */
static int
aw_threads_other(long self, idtype_t type, id_t id, int options)
{
	struct aw_dirent {
		uint64_t	d_ino;
		int64_t		d_off;
		uint16_t	d_reclen;
		uint8_t		d_type;
		char		d_name[];
	} *de;
	char buf[1024];
	const char *name;
	long n, off, tid;
	int fd, r;

	if ((fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return (-1);
	r = 0;
	while (r == 0 && (n = syscall(SYS_getdents64, fd, buf,
	    sizeof(buf))) > 0) {
		for (off = 0; off < n && r == 0; off += de->d_reclen) {
			de = (struct aw_dirent *)(void *)(buf + off);
			name = de->d_name;
			if ((tid = aw_num(&name)) <= 0 || tid == self)
				continue;
			/* A thread gone meanwhile has no children file. */
			r = aw_task_other((pid_t)tid, type, id, options) == 1;
		}
	}
	close(fd);
	return (r);
}

/*
 * Whether a wait for any child (P_ALL) or any in process group id
 * (P_PGID) with options that found nothing to report has a child to wait
 * for besides our pdfork children.  The kernel waits for those of them
 * whose exit signal is SIGCHLD (an exec'd one, and every one where pdfork
 * has no trap: NOTES 1.1, 3.12), where FreeBSD's wait fails with ECHILD
 * once they are all that is left.  The children of every thread (of
 * ours, with __WNOTHREAD), from /proc; true when it cannot tell (no
 * /proc, or a kernel without its children files).  Plain system calls,
 * as a wait may run in a signal handler.
 */
static bool
aw_other_child(idtype_t type, id_t id, int options)
{
	long self;
	int r, saved;

	saved = errno;
	if (type == P_PGID && id == 0)
		id = (id_t)getpgrp();	/* waitid(2)'s own group, as Linux 5.4. */
	self = (long)syscall(SYS_gettid);
	if ((r = aw_task_other((pid_t)self, type, id, options)) == 0 &&
	    (options & __WNOTHREAD) == 0)
		r = aw_threads_other(self, type, id, options);
	errno = saved;
	return (r != 0);
}

/*
 * The first event a wait for any child (P_ALL) or any in a process group
 * (P_PGID) would take, with waitid(2)'s options, looked at (WNOWAIT) but
 * not taken; an event of a pdfork child of ours is put out of the way
 * first (child.c).  0 and *si (si_pid 0: none yet, with WNOHANG), or -1
 * and errno.  While we have pdfork children, a wait that finds nothing
 * fails with ECHILD if they are all there is to wait for, and a blocking
 * one looks first (aw_other_child()).
 */
static int
aw_peek(idtype_t type, id_t id, siginfo_t *si, int options)
{
	bool ours;

	for (;;) {
		/* Whether the kernel may count pdfork children of ours. */
		ours = !procdesc_registry_empty() && !procdesc_locked();
		memset(si, 0, sizeof(*si));
		if (aw_waitid(type, id, si, options | WNOWAIT |
		    (ours ? WNOHANG : 0)) == -1)
			return (-1);
		if (si->si_pid == 0 && ours &&
		    !aw_other_child(type, id, options)) {
			errno = ECHILD;
			return (-1);
		}
		if (si->si_pid == 0 && (options & WNOHANG) == 0) {
			/* Others to wait for: block. */
			memset(si, 0, sizeof(*si));
			if (aw_waitid(type, id, si, options | WNOWAIT) == -1)
				return (-1);
		}
		if (si->si_pid == 0 || procdesc_locked() ||
		    !procdesc_child_hide(si))
			return (0);
	}
}

/*
 * waitid for any child or any in a process group: as aw_peek(), then the
 * event taken by its pid unless WNOWAIT (or taken already: look again).
 * 0 or an errno value.
 */
static int
aw_any(idtype_t type, id_t id, siginfo_t *si, int options)
{
	siginfo_t peek;
	int r;

	for (;;) {
		if (aw_peek(type, id, &peek, options) == -1)
			return (errno);
		if (peek.si_pid == 0 || (options & WNOWAIT) != 0) {
			*si = peek;
			return (0);
		}
		memset(si, 0, sizeof(*si));
		r = aw_waitid(P_PID, (id_t)peek.si_pid, si, options | WNOHANG);
		if (r == 0 && si->si_pid != 0)
			return (0);
		if (r == -1 && errno != ECHILD)
			return (errno);
	}
}

/* wait4's pid as waitid's idtype and id. */
static void
aw_idtype(pid_t pid, idtype_t *typep, id_t *idp)
{

	if (pid == -1) {
		*typep = P_ALL;
		*idp = 0;
	} else if (pid == 0) {
		*typep = P_PGID;
		*idp = (id_t)getpgrp();
	} else if (pid < 0) {
		*typep = P_PGID;
		*idp = (id_t)-pid;
	} else {
		*typep = P_PID;
		*idp = (id_t)pid;
	}
}

/* wait4's status, rusage and result for the event in si. */
static pid_t
aw_wait4_out(const siginfo_t *si, const struct rusage *ru, int *status,
    struct rusage *rusage)
{
	int error, st;

	if (si->si_pid == 0)
		return (0);
	st = procdesc_wait_status(si);
	if ((status != NULL &&
	    (error = procdesc_copyout(status, &st, sizeof(st))) != 0) ||
	    (rusage != NULL &&
	    (error = procdesc_copyout(rusage, ru, sizeof(*ru))) != 0)) {
		errno = error;
		return (-1);
	}
	return (si->si_pid);
}

AW_PUBLIC pid_t
wait4(pid_t pid, int *status, int options, struct rusage *rusage)
{
	struct rusage ru;
	siginfo_t si;
	idtype_t type;
	id_t id;
	int error, saved;

	if ((options & ~AW_W4OPTS) != 0 || pid == INT_MIN)
		return (aw_wait4(pid, status, options, rusage));
	aw_idtype(pid, &type, &id);
	memset(&ru, 0, sizeof(ru));
	if (type == P_PID) {
		error = aw_child(pid, options | WEXITED, &si, &ru);
		if (error == ESRCH)
			return (aw_wait4(pid, status, options, rusage));
		if (error != 0) {
			errno = error;
			return (-1);
		}
		return (aw_wait4_out(&si, &ru, status, rusage));
	}
	/* Somebody else's event: take it by its pid, unless taken already. */
	saved = errno;
	for (;;) {
		if (aw_peek(type, id, &si, options | WEXITED) == -1)
			return (-1);
		if (si.si_pid == 0)
			break;
		if ((pid = aw_wait4(si.si_pid, status, options | WNOHANG,
		    rusage)) > 0)
			break;
		if (pid == -1 && errno != ECHILD)
			return (-1);
	}
	errno = saved;
	return (si.si_pid == 0 ? 0 : pid);
}

AW_PUBLIC pid_t
waitpid(pid_t pid, int *status, int options)
{

	return (wait4(pid, status, options, NULL));
}

AW_PUBLIC pid_t
wait(int *status)
{

	return (wait4(-1, status, 0, NULL));
}

AW_PUBLIC pid_t
wait3(int *status, int options, struct rusage *rusage)
{

	return (wait4(-1, status, options, rusage));
}

AW_PUBLIC int
waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	struct rusage ru;
	siginfo_t si;
	pid_t pid;
	int error;

	if ((options & ~AW_WIDOPTS) != 0 || (options & AW_WIDEVENTS) == 0)
		return (aw_waitid(type, id, info, options));
	if (type == P_PID || type == P_PIDFD) {
		pid = (pid_t)id;
		if (type == P_PIDFD && procdesc_pidfd_pid((int)id, &pid) != 0)
			return (aw_waitid(type, id, info, options));
		if ((error = aw_child(pid, options, &si, &ru)) == ESRCH)
			return (aw_waitid(type, id, info, options));
	} else if (type == P_ALL || type == P_PGID)
		error = aw_any(type, id, &si, options);
	else
		return (aw_waitid(type, id, info, options));
	if (error == 0 && info != NULL)
		error = procdesc_copyout(info, &si, sizeof(si));
	if (error != 0) {
		errno = error;
		return (-1);
	}
	return (0);
}
