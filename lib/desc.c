/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The process descriptor as an object: the one file that knows its shape
 * (lib/guardian/protocol.h has the format).  A descriptor is one end of a
 * socketpair, bound to "procdesc:<key>:<id>", whose peer its guardian
 * holds.  Its identity is its socket cookie, assigned by the kernel and
 * never reused, so that no name, pid or inode another process can read or
 * guess makes a look-alike pass: the owner knows the cookies of the
 * descriptors it made (child.c), and anyone else asks the
 * guardian the name points to, sending the descriptor itself (NOTES 1.3).
 *
 * Every function returns 0 or an errno value and keeps errno as it was.
 */

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "hash.h"
#include "syscall.h"
#include "wire.h"
#include "guardian/protocol.h"

#ifndef SO_COOKIE
#define	SO_COOKIE	57		/* Linux 4.12. */
#endif

/* An abstract name: "\0" and text, into *sa; its length. */
static socklen_t
ds_addr(struct sockaddr_un *sa, const char *text, size_t n)
{

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, text, n);
	return ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
}

/* Give the descriptor fd its name. */
int
procdesc_desc_bind(int fd, uint64_t key, uint64_t id)
{
	struct sockaddr_un sa;
	char name[sizeof(sa.sun_path)];
	socklen_t len;
	int error, n, saved;

	saved = errno;
	n = snprintf(name, sizeof(name), PG_NAME_FMT, key, id);
	len = ds_addr(&sa, name, (size_t)n);
	error = bind(fd, (struct sockaddr *)&sa, len) == -1 ? errno : 0;
	errno = saved;
	return (error);
}

/* Parse 16 hex digits, then end; false if bad. */
static bool
ds_hex(const char **pp, char end, uint64_t *vp)
{
	const char *p;
	uint64_t v;
	int d, i;

	v = 0;
	for (p = *pp, i = 0; i < 16; i++, p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return (false);
		v = v << 4 | (uint64_t)d;
	}
	if (*p != end)
		return (false);
	*pp = p + 1;
	*vp = v;
	return (true);
}

/* The socket cookie of fd: EBADF if fd is not open, EINVAL if no socket. */
int
procdesc_desc_cookie(int fd, uint64_t *cookiep)
{
	socklen_t len;
	int error, saved;

	saved = errno;
	len = sizeof(*cookiep);
	error = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookiep, &len) == -1)
		error = (errno == EBADF) ? EBADF : EINVAL;
	errno = saved;
	return (error);
}

/*
 * The key of the guardian that descriptor fd names (its name's first
 * number): 0, or EINVAL if fd is not named as a process descriptor.
 * Whether it is one is for that guardian to say.
 */
static int
ds_key(int fd, uint64_t *keyp)
{
	struct sockaddr_un sa;
	const char *p;
	socklen_t len;
	uint64_t id;
	int error, saved;

	saved = errno;
	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	error = getsockname(fd, (struct sockaddr *)&sa, &len) == -1 ?
	    EINVAL : 0;
	errno = saved;
	if (error != 0 || sa.sun_family != AF_UNIX || len >= sizeof(sa) ||
	    len <= offsetof(struct sockaddr_un, sun_path) +
	    sizeof(PG_NAME_PREFIX) || sa.sun_path[0] != '\0' ||
	    memcmp(sa.sun_path + 1, PG_NAME_PREFIX,
	    sizeof(PG_NAME_PREFIX) - 1) != 0)
		return (EINVAL);
	((char *)&sa)[len] = '\0';
	p = sa.sun_path + sizeof(PG_NAME_PREFIX);
	if (!ds_hex(&p, ':', keyp) || !ds_hex(&p, '\0', &id))
		return (EINVAL);
	return (0);
}

