/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The owner's entries for its pdfork children, and every change of them:
 * created before the clone (room reserved, so that nothing fails once the
 * child runs), adopted once the child is guarded, its exit recorded when
 * first seen, reaped when the owner's pdwait takes it or when the last
 * copy of its descriptor goes, orphaned when its guardian dies, and
 * forgotten.  The reaper thread, pdwait and pdkill reach an
 * entry only through the functions here (FreeBSD's sys_procdesc.c is the
 * model: one object's whole life in one file).
 *
 * The zombie is the pid's reservation (FreeBSD keeps the pid while a
 * descriptor is open): an exit is recorded with waitid(WNOWAIT), which
 * leaves the zombie, and the reap comes only once no descriptor is left
 * or the owner's pdwait took the child (NOTES 1.2).
 *
 * Invariants: only this file reaps a pdfork child, under procdesc_mtx, so
 * that an unreaped child's pid is its own for as long as the lock is
 * held; an entry lives until its child is reaped and no descriptor of it
 * is left, or, once its guardian died (ch_lost), until the process exits.
 */

#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "arena.h"
#include "child.h"
#include "closekill.h"
#include "desc.h"
#include "guardian.h"
#include "lock.h"
#include "reaper.h"
#include "registry.h"
#include "syscall.h"

/*
 * How long a wait for a pid waits for the guardian's answer (ch_ask()):
 * as long as for its other answers.
 */
#define	CH_ASK_NS	(2 * PROCDESC_NS_PER_S)

/* A wait for a pid that asked the guardian about descriptor ca_id. */
struct ch_ask {
	struct ch_ask	*ca_next;
	uint64_t	 ca_id;
	int		 ca_guardian;	/* Its guardian's slot. */
	bool		 ca_done;	/* Answered, or no answer coming. */
};

static struct ch_ask *ch_asks;		/* (l) Those waiting. */
static pthread_cond_t ch_answer_cv;	/* (l) An answer came. */
static bool ch_answer_cv_ready;		/* (l) */

/* An entry for a child to come, and room to file it. */
int
procdesc_child_new(struct procdesc_child **chp, int pdflags)
{
	struct procdesc_child *ch;
	int error;

	if ((ch = procdesc_arena_zalloc(sizeof(*ch))) == NULL)
		return (ENOMEM);
	ch->ch_id = procdesc_desc_new_id();
	ch->ch_nowaitpid = (pdflags & PD_NOWAITPID) != 0;
	procdesc_lock();
	error = procdesc_registry_reserve();
	procdesc_unlock();
	if (error != 0)
		procdesc_arena_free(ch, sizeof(*ch));
	else
		*chp = ch;
	return (error);
}

/* An entry whose child was never adopted. */
void
procdesc_child_discard(struct procdesc_child *ch)
{

	procdesc_arena_free(ch, sizeof(*ch));
}

/*
 * The child is registered with its guardian: file its entry, before the
 * child runs (create.c), unless the guardian died meanwhile (EAGAIN): the
 * guardian's children were failed closed before this one was among them,
 * so it must be killed too.
 */
int
procdesc_child_adopt(struct procdesc_child *ch)
{
	int error;

	error = 0;
	procdesc_lock();
	if (ch->ch_ck->ck_gone(ch->ch_guardian))
		error = EAGAIN;
	else
		procdesc_registry_insert(ch);
	procdesc_unlock();
	return (error);
}

/*
 * The entry of descriptor dp, if it is the descriptor pdfork made for one
 * of our children: its socket cookie, which the kernel gave that socket
 * alone and never reuses, finds the entry, so that nothing else passes,
 * a look-alike named after it included.  mtx held.
 */
static struct procdesc_child *
ch_find(const struct procdesc_desc *dp)
{

	PROCDESC_ASSERT_LOCKED();
	return (procdesc_registry_cookie(dp->dd_cookie));
}

