/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * posix_spawn(3) with FreeBSD's spawn-procdescp attribute
 * (posix_spawnattr_setprocdescp_np(3)), behind the <spawn.h> overlay
 * (include/procdesc-overlay/spawn.h; NOTES 1.7).
 *
 * The objects are ours.  An attribute object holds glibc's and the
 * request; a file-actions object holds glibc's and our own list of the
 * same actions, since glibc's list is private.  Every setter and every
 * add calls glibc's first, so that ours accept and refuse exactly what
 * glibc's do.  Without a request posix_spawn is glibc's, on glibc's
 * objects.  With one, pdrfork(RFSPAWN) makes the child, guarded before
 * any code of ours runs in it (NOTES 1.5); the child applies the
 * attributes and then the file actions in glibc's order, and execs.  The
 * parent resumes once the child has exec'd or exited; a failure is then
 * in a shared anonymous page, and the parent collects the child.
 *
 * Functions that return an error number leave errno as they found it.
 */

#define	_PROCDESC_SPAWN_NOMAP
#include <sys/mman.h>
#include <sys/procdesc.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The overlay's calls are the only symbols here with default visibility. */
#pragma GCC visibility push(default)
#include "procdesc-overlay/spawn.h"
#pragma GCC visibility pop
#include "common.h"
#include "fork.h"
#include "syscall.h"

/* Its RFSPAWN child may share our memory and stack, as vfork's (NOTES 2.8). */
extern pid_t pdrfork(int *, int, int) __attribute__((returns_twice));

/* The flags glibc 2.36 knows; the child applies all of them. */
#define	SP_FLAGS							\
	(POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP |			\
	 POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |		\
	 POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER |		\
	 POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID)

/* posix_spawnp's PATH when the caller has none: glibc's. */
#define	SP_DEFPATH	"/bin:/usr/bin"

/*
 * The first room for file actions: most callers add a few (stdio
 * redirected, a close or two); the list doubles after that.
 */
#define	SP_ACTIONS_MIN	8

struct __procdesc_spawnattr {
	posix_spawnattr_t	 sa_attr;	/* glibc's. */
	int			*sa_fdp;	/* NULL: no descriptor. */
	int			 sa_pdrflags;	/* As given; + PD_CLOEXEC. */
};

enum sp_kind {
	SPA_OPEN,
	SPA_CLOSE,
	SPA_DUP2,
	SPA_CHDIR,
	SPA_FCHDIR,
	SPA_CLOSEFROM,
	SPA_TCSETPGRP,
};

struct sp_action {
	enum sp_kind	 a_kind;
	int		 a_fd;		/* from, tcfd: a_fd too. */
	int		 a_newfd;	/* SPA_DUP2. */
	int		 a_oflag;	/* SPA_OPEN. */
	mode_t		 a_mode;	/* SPA_OPEN. */
	char		*a_path;	/* SPA_OPEN, SPA_CHDIR. */
};

struct __procdesc_spawn_file_actions {
	posix_spawn_file_actions_t fa_fa;	/* glibc's. */
	struct sp_action	*fa_acts;	/* The same, in order. */
	size_t			 fa_n;
	size_t			 fa_max;
};

/*
 * What the child needs, prepared by the parent: the child may call
 * async-signal-safe functions only (NOTES 5), so it reads, and computes
 * nothing that allocates.
 */
struct sp_child {
	const struct sp_action *c_acts;
	size_t		 c_nacts;
	short		 c_flags;	/* POSIX_SPAWN_*. */
	pid_t		 c_pgroup;
	int		 c_policy;
	struct sched_param c_param;
	sigset_t	 c_sigdefault;
	sigset_t	 c_sigmask;
	const char	*c_path;	/* The path, or posix_spawnp's file. */
	const char	*c_search;	/* posix_spawnp's PATH, else NULL. */
	char *const	*c_argv;
	char *const	*c_envp;
	volatile int	*c_err;		/* Shared with the parent. */
};

/*
 * Spawn routines.
 */

/* SETSIGDEF: the signals named go back to SIG_DFL; SIGKILL may not. */
static void
sp_sigdefault(const sigset_t *set)
{
	struct procdesc_ksigaction ka;
	int sig;

	memset(&ka, 0, sizeof(ka));
	ka.ks_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++) {
		if (sigismember(set, sig) == 1)
			(void)sys_rt_sigaction(sig, &ka, NULL);
	}
}

