/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A thread's table of the children it made through the library, and the
 * verdicts on them: which entry to work on, what a child may end with,
 * pdwait with every check of what it returns, and the end of an entry,
 * where a child that must die is seen to die (and be reaped) and a
 * PD_DAEMON child that must live on is kept as an orphan until killed.
 */

#include <sys/procdesc.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"

static const char *const tt_kindname[K_NKINDS] = {
	"exit", "raise", "pause", "exec", "nest",
};

/* c's status is known: it exits by itself, or was sent a signal. */
bool
tt_determinate(const struct tchild *c)
{

	return (c->kind != K_PAUSE || c->sigs != 0);
}

static bool
tc_expected(const struct tchild *c, int st)
{

	if (WIFSIGNALED(st) && !WCOREDUMP(st) &&
	    (c->sigs & tt_sigbit(WTERMSIG(st))) != 0)
		return (true);
	switch (c->kind) {
	case K_EXIT:
	case K_EXEC:
	case K_NEST:
		return (WIFEXITED(st) && WEXITSTATUS(st) == c->code);
	case K_RAISE:
		return (WIFSIGNALED(st) && !WCOREDUMP(st) &&
		    WTERMSIG(st) == c->code);
	case K_PAUSE:
	case K_NKINDS:
		break;
	}
	return (false);
}

/* A random used entry of t's table, or NULL. */
struct tchild *
tt_pick(struct tthread *t)
{
	unsigned int i, k, n;

	for (n = 0, i = 0; i < TT_NLIVE; i++)
		n += t->ch[i].used;
	if (n == 0)
		return (NULL);
	k = tt_rand(t, n);
	for (i = 0; i < TT_NLIVE; i++)
		if (t->ch[i].used && k-- == 0)
			return (&t->ch[i]);
	return (NULL);
}

/* A random entry of a pausing child nobody signalled yet, or NULL. */
struct tchild *
tt_pick_running(struct tthread *t)
{
	unsigned int i, k, n;

	for (n = 0, i = 0; i < TT_NLIVE; i++)
		n += t->ch[i].used && !tt_determinate(&t->ch[i]);
	if (n == 0)
		return (NULL);
	k = tt_rand(t, n);
	for (i = 0; i < TT_NLIVE; i++)
		if (t->ch[i].used && !tt_determinate(&t->ch[i]) && k-- == 0)
			return (&t->ch[i]);
	return (NULL);
}

/* One of c's open descriptors. */
int
tt_anyfd(struct tthread *t, const struct tchild *c)
{

	if (c->fd != -1 && (c->dup == -1 || tt_rand(t, 2) == 0))
		return (c->fd);
	return (c->dup);
}

void
tt_close_fd(struct tthread *t, struct tchild *c, int *fdp)
{

	if (fdp == &c->fd)
		tt_unpublish(t, c);
	if (close(*fdp) != 0)
		tt_fail(t, "close(%d) of pid %d: %s", *fdp, c->pid,
		    strerror(errno));
	*fdp = -1;
}

/*
 * A process that must die (killed, or its last descriptor closed) does,
 * is reaped by the library and leaves the status the kernel kept; then
 * its watch is closed.
 */
static void
tt_watch_end(struct tthread *t, const struct tchild *c, int w, pid_t pid)
{
	char a[64], b[128];
	int st;

	if (!tt_dead_within(w, TT_LONG_MS))
		tt_fail(t, "pid %d did not die within %d ms (expected %s)",
		    pid, TT_LONG_MS, tt_want(c, b, sizeof(b)));
	else if (!tt_reaped_within(w, TT_LONG_MS))
		tt_fail(t, "pid %d died but was not reaped within %d ms",
		    pid, TT_LONG_MS);
	else if (tt_exit_info_ok && tt_exit_info(w, &st) == 0 &&
	    !tc_expected(c, st))
		tt_fail(t, "pid %d ended with %s, expected %s", pid,
		    tt_st(st, a, sizeof(a)), tt_want(c, b, sizeof(b)));
	close(w);
}

