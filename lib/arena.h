/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The arena (arena.c): memory for state that only this process's threads
 * use and that a fork's child drops anyway (registry entries and hash
 * buckets, the reaper's work and its stack).  A fork neither copies it
 * nor write-protects it in the parent: the child sees zeros there.  So
 * the owner's next writes to it cost no copy-on-write fault, and no
 * child shares its pages.  Nothing that a fork handler of the child
 * reads may live here.  Thread-safe; not async-signal-safe (as malloc).
 */

#ifndef _PROCDESC_ARENA_H_
#define	_PROCDESC_ARENA_H_

#include <stddef.h>

#include "common.h"

/* size zeroed bytes, or NULL (ENOMEM). */
void	*procdesc_arena_zalloc(size_t size) PROCDESC_HIDDEN;
/* Give back p, of procdesc_arena_zalloc(size); p may be NULL. */
void	 procdesc_arena_free(void *p, size_t size) PROCDESC_HIDDEN;
/*
 * p, of old bytes (NULL if 0), copied into a new block of size bytes, the
 * rest zero; p given back.  NULL (ENOMEM) leaves p as it was.
 */
void	*procdesc_arena_grow(void *p, size_t old, size_t size) PROCDESC_HIDDEN;
/*
 * A thread stack of size bytes above a guard page, never given back, or
 * NULL (ENOMEM).
 */
void	*procdesc_arena_stack(size_t size) PROCDESC_HIDDEN;
/* In a forked copy, before anything allocates: start over. */
void	 procdesc_arena_atfork_child(void) PROCDESC_HIDDEN;

#endif /* !_PROCDESC_ARENA_H_ */
