/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The worker threads and what they do to descriptors: each draws
 * operations at random until the deadline (pdfork, pdrfork, dup,
 * pdopenpid, close, pdkill, pdwait, pdgetpid, pddupfd, stop and continue,
 * a copy in flight over SCM_RIGHTS, a fork() copy that uses it, orphans
 * killed), then ends every child it holds.  The operations on processes
 * the C library makes are in plain.c.
 */

#include <sys/procdesc.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"

/*
 * Drawn but skipped under TSan: pdrfork(RFSPAWN), whose child (a raw
 * clone3) resets SIGALRM with signal(3), and TSan's interceptor there
 * waits for ever for a lock another thread held at the clone (NOTES
 * 2.11); and the fork copies, which would run TSan's interceptors in the
 * child of a multi-threaded fork (NOTES 2.9).
 */
#ifdef __SANITIZE_THREAD__
#define	TT_RFSPAWN	0
#define	TT_COPY		0
#else
#define	TT_RFSPAWN	1
#define	TT_COPY		1
#endif

/* How often each operation is drawn. */
static const enum tt_op tt_draw[] = {
	OP_PDFORK, OP_PDFORK, OP_PDFORK, OP_PDFORK, OP_PDRFORK, OP_PDRFORK,
	OP_RFSPAWN, OP_RFSPAWN, OP_DUP, OP_DUP, OP_REOPEN, OP_CLOSE,
	OP_CLOSE, OP_CLOSE, OP_PDKILL, OP_PDKILL, OP_PDKILL, OP_PDWAIT,
	OP_PDWAIT, OP_PDWAIT, OP_PDWAIT, OP_PDGETPID, OP_PDGETPID,
	OP_OPENPID, OP_FORK, OP_VFORK, OP_SPAWN, OP_SYSTEM, OP_POPEN,
	OP_WAITID, OP_WAITID, OP_NAP, OP_NAP, OP_DAEMONS, OP_STOP, OP_FLIGHT,
	OP_COPY,
};

/*
 * pdfork, pdrfork(RFPROC | RFPROCDESC) and pdrfork(RFSPAWN): a child with
 * a random fate, filed in the table.
 */
static void
op_make(struct tthread *t, enum tt_op op)
{
	char arg[32], *argv[5];
	struct tchild *c;
	enum tt_kind kind;
	pid_t pid;
	int code, e, fd, flags, rf;
	bool execs;

	if ((c = tt_free_entry(t)) == NULL)
		return;
	kind = (enum tt_kind)tt_rand(t, K_NKINDS);
	if (kind == K_NEST && op == OP_RFSPAWN)
		kind = K_EXIT;
	code = kind == K_RAISE ? tt_randsig(t) : (int)tt_rand(t, 126);
	argv[0] = "/bin/sh";
	argv[1] = "sh";
	argv[2] = "-c";
	argv[3] = arg;
	argv[4] = NULL;
	snprintf(arg, sizeof(arg), "exit %d", code);
	if (kind == K_EXEC && op == OP_RFSPAWN && tt_rand(t, 2) == 0) {
		code = (int)tt_rand(t, 2);
		argv[0] = code == 0 ? "/bin/true" : "/bin/false";
		argv[1] = code == 0 ? "true" : "false";
		argv[2] = NULL;
	}
	flags = (tt_rand(t, 4) != 0 ? PD_CLOEXEC : 0) |
	    (tt_rand(t, 5) == 0 ? PD_DAEMON : 0);
	rf = op == OP_RFSPAWN ? (int)RFSPAWN :
	    RFPROC | RFPROCDESC | (tt_rand(t, 2) == 0 ? RFFDG : 0);
	/* Its exec gives it SIGCHLD back: waitid may see it (pdfork(3)). */
	execs = kind == K_EXEC || (kind == K_PAUSE && op == OP_RFSPAWN);
	if (execs)
		tt_untracked(true);
	fd = -1;
	pid = op == OP_PDFORK ? LIB(t, pdfork(&fd, flags)) :
	    LIB(t, pdrfork(&fd, flags, rf));
	e = errno;
	LIBEND(t);
	if (pid == 0)
		tt_child(op == OP_RFSPAWN, kind, code, argv);
	if (pid == -1) {
		tt_fail(t, "%s(%#x, %#x): %s", tt_opname[op], flags, rf,
		    strerror(e));
		if (execs)
			tt_untracked(false);
		return;
	}
	tt_pidset(pid, execs ? PK_PDEXEC : PK_PD, op);
	if (execs)
		tt_untracked(false);
	if (!tt_errno_kept(t, tt_opname[op])) {
		close(fd);
		return;
	}
	tt_doing(t, op, pid);
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->fd = fd;
	c->dup = -1;
	c->watch = -1;
	c->pid = pid;
	c->kind = kind;
	c->code = code;
	c->daemon = (flags & PD_DAEMON) != 0;
	c->how = op;
	/* A pausing child cannot die before we act: its pid is its own. */
	if (kind == K_PAUSE && (c->watch = tt_pidfd_open(pid)) == -1)
		tt_fail(t, "pidfd_open(%d) of a pausing child: %s", pid,
		    strerror(errno));
	tt_check_getpid(t, fd, pid);
	tt_publish(t, c);
}

