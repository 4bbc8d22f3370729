/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The one hash table of the library and the guardian: chains in buckets,
 * the links inside the entries, doubled when it holds as many entries as
 * buckets.
 *
 * Invariants: ht_nbuckets is 0 or a power of two; every entry is in the
 * bucket of its key; ht_count counts them.  An insert never fails once a
 * reserve has made the first buckets: should doubling fail, the chains
 * just grow longer.
 */

#include <errno.h>
#include <stdbool.h>

#include "arena.h"
#include "hash.h"

/*
 * The first size: 512 bytes of chain heads on 64-bit, room for a typical
 * owner's children.
 */
#define	HT_MIN	64

/*
 * splitmix64's finaliser (Steele, Lea and Flood, 2014; the constants are
 * its published ones): every bit of key moves about half of the result's
 * bits, so that sequential pids and ids fill the buckets evenly.
 */
uint64_t
procdesc_hash_mix(uint64_t key)
{

	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (key);
}

static struct procdesc_hlink **
ht_bucket(const struct procdesc_htab *t, uint64_t key)
{

	return (&t->ht_bucket[procdesc_hash_mix(key) & (t->ht_nbuckets - 1)]);
}

/* Twice the buckets (HT_MIN at first), if the table is full. */
static int
ht_grow(struct procdesc_htab *t)
{
	struct procdesc_htab old;
	struct procdesc_hlink *l, *next, **b;
	size_t i;

	if (t->ht_count < t->ht_nbuckets)
		return (0);
	old = *t;
	t->ht_nbuckets = (old.ht_nbuckets == 0) ? HT_MIN :
	    old.ht_nbuckets * 2;
	if ((t->ht_bucket = procdesc_arena_zalloc(t->ht_nbuckets *
	    sizeof(*b))) == NULL) {
		*t = old;
		return (ENOMEM);
	}
	for (i = 0; i < old.ht_nbuckets; i++) {
		for (l = old.ht_bucket[i]; l != NULL; l = next) {
			next = l->hl_next;
			b = ht_bucket(t, l->hl_key);
			l->hl_next = *b;
			*b = l;
		}
	}
	procdesc_arena_free(old.ht_bucket, old.ht_nbuckets * sizeof(*b));
	return (0);
}

/* Room for one more entry now: 0, or ENOMEM. */
int
procdesc_hash_reserve(struct procdesc_htab *t)
{

	return (ht_grow(t));
}

/* After a reserve: cannot fail. */
void
procdesc_hash_insert(struct procdesc_htab *t, struct procdesc_hlink *l,
    uint64_t key)
{
	struct procdesc_hlink **b;

	(void)ht_grow(t);
	l->hl_key = key;
	b = ht_bucket(t, key);
	l->hl_next = *b;
	*b = l;
	t->ht_count++;
}

void
procdesc_hash_remove(struct procdesc_htab *t, struct procdesc_hlink *l)
{
	struct procdesc_hlink **pp;

	for (pp = ht_bucket(t, l->hl_key); *pp != l; pp = &(*pp)->hl_next)
		;
	*pp = l->hl_next;
	t->ht_count--;
}

/* The first entry of key, and with procdesc_hash_next() the others. */
struct procdesc_hlink *
procdesc_hash_first(const struct procdesc_htab *t, uint64_t key)
{
	struct procdesc_hlink *l;

	if (t->ht_nbuckets == 0)
		return (NULL);
	for (l = *ht_bucket(t, key); l != NULL && l->hl_key != key;
	    l = l->hl_next)
		;
	return (l);
}

struct procdesc_hlink *
procdesc_hash_next(const struct procdesc_hlink *l, uint64_t key)
{

	for (l = l->hl_next; l != NULL && l->hl_key != key; l = l->hl_next)
		;
	return ((struct procdesc_hlink *)(uintptr_t)l);
}

/* Call fn for every entry; fn may remove the entry it is given. */
void
procdesc_hash_foreach(struct procdesc_htab *t,
    void (*fn)(struct procdesc_hlink *, void *), void *arg)
{
	struct procdesc_hlink *l, *next;
	size_t i;

	for (i = 0; i < t->ht_nbuckets; i++) {
		for (l = t->ht_bucket[i]; l != NULL; l = next) {
			next = l->hl_next;
			fn(l, arg);
		}
	}
}

/*
 * Forget every entry without freeing anything: in a forked copy, whose
 * table is the parent's, a fork must not write to every page of it (the
 * pages stay shared with the parent).
 */
void
procdesc_hash_forget(struct procdesc_htab *t)
{

	t->ht_bucket = NULL;
	t->ht_nbuckets = 0;
	t->ht_count = 0;
}
