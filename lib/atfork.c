/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What a fork() does to the library's state: the one place that lists the
 * files with state and calls each one's hook, in order (FreeBSD's SYSINIT
 * order plays this part there).  Registered when the library is loaded,
 * before any lock of ours can be held, so that no fork ever copies one
 * held (NOTES 2.11).
 *
 * In the child the forking thread, now the only thread, still holds
 * procdesc_mtx if the prepare handler took it: every hook runs under it,
 * and the lock goes last.
 */

#include <pthread.h>

#include "arena.h"
#include "atfork.h"
#include "child.h"
#include "closekill.h"
#include "fork.h"
#include "lock.h"
#include "reaper.h"

void
procdesc_atfork_prepare(void)
{

	procdesc_lock_atfork_prepare();
}

void
procdesc_atfork_parent(void)
{

	procdesc_lock_atfork_parent();
}

void
procdesc_atfork_child(void)
{

	procdesc_fork_child_first();	/* pdfork's child: before all. */
	procdesc_arena_atfork_child();
	procdesc_child_atfork_child();
	procdesc_reaper_atfork_child();
	procdesc_ck_guardian.ck_atfork_child();
	procdesc_fork_atfork_child();
	procdesc_lock_atfork_child();
}

static void __attribute__((constructor))
af_register(void)
{

	(void)pthread_atfork(procdesc_atfork_prepare, procdesc_atfork_parent,
	    procdesc_atfork_child);
}