/* Reap ch's zombie; mtx held. */
static void
ch_reap(struct procdesc_child *ch)
{
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	memset(&si, 0, sizeof(si));
	if (sys_waitid(P_PID, ch->ch_proc.pp_pid, &si, WEXITED | WNOHANG |
	    __WALL, NULL) == 0 ? si.si_pid == ch->ch_proc.pp_pid :
	    errno == ECHILD)
		ch->ch_reaped = true;
}

/*
 * Record ch's exit if it has exited: true if it is recorded.  With
 * WNOWAIT, which leaves the zombie (and rusage, which only a parent gets).
 * A child somebody else reaped behind our back (the application's
 * waitpid with __WALL, the kernel's auto-reap of an exec'd child while
 * SIGCHLD is ignored) left no status: si_code 0, "lost".  mtx held.
 */
static bool
ch_peek(struct procdesc_child *ch)
{
	struct rusage ru;
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	if (ch->ch_exited)
		return (true);
	memset(&si, 0, sizeof(si));
	memset(&ru, 0, sizeof(ru));
	if (sys_waitid(P_PID, ch->ch_proc.pp_pid, &si, WEXITED | WNOHANG |
	    WNOWAIT | __WALL, &ru) == 0) {
		if (si.si_pid != ch->ch_proc.pp_pid)
			return (false);
	} else if (errno == ECHILD) {
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGCHLD;
		si.si_pid = ch->ch_proc.pp_pid;
		ch->ch_reaped = true;
	} else
		return (false);
	ch->ch_si = si;
	ch->ch_ru = ru;
	ch->ch_exited = true;
	return (true);
}

/*
 * Whatever is due now: the reap once the child has exited and no
 * descriptor is left, and the entry's end once it is reaped too (but an
 * orphan's, kept for the owner's pdwait).  mtx held.
 */
static void
ch_settle(struct procdesc_child *ch)
{

	PROCDESC_ASSERT_LOCKED();
	if (ch->ch_closed && !ch->ch_reaped && ch_peek(ch))
		ch_reap(ch);
	if (ch->ch_reaped && ch->ch_closed && !ch->ch_lost) {
		procdesc_registry_remove(ch);
		procdesc_arena_free(ch, sizeof(*ch));
	}
}

/*
 * A wait took ch's exit (pdwait in the owner, or a wait for its pid): the
 * reap, as wait4(2) does; the exit stays recorded for pdwait.  mtx held.
 */
static void
ch_wait(struct procdesc_child *ch)
{

	PROCDESC_ASSERT_LOCKED();
	if (!ch->ch_reaped)
		ch_reap(ch);
	ch->ch_owed = false;
	ch_settle(ch);
}

/*
 * What a wait with options sees of ch: its exit (taken, unless WNOWAIT or
 * no WEXITED: ch may be gone then), a stop or continue that options ask
 * for, running; NONE if somebody else reaped it and its status is lost.
 * mtx held.
 */
static enum procdesc_view
ch_view(struct procdesc_child *ch, int options, siginfo_t *si,
    struct rusage *ru)
{

	PROCDESC_ASSERT_LOCKED();
	if (ch_peek(ch)) {
		if (ch->ch_si.si_code == 0 && !ch->ch_lost)
			return (PROCDESC_VIEW_NONE);
		*si = ch->ch_si;
		*ru = ch->ch_ru;
		if ((options & (WEXITED | WNOWAIT)) == WEXITED)
			ch_wait(ch);
		return (PROCDESC_VIEW_EVENT);
	}
	memset(si, 0, sizeof(*si));
	if ((options & (WUNTRACED | WCONTINUED)) != 0 &&
	    sys_waitid(P_PID, ch->ch_proc.pp_pid, si, (options &
	    (WSTOPPED | WCONTINUED | WNOWAIT)) | WNOHANG | __WALL, ru) == 0 &&
	    si->si_pid != 0)
		return (PROCDESC_VIEW_EVENT);
	return (PROCDESC_VIEW_RUNNING);
}

