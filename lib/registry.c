/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The registry: this process's pdfork children's entries, by pid (for the
 * reaper), by descriptor id (for the guardian's word) and by the
 * descriptor's socket cookie (for the calls' fast paths in the owner).
 * A plain table, as FreeBSD keeps its pid hash apart from what hangs off
 * it: what an entry means and when it comes and goes is child.c's.
 *
 * Invariants: an entry is in every table or in none; every function
 * runs with procdesc_mtx held.
 */

#include <stdatomic.h>

#include "child.h"
#include "hash.h"
#include "lock.h"
#include "registry.h"

static struct procdesc_htab rg_bypid;	/* (l) */
static struct procdesc_htab rg_byid;	/* (l) */
static struct procdesc_htab rg_bycookie;	/* (l) */
static _Atomic unsigned long rg_count;	/* Entries; read without the lock. */

/* Room for one more entry, so that procdesc_registry_insert() is quick. */
int
procdesc_registry_reserve(void)
{
	int error;

	PROCDESC_ASSERT_LOCKED();
	if ((error = procdesc_hash_reserve(&rg_bypid)) == 0 &&
	    (error = procdesc_hash_reserve(&rg_byid)) == 0)
		error = procdesc_hash_reserve(&rg_bycookie);
	return (error);
}

void
procdesc_registry_insert(struct procdesc_child *ch)
{

	PROCDESC_ASSERT_LOCKED();
	procdesc_hash_insert(&rg_bypid, &ch->ch_bypid,
	    (uint64_t)ch->ch_proc.pp_pid);
	procdesc_hash_insert(&rg_byid, &ch->ch_byid, ch->ch_id);
	procdesc_hash_insert(&rg_bycookie, &ch->ch_bycookie, ch->ch_cookie);
	atomic_fetch_add(&rg_count, 1);
}

void
procdesc_registry_remove(struct procdesc_child *ch)
{

	PROCDESC_ASSERT_LOCKED();
	procdesc_hash_remove(&rg_bypid, &ch->ch_bypid);
	procdesc_hash_remove(&rg_byid, &ch->ch_byid);
	procdesc_hash_remove(&rg_bycookie, &ch->ch_bycookie);
	atomic_fetch_sub(&rg_count, 1);
}

/* Whether there is no entry at all: without the lock (appwait.c). */
bool
procdesc_registry_empty(void)
{

	return (atomic_load(&rg_count) == 0);
}

/*
 * The entries of pid, reaped or not (a reaped one stays while its
 * descriptor is open, maybe beside a new child with its pid): the first,
 * or the one after after.
 */
struct procdesc_child *
procdesc_registry_pid(pid_t pid, const struct procdesc_child *after)
{
	struct procdesc_hlink *l;

	PROCDESC_ASSERT_LOCKED();
	l = (after == NULL) ? procdesc_hash_first(&rg_bypid, (uint64_t)pid) :
	    procdesc_hash_next(&after->ch_bypid, (uint64_t)pid);
	return (l == NULL ? NULL :
	    PROCDESC_HENTRY(l, struct procdesc_child, ch_bypid));
}

struct procdesc_child *
procdesc_registry_id(uint64_t id)
{
	struct procdesc_hlink *l;

	PROCDESC_ASSERT_LOCKED();
	l = procdesc_hash_first(&rg_byid, id);
	return (l == NULL ? NULL :
	    PROCDESC_HENTRY(l, struct procdesc_child, ch_byid));
}

/* The entry whose descriptor has socket cookie cookie: nobody else's. */
struct procdesc_child *
procdesc_registry_cookie(uint64_t cookie)
{
	struct procdesc_hlink *l;

	PROCDESC_ASSERT_LOCKED();
	l = procdesc_hash_first(&rg_bycookie, cookie);
	return (l == NULL ? NULL :
	    PROCDESC_HENTRY(l, struct procdesc_child, ch_bycookie));
}

struct rg_each {
	void	(*re_fn)(struct procdesc_child *, void *);
	void	*re_arg;
};

static void
rg_each(struct procdesc_hlink *l, void *arg)
{
	struct rg_each *re;

	re = arg;
	re->re_fn(PROCDESC_HENTRY(l, struct procdesc_child, ch_bypid),
	    re->re_arg);
}

/* Call fn for every entry; fn may remove the entry it is given. */
void
procdesc_registry_foreach(void (*fn)(struct procdesc_child *, void *),
    void *arg)
{
	struct rg_each re;

	PROCDESC_ASSERT_LOCKED();
	re.re_fn = fn;
	re.re_arg = arg;
	procdesc_hash_foreach(&rg_bypid, rg_each, &re);
}

/*
 * In a forked copy of the process the children are the original owner's:
 * forget them, without writing to the table's pages.
 */
void
procdesc_registry_atfork_child(void)
{

	procdesc_hash_forget(&rg_bypid);
	procdesc_hash_forget(&rg_byid);
	procdesc_hash_forget(&rg_bycookie);
	atomic_store(&rg_count, 0);
}