/* Another copy of a descriptor: dup(2), or F_DUPFD_CLOEXEC. */
static void
op_dup(struct tthread *t)
{
	struct tchild *c;

	if ((c = tt_pick(t)) == NULL || c->fd == -1 || c->dup != -1)
		return;
	tt_doing(t, OP_DUP, c->pid);
	c->dup = tt_rand(t, 2) == 0 ? dup(c->fd) :
	    fcntl(c->fd, F_DUPFD_CLOEXEC, 3);
	c->dup_own = false;
	if (c->dup == -1)
		tt_fail(t, "dup(%d): %s", c->fd, strerror(errno));
	else
		tt_check_getpid(t, c->dup, c->pid);
}

/*
 * A second, PD_DAEMON description of a pausing child of ours from
 * pdopenpid: it neither keeps the child alive nor kills it, and reports
 * its exit too.
 */
static void
op_reopen(struct tthread *t)
{
	struct tchild *c;
	int fd;

	if ((c = tt_pick_running(t)) == NULL || c->fd == -1 || c->dup != -1)
		return;
	tt_doing(t, OP_REOPEN, c->pid);
	fd = LIB(t, pdopenpid(c->pid, PD_DAEMON | PD_CLOEXEC));
	LIBEND(t);
	if (fd == -1) {
		tt_fail(t, "pdopenpid(%d) of a running pdfork child: %s",
		    c->pid, strerror(errno));
		return;
	}
	if (!tt_errno_kept(t, "pdopenpid")) {
		close(fd);
		return;
	}
	c->dup = fd;
	c->dup_own = true;
	tt_check_getpid(t, fd, c->pid);
}

/*
 * Close one descriptor.  The last copy of a description without PD_DAEMON
 * kills a pausing child: seen through its watch, with SIGKILL.
 */
static void
op_close(struct tthread *t)
{
	struct tchild *c;
	bool primary, last;

	if ((c = tt_pick(t)) == NULL)
		return;
	tt_doing(t, OP_CLOSE, c->pid);
	primary = c->fd != -1 && (c->dup == -1 || tt_rand(t, 2) == 0);
	if (primary)
		tt_close_fd(t, c, &c->fd);
	else
		tt_close_fd(t, c, &c->dup);
	/* The last copy of the first description is gone. */
	last = (primary || !c->dup_own) && c->fd == -1 &&
	    (c->dup == -1 || c->dup_own);
	if (last && c->kind == K_PAUSE && !c->daemon) {
		if (c->sigs == 0)
			t->nclosekill++;
		c->sigs |= tt_sigbit(SIGKILL);
		if (!tt_dead_within(c->watch, TT_LONG_MS))
			tt_fail(t, "pid %d survived its last close by %d ms",
			    c->pid, TT_LONG_MS);
	}
	if (c->fd == -1 && c->dup == -1)
		tt_end(t, c);
}

/* pdkill with a known signal, or 0: it succeeds, even after the exit. */
static void
op_pdkill(struct tthread *t)
{
	struct tchild *c;
	int fd, r, sig;

	if ((c = tt_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDKILL, c->pid);
	sig = tt_rand(t, 4) == 0 ? 0 : tt_randsig(t);
	fd = tt_anyfd(t, c);
	r = LIB(t, pdkill(fd, sig));
	LIBEND(t);
	if (r != 0)
		tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig, c->pid,
		    strerror(errno));
	else if (tt_errno_kept(t, "pdkill") && sig != 0)
		c->sigs |= tt_sigbit(sig);
}

/*
 * pdwait: blocking, WNOHANG, after poll(2) said POLLIN (then the record
 * must be there: no WNOHANG window), or WNOWAIT; a running child must
 * give EAGAIN to WNOHANG.
 */