/* A PD_DAEMON child let go: it must run on until we kill it. */
static void
tt_orphan(struct tthread *t, struct tchild *c)
{
	struct torphan *o;
	int i;

	for (i = 0; i < TT_NORPHAN; i++) {
		o = &t->orph[i];
		if (o->watch == -1) {
			o->pid = c->pid;
			o->watch = c->watch;
			return;
		}
	}
	/* No room: kill it now, after its check. */
	if (!tt_dead_within(c->watch, 0)) {
		(void)syscall(SYS_pidfd_send_signal, c->watch, SIGTERM, NULL,
		    0);
		c->sigs |= tt_sigbit(SIGTERM);
	} else
		tt_fail(t, "PD_DAEMON pid %d died at its last close", c->pid);
	tt_watch_end(t, c, c->watch, c->pid);
}

/*
 * Every descriptor of c is closed.  A pausing child must then die (if it
 * was sent a signal, or is not PD_DAEMON) or live on (PD_DAEMON).
 */
void
tt_end(struct tthread *t, struct tchild *c)
{

	/* The kill of the last close may come before a pending signal. */
	if (!c->daemon && (c->fd != -1 || (c->dup != -1 && !c->dup_own)))
		c->sigs |= tt_sigbit(SIGKILL);
	if (c->fd != -1)
		tt_close_fd(t, c, &c->fd);
	if (c->dup != -1)
		tt_close_fd(t, c, &c->dup);
	if (c->watch != -1) {
		if (c->daemon && c->sigs == 0)
			tt_orphan(t, c);
		else
			tt_watch_end(t, c, c->watch, c->pid);
	}
	memset(c, 0, sizeof(*c));
	c->fd = c->dup = c->watch = -1;
}

/* pdgetpid on fd must say pid. */
void
tt_check_getpid(struct tthread *t, int fd, pid_t pid)
{
	pid_t got;
	int r;

	got = -1;
	r = LIB(t, pdgetpid(fd, &got));
	LIBEND(t);
	if (r != 0)
		tt_fail(t, "pdgetpid(%d) of pid %d: %s", fd, pid,
		    strerror(errno));
	else if (tt_errno_kept(t, "pdgetpid") && got != pid)
		tt_fail(t, "pdgetpid(%d) said %d, expected %d", fd, got, pid);
}

/*
 * pdwait on fd, blocking (through EINTR, which pdfork(3) allows) unless
 * options has WNOHANG: 0 and *stp, or the errno value.
 */
int
tt_pdwait(struct tthread *t, const struct tchild *c, int fd, int options,
    int *stp)
{
	struct __wrusage wru;
	siginfo_t si;
	char a[64];
	int r, e, st;

	for (;;) {
		memset(&si, 0, sizeof(si));
		memset(&wru, 0xa5, sizeof(wru));
		st = -1;
		r = LIB(t, pdwait(fd, &st, options, &wru, &si));
		e = errno;
		LIBEND(t);
		if (r == 0 || e != EINTR || (options & WNOHANG) != 0)
			break;
		t->neintr++;
		if (atomic_load(&tt_stop))
			return (EINTR);
	}
	if (r != 0) {
		if (e == EINTR)
			tt_fail(t, "pdwait(WNOHANG) of pid %d: EINTR", c->pid);
		return (e);
	}
	if (!tt_errno_kept(t, "pdwait"))
		return (0);
	*stp = st;
	/* The siginfo and the rusage say what the status says. */
	if (si.si_signo != SIGCHLD || si.si_pid != c->pid ||
	    (WIFEXITED(st) && (si.si_code != CLD_EXITED ||
	    si.si_status != WEXITSTATUS(st))) ||
	    (WIFSIGNALED(st) && ((si.si_code != CLD_KILLED &&
	    si.si_code != CLD_DUMPED) || si.si_status != WTERMSIG(st))) ||
	    (WIFSTOPPED(st) && (si.si_code != CLD_STOPPED ||
	    si.si_status != WSTOPSIG(st))) ||
	    (WIFCONTINUED(st) && (si.si_code != CLD_CONTINUED ||
	    si.si_status != SIGCONT)))
		tt_fail(t, "pdwait of pid %d: %s but siginfo signo %d pid %d "
		    "code %d status %d", c->pid, tt_st(st, a, sizeof(a)),
		    si.si_signo, (int)si.si_pid, si.si_code, si.si_status);
	else if (wru.wru_children.ru_utime.tv_sec != 0 ||
	    wru.wru_children.ru_utime.tv_usec != 0 ||
	    wru.wru_children.ru_maxrss != 0)
		tt_fail(t, "pdwait of pid %d: wru_children not zero", c->pid);
	return (0);
}