/*
 * The pid of our child dp (pdgetpid): true, or false if dp is not that or
 * the lock is taken (pdgetpid may run in a signal handler, as pdkill may:
 * see procdesc_child_kill(); the caller then asks the guardian).
 */
bool
procdesc_child_pid(const struct procdesc_desc *dp, pid_t *pidp)
{
	struct procdesc_child *ch;

	if (!procdesc_trylock())
		return (false);
	if ((ch = ch_find(dp)) != NULL)
		*pidp = ch->ch_proc.pp_pid;
	procdesc_unlock();
	return (ch != NULL);
}

/*
 * The owner signals its unreaped child by pid under procdesc_mtx, which
 * every reap holds: the pid cannot be recycled meanwhile, and a zombie
 * takes the signal as a no-op (FreeBSD 16: 0 after the exit).  That is
 * quicker than a pidfd, but only if the lock is free at once: pdkill may
 * run in a signal handler that interrupted the lock's holder, or a thread
 * that the holder waits for (in malloc, say).  *minep: whether this was
 * the owner's child (else the caller goes through the guardian).
 */
int
procdesc_child_kill(const struct procdesc_desc *dp, int signum, bool *minep)
{
	struct procdesc_child *ch;
	int error;

	*minep = false;
	if (!procdesc_trylock())
		return (0);
	error = 0;
	if ((ch = ch_find(dp)) != NULL) {
		*minep = true;
		if (!ch->ch_reaped && kill(ch->ch_proc.pp_pid, signum) == -1)
			error = errno;
	}
	procdesc_unlock();
	return (error);
}

/*
 * The owner's view of its child for pdwait, through its descriptor: its
 * exit (recorded now if it has just exited), a stop or continue that
 * options ask for, or running.
 */
enum procdesc_view
procdesc_child_view(const struct procdesc_desc *dp, int options,
    siginfo_t *si, struct rusage *ru)
{
	struct procdesc_child *ch;
	enum procdesc_view v;

	v = PROCDESC_VIEW_NONE;
	procdesc_lock();
	if ((ch = ch_find(dp)) != NULL)
		v = ch_view(ch, options, si, ru);
	procdesc_unlock();
	return (v);
}

/*
 * The exit our entry recorded for process pp, which a descriptor other
 * than pdfork's names (pdopenpid of our own child): true, *si and *ru.
 * Once a wait reaped the child, only we have its status and rusage.
 */
bool
procdesc_child_record(const struct procdesc_proc *pp, siginfo_t *si,
    struct rusage *ru)
{
	struct procdesc_child *ch;

	procdesc_lock();
	for (ch = procdesc_registry_pid(pp->pp_pid, NULL); ch != NULL;
	    ch = procdesc_registry_pid(pp->pp_pid, ch))
		if (ch->ch_exited && ch->ch_si.si_code != 0 &&
		    ch->ch_proc.pp_kind == pp->pp_kind &&
		    ch->ch_proc.pp_tag == pp->pp_tag)
			break;
	if (ch != NULL) {
		*si = ch->ch_si;
		*ru = ch->ch_ru;
	}
	procdesc_unlock();
	return (ch != NULL);
}

/*
 * A pidfd of our child dp, made while it is unreaped (so its pid is still
 * its own), to block on: ESRCH if dp is not that.
 */
int
procdesc_child_pidfd(const struct procdesc_desc *dp, int *pidfdp)
{
	struct procdesc_child *ch;
	int pidfd, saved;

	saved = errno;
	pidfd = -1;
	procdesc_lock();
	if ((ch = ch_find(dp)) != NULL && !ch->ch_reaped)
		pidfd = sys_pidfd_open(ch->ch_proc.pp_pid, 0);
	procdesc_unlock();
	errno = saved;
	if (pidfd == -1)
		return (ESRCH);
	*pidfdp = pidfd;
	return (0);
}

