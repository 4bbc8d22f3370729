/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The library's one mutex, procdesc_mtx (lock.c), and the condition
 * variables that wait on it.  It guards the children's entries (child.c,
 * and the table that holds them, registry.c), the reaper's state
 * (reaper.c) and the guardian table (guardian_table.c).
 *
 * Lock order: procdesc_fork_mtx (lock.c's too, for fork.c) before
 * procdesc_mtx.  No lock of ours is held while we wait for another
 * process (NOTES 2.11).
 */

#ifndef _PROCDESC_LOCK_H_
#define	_PROCDESC_LOCK_H_

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "common.h"

void	procdesc_lock(void) PROCDESC_HIDDEN;
void	procdesc_unlock(void) PROCDESC_HIDDEN;
bool	procdesc_trylock(void) PROCDESC_HIDDEN;
bool	procdesc_locked(void) PROCDESC_HIDDEN;
void	procdesc_fork_lock(void) PROCDESC_HIDDEN;
void	procdesc_fork_unlock(void) PROCDESC_HIDDEN;
void	procdesc_fork_lock_reset(void) PROCDESC_HIDDEN;

/* Condition variables on procdesc_mtx, counting on CLOCK_MONOTONIC. */
void	procdesc_cond_init(pthread_cond_t *cv) PROCDESC_HIDDEN;
void	procdesc_cond_wait(pthread_cond_t *cv) PROCDESC_HIDDEN;
int	procdesc_cond_timedwait(pthread_cond_t *cv,
	    const struct timespec *deadline) PROCDESC_HIDDEN;

/* Across fork() (atfork.c): the mutex is never copied held by another. */
void	procdesc_lock_atfork_prepare(void) PROCDESC_HIDDEN;
void	procdesc_lock_atfork_parent(void) PROCDESC_HIDDEN;
void	procdesc_lock_atfork_child(void) PROCDESC_HIDDEN;

/*
 * A debug build (make DEBUG=1) checks every "mtx held" and "mtx not held"
 * rule.  "Not held" is this thread's view: procdesc_mtx is not recursive,
 * and whoever waits must not make the reaper wait.
 */
#ifdef PROCDESC_DEBUG
#include <assert.h>
#define	PROCDESC_ASSERT_LOCKED()	assert(procdesc_locked())
#define	PROCDESC_ASSERT_UNLOCKED()	assert(!procdesc_locked())
#else
#define	PROCDESC_ASSERT_LOCKED()	((void)0)
#define	PROCDESC_ASSERT_UNLOCKED()	((void)0)
#endif

#endif /* !_PROCDESC_LOCK_H_ */
