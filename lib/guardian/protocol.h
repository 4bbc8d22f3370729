/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The wire protocol between the library and procdesc-guardian, the shape
 * of a process descriptor, and the names the guardian and its sentry go
 * by.  Shared by lib/guardian_client.c, lib/guardian_start.c, lib/desc.c,
 * lib/guardian/ and the tests.
 *
 * A process descriptor is one end, A, of an AF_UNIX SOCK_SEQPACKET
 * socketpair.  The guardian alone holds the other end, B, shut down for
 * reading from the start, so that nothing a holder sends reaches it.
 * Nothing but a holder of A can reach A or B: a socket cannot be opened
 * through /proc/PID/fd, and the abstract name A is bound to refuses
 * connect(2).
 *
 *	control socket (one per guardian, the owner's end is close-on-exec)
 *	  child -> guardian	PG_GUARD | PG_CHILD + SCM_RIGHTS [A, B, pidfd]
 *	  owner -> guardian	PG_GUARD + SCM_RIGHTS [A, B, pidfd] (pdopenpid)
 *	  owner -> guardian	PG_STATUS (the exit the owner saw)
 *	  owner -> guardian	PG_ASK (is the last copy of A gone?)
 *	  guardian -> owner	PG_HELLO, once, right after exec
 *	  guardian -> owner	PG_CLOSED (the last copy of A is gone)
 *	  guardian -> owner	PG_ANSWER, after PG_ASK and any PG_CLOSED
 *	B -> A (the descriptor's own queue, read by the owner only)
 *	  guardian -> owner	PG_ACK, after pdopenpid's PG_GUARD
 *	the guardian's listener, "procdesc-guardian:<key>" (any holder)
 *	  holder -> guardian	PG_QUERY + SCM_RIGHTS [the descriptor]
 *	  guardian -> holder	PG_INFO + SCM_RIGHTS [a pidfd of the process]
 *
 * The last close of A anywhere makes B report an event (edge-triggered);
 * the guardian confirms it (a registration of A that goes with A's last
 * reference) and SIGKILLs the process unless PD_DAEMON.  At the exit the
 * guardian shuts B down for writing: A then polls POLLIN | POLLHUP in one
 * step, and a read returns 0.  Nothing is ever queued on A for holders:
 * the exit's status and rusage are the guardian's answer to a PG_QUERY.
 */

#ifndef _PROCDESC_PROTOCOL_H_
#define	_PROCDESC_PROTOCOL_H_

#include <sys/resource.h>

#include <inttypes.h>
#include <stdint.h>

#define	PG_GUARD	1	/* Guard pm_pid, whose pidfd comes along. */
#define	PG_STATUS	2	/* The owner saw pm_id exit: pm_code... */
#define	PG_HELLO	3	/* It runs: pm_pid, pm_capacity, pm_id key. */
#define	PG_ACK		4	/* pdopenpid: guarded (pm_error 0) or not. */
#define	PG_CLOSED	5	/* The last copy of pm_id's descriptor went. */
#define	PG_QUERY	6	/* What is this descriptor?  pm_flags PG_WAIT. */
#define	PG_INFO		7	/* The answer: pm_error, pm_state, the exit. */
#define	PG_ASK		8	/* Owner: is pm_id's last copy gone?  Look. */
#define	PG_ANSWER	9	/* Looked: any PG_CLOSED for pm_id came first. */

/* pm_flags of PG_GUARD and PG_INFO: PD_* of the descriptor, and: */
#define	PG_CHILD	0x100	/* A new child: its owner reaps it, no PG_ACK. */
/* pm_flags of PG_QUERY: */
#define	PG_WAIT		0x1	/* Answer once the exit is known. */

/* pm_state of PG_INFO. */
#define	PG_EXITED	0x1	/* The process has exited. */
#define	PG_RECORDED	0x2	/* pm_code and pm_status say how. */
#define	PG_RUSAGE	0x4	/* pm_ru is the exit's (a parent saw it). */

/*
 * The descriptors of PG_GUARD, in this order: A, B and a pidfd of the
 * process.
 */
#define	PG_GUARD_FDS	3

/*
 * A new child that could not register (no room for its pidfd, the
 * guardian gone) exits, before any code of the application, with
 * PG_EXIT_ERRNO + the errno value (masked), so that its status says why.
 * An exit status has 8 bits: the top one says "errno", the other seven
 * carry it (the errors a registration meets, EMFILE, ENOMEM, EPIPE..., are
 * all below 128).
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
	uint32_t	pm_flags;	/* PD_* | PG_CHILD, or PG_WAIT. */
	uint64_t	pm_id;		/* The descriptor's id; HELLO: key. */
	int32_t		pm_pid;		/* The process, as the guardian sees. */
	int32_t		pm_error;	/* PG_ACK, PG_INFO: 0 or an errno. */
	uint32_t	pm_state;	/* PG_INFO: PG_EXITED... */
	uint32_t	pm_capacity;	/* PG_HELLO: children it can take. */
	int32_t		pm_code;	/* si_code: CLD_*, 0 if unknown. */
	int32_t		pm_status;	/* si_status. */
	uint64_t	pm_pidns;	/* PG_INFO: the guardian's pid ns. */
	struct rusage	pm_ru;		/* The exit's rusage (zero if none). */
};

/*
 * A's abstract name: "procdesc:<key>:<id>", where <key> is the guardian's
 * (its listener is "procdesc-guardian:<key>") and <id> the descriptor's,
 * 16 hex digits each, zero-padded.  Neither says which process it is, so
 * that /proc/net/unix tells nobody which processes have descriptors.
 */
#define	PG_NAME_PREFIX	"procdesc:"
#define	PG_NAME_FMT	PG_NAME_PREFIX "%016" PRIx64 ":%016" PRIx64
#define	PG_LISTEN_PREFIX "procdesc-guardian:"
#define	PG_LISTEN_FMT	PG_LISTEN_PREFIX "%016" PRIx64

/*
 * The guardian's program name (its argv[0] and comm) and the comm(5) it
 * shows, 15 characters of it; the sentry's comm.
 */
#define	PG_GUARDIAN_NAME	"procdesc-guardian"
#define	PG_GUARDIAN_COMM	"procdesc-guardi"
#define	PG_SENTRY_COMM		"procdesc-sentry"

#endif /* !_PROCDESC_PROTOCOL_H_ */