/* A connection to the guardian of key: 0 and *sp, or an errno value. */
static int
ds_connect(uint64_t key, int *sp)
{
	struct sockaddr_un sa;
	char name[sizeof(sa.sun_path)];
	socklen_t len;
	int error, n, s;

	n = snprintf(name, sizeof(name), PG_LISTEN_FMT, key);
	len = ds_addr(&sa, name, (size_t)n);
	if ((s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return (errno);
	while ((error = connect(s, (struct sockaddr *)&sa, len) == -1 ?
	    errno : 0) == EINTR)
		;
	if (error != 0) {
		close(s);
		/* No such guardian: no such descriptor. */
		return (error == ECONNREFUSED || error == ENOENT ? EINVAL :
		    error);
	}
	*sp = s;
	return (0);
}

/* Send the query, fd with it: the proof that we hold the descriptor. */
static int
ds_ask(int s, int fd, bool wait)
{
	struct pg_msg m;

	memset(&m, 0, sizeof(m));
	m.pm_op = PG_QUERY;
	m.pm_flags = wait ? PG_WAIT : 0;
	return (procdesc_wire_send(s, &m, &fd, 1, 0));
}

/*
 * The guardian's answer: 0, *ip and a pidfd; its error.  A signal cuts
 * short only a query that waits for the exit (wait: EINTR, as pdwait's
 * wait4 would be; the caller asks again); the others are answered at once.
 */
static int
ds_answer(int s, bool wait, struct procdesc_info *ip, int *pidfdp)
{
	struct pg_msg m;
	ssize_t n;
	int fd, nfds;
	bool trunc;

	while ((n = procdesc_wire_recv(s, &m, &fd, 1, &nfds, &trunc, 0)) ==
	    -1)
		if (errno != EINTR || wait)
			return (errno);
	if (n != (ssize_t)sizeof(m) || trunc || m.pm_op != PG_INFO ||
	    m.pm_error != 0 || nfds != 1) {
		if (nfds == 1)
			close(fd);
		return (n == (ssize_t)sizeof(m) && m.pm_op == PG_INFO &&
		    m.pm_error != 0 ? m.pm_error : EINVAL);
	}
	ip->in_pid = m.pm_pid;
	ip->in_pidns = m.pm_pidns;
	ip->in_flags = m.pm_flags;
	ip->in_state = m.pm_state;
	ip->in_code = m.pm_code;
	ip->in_status = m.pm_status;
	ip->in_ru = m.pm_ru;
	*pidfdp = fd;
	return (0);
}

/*
 * Ask the guardian that descriptor fd names what it is: 0, *ip and a
 * pidfd of its process; EINVAL if fd is not named as a process descriptor
 * or the guardian does not know it (a look-alike, or one of a guardian
 * that is gone).  wait: not before the exit is recorded (EINTR if a
 * signal comes first).  The guardian is whoever listens on the name: its
 * uid, which the kernel vouches for, goes into *ip, for the caller to
 * judge what the descriptor may do (wait.c, NOTES 6.1).
 */
int
procdesc_desc_query(int fd, bool wait, struct procdesc_info *ip,
    int *pidfdp)
{
	struct ucred uc;
	socklen_t len;
	uint64_t key;
	int error, s, saved;

	saved = errno;
	s = -1;
	uc.uid = (uid_t)-1;
	if ((error = ds_key(fd, &key)) != 0 ||
	    (error = ds_connect(key, &s)) != 0) {
		errno = saved;
		return (error);
	}
	len = sizeof(uc);
	if ((error = getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) ==
	    -1 ? errno : 0) == 0 && (error = ds_ask(s, fd, wait)) == 0)
		error = ds_answer(s, wait, ip, pidfdp);
	if (error == EBADF)
		error = EINVAL;		/* The guardian's word: not ours. */
	ip->in_uid = uc.uid;
	close(s);
	errno = saved;
	return (error);
}

/*
 * A new descriptor id: random, so that nobody can squat its name.
 * Without entropy yet (early boot), one that is at least unique: the mix
 * is one-to-one, and its input grows with every call.
 */
uint64_t
procdesc_desc_new_id(void)
{
	static _Atomic uint64_t seq;
	uint64_t id;
	int saved;

	saved = errno;
	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id)) {
		errno = saved;
		return (id);
	}
	errno = saved;
	return (procdesc_hash_mix((uint64_t)procdesc_now() + ++seq) ^
	    (uint64_t)getpid());
}
