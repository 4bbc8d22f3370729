/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Private interfaces between the library's files (style(9)'s "extern.h").
 *
 * Data path: pdfork (procdesc.c) -> fork machinery (fork.c) -> registry
 * (registry.c) -> watchdog thread (watchdog.c, reaps) and guardian helper
 * process (helper.c, kills on last close).  Nothing calls back up.
 *
 * Lock order: procdesc_fork_mtx (fork.c) before procdesc_mtx (registry.c).
 * procdesc_mtx guards the registry, every struct procdesc field marked (l)
 * and the watchdog/guardian state in watchdog.c and helper.c.
 */

#ifndef _PROCDESC_IMPL_H_
#define	_PROCDESC_IMPL_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define	PROCDESC_HIDDEN	__attribute__((visibility("hidden")))

/* Keys of descriptors before pidfs (registry.c, procdesc_ident()). */
#define	PD_KEY_LOCK	(1ULL << 63)	/* | offset of the close-kill lock. */
#define	PD_KEY_FOREIGN	(1ULL << 62)	/* A pidfd not made by us. */

/* States of a child. */
#define	PDS_RUNNING	0	/* Not yet reaped. */
#define	PDS_REAPED	1	/* Reaped; pd_status and pd_ru are valid. */

/*
 * One child created by this process (or inherited in a fork copy).
 *
 * Locking key: (c) constant after procdesc_new(), (l) procdesc_mtx.
 */
struct procdesc {
	struct procdesc	*pd_next;	/* (l) Chain by key. */
	struct procdesc	*pd_pnext;	/* (l) Chain by pid, while unreaped. */
	uint64_t	 pd_key;	/* (c) Identity of any copy. */
	pid_t		 pd_pid;	/* (c) Pid at creation. */
	pid_t		 pd_owner;	/* (c) The process that created it. */
	int		 pd_flags;	/* (c) PD_* given at creation. */
	off_t		 pd_off;	/* (c) Byte of the close-kill lock. */
	int		 pd_state;	/* (l) PDS_*. */
	bool		 pd_parent;	/* (c) pd_owner is the parent. */
	bool		 pd_closed;	/* (l) The last descriptor is gone. */
	siginfo_t	 pd_si;		/* (l) Exit siginfo once reaped. */
	struct rusage	 pd_ru;		/* (l) Exit rusage once reaped. */
};

extern pthread_mutex_t procdesc_mtx PROCDESC_HIDDEN;
extern pthread_cond_t procdesc_cv PROCDESC_HIDDEN;

/* registry.c: the descriptor objects. */
int	procdesc_ident(int fd, uint64_t *keyp) PROCDESC_HIDDEN;
int	procdesc_kernel_pid(int fd, pid_t *pidp) PROCDESC_HIDDEN;
int	procdesc_new(pid_t pid, int pidfd, int flags, bool parent)
	    PROCDESC_HIDDEN;
struct procdesc *procdesc_find(uint64_t key) PROCDESC_HIDDEN;
struct procdesc *procdesc_find_pid(pid_t pid) PROCDESC_HIDDEN;
bool	procdesc_mine(const struct procdesc *pd) PROCDESC_HIDDEN;
void	procdesc_exit(struct procdesc *pd, const siginfo_t *si,
	    const struct rusage *ru) PROCDESC_HIDDEN;
void	procdesc_close(uint64_t key, off_t off) PROCDESC_HIDDEN;
void	procdesc_foreach(void (*fn)(struct procdesc *, void *), void *arg)
	    PROCDESC_HIDDEN;
int	procdesc_copyout(void *uaddr, const void *kaddr, size_t len)
	    PROCDESC_HIDDEN;
int	procdesc_wstatus(const siginfo_t *si) PROCDESC_HIDDEN;
int	procdesc_exit_info(int fd, pid_t pid, siginfo_t *si) PROCDESC_HIDDEN;
void	procdesc_registry_child(void) PROCDESC_HIDDEN;

/* kernel.c: what the kernel must have. */
int	procdesc_kernel_ok(void) PROCDESC_HIDDEN;

/* watchdog.c: the reaping thread, started on first use. */
int	procdesc_watchdog_start(void) PROCDESC_HIDDEN;
void	procdesc_watchdog_kick(void) PROCDESC_HIDDEN;
void	procdesc_watchdog_deadline(struct timespec *ts) PROCDESC_HIDDEN;
void	procdesc_watchdog_child(void) PROCDESC_HIDDEN;

/* helper.c: the guardian process that kills on last close. */
int	procdesc_helper_start(void) PROCDESC_HIDDEN;
int	procdesc_helper_guard(pid_t pid, int flags, uint64_t key, off_t off)
	    PROCDESC_HIDDEN;
void	procdesc_helper_drain(void) PROCDESC_HIDDEN;
void	procdesc_helper_child(void) PROCDESC_HIDDEN;

/* fork.c: glibc's fork() with its clone turned into clone3(CLONE_PIDFD). */
int	procdesc_fork_clone(pid_t *pidp, int *pidfdp)
	    PROCDESC_HIDDEN;
int	procdesc_fork_spawn(pid_t *pidp, int *pidfdp) PROCDESC_HIDDEN;

/* Messages between the library and procdesc-guardian. */
#define	PROCDESC_MSG_GUARD	1	/* Library: guard this child. */
#define	PROCDESC_MSG_CLOSED	2	/* Guardian: last close seen. */

struct procdesc_msg {
	uint32_t	pm_op;		/* PROCDESC_MSG_*. */
	int32_t		pm_pid;
	uint32_t	pm_flags;	/* PD_* of the child. */
	uint32_t	pm_pad;
	uint64_t	pm_key;
	int64_t		pm_off;
};

#endif /* !_PROCDESC_IMPL_H_ */