/* The entry of our unreaped child pid (its pid is its own).  mtx held. */
static struct procdesc_child *
ch_unreaped(pid_t pid)
{
	struct procdesc_child *ch;

	PROCDESC_ASSERT_LOCKED();
	for (ch = procdesc_registry_pid(pid, NULL); ch != NULL &&
	    ch->ch_reaped; ch = procdesc_registry_pid(pid, ch))
		;
	return (ch);
}

/*
 * The entry of our child pid that a wait for that pid may take: the
 * unreaped one, else one reaped for a wildcard wait
 * whose exit is owed to such a wait, unless the pid names a new child of
 * ours by now (the kernel's answer is about that one).  mtx held.
 */
static struct procdesc_child *
ch_bypid(pid_t pid)
{
	struct procdesc_child *ch, *owed;
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	if ((ch = ch_unreaped(pid)) != NULL)
		return (ch);
	owed = NULL;
	for (ch = procdesc_registry_pid(pid, NULL); ch != NULL;
	    ch = procdesc_registry_pid(pid, ch))
		if (ch->ch_owed)
			owed = ch;
	if (owed != NULL && sys_waitid(P_PID, pid, &si, WEXITED | WSTOPPED |
	    WCONTINUED | WNOHANG | WNOWAIT | __WALL, NULL) == 0)
		return (NULL);
	return (owed);
}

/*
 * Whether we know, without asking the guardian, if a copy of ch's
 * descriptor is left: the guardian told us of the last close, or the
 * number pdfork gave still holds it (its socket cookie is that socket's
 * alone, so nothing else passes).  One getsockopt(2).  mtx held.
 */
static bool
ch_close_known(const struct procdesc_child *ch)
{
	uint64_t cookie;

	PROCDESC_ASSERT_LOCKED();
	return (ch->ch_closed || (procdesc_desc_cookie(ch->ch_fd,
	    &cookie) == 0 && cookie == ch->ch_cookie));
}

/*
 * Ask ch's guardian whether the last copy of its descriptor is gone, and
 * wait for the answer (CH_ASK_NS at most), which comes after any
 * PG_CLOSED the guardian owes for it: ch_closed is then up to date.  The
 * guardian looks at its oracle when asked, so that a close(2) that has
 * returned anywhere is seen.  mtx held, dropped meanwhile: ch may be gone
 * after.  Not a cancellation point: the ask is on our stack.
 */
static void
ch_ask(const struct procdesc_child *ch)
{
	struct ch_ask ask, **app;
	struct timespec deadline;
	int cancel;

	PROCDESC_ASSERT_LOCKED();
	ask.ca_id = ch->ch_id;
	ask.ca_guardian = ch->ch_guardian;
	ask.ca_done = false;
	if (!procdesc_reaper_ask(ch->ch_guardian, ch->ch_id))
		return;
	if (!ch_answer_cv_ready) {
		procdesc_cond_init(&ch_answer_cv);
		ch_answer_cv_ready = true;
	}
	ask.ca_next = ch_asks;
	ch_asks = &ask;
	(void)pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	procdesc_deadline(&deadline, CH_ASK_NS);
	while (!ask.ca_done && procdesc_cond_timedwait(&ch_answer_cv,
	    &deadline) != ETIMEDOUT)
		;
	(void)pthread_setcancelstate(cancel, NULL);
	for (app = &ch_asks; *app != &ask; app = &(*app)->ca_next)
		;
	*app = ask.ca_next;
}

