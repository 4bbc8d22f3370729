/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A pdfork child of this process, as its owner knows it (child.c): its
 * entry and every change of it, from creation to the moment it is both
 * reaped and no descriptor of it is left.  FreeBSD's counterpart is
 * struct proc's procdesc link; the descriptor itself (desc.c) is the
 * object every holder shares.
 */

#ifndef _PROCDESC_CHILD_H_
#define	_PROCDESC_CHILD_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "hash.h"
#include "pidfd.h"

struct procdesc_ck_ops;
struct procdesc_desc;

/*
 * One pdfork child.  Its exit is recorded once, when first seen (with
 * waitid(WNOWAIT), so that the zombie stays and its pid stays reserved);
 * it is reaped when a wait takes it (pdwait, a wait for its pid, or a
 * wildcard wait that met it, NOTES 1.11) or when the last copy of its
 * descriptor goes, whichever comes first after the exit; the entry
 * goes once both have happened, or at the process's exit if its guardian
 * died (nobody can tell the last close any more).
 *
 * Locking key: (c) constant once adopted, (l) procdesc_mtx.
 */
struct procdesc_child {
	struct procdesc_hlink	 ch_bypid;	/* (l) registry.c's, by pid. */
	struct procdesc_hlink	 ch_byid;	/* (l) And by id, */
	struct procdesc_hlink	 ch_bycookie;	/* (l) and by cookie. */
	uint64_t		 ch_id;		/* (c) The descriptor's id, */
	uint64_t		 ch_cookie;	/* (c) and its socket cookie. */
	struct procdesc_proc	 ch_proc;	/* (c) The process. */
	const struct procdesc_ck_ops *ch_ck;	/* (c) Its close-kill, */
	int			 ch_guardian;	/* (c) its guardian's slot. */
	int			 ch_fd;		/* (c) Where pdfork put the
						   descriptor (child.c). */
	bool			 ch_exited;	/* (l) ch_si and ch_ru valid. */
	bool			 ch_told;	/* (l) Its guardian has the exit. */
	bool			 ch_reaped;	/* (l) The zombie is gone. */
	bool			 ch_closed;	/* (l) No descriptor of it left
						   (its guardian said so). */
	bool			 ch_lost;	/* (l) Its guardian died. */
	bool			 ch_nowaitpid;	/* (c) PD_NOWAITPID. */
	bool			 ch_owed;	/* (l) Reaped for a wildcard wait;
						   a wait for its pid takes it. */
	siginfo_t		 ch_si;		/* (l) The exit. */
	struct rusage		 ch_ru;		/* (l) */
};

/* What the owner knows of a child, for pdwait (procdesc_child_view()). */
enum procdesc_view {
	PROCDESC_VIEW_NONE,	/* Not ours. */
	PROCDESC_VIEW_RUNNING,	/* Ours, no event. */
	PROCDESC_VIEW_EVENT,	/* An exit, stop or continue in *si, *ru. */
	PROCDESC_VIEW_HIDDEN,	/* Ours, but no wait for its pid sees it. */
};

/* Creation (create.c), procdesc_mtx not held. */
int	procdesc_child_new(struct procdesc_child **chp, int pdflags)
	    PROCDESC_HIDDEN;
void	procdesc_child_discard(struct procdesc_child *ch) PROCDESC_HIDDEN;
int	procdesc_child_adopt(struct procdesc_child *ch) PROCDESC_HIDDEN;

/* The calls, with a descriptor of the child; procdesc_mtx not held. */
bool	procdesc_child_pid(const struct procdesc_desc *dp, pid_t *pidp)
	    PROCDESC_HIDDEN;
int	procdesc_child_kill(const struct procdesc_desc *dp, int signum,
	    bool *minep) PROCDESC_HIDDEN;
enum procdesc_view procdesc_child_view(const struct procdesc_desc *dp,
	    int options, siginfo_t *si, struct rusage *ru) PROCDESC_HIDDEN;
bool	procdesc_child_record(const struct procdesc_proc *pp, siginfo_t *si,
	    struct rusage *ru) PROCDESC_HIDDEN;
int	procdesc_child_pidfd(const struct procdesc_desc *dp, int *pidfdp)
	    PROCDESC_HIDDEN;

/* The application's waits (appwait.c), procdesc_mtx not held. */
int	procdesc_child_waitpid(pid_t pid, int options, siginfo_t *si,
	    struct rusage *ru, enum procdesc_view *vp, int *pidfdp)
	    PROCDESC_HIDDEN;
bool	procdesc_child_hide(const siginfo_t *peek) PROCDESC_HIDDEN;
size_t	procdesc_child_others(pid_t *pids, size_t n) PROCDESC_HIDDEN;

/* The reaper (reaper.c), procdesc_mtx held. */
bool	procdesc_child_exit_seen(pid_t pid, int *guardianp, uint64_t *idp,
	    siginfo_t *si, struct rusage *ru) PROCDESC_HIDDEN;
void	procdesc_child_closed(uint64_t id) PROCDESC_HIDDEN;
void	procdesc_child_answered(uint64_t id) PROCDESC_HIDDEN;
void	procdesc_child_orphans(int guardian) PROCDESC_HIDDEN;

void	procdesc_child_atfork_child(void) PROCDESC_HIDDEN;

#ifdef PROCDESC_DEBUG
int	procdesc_debug_entries(void) __attribute__((visibility("default")));
#endif

#endif /* !_PROCDESC_CHILD_H_ */