/*
 * The attributes, in glibc's order.  The ids go through the system call
 * itself: glibc's wrappers would signal the parent's threads, which this
 * copy of the parent's memory still lists.
 */
static int
sp_attrs(const struct sp_child *c)
{
	short f;

	f = c->c_flags;
	if ((f & POSIX_SPAWN_SETSIGDEF) != 0)
		sp_sigdefault(&c->c_sigdefault);
	if ((f & POSIX_SPAWN_SETSCHEDULER) != 0) {
		if (sched_setscheduler(0, c->c_policy, &c->c_param) == -1)
			return (errno);
	} else if ((f & POSIX_SPAWN_SETSCHEDPARAM) != 0 &&
	    sched_setparam(0, &c->c_param) == -1)
		return (errno);
	if ((f & POSIX_SPAWN_SETSID) != 0 && setsid() == -1)
		return (errno);
	if ((f & POSIX_SPAWN_SETPGROUP) != 0 && setpgid(0, c->c_pgroup) == -1)
		return (errno);
	if ((f & POSIX_SPAWN_RESETIDS) != 0 &&
	    (sys_setresgid((gid_t)-1, getgid(), (gid_t)-1) == -1 ||
	    sys_setresuid((uid_t)-1, getuid(), (uid_t)-1) == -1))
		return (errno);
	return (0);
}

/* An open action: whatever fd was is closed first, as POSIX says. */
static int
sp_open(const struct sp_action *a)
{
	int fd;

	(void)close(a->a_fd);
	if ((fd = open(a->a_path, a->a_oflag, a->a_mode)) == -1)
		return (errno);
	if (fd != a->a_fd) {
		if (dup2(fd, a->a_fd) == -1)
			return (errno);
		(void)close(fd);
	}
	return (0);
}

/* A dup2 action onto itself clears close-on-exec (POSIX.1-2017). */
static int
sp_dup2(const struct sp_action *a)
{
	int flags;

	if (a->a_fd != a->a_newfd)
		return (dup2(a->a_fd, a->a_newfd) == -1 ? errno : 0);
	if ((flags = fcntl(a->a_fd, F_GETFD)) == -1 ||
	    fcntl(a->a_fd, F_SETFD, flags & ~FD_CLOEXEC) == -1)
		return (errno);
	return (0);
}

/* One file action, as glibc's child performs it. */
static int
sp_action(const struct sp_child *c, const struct sp_action *a)
{
	pid_t pgrp;

	switch (a->a_kind) {
	case SPA_OPEN:
		return (sp_open(a));
	case SPA_CLOSE:
		(void)close(a->a_fd);	/* Range checked when added. */
		return (0);
	case SPA_DUP2:
		return (sp_dup2(a));
	case SPA_CHDIR:
		return (chdir(a->a_path) == -1 ? errno : 0);
	case SPA_FCHDIR:
		return (fchdir(a->a_fd) == -1 ? errno : 0);
	case SPA_CLOSEFROM:
		return (sys_close_range((unsigned int)a->a_fd, ~0U, 0) == -1 ?
		    errno : 0);
	case SPA_TCSETPGRP:
		pgrp = ((c->c_flags & POSIX_SPAWN_SETPGROUP) != 0 &&
		    c->c_pgroup != 0) ? c->c_pgroup : getpgrp();
		return (tcsetpgrp(a->a_fd, pgrp) == -1 ? errno : 0);
	}
	return (EINVAL);
}

/*
 * posix_spawnp's search, as glibc's: a name with a slash is a path; an
 * empty PATH entry is the working directory; a candidate that exists but
 * may not run makes EACCES the answer if nothing runs.
 */
static int
sp_search(const struct sp_child *c)
{
	char buf[PATH_MAX + NAME_MAX + 2];	/* dir '/' file NUL */
	const char *p, *end;
	size_t dlen, flen;
	bool eacces;

	if (strchr(c->c_path, '/') != NULL) {
		(void)execve(c->c_path, c->c_argv, c->c_envp);
		return (errno);
	}
	if (c->c_path[0] == '\0')
		return (ENOENT);
	if ((flen = strnlen(c->c_path, NAME_MAX + 1)) > NAME_MAX)
		return (ENAMETOOLONG);
	eacces = false;
	for (p = c->c_search;; p = end + 1) {
		end = strchrnul(p, ':');
		if ((dlen = (size_t)(end - p)) < PATH_MAX) {
			memcpy(buf, p, dlen);
			if (dlen > 0)
				buf[dlen++] = '/';
			memcpy(buf + dlen, c->c_path, flen + 1);
			(void)execve(buf, c->c_argv, c->c_envp);
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ESTALE &&
			    errno != ENOTDIR && errno != ENODEV &&
			    errno != ETIMEDOUT)
				return (errno);
		}
		if (*end == '\0')
			break;
	}
	return (eacces ? EACCES : ENOENT);
}