static void
op_pdwait(struct tthread *t)
{
	struct tchild *c;
	int e, fd, st;

	if ((c = tt_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDWAIT, c->pid);
	if (!tt_determinate(c)) {
		fd = tt_anyfd(t, c);
		if ((e = tt_pdwait(t, c, fd, WEXITED | WNOHANG, &st)) !=
		    EAGAIN)
			tt_fail(t, "pdwait(WNOHANG) of running pid %d: %s",
			    c->pid, e == 0 ? "a status" : strerror(e));
		return;
	}
	switch (tt_rand(t, 4)) {
	case 0:
		tt_wait_end(t, c, WEXITED);
		break;
	case 1:
		tt_wait_end(t, c, WEXITED | WNOHANG);
		break;
	case 2:
		fd = tt_anyfd(t, c);
		if ((tt_poll(fd, POLLIN, TT_LONG_MS) & POLLIN) == 0) {
			tt_fail(t, "no POLLIN on pid %d's descriptor within "
			    "%d ms", c->pid, TT_LONG_MS);
			return;
		}
		tt_wait_end(t, c, WEXITED | WNOHANG);
		break;
	case 3:
		tt_wait_end(t, c, WEXITED | WNOWAIT);
		break;
	}
}

/*
 * pddupfd on a running child: a number it has not open (it never has
 * TT_NOFD, nor do we), and a bad flag.
 */
static void
tt_check_dupfd(struct tthread *t, const struct tchild *c)
{
	int e, fd, r;

	fd = tt_anyfd(t, c);
	r = LIB(t, pddupfd(fd, TT_NOFD, 0));
	e = errno;
	LIBEND(t);
	if (r != -1 || e != EBADF) {
		tt_fail(t, "pddupfd(%d, %d) of pid %d: %d, errno %s", fd,
		    TT_NOFD, c->pid, r, strerror(e));
		if (r != -1)
			close(r);
		return;
	}
	r = LIB(t, pddupfd(fd, 0, 1));
	e = errno;
	LIBEND(t);
	if (r != -1 || e != EINVAL) {
		tt_fail(t, "pddupfd(%d, 0, 1) of pid %d: %d, errno %s", fd,
		    c->pid, r, strerror(e));
		if (r != -1)
			close(r);
	}
}

/*
 * pdgetpid on every copy; a pausing child nobody signalled is alive, its
 * descriptor not readable, and pdwait(WNOHANG) says EAGAIN.
 */
static void
op_pdgetpid(struct tthread *t)
{
	struct tchild *c;
	int e, st;

	if ((c = tt_pick(t)) == NULL)
		return;
	tt_doing(t, OP_PDGETPID, c->pid);
	if (c->fd != -1)
		tt_check_getpid(t, c->fd, c->pid);
	if (c->dup != -1)
		tt_check_getpid(t, c->dup, c->pid);
	if (c->kind != K_PAUSE || c->sigs != 0)
		return;
	if (tt_dead_within(c->watch, 0))
		tt_fail(t, "pausing pid %d died, held and never signalled",
		    c->pid);
	else if ((tt_poll(tt_anyfd(t, c), POLLIN, 0) & (POLLIN | POLLHUP)) !=
	    0)
		tt_fail(t, "running pid %d: its descriptor polls readable",
		    c->pid);
	else if ((e = tt_pdwait(t, c, tt_anyfd(t, c), WEXITED | WNOHANG,
	    &st)) != EAGAIN)
		tt_fail(t, "pdwait(WNOHANG) of running pid %d: %s", c->pid,
		    e == 0 ? "a status" : strerror(e));
	else
		tt_check_dupfd(t, c);
}

/* pdkill(fd, sig) that must succeed. */
static bool
tt_pdkill(struct tthread *t, const struct tchild *c, int fd, int sig)
{
	int r;

	r = LIB(t, pdkill(fd, sig));
	LIBEND(t);
	if (r != 0) {
		tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig, c->pid,
		    strerror(errno));
		return (false);
	}
	return (tt_errno_kept(t, "pdkill"));
}

/* pdwait(options) for a stop or a continue, which must be what ok says. */
static bool
tt_event(struct tthread *t, const struct tchild *c, int fd, int options,
    bool stop)
{
	char a[64];
	int e, st;

	if ((e = tt_pdwait(t, c, fd, options, &st)) != 0) {
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait(%#x) of pid %d for its %s: %s",
			    options, c->pid, stop ? "stop" : "continue",
			    strerror(e));
		return (false);
	}
	if (stop ? WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP :
	    WIFCONTINUED(st))
		return (true);
	tt_fail(t, "pdwait(%#x) of pid %d: %s, expected %s", options, c->pid,
	    tt_st(st, a, sizeof(a)), stop ? "stopped by 19" : "continued");
	return (false);
}

