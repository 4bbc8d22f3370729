/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A chained hash table keyed by 64-bit numbers (hash.c), with the links
 * inside the entries: the registry's tables by pid and by descriptor id,
 * the guardian's by id.  The caller locks; the buckets are in the arena
 * (arena.h), which a fork leaves out of the child.
 */

#ifndef _PROCDESC_HASH_H_
#define	_PROCDESC_HASH_H_

#include <stddef.h>
#include <stdint.h>

#include "common.h"

struct procdesc_hlink {
	struct procdesc_hlink	*hl_next;	/* In its bucket. */
	uint64_t		 hl_key;
};

/* A table; all zero is an empty one. */
struct procdesc_htab {
	struct procdesc_hlink	**ht_bucket;
	size_t			 ht_nbuckets;	/* A power of two, or 0. */
	size_t			 ht_count;
};

/* The entry of type that holds link, as member. */
#define	PROCDESC_HENTRY(link, type, member)				\
	((type *)(void *)((char *)(link) - offsetof(type, member)))

uint64_t procdesc_hash_mix(uint64_t key) PROCDESC_HIDDEN;
int	procdesc_hash_reserve(struct procdesc_htab *t) PROCDESC_HIDDEN;
void	procdesc_hash_insert(struct procdesc_htab *t, struct procdesc_hlink *l,
	    uint64_t key) PROCDESC_HIDDEN;
void	procdesc_hash_remove(struct procdesc_htab *t, struct procdesc_hlink *l)
	    PROCDESC_HIDDEN;
struct procdesc_hlink *procdesc_hash_first(const struct procdesc_htab *t,
	    uint64_t key) PROCDESC_HIDDEN;
struct procdesc_hlink *procdesc_hash_next(const struct procdesc_hlink *l,
	    uint64_t key) PROCDESC_HIDDEN;
void	procdesc_hash_foreach(struct procdesc_htab *t,
	    void (*fn)(struct procdesc_hlink *, void *), void *arg)
	    PROCDESC_HIDDEN;
void	procdesc_hash_forget(struct procdesc_htab *t) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_HASH_H_ */
