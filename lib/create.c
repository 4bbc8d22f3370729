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
	    &ch->ch_cookie)) != 0 ||
	    (error = procdesc_child_adopt(ch)) != 0) {
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

/*
 * pdfork and pdrfork; spawn for RFSPAWN, whose parent resumes once the
 * child has exec'd or exited.  In the child: 0 and *pidp 0.
 */
/* The kernel's path: nothing to do in the child. */
static void PROCDESC_NOSAN
cr_kernel_child(const struct procdesc_ck_req *cr)
{

	(void)cr;
}

/*
 * A child on the kernel's path (autokill.c): the clone3 pidfd is the
 * descriptor, close-on-exec unless PD_CLOEXEC is absent.  Closing it
 * again on a failure kills the child, and the kernel reaps it.
 */
static int
cr_kernel_fork(int pdflags, uint64_t cflags, bool spawn, pid_t *pidp,
    int *fdp)
{
	struct procdesc_ck_req cr;
	pid_t pid;
	int error, pidfd;

	memset(&cr, 0, sizeof(cr));
	cr.cr_fd = cr.cr_peer = cr.cr_ctl = cr.cr_watcher = -1;
	cr.cr_flags = (uint32_t)pdflags;
	cr.cr_cflags = cflags;
	error = spawn ? procdesc_fork_spawn(cr_kernel_child, &cr, &pid,
	    &pidfd) : procdesc_fork_clone(cr_kernel_child, &cr, &pid, &pidfd);
	if (error != 0)
		return (error);
	if (pid != 0 && (pdflags & PD_CLOEXEC) == 0 &&
	    fcntl(pidfd, F_SETFD, 0) == -1) {
		error = errno;
		close(pidfd);
		return (error);
	}
	if (pid != 0)
		procdesc_ak_hint(pidfd, true);
	*pidp = pid;
	*fdp = pidfd;
	return (0);
}

int
procdesc_create_fork(int pdflags, bool spawn, pid_t *pidp, int *fdp)
{
	const struct procdesc_ck_ops *ck;
	struct procdesc_ck_req cr;
	struct procdesc_child *ch;
	uint64_t cflags;
	pid_t pid;
	int error, pidfd;

	ck = CR_CK;
	if ((error = procdesc_kernel_ok()) != 0 ||
	    (error = procdesc_ak_choose(pdflags, &cflags)) != 0)
		return (error);
	if (cflags != 0)
		return (cr_kernel_fork(pdflags, cflags, spawn, pidp, fdp));
	memset(&cr, 0, sizeof(cr));
	cr.cr_spawn = spawn;
	if ((error = procdesc_reaper_start()) != 0 ||
	    (error = procdesc_child_new(&ch, pdflags)) != 0)
		return (error);
	if ((error = ck->ck_prepare(&cr, pdflags, ch->ch_id)) != 0) {
		procdesc_child_discard(ch);
		return (error);
	}
	if (cr.cr_new)
		procdesc_reaper_watch_guardian(cr.cr_watcher);
	error = spawn ? procdesc_fork_spawn(ck->ck_child, &cr, &pid, &pidfd) :
	    procdesc_fork_clone(ck->ck_child, &cr, &pid, &pidfd);
	if (error == 0 && pid == 0) {
		/* The child: its copies are closed; ch is the parent's. */
		*pidp = 0;
		return (0);
	}
	if (error == 0)
		error = cr_adopt(ch, &cr, pid, pidfd, fdp);
	else
		ck->ck_abort(&cr);
	if (error != 0) {
		procdesc_child_discard(ch);
		return (error);
	}
	*pidp = pid;
	return (0);
}

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
