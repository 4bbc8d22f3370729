/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The registry: this process's pdfork children, by pid (for the reaper) and
 * by descriptor id (for the calls' fast paths in the owner).  A plain
 * table: no system call, nothing called outward.
 *
 * Invariants: an entry lives from pdfork until PROCDESC_LINGER_NS after its
 * child is reaped (on the linger list, oldest first), or, once its
 * guardian died (pd_lost), until the process exits; every function runs
 * with procdesc_mtx held.  What a descriptor says after the reap lives in
 * the descriptor itself (its exit record), not here.
 */

#include <errno.h>
#include <stdlib.h>

#include "procdesc_impl.h"

pthread_mutex_t procdesc_mtx = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t procdesc_reap_cv = PTHREAD_COND_INITIALIZER; /* Monotonic. */

static struct procdesc **rg_pid;	/* (l) Buckets by pid. */
static struct procdesc **rg_id;		/* (l) Buckets by id. */
static size_t rg_nbuckets;		/* (l) A power of two, or 0. */
static size_t rg_count;			/* (l) Entries. */
static struct procdesc *rg_linger;	/* (l) Reaped, oldest first. */
static struct procdesc **rg_ltail = &rg_linger; /* (l) */
static PROCDESC_TLS volatile int rg_locked; /* See procdesc_lock(). */

/*
 * A condition variable whose timed waits count on CLOCK_MONOTONIC, which
 * a change of the date cannot move.
 */
void
procdesc_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &attr);
	pthread_condattr_destroy(&attr);
}

/* Before any thread of ours can wait on it. */
static void __attribute__((constructor))
rg_init(void)
{

	procdesc_cond_init(&procdesc_reap_cv);
}

/*
 * procdesc_mtx, with a note that this thread holds it: a fork() from a
 * signal handler that interrupted us holding it must not wait for it
 * (fork.c's prepare handler).  The note is counted up before the lock is
 * taken and down after it is released, so that it is never zero while
 * the thread holds the mutex, even for an instant inside glibc's unlock
 * (a handler there once waited on its own thread); a count, so that a
 * handler's trylock and unlock (pdkill) leave the interrupted thread's
 * note as it was.  Where it is set without the lock (a moment around each
 * call, a condition wait), the prepare handler skips a lock that another
 * thread may hold, which is safe: the child makes the mutex anew and
 * forgets what it guards.
 */
void
procdesc_lock(void)
{

	PROCDESC_ASSERT_UNLOCKED();	/* Not recursive. */
	rg_locked++;
	pthread_mutex_lock(&procdesc_mtx);
}

void
procdesc_unlock(void)
{

	pthread_mutex_unlock(&procdesc_mtx);
	rg_locked--;
}

/*
 * procdesc_mtx if it is free now: true if taken.  Never waits, so that a
 * signal handler may call it whatever the thread it interrupted holds.
 */
bool
procdesc_trylock(void)
{

	rg_locked++;
	if (pthread_mutex_trylock(&procdesc_mtx) == 0)
		return (true);
	rg_locked--;
	return (false);
}

bool
procdesc_locked(void)
{

	return (rg_locked > 0);
}

/*
 * In a forked copy, whose only thread is the forking one: unlock what the
 * prepare handler locked (held), or else make the mutex anew: another
 * thread may have held it, or this one in a code path that a handler
 * interrupted to fork.  The copy forgets the registry either way.
 */
void
procdesc_lock_child(bool held)
{

	if (held)
		procdesc_unlock();
	else {
		pthread_mutex_init(&procdesc_mtx, NULL);
		rg_locked = 0;
	}
}

/* The bucket of a pid or id. */
static size_t
rg_hash(uint64_t key)
{

	return ((size_t)procdesc_mix64(key) & (rg_nbuckets - 1));
}

static void
rg_link(struct procdesc *pd)
{
	struct procdesc **b;

	b = &rg_pid[rg_hash((uint64_t)pd->pd_pid)];
	pd->pd_pnext = *b;
	*b = pd;
	b = &rg_id[rg_hash(pd->pd_id)];
	pd->pd_inext = *b;
	*b = pd;
}

/* Keep at most one entry per bucket on average. */
static int
rg_grow(void)
{
	struct procdesc **oldp, **oldi, *pd, *next;
	size_t i, n;

	if (rg_count < rg_nbuckets)
		return (0);
	oldp = rg_pid;
	oldi = rg_id;
	n = rg_nbuckets;
	rg_nbuckets = (n == 0) ? PROCDESC_HASH_MIN : n * 2;
	rg_pid = calloc(rg_nbuckets, sizeof(*rg_pid));
	rg_id = calloc(rg_nbuckets, sizeof(*rg_id));
	if (rg_pid == NULL || rg_id == NULL) {
		free(rg_pid);
		free(rg_id);
		rg_pid = oldp;
		rg_id = oldi;
		rg_nbuckets = n;
		return (ENOMEM);
	}
	for (i = 0; i < n; i++) {
		for (pd = oldp[i]; pd != NULL; pd = next) {
			next = pd->pd_pnext;
			rg_link(pd);
		}
	}
	free(oldp);
	free(oldi);
	return (0);
}

