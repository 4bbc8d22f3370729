/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The guardian's listener, "procdesc-guardian:<key>", and the holders'
 * queries on it.  A holder that is not the owner (a fork copy, a receiver
 * of SCM_RIGHTS, a program that kept the descriptor across exec, a
 * survivor of the owner) learns from us what its descriptor is: it sends
 * the descriptor itself, we recognise it by its socket cookie (the
 * kernel's identity of the socket, never reused), and answer with a pidfd
 * of the process and, once known, its exit.  Sending the descriptor is the
 * proof of holding it: whoever does not hold one learns nothing.
 *
 * Invariants: one query per connection; a query that asks to wait
 * (PG_WAIT) for a process whose exit is not recorded yet waits on the
 * process's list until it is, or until the holder hangs up; at most G_QUERY_MAX connections at a time,
 * the descriptors kept for them beside the processes' (guardian.c's
 * reserve).
 */

#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "gd.h"
#include "wire.h"

/* Connections at a time: each costs a descriptor (guardian.c's reserve). */
#define	G_QUERY_MAX	64

struct gquery {
	struct gquery	*gq_next;	/* On gq_child's list, or the grave. */
	struct gchild	*gq_child;	/* Waiting for its record, or NULL. */
	int		 gq_fd;		/* The connection. */
	uint32_t	 gq_events;	/* Its epoll events, once read. */
	bool		 gq_dead;	/* Freed after this epoll batch. */
};

static int g_listen = -1;
static size_t g_nqueries;
static uint64_t g_pidns;		/* Our pid namespace's inode. */
static struct gquery *g_qgrave;

/* The listener, bound to a random key: 0, *keyp, or an errno value. */
int
g_query_init(uint64_t *keyp)
{
	struct sockaddr_un sa;
	struct epoll_event ev;
	struct stat st;
	uint64_t key;
	int n;

	if (stat("/proc/self/ns/pid", &st) == 0)
		g_pidns = (uint64_t)st.st_ino;
	do {
		if (getrandom(&key, sizeof(key), 0) != sizeof(key))
			return (errno);
	} while (key == 0);
	if ((g_listen = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return (errno);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, PG_LISTEN_FMT,
	    key);
	if (bind(g_listen, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == -1 ||
	    listen(g_listen, G_QUERY_MAX) == -1)
		return (errno);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = G_EV_LISTEN;
	if (epoll_ctl(g_ep, EPOLL_CTL_ADD, g_listen, &ev) == -1)
		return (errno);
	*keyp = key;
	return (0);
}

/* Close the connection; the memory goes after this epoll batch. */
static void
g_query_free(struct gquery *q)
{

	(void)epoll_ctl(g_ep, EPOLL_CTL_DEL, q->gq_fd, NULL);
	close(q->gq_fd);
	g_nqueries--;
	q->gq_dead = true;
	q->gq_next = g_qgrave;
	g_qgrave = q;
}

void
g_query_bury(void)
{
	struct gquery *q;

	while ((q = g_qgrave) != NULL) {
		g_qgrave = q->gq_next;
		free(q);
	}
}

/*
 * Answer q, with error, or with what gc is and a pidfd of its process;
 * then close the connection.
 */
static void
g_reply(struct gquery *q, const struct gchild *gc, int error)
{
	struct pg_msg m;

	memset(&m, 0, sizeof(m));
	m.pm_op = PG_INFO;
	m.pm_error = error;
	if (error == 0) {
		m.pm_id = gc->gc_id;
		m.pm_pid = gc->gc_pid;
		m.pm_flags = gc->gc_flags;
		m.pm_pidns = g_pidns;
		m.pm_state = (gc->gc_exited ? PG_EXITED : 0) |
		    (gc->gc_recorded ? PG_RECORDED : 0) |
		    (gc->gc_rusage ? PG_RUSAGE : 0);
		m.pm_code = gc->gc_code;
		m.pm_status = gc->gc_status;
		m.pm_ru = gc->gc_ru;
	}
	(void)procdesc_wire_send(q->gq_fd, &m, error == 0 ? &gc->gc_pidfd :
	    NULL, error == 0 ? 1 : 0, MSG_DONTWAIT);
	g_query_free(q);
}

/* Every query waiting for gc's record: answer it now. */
void
g_query_answer_all(struct gchild *gc)
{
	struct gquery *q;

	while ((q = gc->gc_queries) != NULL) {
		gc->gc_queries = q->gq_next;
		g_reply(q, gc, 0);
	}
}

/* gc is going: the queries waiting for it get EBADF. */
void
g_query_drop_all(struct gchild *gc)
{
	struct gquery *q;

	while ((q = gc->gc_queries) != NULL) {
		gc->gc_queries = q->gq_next;
		g_reply(q, NULL, EBADF);
	}
}

/* New connections: one query each. */
void
g_query_listen_event(void)
{
	struct epoll_event ev;
	struct gquery *q;
	int fd;

	while ((fd = accept4(g_listen, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) != -1) {
		if (g_nqueries >= G_QUERY_MAX ||
		    (q = calloc(1, sizeof(*q))) == NULL) {
			close(fd);
			continue;
		}
		q->gq_fd = fd;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.u64 = (uintptr_t)q | G_TAG_QUERY;
		if (epoll_ctl(g_ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
			close(fd);
			free(q);
			continue;
		}
		g_nqueries++;
	}
}

/*
 * Read q's query: 0 and the cookie of the descriptor it carries, else an
 * errno value.  Every descriptor that came is closed.
 */
static int
g_query_read(struct gquery *q, uint32_t *flagsp, uint64_t *cookiep)
{
	struct pg_msg m;
	socklen_t len;
	ssize_t n;
	int error, fd, nfds;
	bool trunc;

	*flagsp = 0;
	if ((n = procdesc_wire_recv(q->gq_fd, &m, &fd, 1, &nfds, &trunc,
	    MSG_DONTWAIT)) == -1)
		return (errno);
	len = sizeof(*cookiep);
	error = (n == (ssize_t)sizeof(m) && !trunc && m.pm_op == PG_QUERY &&
	    nfds == 1 && getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookiep,
	    &len) == 0) ? 0 : EBADF;
	if (nfds == 1)
		close(fd);
	*flagsp = m.pm_flags;
	return (error);
}

/* q is readable, or hung up. */
void
g_query_event(struct gquery *q, uint32_t events)
{
	struct gquery **pp;
	struct gchild *gc;
	uint64_t cookie;
	uint32_t flags;
	int error;

	if (q->gq_dead)
		return;
	if (q->gq_child != NULL) {
		/* Waiting, and the holder hung up (or sent more). */
		for (pp = &q->gq_child->gc_queries; *pp != q;
		    pp = &(*pp)->gq_next)
			;
		*pp = q->gq_next;
		g_query_free(q);
		return;
	}
	if ((events & EPOLLIN) == 0) {
		g_query_free(q);
		return;
	}
	if ((error = g_query_read(q, &flags, &cookie)) == EAGAIN)
		return;
	gc = (error == 0) ? g_guard_by_cookie(cookie) : NULL;
	if (gc == NULL && error == 0) {
		g_ctl_drain();
		gc = g_guard_by_cookie(cookie);
	}
	if (gc == NULL)
		g_reply(q, NULL, EBADF);
	else if (gc->gc_recorded || (flags & PG_WAIT) == 0)
		g_reply(q, gc, 0);
	else {
		q->gq_child = gc;
		q->gq_next = gc->gc_queries;
		gc->gc_queries = q;
	}
}
