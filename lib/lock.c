/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * procdesc_mtx, and this thread's note that it holds it.
 *
 * Invariants: the note is never zero while the thread holds the mutex
 * (it is counted up before the lock is taken and down after it is
 * released, so that a handler that interrupted glibc's unlock does not
 * wait for its own thread); it is a count, so that a handler's trylock and
 * unlock (pdkill) leave the interrupted thread's note as it was.  Where
 * the note is set without the lock (a moment around each call, a
 * condition wait), the fork prepare handler skips a lock that another
 * thread may hold, which is safe: the child makes the mutex anew and
 * forgets what it guards.  NOTES 2.11.
 */

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "lock.h"

/*
 * procdesc_mtx and fork.c's procdesc_fork_mtx, on 128 aligned bytes and
 * so on one page: a fork write-protects every page of the parent, pdfork
 * unlocks both after its fork, and each page it writes then is faulted
 * and copied again (NOTES 2.19).
 */
static struct {
	pthread_mutex_t	lk_mtx;
	pthread_mutex_t	lk_fork;
} lk __attribute__((aligned(128))) = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER
};
#define	procdesc_mtx		(lk.lk_mtx)
#define	procdesc_fork_mtx	(lk.lk_fork)
static PROCDESC_TLS volatile int lk_held;	/* This thread's note. */
static PROCDESC_TLS bool lk_took;	/* The prepare handler locked. */

void
procdesc_lock(void)
{

	PROCDESC_ASSERT_UNLOCKED();	/* Not recursive. */
	lk_held++;
	pthread_mutex_lock(&procdesc_mtx);
}

void
procdesc_unlock(void)
{

	pthread_mutex_unlock(&procdesc_mtx);
	lk_held--;
}

/*
 * procdesc_mtx if it is free now: true if taken.  Never waits, so that a
 * signal handler may call it whatever the thread it interrupted holds.
 */
bool
procdesc_trylock(void)
{

	lk_held++;
	if (pthread_mutex_trylock(&procdesc_mtx) == 0)
		return (true);
	lk_held--;
	return (false);
}

bool
procdesc_locked(void)
{

	return (lk_held > 0);
}

/* procdesc_fork_mtx, for fork.c, which says what it serialises. */
void
procdesc_fork_lock(void)
{

	pthread_mutex_lock(&procdesc_fork_mtx);
}

void
procdesc_fork_unlock(void)
{

	pthread_mutex_unlock(&procdesc_fork_mtx);
}

/* In a fork() child, where another thread may have held it: anew. */
void
procdesc_fork_lock_reset(void)
{

	pthread_mutex_init(&procdesc_fork_mtx, NULL);
}

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

/* Wait on cv; mtx held. */
void
procdesc_cond_wait(pthread_cond_t *cv)
{

	PROCDESC_ASSERT_LOCKED();
	pthread_cond_wait(cv, &procdesc_mtx);
}

/*
 * Wait on cv until *deadline (procdesc_deadline()): 0 when woken, else
 * ETIMEDOUT.  mtx held.
 */
int
procdesc_cond_timedwait(pthread_cond_t *cv, const struct timespec *deadline)
{

	PROCDESC_ASSERT_LOCKED();
	return (pthread_cond_timedwait(cv, &procdesc_mtx, deadline));
}

/*
 * The pthread_atfork handlers' part (atfork.c).  The child's only thread
 * is the one that locked procdesc_mtx in the parent: it fixes the copy and
 * unlocks it, as glibc does with its own locks, so that no other thread's
 * state shows through (a thread sanitizer sees a lock and its unlock by
 * one thread).  A fork() from a signal handler that interrupted this
 * thread inside the library, holding the lock, leaves it alone: waiting
 * for it would never end, and the copy makes the mutex anew, since it
 * forgets what it guards anyway.
 */
void
procdesc_lock_atfork_prepare(void)
{

	if ((lk_took = !procdesc_locked()))
		procdesc_lock();
}

void
procdesc_lock_atfork_parent(void)
{

	if (lk_took)
		procdesc_unlock();
}

void
procdesc_lock_atfork_child(void)
{

	if (lk_took)
		procdesc_unlock();
	else {
		pthread_mutex_init(&procdesc_mtx, NULL);
		lk_held = 0;
	}
}
