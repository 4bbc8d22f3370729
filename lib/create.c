/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Making a process descriptor, step by step (NOTES 1.5).  For a new
 * child: an entry with room reserved (child.c), the close-kill mechanism's
 * preparation (closekill.h), the clone (fork.c), in which the child
 * registers itself before it runs any code of the application, and in the
 * parent the adoption: so that if the owner is killed at any moment, the
 * child is either guarded, and the death of the owner's copy of the
 * descriptor kills it, or it _exits unguarded.  Everything that can fail
 * comes before the clone, but the mechanism's answer.
 *
 * Invariants: a child that could not be adopted is killed and reaped here
 * and no descriptor is returned; a creation that fails leaves no process,
 * no descriptor and no entry behind.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "autokill.h"
#include "child.h"
#include "closekill.h"
#include "create.h"
#include "fork.h"
#include "kernel.h"
#include "reaper.h"
#include "syscall.h"

/* The close-kill mechanism of every new descriptor. */
#define	CR_CK	(&procdesc_ck_guardian)

/*
 * Adopt the new child pid in the parent, or dispose of it: 0 and the
 * user's descriptor in *fdp, or why it failed.
 */
static int
cr_adopt(struct procdesc_child *ch, struct procdesc_ck_req *cr, pid_t pid,
    int pidfd, int *fdp)
{
	const struct procdesc_ck_ops *ck;
	int error;

	ck = CR_CK;
	ch->ch_ck = ck;
	ch->ch_guardian = cr->cr_watcher;
	if ((error = ck->ck_adopt(cr, pid, pidfd, &ch->ch_proc,
	    &ch->ch_cookie)) == 0) {
		ch->ch_fd = cr->cr_fd;
		error = procdesc_child_adopt(ch);
	}
	if (error != 0) {
		error = ck->ck_dispose(cr, pidfd, error);
		close(pidfd);
		return (error);
	}
	ck->ck_start(cr);
	close(pidfd);
	procdesc_reaper_watch_child(pid);
	*fdp = cr->cr_fd;
	return (0);
}

/* The kernel's path: nothing to do in the child. */
static void PROCDESC_NOSAN
cr_kernel_child(const struct procdesc_ck_req *cr)
{

	(void)cr;
}

/*
 * A child on the kernel's path (autokill.c), made: the clone3 pidfd is
 * the descriptor, close-on-exec unless PD_CLOEXEC is absent.  Closing it
 * again on a failure kills the child, and the kernel reaps it.
 */
static int
cr_kernel_adopt(const struct procdesc_ck_req *cr, int pidfd, int *fdp)
{
	int error;

	if ((cr->cr_flags & PD_CLOEXEC) == 0 && fcntl(pidfd, F_SETFD, 0) == -1) {
		error = errno;
		close(pidfd);
		return (error);
	}
	procdesc_ak_hint(pidfd, true);
	*fdp = pidfd;
	return (0);
}

/*
 * Before the clone, everything that can fail: the kernel's path
 * (cc_ch NULL, its clone flags in the request), or an entry with room and
 * the mechanism's preparation.  spawn for RFSPAWN.
 */
static int
cr_begin(struct procdesc_create *cc, int pdflags, bool spawn)
{
	const struct procdesc_ck_ops *ck;
	struct procdesc_ck_req *cr;
	uint64_t cflags;
	int error;

	ck = CR_CK;
	cr = &cc->cc_cr;
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_ak_choose(pdflags, spawn || procdesc_fork_trap(),
	    &cflags)) != 0)
		return (error);
	memset(cr, 0, sizeof(*cr));
	cr->cr_spawn = spawn;
	cc->cc_ch = NULL;
	if (cflags != 0) {
		cr->cr_fd = cr->cr_peer = cr->cr_ctl = cr->cr_watcher = -1;
		cr->cr_flags = (uint32_t)pdflags;
		cr->cr_cflags = cflags;
		return (0);
	}
	if ((error = procdesc_reaper_start()) != 0 ||
	    (error = procdesc_child_new(&cc->cc_ch, pdflags)) != 0)
		return (error);
	if ((error = ck->ck_prepare(cr, pdflags, cc->cc_ch->ch_id)) != 0) {
		procdesc_child_discard(cc->cc_ch);
		return (error);
	}
	if (cr->cr_new)
		procdesc_reaper_watch_guardian(cr->cr_watcher);
	return (0);
}

/* What the new child runs before any code of the application. */
static procdesc_fork_hook_t *
cr_hook(const struct procdesc_create *cc)
{

	return (cc->cc_ch == NULL ? cr_kernel_child : CR_CK->ck_child);
}