/*
 * A wait of the application for pid, with waitid(2)'s options: *vp is
 * NONE if pid is no child of ours (the kernel answers), HIDDEN if no
 * wait for its pid may see it (PD_NOWAITPID, the last copy of its
 * descriptor gone, or its status taken behind our back), else what
 * ch_view() says; RUNNING without WNOHANG gives a pidfd to block on in
 * *pidfdp, made while the pid is its own.  0 or an errno value.
 *
 * The last close (FreeBSD 15.1's rule): from then on no wait for the pid
 * sees the child, at once after close(2) returns in whatever process,
 * before the guardian's PG_CLOSED arrives.  Where our own copy is not at
 * its number, the guardian is asked (ch_ask()), once.
 */
int
procdesc_child_waitpid(pid_t pid, int options, siginfo_t *si,
    struct rusage *ru, enum procdesc_view *vp, int *pidfdp)
{
	struct procdesc_child *ch;
	int error, saved;
	bool asked;

	saved = errno;
	error = 0;
	*pidfdp = -1;
	asked = false;
	procdesc_lock();
	while ((ch = ch_bypid(pid)) != NULL && !ch->ch_nowaitpid && !asked &&
	    !ch_close_known(ch)) {
		ch_ask(ch);
		asked = true;
	}
	if (ch == NULL)
		*vp = PROCDESC_VIEW_NONE;
	else if (ch->ch_nowaitpid || (ch->ch_closed && !ch->ch_lost) ||
	    (*vp = ch_view(ch, options, si, ru)) == PROCDESC_VIEW_NONE)
		*vp = PROCDESC_VIEW_HIDDEN;
	else if (*vp == PROCDESC_VIEW_RUNNING && (options & WNOHANG) == 0 &&
	    (*pidfdp = sys_pidfd_open(pid, 0)) == -1)
		error = errno;
	procdesc_unlock();
	errno = saved;
	return (error);
}

/*
 * Of the n pids of children in pids, keep those that are neither our
 * unreaped pdfork children nor the sentries of our guardians, in order:
 * how many.  For a wildcard wait that found nothing to report
 * (appwait.c).
 */
size_t
procdesc_child_others(pid_t *pids, size_t n)
{
	size_t i, k;
	int saved;

	saved = errno;
	procdesc_lock();
	for (i = k = 0; i < n; i++) {
		if (ch_unreaped(pids[i]) == NULL &&
		    !procdesc_guardian_sentry(pids[i]))
			pids[k++] = pids[i];
	}
	procdesc_unlock();
	errno = saved;
	return (k);
}

/*
 * A wildcard or process-group wait of the application peeked (WNOWAIT) at
 * an event of the child peek->si_pid: if it is ours, take the event, so
 * that the next look sees past it (the kernel shows the same zombie to
 * every WNOWAIT look), and keep an exit for pdwait, and for a wait for
 * its pid unless PD_NOWAITPID.  False if it is not ours.
 */
bool
procdesc_child_hide(const siginfo_t *peek)
{
	struct procdesc_child *ch;
	siginfo_t si;
	pid_t pid;
	int code, saved;
	bool mine;

	saved = errno;
	pid = peek->si_pid;
	code = peek->si_code;
	procdesc_lock();
	ch = ch_unreaped(pid);
	mine = ch != NULL;
	if (mine && (code == CLD_STOPPED || code == CLD_TRAPPED ||
	    code == CLD_CONTINUED)) {
		memset(&si, 0, sizeof(si));
		(void)sys_waitid(P_PID, pid, &si, (code == CLD_CONTINUED ?
		    WCONTINUED : WSTOPPED) | WNOHANG | __WALL, NULL);
	} else if (mine && ch_peek(ch)) {
		ch->ch_owed = !ch->ch_nowaitpid && ch->ch_si.si_code != 0;
		if (!ch->ch_reaped)
			ch_reap(ch);
		ch_settle(ch);		/* May free ch. */
	}
	procdesc_unlock();
	errno = saved;
	return (mine);
}

/*
 * The reaper saw pid exit: record it, and say (true, *guardianp, *idp,
 * *si, *ru) what to tell its guardian, once.  mtx held.
 */