/*
 * Stop and continue a pausing child through pdkill: the owner's pdwait
 * reports both (WNOWAIT: twice), through the timer's EINTRs.  Only on a
 * copy of the pdfork descriptor: the owner's pdopenpid descriptor of its
 * own child blocks in pdwait(WUNTRACED) until the child exits.
 */
static void
op_stop(struct tthread *t)
{
	struct tchild *c;
	int fd, nowait;

	if ((c = tt_pick_running(t)) == NULL)
		return;
	fd = c->fd != -1 ? c->fd : !c->dup_own ? c->dup : -1;
	if (fd == -1)
		return;
	tt_doing(t, OP_STOP, c->pid);
	nowait = tt_rand(t, 2) == 0 ? WNOWAIT : 0;
	if (!tt_pdkill(t, c, fd, SIGSTOP) ||
	    !tt_event(t, c, fd, WUNTRACED | nowait, true) ||
	    (nowait != 0 && !tt_event(t, c, fd, WUNTRACED, true)) ||
	    !tt_pdkill(t, c, fd, SIGCONT) ||
	    !tt_event(t, c, fd, WCONTINUED | nowait, false) ||
	    (nowait != 0 && !tt_event(t, c, fd, WCONTINUED, false)))
		return;
}

/* Send fd over socket s (SCM_RIGHTS). */
static int
tt_sendfd(int s, int fd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	char b;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	b = 'd';
	iov.iov_base = &b;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.hdr), &fd, sizeof(int));
	return (sendmsg(s, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1);
}

/* Receive a descriptor from s, through EINTR: it, or -1. */
static int
tt_recvfd(int s)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *cmh;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;
	int fd;
	char b;

	do {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = &b;
		iov.iov_len = 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
	} while ((n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR);
	if (n != 1 || (cmh = CMSG_FIRSTHDR(&mh)) == NULL ||
	    cmh->cmsg_type != SCM_RIGHTS)
		return (-1);
	memcpy(&fd, CMSG_DATA(cmh), sizeof(int));
	return (fd);
}

/*
 * The only copy of a descriptor in flight (SCM_RIGHTS, not received yet)
 * keeps its child alive; received, it is the descriptor again; destroyed
 * with its socket, it was the last copy: the child dies.
 */
static void
op_flight(struct tthread *t)
{
	struct tchild *c;
	int sv[2];

	if ((c = tt_pick_running(t)) == NULL || c->daemon || c->fd == -1 ||
	    c->dup != -1)
		return;
	tt_doing(t, OP_FLIGHT, c->pid);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		tt_fail(t, "socketpair: %s", strerror(errno));
		return;
	}
	if (tt_sendfd(sv[0], c->fd) == -1) {
		tt_fail(t, "sendmsg(SCM_RIGHTS): %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return;
	}
	tt_close_fd(t, c, &c->fd);
	if (tt_dead_within(c->watch, TT_HELD_MS))
		tt_fail(t, "pid %d died while a copy was in flight", c->pid);
	if (tt_rand(t, 2) == 0) {
		if ((c->fd = tt_recvfd(sv[1])) == -1)
			tt_fail(t, "recvmsg(SCM_RIGHTS): nothing came");
		else {
			tt_check_getpid(t, c->fd, c->pid);
			tt_publish(t, c);
		}
	} else {
		c->sigs |= tt_sigbit(SIGKILL);
		t->nclosekill++;
	}
	close(sv[0]);
	close(sv[1]);
	if (c->fd == -1)
		tt_end(t, c);
}

/*
 * A fork() copy holds every descriptor too and uses a running child's as
 * any holder does (the owner's registry is not its own); the owner then
 * sees what the copy did.
 */
static void
op_copy(struct tthread *t)
{
	struct tchild *c;
	pid_t pid;
	int fd, sig;

	if ((c = tt_pick_running(t)) == NULL)
		return;
	tt_doing(t, OP_COPY, c->pid);
	fd = tt_anyfd(t, c);
	sig = tt_rand(t, 2) == 0 ? tt_randsig(t) : 0;
	tt_untracked(true);
	if ((pid = fork()) == 0)
		tt_exit(tt_copy_ops(fd, c->pid, sig));
	if (pid != -1)
		tt_pidset(pid, PK_PLAIN, OP_COPY);
	tt_untracked(false);
	if (pid == -1) {
		tt_fail(t, "fork: %s", strerror(errno));
		return;
	}
	tt_reap_plain(t, pid, 0, "fork copy (exit: the step that failed)");
	if (sig != 0)
		c->sigs |= tt_sigbit(sig);
}

