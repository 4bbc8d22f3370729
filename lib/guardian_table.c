/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The table of this owner's running guardians: which has room, which is
 * starting, which died, which stalled.  One guardian holds two descriptors
 * per child; when it is full (its PG_HELLO says how many), another is
 * started into a free slot.
 *
 * Invariants: the table and its entries are under procdesc_mtx; a socket
 * is used only while it still names the socket we made (the application
 * may closefrom(3) it and reuse the number); a dead guardian's socket is
 * closed once no registration uses its number (a new child may be sending
 * on it right now); only one thread starts a guardian at a time, into a
 * slot it reserved (gt_starting), and waits for its hello without the
 * lock (NOTES 2.11).
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "guardian.h"
#include "lock.h"
#include "pidfd.h"
#include "syscall.h"

static struct procdesc_guardian *gt_tab; /* (l) */
/*
 * What changes at every creation, by slot, apart and in the arena
 * (arena.h): a fork would otherwise make the next creation fault the
 * table's page again.  A fork's child drops it with the table, unread.
 */
struct gt_load {
	uint32_t	gl_count;	/* (l) Children it may still hold. */
	uint32_t	gl_inflight;	/* (l) Registrations under way. */
};
static struct gt_load *gt_load;		/* (l) As many as gt_tab. */
static int gt_n;			/* (l) */
static bool gt_starting;		/* (l) A guardian is being started. */
static pthread_cond_t gt_cv = PTHREAD_COND_INITIALIZER; /* Start over. */

static bool
gt_ok(const struct procdesc_guardian *g)
{
	struct stat st;

	return (g->gd_sock != -1 && fstat(g->gd_sock, &st) == 0 &&
	    st.st_dev == g->gd_dev && st.st_ino == g->gd_ino);
}

static bool
gt_has_room(int slot)
{
	const struct procdesc_guardian *g;

	g = &gt_tab[slot];
	return (gt_ok(g) && !g->gd_full && !g->gd_dead &&
	    gt_load[slot].gl_count + gt_load[slot].gl_inflight <
	    g->gd_capacity);
}

/*
 * Close a dead guardian's socket once no registration uses its number (a
 * new child may be sending on it right now).  Application threads only:
 * the number means nothing in the reaper's descriptor table.
 */
static void
gt_close_dead(int slot)
{
	struct procdesc_guardian *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gt_tab[slot];
	if (!g->gd_dead || gt_load[slot].gl_inflight != 0 || g->gd_sock == -1)
		return;
	if (gt_ok(g))
		close(g->gd_sock);
	g->gd_sock = -1;
}

/* A free slot, made if need be: its index, or -1 (ENOMEM).  mtx held. */
static int
gt_free_slot(void)
{
	struct procdesc_guardian *tab;
	struct gt_load *load;
	int i;

	PROCDESC_ASSERT_LOCKED();
	for (i = 0; i < gt_n; i++) {
		gt_close_dead(i);
		if (gt_tab[i].gd_sock == -1 && gt_tab[i].gd_sentry == -1)
			return (i);
	}
	if ((tab = realloc(gt_tab, (gt_n + 1) * sizeof(*gt_tab))) == NULL)
		return (-1);
	gt_tab = tab;
	if ((load = procdesc_arena_grow(gt_load, gt_n * sizeof(*load),
	    (gt_n + 1) * sizeof(*load))) == NULL)
		return (-1);
	gt_load = load;
	memset(&gt_tab[gt_n], 0, sizeof(gt_tab[gt_n]));
	gt_tab[gt_n].gd_sock = -1;
	gt_tab[gt_n].gd_sentry = -1;
	return (gt_n++);
}

/*
 * A guardian with room for one more child, its registration counted in:
 * true, *slotp and *sockp.  False if there is none and no other thread is
 * starting one (waiting for such a start first).  mtx held.
 */
static bool
gt_find(int *slotp, int *sockp)
{
	int i;

	PROCDESC_ASSERT_LOCKED();
	for (;;) {
		for (i = 0; i < gt_n; i++) {
			if (gt_has_room(i)) {
				gt_load[i].gl_inflight++;
				*slotp = i;
				*sockp = gt_tab[i].gd_sock;
				return (true);
			}
		}
		if (!gt_starting)
			return (false);
		procdesc_cond_wait(&gt_cv);
	}
}

/*
 * Start a guardian into slot, without the lock: the start waits for the
 * guardian's hello, and nothing but other pickers must wait for that.
 */
static int
gt_start(int slot, int *sockp)
{
	struct procdesc_guardian g;
	int error;

	error = procdesc_guardian_start(&g);
	procdesc_lock();
	gt_starting = false;
	pthread_cond_broadcast(&gt_cv);
	if (error == 0) {
		gt_tab[slot] = g;
		gt_load[slot].gl_count = 0;
		gt_load[slot].gl_inflight = 1;
		*sockp = g.gd_sock;
		if (g.gd_capacity == 0) {
			procdesc_guardian_release(slot);
			error = EMFILE;
		}
	}
	procdesc_unlock();
	return (error);
}

/*
 * A guardian with room for one more child: its slot and control socket,
 * the registration counted in until commit or release, and whether it was
 * started for this one (the reaper must watch it).  Starting one takes
 * a few descriptors for a moment, which must not fail once a child runs:
 * so this comes before the clone.  mtx not held.
 */