/* pdwait until c's status, which must be the expected one; then end c. */
void
tt_wait_end(struct tthread *t, struct tchild *c, int options)
{
	char a[64], b[128];
	int e, fd, fd2, options0, st, st2;

	options0 = options;
	fd = tt_anyfd(t, c);
	if ((e = tt_pdwait(t, c, fd, options, &st)) != 0) {
		if (e == EAGAIN && (options & WNOHANG) != 0)
			return;		/* Not yet: later. */
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait(%d, %#x) of pid %d (%s): %s", fd,
			    options, c->pid, tt_want(c, b, sizeof(b)),
			    strerror(e));
		tt_end(t, c);
		return;
	}
	if (!tc_expected(c, st)) {
		tt_fail(t, "pdwait of pid %d (%s, %s, %s child): %s, "
		    "expected %s", c->pid, tt_opname[c->how],
		    tt_kindname[c->kind], c->daemon ? "daemon" : "plain",
		    tt_st(st, a, sizeof(a)), tt_want(c, b, sizeof(b)));
		tt_end(t, c);
		return;
	}
	/* Every later call, on any copy, says the same. */
	fd2 = tt_anyfd(t, c);
	options = WEXITED | WNOHANG;
	if ((e = tt_pdwait(t, c, fd2, options, &st2)) != 0 &&
	    (e != EINTR || !atomic_load(&tt_stop)))
		tt_fail(t, "second pdwait of pid %d (fd %d%s, first fd %d "
		    "options %#x said %s): %s", c->pid, fd2,
		    fd2 == c->dup ? (c->dup_own ? " pdopenpid" : " dup") : "",
		    fd, options0, tt_st(st, a, sizeof(a)), strerror(e));
	else if (e == 0 && st2 != st)
		tt_fail(t, "second pdwait of pid %d: %s, first %s", c->pid,
		    tt_st(st2, a, sizeof(a)), tt_st(st, b, sizeof(b)));
	tt_end(t, c);
}

/* A free entry of t's table; a full table first ends one. */
struct tchild *
tt_free_entry(struct tthread *t)
{
	struct tchild *c;
	int i;

	for (i = 0; i < TT_NLIVE; i++)
		if (!t->ch[i].used)
			return (&t->ch[i]);
	c = &t->ch[tt_rand(t, TT_NLIVE)];
	tt_finish(t, c);
	return (c->used ? NULL : c);
}

/* End c however fits: a pausing child is killed or closed first. */
void
tt_finish(struct tthread *t, struct tchild *c)
{
	int fd, r, sig;

	if (!c->used)
		return;
	tt_doing(t, OP_CLEANUP, c->pid);
	if (!tt_determinate(c)) {
		if (tt_rand(t, 2) == 0) {
			/* Close every copy: the kill on the last close. */
			if (!c->daemon)
				c->sigs |= tt_sigbit(SIGKILL);
			else {
				sig = tt_randsig(t);
				(void)syscall(SYS_pidfd_send_signal, c->watch,
				    sig, NULL, 0);
				c->sigs |= tt_sigbit(sig);
			}
			tt_end(t, c);
			return;
		}
		sig = tt_randsig(t);
		fd = tt_anyfd(t, c);
		r = LIB(t, pdkill(fd, sig));
		LIBEND(t);
		if (r != 0) {
			tt_fail(t, "pdkill(%d, %d) of pid %d: %s", fd, sig,
			    c->pid, strerror(errno));
			tt_end(t, c);
			return;
		}
		c->sigs |= tt_sigbit(sig);
	}
	tt_wait_end(t, c, WEXITED);
}

/* Kill a child of ours through its pidfd and check how it ended. */
void
tt_kill_orphan(struct tthread *t, struct torphan *o)
{
	struct tchild c;
	int sig;

	memset(&c, 0, sizeof(c));
	c.kind = K_PAUSE;
	c.pid = o->pid;
	if (tt_dead_within(o->watch, 0))
		tt_fail(t, "PD_DAEMON pid %d died after its last close",
		    o->pid);
	sig = tt_randsig(t);
	(void)syscall(SYS_pidfd_send_signal, o->watch, sig, NULL, 0);
	c.sigs = tt_sigbit(sig);
	tt_watch_end(t, &c, o->watch, o->pid);
	o->watch = -1;
}

