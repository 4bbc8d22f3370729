/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The wire protocol between the library and procdesc-guardian, and the
 * shape of a process descriptor.  Shared by lib/guardian_client.c,
 * lib/descriptor.c and lib/guardian/guardian.c.
 *
 * A process descriptor is one end, A, of an AF_UNIX SOCK_SEQPACKET
 * socketpair.  The guardian alone holds the other end, B.  Nothing but a
 * holder of A can reach A or B: a socket cannot be opened through
 * /proc/PID/fd, and the abstract name A is bound to refuses connect(2).
 *
 *	control socket (one per guardian, the owner's end is close-on-exec)
 *	  child -> guardian	PG_GUARD + SCM_RIGHTS [B, pidfd, go]
 *	  owner -> guardian	PG_GUARD + SCM_RIGHTS [B, pidfd] (pdopenpid)
 *	  owner -> guardian	PG_EXITED (the status the owner reaped)
 *	  guardian -> owner	PG_HELLO, once, right after exec
 *	B -> A (the descriptor's own queue)
 *	  guardian -> owner	PG_ACK, after PG_GUARD
 *	go (the write end of the new child's pipe)
 *	  guardian -> child	one byte once it guards the child, else EOF
 *	  guardian -> holders	PG_RECORD at exit, then B is closed
 *
 * The last close of A anywhere makes B report EPOLLHUP: the guardian
 * SIGKILLs the child.  At exit the record stays queued on A for as long as
 * A exists, so that every holder reads it with MSG_PEEK, repeatedly;
 * closing B raises POLLHUP on A.
 */

#ifndef _PROCDESC_PROTOCOL_H_
#define	_PROCDESC_PROTOCOL_H_

#include <sys/resource.h>

#include <inttypes.h>
#include <stdint.h>

#define	PG_GUARD	1	/* Guard pm_pid, whose pidfd comes along. */
#define	PG_EXITED	2	/* The owner reaped pm_id: pm_code... */
#define	PG_HELLO	3	/* It runs: pm_pid, pm_capacity children. */
#define	PG_ACK		4	/* Guarded (pm_error 0) or refused. */
#define	PG_RECORD	5	/* The exit: pm_code 0 if the status is lost. */

/* pm_flags: PD_* of the descriptor, and: */
#define	PG_CHILD	0x100	/* A pdfork child: its owner reaps it. */

/*
 * The SCM_RIGHTS of PG_GUARD, in this order: B, a pidfd of the process,
 * and for a new child the write end of the pipe it waits on.
 */
#define	PG_GUARD_FDS	3
#define	PG_GO		'g'	/* The guardian's word to a new child. */

/*
 * A new child that could not register exits, before any code of the
 * application, with PG_EXIT_ERRNO + the errno value (masked), so that the
 * parent can say why pdfork failed.  An exit status has 8 bits: the top
 * one says "errno", the other seven carry it (the errors a registration
 * meets, EMFILE, ENOMEM, EAGAIN..., are all below 128).
 */
#define	PG_EXIT_ERRNO	128
#define	PG_EXIT_MASK	(PG_EXIT_ERRNO - 1)

/* The control socket's number in the guardian. */
#define	PG_CTL_FD	3

/*
 * How long anybody waits for the guardian's answer (ms): long enough for a
 * guardian busy with thousands of exits on a loaded machine.
 */
#define	PG_REPLY_MS	2000

struct pg_msg {
	uint32_t	pm_op;		/* PG_*. */
	uint32_t	pm_flags;	/* PD_* | PG_CHILD. */
	uint64_t	pm_id;		/* The descriptor's id. */
	int32_t		pm_pid;		/* The process. */
	int32_t		pm_error;	/* PG_ACK: 0 or an errno value. */
	uint32_t	pm_pad;
	uint32_t	pm_capacity;	/* PG_HELLO: children it can take. */
	int32_t		pm_code;	/* si_code: CLD_*, 0 if unknown. */
	int32_t		pm_status;	/* si_status. */
	struct rusage	pm_ru;		/* The reaped rusage (zero if none). */
};

/*
 * A's abstract name: "procdesc:<pid>:<i|t><n>:<id>", where <n> is the
 * pidfs inode of the process (i) or, before pidfs, its start time in
 * clock ticks (t): either tells the process from a later one with a
 * recycled pid.  <id> is 16 hex digits, zero-padded.  PG_NAME_FMT takes
 * the pid (int), the kind (char), <n> and the id (uint64_t).
 */
#define	PG_NAME_PREFIX	"procdesc:"
#define	PG_NAME_FMT	PG_NAME_PREFIX "%d:%c%" PRIu64 ":%016" PRIx64

#endif /* !_PROCDESC_PROTOCOL_H_ */