int
procdesc_guardian_pick(int *slotp, int *sockp, bool *newp)
{
	int error, slot;

	PROCDESC_ASSERT_UNLOCKED();
	*newp = false;
	procdesc_lock();
	if (gt_find(slotp, sockp)) {
		procdesc_unlock();
		return (0);
	}
	if ((slot = gt_free_slot()) == -1) {
		procdesc_unlock();
		return (ENOMEM);
	}
	gt_starting = true;
	procdesc_unlock();
	if ((error = gt_start(slot, sockp)) == 0) {
		*slotp = slot;
		*newp = true;
	}
	return (error == ETIMEDOUT ? EAGAIN : error);
}

/*
 * The registration with slot is over: error 0 if the guardian took the
 * process, ETIMEDOUT if it did not answer in time.  held: a pdfork child,
 * which the owner counts until it reaps it (procdesc_guardian_drop()).
 */
void
procdesc_guardian_commit(int slot, int error, bool held)
{

	PROCDESC_ASSERT_LOCKED();
	if (error == ETIMEDOUT)
		procdesc_guardian_stalled(slot);
	if (error == 0 && held)
		gt_load[slot].gl_count++;
	procdesc_guardian_release(slot);
}

/* A registration with slot is over, with no child taken. */
void
procdesc_guardian_release(int slot)
{

	PROCDESC_ASSERT_LOCKED();
	gt_load[slot].gl_inflight--;
	gt_close_dead(slot);
}

/* Guardian slot holds one child less. */
void
procdesc_guardian_drop(int slot)
{

	PROCDESC_ASSERT_LOCKED();
	gt_load[slot].gl_count--;
}

/* The control socket of slot, or -1 if it was taken from us. */
int
procdesc_guardian_sock(int slot)
{

	PROCDESC_ASSERT_LOCKED();
	return (gt_ok(&gt_tab[slot]) ? gt_tab[slot].gd_sock : -1);
}

/* The key of slot's guardian: its listener's name, its descriptors'. */
uint64_t
procdesc_guardian_key(int slot)
{

	PROCDESC_ASSERT_LOCKED();
	return (gt_tab[slot].gd_key);
}

/* Whether our child pid is the sentry of one of our guardians. */
bool
procdesc_guardian_sentry(pid_t pid)
{
	int i;

	PROCDESC_ASSERT_LOCKED();
	for (i = 0; i < gt_n; i++) {
		if (gt_tab[i].gd_sentry == pid)
			return (true);
	}
	return (false);
}

/*
 * What the reaper watches of slot: its socket's number in the
 * application's table (the reaper checks its copy against the identity),
 * its identity, and its sentry.
 */
void
procdesc_guardian_info(int slot, int *sockp, dev_t *devp, ino_t *inop,
    pid_t *sentryp)
{
	const struct procdesc_guardian *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gt_tab[slot];
	*sockp = g->gd_dead ? -1 : g->gd_sock;
	*devp = g->gd_dev;
	*inop = g->gd_ino;
	*sentryp = g->gd_sentry;
}

/*
 * The guardian of slot exited (its sentry's exit), as the reaper saw: reap
 * the sentry and mark the guardian dead.  Its socket is closed by the
 * next application thread that looks for a slot (gt_close_dead()).  The
 * sentry's pid is safe: only we reap it, under procdesc_mtx.
 */
void
procdesc_guardian_died(int slot)
{
	struct procdesc_guardian *g;
	siginfo_t si;

	PROCDESC_ASSERT_LOCKED();
	g = &gt_tab[slot];
	if (g->gd_sentry > 0) {
		memset(&si, 0, sizeof(si));
		(void)sys_waitid(P_PID, g->gd_sentry, &si, WEXITED | WNOHANG |
		    __WALL, NULL);
	}
	g->gd_sentry = -1;
	g->gd_dead = true;
}

/*
 * Whether the guardian of slot died: a child it was to guard is not
 * adopted any more, since its children were failed closed without it.
 */
bool
procdesc_guardian_gone(int slot)
{

	PROCDESC_ASSERT_LOCKED();
	return (gt_tab[slot].gd_dead);
}

/*
 * Guardian slot did not answer in time.  Stopped: it guards nothing while
 * it is, so kill its sentry, and so the guardian; the reaper sees the
 * sentry die and fails its children closed.  Merely slow (a loaded
 * machine): take no new child there.
 */
void
procdesc_guardian_stalled(int slot)
{
	struct procdesc_guardian *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gt_tab[slot];
	g->gd_full = true;
	if (g->gd_sentry > 0 && procdesc_proc_stopped(g->gd_pid))
		(void)kill(g->gd_sentry, SIGKILL);
}

/*
 * In a forked copy: the guardians belong to the original owner, and our
 * copies of their sockets must not keep them from seeing the owner go.
 * The table is dropped, not freed: it is the parent's.
 */
void
procdesc_guardian_atfork_child(void)
{
	int i;

	for (i = 0; i < gt_n; i++)
		if (gt_ok(&gt_tab[i]))
			close(gt_tab[i].gd_sock);
	procdesc_guardian_start_atfork_child();
	gt_tab = NULL;
	gt_load = NULL;
	gt_n = 0;
	gt_starting = false;
	pthread_cond_init(&gt_cv, NULL);
}
