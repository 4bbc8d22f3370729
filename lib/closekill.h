/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The close-kill mechanism, behind one narrow interface: watch a process
 * and its descriptor, kill the process when the last copy of the
 * descriptor is closed, and put its exit on the descriptor.  The guardian
 * (guardian_client.c and procdesc-guardian) is the first mechanism;
 * another plugs in as a file of its own with its own table of operations
 * (epoll-shim reaches its kinds of descriptor the same way).
 *
 * A creation goes: prepare (before the clone: everything that can fail),
 * child (in the new child, before any code of the application), then
 * adopt in the parent and start once the child is filed, or dispose of a
 * child that could not be adopted.
 */

#ifndef _PROCDESC_CLOSEKILL_H_
#define	_PROCDESC_CLOSEKILL_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "pidfd.h"

/* One creation under way. */
struct procdesc_ck_req {
	int		 cr_fd;		/* The user's descriptor. */
	int		 cr_peer;	/* Its peer, for the mechanism. */
	int		 cr_spare;	/* RFSPAWN: a slot the child may use. */
	int		 cr_go[2];	/* fork: the child waits on [0] */
	pid_t		 cr_parent;	/* and watches its parent, this. */
	bool		 cr_spawn;	/* RFSPAWN: we wait in the clone. */
	int		 cr_ctl;	/* The mechanism's control socket. */
	int		 cr_watcher;	/* Which watcher (guardian) takes it. */
	bool		 cr_new;	/* That watcher was started for it. */
	uint32_t	 cr_flags;	/* PD_*, and the mechanism's own. */
	uint64_t	 cr_id;		/* The descriptor's id. */
	uint64_t	 cr_cflags;	/* Clone flags the mechanism adds. */
};

/*
 * The operations.  Those marked (l) run with procdesc_mtx held and never
 * wait; the others without it, and may wait for the mechanism.  Each
 * returns 0 or an errno value.
 */
struct procdesc_ck_ops {
	/* Room for one more, and the descriptor to be. */
	int	(*ck_prepare)(struct procdesc_ck_req *, int pdflags,
		    uint64_t id);
	/* In the new child: raw system calls only (PROCDESC_NOSAN). */
	void	(*ck_child)(const struct procdesc_ck_req *);
	/*
	 * The child runs as pid: name the descriptor; its process, cookie.
	 * Never waits for the mechanism.
	 */
	int	(*ck_adopt)(struct procdesc_ck_req *, pid_t, int pidfd,
		    struct procdesc_proc *pp, uint64_t *cookiep);
	/* The child is adopted and filed: let it run. */
	void	(*ck_start)(struct procdesc_ck_req *);
	/* A child that could not be adopted: kill and reap it; why. */
	int	(*ck_dispose)(struct procdesc_ck_req *, int pidfd, int error);
	/* A creation that made no child. */
	void	(*ck_abort)(struct procdesc_ck_req *);
	/* A descriptor for a process we did not create (pdopenpid). */
	int	(*ck_open)(pid_t, int pidfd, int pdflags,
		    struct procdesc_ck_req *, int *fdp);
	/*
	 * (l) The owner saw a child of watcher w exit: tell w, through sock
	 * (the reaper's copy of its socket) or, with -1, its own.
	 */
	int	(*ck_status)(int w, int sock, uint64_t id, pid_t,
		    const siginfo_t *, const struct rusage *);
	/*
	 * (l) A wait for a pid asks whether the last copy of descriptor id
	 * is gone; through sock, the reaper's copy of watcher w's socket.
	 * The answer comes from ck_recv, after any last close of id.
	 */
	int	(*ck_ask)(int sock, uint64_t id);
	/*
	 * The reaper: what sock says next, 0 and *idp: the last close of
	 * *idp (*closedp) or the answer to an ask; EAGAIN when nothing.
	 */
	int	(*ck_recv)(int sock, uint64_t *idp, bool *closedp);
	/* (l) What the reaper watches of watcher w. */
	void	(*ck_watcher_info)(int w, int *sockp, dev_t *devp, ino_t *inop,
		    pid_t *pidp);
	/* (l) Watcher w holds one child less. */
	void	(*ck_drop)(int w);
	/* (l) Watcher w exited: reap it and forget it. */
	void	(*ck_died)(int w);
	/* (l) Whether watcher w died: its new child cannot be adopted. */
	bool	(*ck_gone)(int w);
	/* In a forked copy of the process. */
	void	(*ck_atfork_child)(void);
};

extern const struct procdesc_ck_ops procdesc_ck_guardian PROCDESC_HIDDEN;

#endif /* !_PROCDESC_CLOSEKILL_H_ */