/*
 * In the parent, after the clone (error, or the child pid and its
 * pidfd): adopt the child, or undo the creation.
 */
static int
cr_end(struct procdesc_create *cc, int error, pid_t pid, int pidfd,
    int *fdp)
{

	if (cc->cc_ch == NULL)
		return (error != 0 ? error :
		    cr_kernel_adopt(&cc->cc_cr, pidfd, fdp));
	if (error == 0)
		error = cr_adopt(cc->cc_ch, &cc->cc_cr, pid, pidfd, fdp);
	else
		CR_CK->ck_abort(&cc->cc_cr);
	if (error != 0)
		procdesc_child_discard(cc->cc_ch);
	return (error);
}

/*
 * pdfork and pdrfork; spawn for RFSPAWN where the child has a copy of our
 * memory (fork.h), whose parent resumes once the child has exec'd or
 * exited.  In the child: 0 and *pidp 0.
 */
int
procdesc_create_fork(int pdflags, bool spawn, pid_t *pidp, int *fdp)
{
	struct procdesc_create cc;
	pid_t pid;
	int error, pidfd;

	if ((error = cr_begin(&cc, pdflags, spawn)) != 0)
		return (error);
	error = spawn ? procdesc_fork_spawn(cr_hook(&cc), &cc.cc_cr, &pid,
	    &pidfd) : procdesc_fork_clone(cr_hook(&cc), &cc.cc_cr, &pid,
	    &pidfd);
	if (error == 0 && pid == 0) {
		/* The child: its copies are closed; cc is the parent's. */
		*pidp = 0;
		return (0);
	}
	if ((error = cr_end(&cc, error, pid, pidfd, fdp)) != 0)
		return (error);
	*pidp = pid;
	return (0);
}

#if PROCDESC_VFORK
/* RFSPAWN in our memory (fork.h): all but the clone, which the entry makes. */
int
procdesc_create_vfork_begin(struct procdesc_create *cc, int pdflags)
{
	int error;

	if ((error = cr_begin(cc, pdflags, true)) != 0)
		return (error);
	procdesc_fork_vfork_prepare(&cc->cc_vf, cr_hook(cc), &cc->cc_cr);
	return (0);
}

/* After the entry's clone (ret: its result), in the parent. */
int
procdesc_create_vfork_end(struct procdesc_create *cc, long ret, pid_t *pidp,
    int *fdp)
{
	pid_t pid;
	int error, pidfd;

	error = procdesc_fork_vfork_finish(&cc->cc_vf, ret, &pid, &pidfd);
	if ((error = cr_end(cc, error, pid, pidfd, fdp)) != 0)
		return (error);
	*pidp = pid;
	return (0);
}
#endif /* PROCDESC_VFORK */

/*
 * Whether we may debug the process behind pidfd, as FreeBSD's pdopenpid
 * requires (PGET_CANDEBUG): pidfd_getfd(2) makes the kernel's ptrace
 * access check with our real credentials before it looks at the
 * descriptor number, so with -1 it fails with EBADF if we may and with
 * EPERM if not (Linux 5.6).  Before that, opening /proc/PID/mem makes the
 * same check (with the filesystem credentials).  ESRCH if not: FreeBSD
 * does not say that the process exists.
 */
static int
cr_may_debug(pid_t pid, int pidfd)
{
	char path[32];
	int fd;

	if (sys_pidfd_getfd(pidfd, -1, 0) == -1 && errno != ENOSYS)
		return (errno == EPERM ? ESRCH : 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (ESRCH);
	close(fd);
	return (0);
}

/*
 * A descriptor for a process we did not create, if we could debug it.
 * FreeBSD 16 semantics: the last close kills it unless PD_DAEMON.
 */
int
procdesc_create_open(pid_t pid, int pdflags, int *fdp)
{
	const struct procdesc_ck_ops *ck;
	struct procdesc_ck_req cr;
	struct pollfd pfd;
	int error, pidfd;

	ck = CR_CK;
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_reaper_start()) != 0)
		return (error);
	if ((pidfd = sys_pidfd_open(pid, 0)) == -1)
		return (errno == EINVAL || errno == ENOENT ? ESRCH : errno);
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	if ((error = cr_may_debug(pid, pidfd)) != 0)
		;
	else if (poll(&pfd, 1, 0) == 1)
		error = EBUSY;		/* A zombie or exiting. */
	else
		error = ck->ck_open(pid, pidfd, pdflags, &cr, fdp);
	close(pidfd);
	if (error == 0 && cr.cr_new)
		procdesc_reaper_watch_guardian(cr.cr_watcher);
	return (error);
}