/* Room for one more entry, so that procdesc_insert() cannot fail. */
int
procdesc_reserve(void)
{

	PROCDESC_ASSERT_LOCKED();
	return (rg_grow());
}

int
procdesc_insert(struct procdesc *pd)
{
	int error;

	PROCDESC_ASSERT_LOCKED();
	if ((error = rg_grow()) != 0)
		return (error);
	rg_link(pd);
	rg_count++;
	return (0);
}

/* pd was reaped at now: it goes PROCDESC_LINGER_NS later. */
void
procdesc_linger(struct procdesc *pd, int64_t now)
{

	PROCDESC_ASSERT_LOCKED();
	pd->pd_reaped_at = now;
	pd->pd_lnext = NULL;
	*rg_ltail = pd;
	rg_ltail = &pd->pd_lnext;
}

/* Remove the entries reaped more than PROCDESC_LINGER_NS before now. */
void
procdesc_expire(int64_t now)
{
	struct procdesc *pd;

	PROCDESC_ASSERT_LOCKED();
	while ((pd = rg_linger) != NULL &&
	    now - pd->pd_reaped_at > PROCDESC_LINGER_NS) {
		if ((rg_linger = pd->pd_lnext) == NULL)
			rg_ltail = &rg_linger;
		procdesc_remove(pd);
	}
}

/* Unlink pd and free it; a lingering entry only by procdesc_expire(). */
void
procdesc_remove(struct procdesc *pd)
{
	struct procdesc **pp;

	PROCDESC_ASSERT_LOCKED();
	for (pp = &rg_pid[rg_hash((uint64_t)pd->pd_pid)]; *pp != pd;
	    pp = &(*pp)->pd_pnext)
		;
	*pp = pd->pd_pnext;
	for (pp = &rg_id[rg_hash(pd->pd_id)]; *pp != pd; pp = &(*pp)->pd_inext)
		;
	*pp = pd->pd_inext;
	rg_count--;
	free(pd);
}

/* The unreaped child pid, for the reaper. */
struct procdesc *
procdesc_find_pid(pid_t pid)
{
	struct procdesc *pd;

	PROCDESC_ASSERT_LOCKED();
	if (rg_nbuckets == 0)
		return (NULL);
	for (pd = rg_pid[rg_hash((uint64_t)pid)]; pd != NULL; pd = pd->pd_pnext)
		if (pd->pd_pid == pid && !pd->pd_reaped)
			return (pd);
	return (NULL);
}

struct procdesc *
procdesc_find_id(uint64_t id)
{
	struct procdesc *pd;

	PROCDESC_ASSERT_LOCKED();
	if (rg_nbuckets == 0)
		return (NULL);
	for (pd = rg_id[rg_hash(id)]; pd != NULL; pd = pd->pd_inext)
		if (pd->pd_id == id)
			return (pd);
	return (NULL);
}

/*
 * The entry, reaped or not, of the process that pid, kind and tag name
 * (a descriptor of one of our children that pdfork did not make).
 */
struct procdesc *
procdesc_find_proc(pid_t pid, char kind, uint64_t tag)
{
	struct procdesc *pd;

	PROCDESC_ASSERT_LOCKED();
	if (rg_nbuckets == 0)
		return (NULL);
	for (pd = rg_pid[rg_hash((uint64_t)pid)]; pd != NULL; pd = pd->pd_pnext)
		if (pd->pd_pid == pid && pd->pd_kind == kind &&
		    pd->pd_tag == tag)
			return (pd);
	return (NULL);
}

/* Call fn for every entry; fn may remove the entry it is given. */
void
procdesc_foreach(void (*fn)(struct procdesc *, void *), void *arg)
{
	struct procdesc *pd, *next;
	size_t i;

	PROCDESC_ASSERT_LOCKED();
	for (i = 0; i < rg_nbuckets; i++) {
		for (pd = rg_pid[i]; pd != NULL; pd = next) {
			next = pd->pd_pnext;
			fn(pd, arg);
		}
	}
}

#ifdef PROCDESC_DEBUG
/*
 * The entries that should not be here any more once every child is reaped
 * and every descriptor closed: all but those lingering after a reap and
 * those of a dead guardian's children (kept until exit, by design).  The
 * tests' leak check wants 0.
 */
int
procdesc_debug_entries(void)
{
	struct procdesc *pd;
	size_t i;
	int n;

	n = 0;
	procdesc_lock();
	for (i = 0; i < rg_nbuckets; i++)
		for (pd = rg_pid[i]; pd != NULL; pd = pd->pd_pnext)
			if (pd->pd_reaped_at == 0 && !pd->pd_lost)
				n++;
	procdesc_unlock();
	return (n);
}
#endif

/*
 * In a forked copy of the process the children are the original owner's:
 * forget them.  The table is dropped, not freed, so that a fork does not
 * write to every page of it (it stays shared with the parent).  The
 * condition variable is made anew: the copy counts the parent's waiters.
 */
void
procdesc_registry_child(void)
{

	procdesc_cond_init(&procdesc_reap_cv);
	rg_pid = NULL;
	rg_id = NULL;
	rg_nbuckets = 0;
	rg_count = 0;
	rg_linger = NULL;
	rg_ltail = &rg_linger;
}
