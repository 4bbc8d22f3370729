/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Between the files of procdesc-guardian: guardian.c (the process, its
 * epoll loop, the owner's control socket), guard.c (the processes it
 * guards) and query.c (its listener, and the holders' queries).  One
 * thread: nothing here is locked.
 */

#ifndef _PROCDESC_GD_H_
#define	_PROCDESC_GD_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "hash.h"
#include "protocol.h"

struct gquery;

/* A process guarded, from its PG_GUARD until its descriptor's last close. */
struct gchild {
	struct procdesc_hlink gc_byid;	/* In g_byid, by descriptor id. */
	struct procdesc_hlink gc_bycookie; /* In g_bycookie, by A's cookie. */
	struct gchild	*gc_wnext;	/* Chain of those with a deadline. */
	struct gchild	*gc_gnext;	/* Chain of those let go of. */
	struct gquery	*gc_queries;	/* Waiting for the exit's record. */
	uint64_t	 gc_id;
	uint64_t	 gc_cookie;	/* SO_COOKIE of A: its identity. */
	int64_t		 gc_deadline;	/* ns, CLOCK_MONOTONIC; 0 none. */
	int		 gc_b;		/* Peer of the user's descriptor. */
	int		 gc_pidfd;
	int		 gc_oracle;	/* An epoll holding A's registration, */
	int		 gc_afd;	/* made under this number. */
	pid_t		 gc_pid;
	uint32_t	 gc_flags;	/* PD_* | PG_CHILD. */
	bool		 gc_exited;	/* The pidfd was readable: B shut. */
	bool		 gc_recorded;	/* gc_code... say how it exited. */
	bool		 gc_rusage;	/* gc_ru is the owner's (its parent). */
	bool		 gc_reapwait;	/* Waiting for the reap by another. */
	bool		 gc_dead;	/* Freed after this epoll batch. */
	int32_t		 gc_code;	/* CLD_*, 0 if the status is lost. */
	int32_t		 gc_status;
	struct rusage	 gc_ru;
};

/* Tags of epoll data, beside a struct's address (8-aligned). */
#define	G_TAG_B		0UL	/* gchild's B. */
#define	G_TAG_PIDFD	1UL	/* gchild's pidfd. */
#define	G_TAG_QUERY	2UL	/* A holder's connection. */
#define	G_TAG_MASK	3UL
#define	G_EV_CTL	1UL	/* The control socket (data, no address). */
#define	G_EV_LISTEN	2UL	/* The listener. */

extern int g_ep;			/* The epoll loop. */
extern bool g_owner;			/* The control socket is open. */
extern bool g_pidfs;			/* POLLHUP on a pidfd at the reap. */
extern size_t g_capacity;		/* Processes the fd limit allows. */

/* guardian.c */
void	g_tell_owner(uint32_t op, uint64_t id, pid_t pid);
void	g_ctl_drain(void);

/* guard.c */
int	g_guard_init(void);
size_t	g_guard_count(void);
void	g_guard_msg(struct pg_msg *m, int *fds, int nfds);
void	g_status_msg(const struct pg_msg *m);
void	g_ask_msg(const struct pg_msg *m);
void	g_guard_event(uintptr_t data);
void	g_guard_orphaned(void);
void	g_guard_expire(void);
int	g_guard_timeout(void);
void	g_guard_bury(void);
struct gchild *g_guard_by_cookie(uint64_t cookie);

/* query.c */
int	g_query_init(uint64_t *keyp);
void	g_query_listen_event(void);
void	g_query_event(struct gquery *q, uint32_t events);
void	g_query_answer_all(struct gchild *gc);
void	g_query_drop_all(struct gchild *gc);
void	g_query_bury(void);

#endif /* !_PROCDESC_GD_H_ */