bool
procdesc_child_exit_seen(pid_t pid, int *guardianp, uint64_t *idp,
    siginfo_t *si, struct rusage *ru)
{
	struct procdesc_child *ch;
	bool tell;

	PROCDESC_ASSERT_LOCKED();
	for (ch = procdesc_registry_pid(pid, NULL); ch != NULL;
	    ch = procdesc_registry_pid(pid, ch))
		if (!ch->ch_told && ch_peek(ch))
			break;
	if (ch == NULL)
		return (false);
	ch->ch_told = true;
	*guardianp = ch->ch_guardian;
	*idp = ch->ch_id;
	*si = ch->ch_si;
	*ru = ch->ch_ru;
	tell = !ch->ch_lost;
	ch_settle(ch);		/* May free ch. */
	return (tell);
}

/* The guardian saw the last copy of descriptor id go.  mtx held. */
void
procdesc_child_closed(uint64_t id)
{
	struct procdesc_child *ch;

	PROCDESC_ASSERT_LOCKED();
	if ((ch = procdesc_registry_id(id)) == NULL || ch->ch_closed)
		return;
	ch->ch_closed = true;
	ch->ch_ck->ck_drop(ch->ch_guardian);
	ch_settle(ch);
}

/*
 * The guardian answered the asks about descriptor id (PG_ANSWER), after
 * any PG_CLOSED it owed for it; or no answer can come.  mtx held.
 */
void
procdesc_child_answered(uint64_t id)
{
	struct ch_ask *ask;
	bool any;

	PROCDESC_ASSERT_LOCKED();
	any = false;
	for (ask = ch_asks; ask != NULL; ask = ask->ca_next)
		if (ask->ca_id == id) {
			ask->ca_done = true;
			any = true;
		}
	if (any)
		pthread_cond_broadcast(&ch_answer_cv);
}

/* A child of dead guardian *arg: kill it, nobody guards it; mtx held. */
static void
ch_orphan(struct procdesc_child *ch, void *arg)
{

	PROCDESC_ASSERT_LOCKED();
	if (ch->ch_guardian != *(int *)arg || ch->ch_closed)
		return;
	ch->ch_lost = true;
	ch->ch_closed = true;
	/* Unreaped, and only we reap it: the pid is still its own. */
	if (!ch->ch_reaped)
		(void)kill(ch->ch_proc.pp_pid, SIGKILL);
	ch_settle(ch);
}

/*
 * Guardian w died: fail its children closed, keeping their status for the
 * owner's pdwait (NOTES 6).  mtx held.
 */
void
procdesc_child_orphans(int w)
{
	struct ch_ask *ask;

	PROCDESC_ASSERT_LOCKED();
	procdesc_registry_foreach(ch_orphan, &w);
	/* No answer comes from it: the asks look again (ch_lost). */
	for (ask = ch_asks; ask != NULL; ask = ask->ca_next)
		if (ask->ca_guardian == w) {
			ask->ca_done = true;
			pthread_cond_broadcast(&ch_answer_cv);
		}
}

/*
 * In a forked copy: the children are the original owner's.  The table is
 * dropped, not freed (registry.c).
 */
void
procdesc_child_atfork_child(void)
{

	ch_asks = NULL;			/* Their threads are not here. */
	ch_answer_cv_ready = false;
	procdesc_registry_atfork_child();
}

#ifdef PROCDESC_DEBUG
static void
ch_count(struct procdesc_child *ch, void *arg)
{

	if (!ch->ch_lost)
		(*(int *)arg)++;
}

/*
 * The entries that should not be here any more once every child is reaped
 * and every descriptor closed: all but those of a dead guardian's
 * children (kept until exit, by design).  The tests' leak check wants 0.
 */
int
procdesc_debug_entries(void)
{
	int n;

	n = 0;
	procdesc_lock();
	procdesc_registry_foreach(ch_count, &n);
	procdesc_unlock();
	return (n);
}
#endif