/*
 * The child, guarded already.  Signals stay blocked until the exec, as in
 * glibc's child; the mask at the exec is the attribute's, or the one the
 * child came with (the caller's).  Any failure goes to the parent through
 * the shared page, and the child exits as posix_spawn's children do.
 */
static void __attribute__((noreturn))
sp_child(const struct sp_child *c)
{
	sigset_t all, old;
	size_t i;
	int error;

	sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, &old);
	error = sp_attrs(c);
	for (i = 0; error == 0 && i < c->c_nacts; i++)
		error = sp_action(c, &c->c_acts[i]);
	if (error == 0) {
		(void)sigprocmask(SIG_SETMASK,
		    (c->c_flags & POSIX_SPAWN_SETSIGMASK) != 0 ?
		    &c->c_sigmask : &old, NULL);
		if (c->c_search != NULL)
			error = sp_search(c);
		else {
			(void)execve(c->c_path, c->c_argv, c->c_envp);
			error = errno;
		}
	}
	*c->c_err = (error != 0) ? error : EPERM;
	_exit(PROCDESC_EXIT_NOEXEC);
}

/* The attributes the child applies, read through glibc's getters. */
static int
sp_prepare(struct sp_child *c, const posix_spawnattr_t *ga)
{

	(void)posix_spawnattr_getflags(ga, &c->c_flags);
	if ((c->c_flags & ~SP_FLAGS) != 0)
		return (EINVAL);	/* A later glibc's flag we lack. */
	(void)posix_spawnattr_getpgroup(ga, &c->c_pgroup);
	(void)posix_spawnattr_getschedpolicy(ga, &c->c_policy);
	(void)posix_spawnattr_getschedparam(ga, &c->c_param);
	(void)posix_spawnattr_getsigdefault(ga, &c->c_sigdefault);
	(void)posix_spawnattr_getsigmask(ga, &c->c_sigmask);
	return (0);
}

/* A child that failed before its exec: collect it, nothing stays. */
static void
sp_collect(int fd)
{

	while (pdwait(fd, NULL, WEXITED, NULL, NULL) == -1 && errno == EINTR)
		;
	(void)close(fd);
}

/*
 * Spawn with a descriptor.  The child cannot reach us but through memory
 * both map: not a pipe, whose write end a process forked meanwhile by
 * another thread would hold open (NOTES 2.12).  Cancellation is off until
 * the descriptor is the caller's or closed: no glibc wrapper in the child
 * acts on a pending cancel of the calling thread, and no cancel leaves the
 * descriptor behind in the parent.
 */