/* The PD_DAEMON children we let go: alive until we kill them now. */
static void
op_daemons(struct tthread *t)
{
	int i;

	for (i = 0; i < TT_NORPHAN; i++) {
		if (t->orph[i].watch != -1) {
			tt_doing(t, OP_DAEMONS, t->orph[i].pid);
			tt_kill_orphan(t, &t->orph[i]);
		}
	}
}

/*
 * A point where the thread holds nothing, not even malloc's locks: the
 * handler may pdfork and pdkill here whatever the library's rules.
 */
static void
op_nap(struct tthread *t)
{

	tt_doing(t, OP_NAP, 0);
	t->safe = 1;
	(void)poll(NULL, 0, 1);
	t->safe = 0;
}

/* One drawn operation, counted once it gets to work (tt_doing). */
static void
tt_op(struct tthread *t, enum tt_op op)
{

	t->drawn = op;
	t->counted = false;
	atomic_store(&t->op, op);
	atomic_store(&t->oppid, 0);
	atomic_store(&t->stamp, tt_now());
	switch (op) {
	case OP_RFSPAWN:
		if (TT_RFSPAWN)
			op_make(t, op);
		break;
	case OP_PDFORK:
	case OP_PDRFORK:
		op_make(t, op);
		break;
	case OP_DUP:
		op_dup(t);
		break;
	case OP_REOPEN:
		op_reopen(t);
		break;
	case OP_CLOSE:
		op_close(t);
		break;
	case OP_PDKILL:
		op_pdkill(t);
		break;
	case OP_PDWAIT:
		op_pdwait(t);
		break;
	case OP_PDGETPID:
		op_pdgetpid(t);
		break;
	case OP_OPENPID:
		tt_op_openpid(t);
		break;
	case OP_FORK:
		tt_op_fork(t, false);
		break;
	case OP_VFORK:
		tt_op_fork(t, true);
		break;
	case OP_SPAWN:
		tt_op_spawn(t);
		break;
	case OP_SYSTEM:
		tt_op_system(t);
		break;
	case OP_POPEN:
		tt_op_popen(t);
		break;
	case OP_WAITID:
		tt_op_waitid(t);
		break;
	case OP_NAP:
		op_nap(t);
		break;
	case OP_DAEMONS:
		op_daemons(t);
		break;
	case OP_STOP:
		op_stop(t);
		break;
	case OP_FLIGHT:
		op_flight(t);
		break;
	case OP_COPY:
		if (TT_COPY)
			op_copy(t);
		break;
	case OP_NOPS:
		break;
	}
}

/*
 * No call of the library, nor anything the handler did meanwhile, leaves
 * the thread's signal mask other than it found it: a signal it blocked
 * would stay blocked in every child made after.
 */
static void
tt_mask_kept(struct tthread *t, enum tt_op op, const sigset_t *want)
{
	sigset_t cur;
	int sig;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	for (sig = 1; sig < NSIG; sig++) {
		if (sigismember(&cur, sig) != sigismember(want, sig)) {
			tt_fail(t, "%s left signal %d %s", tt_opname[op], sig,
			    sigismember(&cur, sig) ? "blocked" : "unblocked");
			pthread_sigmask(SIG_SETMASK, want, NULL);
			return;
		}
	}
}

/* A worker: random operations until the deadline, then end them all. */
void *
tt_worker(void *arg)
{
	struct tthread *t;
	sigset_t alrm, mask;
	enum tt_op op;
	int i;

	t = arg;
	tt_self = t;
	atomic_store(&t->tid, (pid_t)syscall(SYS_gettid));
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	while (!atomic_load(&tt_stop) && tt_now() < tt_deadline) {
		op = tt_draw[tt_rand(t, sizeof(tt_draw) / sizeof(tt_draw[0]))];
		tt_op(t, op);
		tt_mask_kept(t, op, &mask);
	}
	for (i = 0; i < TT_NLIVE; i++)
		tt_finish(t, &t->ch[i]);
	for (i = 0; i < TT_NORPHAN; i++)
		if (t->orph[i].watch != -1)
			tt_kill_orphan(t, &t->orph[i]);
	tt_doing(t, OP_CLEANUP, 0);
	atomic_store(&t->done, true);
	return (NULL);
}