static int
sp_spawn_pd(pid_t *pidp, struct sp_child *c, int *fdp, int pdrflags)
{
	volatile int *err;
	pid_t pid;
	int cs, error, fd;
#if PROCDESC_VFORK
	volatile int ours;

	/* The child shares our memory (fork.h): no page of its own. */
	err = &ours;
#else
	err = mmap(NULL, sizeof(*err), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (err == MAP_FAILED)
		return (errno);
#endif
	*err = 0;
	c->c_err = err;
	(void)pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	pid = pdrfork(&fd, pdrflags | PD_CLOEXEC, (int)RFSPAWN);
	if (pid == 0)
		sp_child(c);
	error = (pid == -1) ? errno : *err;
#if !PROCDESC_VFORK
	(void)munmap((void *)(uintptr_t)err, sizeof(*err));
#endif
	if (pid != -1 && error != 0)
		sp_collect(fd);
	(void)pthread_setcancelstate(cs, NULL);
	if (error != 0)
		return (error);
	if (pidp != NULL)
		*pidp = pid;
	*fdp = fd;
	return (0);
}

static int
sp_spawn(pid_t *pidp, const char *path,
    const __procdesc_spawn_file_actions_t *fa,
    const __procdesc_spawnattr_t *sa, char *const argv[],
    char *const envp[], bool search)
{
	struct sp_child c;
	const char *p;
	int error;

	/* FreeBSD's posix_spawn runs a NULL envp with environ. */
	if (envp == NULL)
		envp = environ;
	if (sa == NULL || (*sa)->sa_fdp == NULL) {
		return ((search ? posix_spawnp : posix_spawn)(pidp, path,
		    fa != NULL ? &(*fa)->fa_fa : NULL,
		    sa != NULL ? &(*sa)->sa_attr : NULL, argv, envp));
	}
	memset(&c, 0, sizeof(c));
	if ((error = sp_prepare(&c, &(*sa)->sa_attr)) != 0)
		return (error);
	if (fa != NULL) {
		c.c_acts = (*fa)->fa_acts;
		c.c_nacts = (*fa)->fa_n;
	}
	c.c_path = path;
	if (search) {
		if ((p = getenv("PATH")) == NULL)
			p = SP_DEFPATH;
		c.c_search = p;
	}
	c.c_argv = argv;
	c.c_envp = envp;
	return (sp_spawn_pd(pidp, &c, (*sa)->sa_fdp, (*sa)->sa_pdrflags));
}

int
procdesc_posix_spawn(pid_t *__restrict pidp, const char *__restrict path,
    const __procdesc_spawn_file_actions_t *fa,
    const __procdesc_spawnattr_t *__restrict sa, char *const argv[],
    char *const envp[])
{
	int error, saved;

	saved = errno;
	error = sp_spawn(pidp, path, fa, sa, argv, envp, false);
	errno = saved;
	return (error);
}

int
procdesc_posix_spawnp(pid_t *__restrict pidp, const char *__restrict file,
    const __procdesc_spawn_file_actions_t *fa,
    const __procdesc_spawnattr_t *__restrict sa, char *const argv[],
    char *const envp[])
{
	int error, saved;

	saved = errno;
	error = sp_spawn(pidp, file, fa, sa, argv, envp, true);
	errno = saved;
	return (error);
}

/*
 * File actions.
 */

int
procdesc_posix_spawn_file_actions_init(__procdesc_spawn_file_actions_t *ret)
{
	struct __procdesc_spawn_file_actions *fa;

	if ((fa = calloc(1, sizeof(*fa))) == NULL)
		return (ENOMEM);
	(void)posix_spawn_file_actions_init(&fa->fa_fa);
	*ret = fa;
	return (0);
}

int
procdesc_posix_spawn_file_actions_destroy(__procdesc_spawn_file_actions_t *fap)
{
	struct __procdesc_spawn_file_actions *fa;
	size_t i;

	fa = *fap;
	(void)posix_spawn_file_actions_destroy(&fa->fa_fa);
	for (i = 0; i < fa->fa_n; i++)
		free(fa->fa_acts[i].a_path);
	free(fa->fa_acts);
	free(fa);
	return (0);
}

/*
 * The next slot of our list, with room, and a copy of path: everything
 * that can fail before glibc's add, so that both lists stay the same.
 */
static int
sp_slot(struct __procdesc_spawn_file_actions *fa, const char *path,
    struct sp_action **ap)
{
	struct sp_action *n;
	size_t max;

	if (fa->fa_n == fa->fa_max) {
		max = (fa->fa_max != 0) ? fa->fa_max * 2 : SP_ACTIONS_MIN;
		if ((n = reallocarray(fa->fa_acts, max, sizeof(*n))) == NULL)
			return (ENOMEM);
		fa->fa_acts = n;
		fa->fa_max = max;
	}
	*ap = &fa->fa_acts[fa->fa_n];
	memset(*ap, 0, sizeof(**ap));
	if (path != NULL && ((*ap)->a_path = strdup(path)) == NULL)
		return (ENOMEM);
	return (0);
}

/* Keep the slot if glibc took the action (error 0), else drop its copy. */
static int
sp_commit(struct __procdesc_spawn_file_actions *fa, struct sp_action *a,
    int error)
{

	if (error == 0)
		fa->fa_n++;
	else
		free(a->a_path);
	return (error);
}

int
procdesc_posix_spawn_file_actions_addopen(
    __procdesc_spawn_file_actions_t *__restrict fap, int fd,
    const char *__restrict path, int oflag, mode_t mode)
{
	struct __procdesc_spawn_file_actions *fa;
	struct sp_action *a;
	int error;

	fa = *fap;
	if ((error = sp_slot(fa, path, &a)) != 0)
		return (error);
	a->a_kind = SPA_OPEN;
	a->a_fd = fd;
	a->a_oflag = oflag;
	a->a_mode = mode;
	return (sp_commit(fa, a, posix_spawn_file_actions_addopen(&fa->fa_fa,
	    fd, path, oflag, mode)));
}

int
procdesc_posix_spawn_file_actions_addclose(
    __procdesc_spawn_file_actions_t *fap, int fd)
{
	struct __procdesc_spawn_file_actions *fa;
	struct sp_action *a;
	int error;

	fa = *fap;
	if ((error = sp_slot(fa, NULL, &a)) != 0)
		return (error);
	a->a_kind = SPA_CLOSE;
	a->a_fd = fd;
	return (sp_commit(fa, a, posix_spawn_file_actions_addclose(&fa->fa_fa,
	    fd)));
}

int
procdesc_posix_spawn_file_actions_adddup2(
    __procdesc_spawn_file_actions_t *fap, int fd, int newfd)
{
	struct __procdesc_spawn_file_actions *fa;
	struct sp_action *a;
	int error;

	fa = *fap;
	if ((error = sp_slot(fa, NULL, &a)) != 0)
		return (error);
	a->a_kind = SPA_DUP2;
	a->a_fd = fd;
	a->a_newfd = newfd;
	return (sp_commit(fa, a, posix_spawn_file_actions_adddup2(&fa->fa_fa,
	    fd, newfd)));
}

int
procdesc_posix_spawn_file_actions_addchdir_np(
    __procdesc_spawn_file_actions_t *__restrict fap,
    const char *__restrict path)
{
	struct __procdesc_spawn_file_actions *fa;
	struct sp_action *a;
	int error;

	fa = *fap;
	if ((error = sp_slot(fa, path, &a)) != 0)
		return (error);
	a->a_kind = SPA_CHDIR;
	return (sp_commit(fa, a,
	    posix_spawn_file_actions_addchdir_np(&fa->fa_fa, path)));
}

#ifndef __GLIBC__
/*
 * musl 1.2 has neither closefrom nor tcsetpgrp actions.  Refusing them
 * keeps a spawn without a request, which is the C library's own, from
 * dropping an action silently.
 */
static int
sp_unsupported(posix_spawn_file_actions_t *fa, int fd)
{

	(void)fa;
	(void)fd;
	return (ENOSYS);
}
#define	posix_spawn_file_actions_addclosefrom_np	sp_unsupported
#define	posix_spawn_file_actions_addtcsetpgrp_np	sp_unsupported
#endif

/* The add calls that name one descriptor and nothing else. */
static int
sp_add_fd(__procdesc_spawn_file_actions_t *fap, enum sp_kind kind, int fd,
    int (*add)(posix_spawn_file_actions_t *, int))
{
	struct __procdesc_spawn_file_actions *fa;
	struct sp_action *a;
	int error;

	fa = *fap;
	if ((error = sp_slot(fa, NULL, &a)) != 0)
		return (error);
	a->a_kind = kind;
	a->a_fd = fd;
	return (sp_commit(fa, a, add(&fa->fa_fa, fd)));
}

int
procdesc_posix_spawn_file_actions_addfchdir_np(
    __procdesc_spawn_file_actions_t *fap, int fd)
{

	return (sp_add_fd(fap, SPA_FCHDIR, fd,
	    posix_spawn_file_actions_addfchdir_np));
}

int
procdesc_posix_spawn_file_actions_addclosefrom_np(
    __procdesc_spawn_file_actions_t *fap, int from)
{

	return (sp_add_fd(fap, SPA_CLOSEFROM, from,
	    posix_spawn_file_actions_addclosefrom_np));
}

int
procdesc_posix_spawn_file_actions_addtcsetpgrp_np(
    __procdesc_spawn_file_actions_t *fap, int tcfd)
{

	return (sp_add_fd(fap, SPA_TCSETPGRP, tcfd,
	    posix_spawn_file_actions_addtcsetpgrp_np));
}

/*
 * Spawn attributes: glibc's, and the request.
 */

int
procdesc_posix_spawnattr_init(__procdesc_spawnattr_t *ret)
{
	struct __procdesc_spawnattr *sa;

	if ((sa = calloc(1, sizeof(*sa))) == NULL)
		return (ENOMEM);
	(void)posix_spawnattr_init(&sa->sa_attr);
	*ret = sa;
	return (0);
}

int
procdesc_posix_spawnattr_destroy(__procdesc_spawnattr_t *sap)
{

	(void)posix_spawnattr_destroy(&(*sap)->sa_attr);
	free(*sap);
	return (0);
}

/*
 * FreeBSD's setter stores and returns 0; a bad pdrflags is refused by the
 * spawn, as pdrfork refuses it (EINVAL).  The pointer is stored, not
 * read: *fdp is written only by a successful spawn.
 */
int
procdesc_posix_spawnattr_setprocdescp_np(
    const __procdesc_spawnattr_t *__restrict sap, int *__restrict fdp,
    int pdrflags)
{

	(*sap)->sa_fdp = fdp;
	(*sap)->sa_pdrflags = pdrflags;
	return (0);
}

int
procdesc_posix_spawnattr_getprocdescp_np(
    const __procdesc_spawnattr_t *__restrict sap, int **__restrict fdpp,
    int *__restrict pdrflagsp)
{

	*fdpp = (*sap)->sa_fdp;
	*pdrflagsp = (*sap)->sa_pdrflags;
	return (0);
}

int
procdesc_posix_spawnattr_getflags(const __procdesc_spawnattr_t *__restrict sap,
    short *__restrict flags)
{

	return (posix_spawnattr_getflags(&(*sap)->sa_attr, flags));
}

int
procdesc_posix_spawnattr_setflags(__procdesc_spawnattr_t *sap, short flags)
{

	return (posix_spawnattr_setflags(&(*sap)->sa_attr, flags));
}

int
procdesc_posix_spawnattr_getpgroup(const __procdesc_spawnattr_t *__restrict sap,
    pid_t *__restrict pgroup)
{

	return (posix_spawnattr_getpgroup(&(*sap)->sa_attr, pgroup));
}

int
procdesc_posix_spawnattr_setpgroup(__procdesc_spawnattr_t *sap, pid_t pgroup)
{

	return (posix_spawnattr_setpgroup(&(*sap)->sa_attr, pgroup));
}

int
procdesc_posix_spawnattr_getschedparam(
    const __procdesc_spawnattr_t *__restrict sap,
    struct sched_param *__restrict param)
{

	return (posix_spawnattr_getschedparam(&(*sap)->sa_attr, param));
}

int
procdesc_posix_spawnattr_setschedparam(__procdesc_spawnattr_t *__restrict sap,
    const struct sched_param *__restrict param)
{

	return (posix_spawnattr_setschedparam(&(*sap)->sa_attr, param));
}

int
procdesc_posix_spawnattr_getschedpolicy(
    const __procdesc_spawnattr_t *__restrict sap, int *__restrict policy)
{

	return (posix_spawnattr_getschedpolicy(&(*sap)->sa_attr, policy));
}

int
procdesc_posix_spawnattr_setschedpolicy(__procdesc_spawnattr_t *sap,
    int policy)
{

	return (posix_spawnattr_setschedpolicy(&(*sap)->sa_attr, policy));
}

int
procdesc_posix_spawnattr_getsigdefault(
    const __procdesc_spawnattr_t *__restrict sap,
    sigset_t *__restrict sigdefault)
{

	return (posix_spawnattr_getsigdefault(&(*sap)->sa_attr, sigdefault));
}

int
procdesc_posix_spawnattr_setsigdefault(__procdesc_spawnattr_t *__restrict sap,
    const sigset_t *__restrict sigdefault)
{

	return (posix_spawnattr_setsigdefault(&(*sap)->sa_attr, sigdefault));
}

int
procdesc_posix_spawnattr_getsigmask(
    const __procdesc_spawnattr_t *__restrict sap,
    sigset_t *__restrict sigmask)
{

	return (posix_spawnattr_getsigmask(&(*sap)->sa_attr, sigmask));
}

int
procdesc_posix_spawnattr_setsigmask(__procdesc_spawnattr_t *__restrict sap,
    const sigset_t *__restrict sigmask)
{

	return (posix_spawnattr_setsigmask(&(*sap)->sa_attr, sigmask));
}
