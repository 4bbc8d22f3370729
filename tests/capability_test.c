/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * A process descriptor is an unforgeable capability: a socket that only
 * looks like one (same kind, same name, even the real guardian's key and
 * the real descriptor's id) is refused everywhere, in the owner, in a fork
 * copy and in a receiver of another uid; and nothing a holder does to its
 * copy but close(2) changes anything for the other holders.
 *
 * The children here block SIGUSR1 and answer pings on a pipe, saying
 * whether a signal is pending: a pdkill that reached the wrong process is
 * seen without sleeping, since kill(2) queues the signal before it
 * returns.  Code that runs in a forked process never uses an ATF macro: it
 * reports through a socket, a pipe or its exit status.
 */

#include <sys/procdesc.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/filter.h>

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define	C_CODE		37	/* Exit code of a child told to exit. */
#define	C_NLOOK		16	/* Look-alikes made at most. */
#define	C_NSLOT		4	/* Descriptors a holder keeps at most. */

/* pdfork's child: its descriptor, a watch, its command pipes. */
struct c_kid {
	pid_t	pid;
	int	fd;		/* The process descriptor. */
	int	w;		/* A pidfd of it, to watch it die. */
	int	ping;		/* Commands to it. */
	int	pong;		/* Its answers. */
};

/*
 * 1. The child.  SIGUSR1 stays blocked, so that one sent to it by mistake
 * stays pending where the next ping sees it: 'P' if none is, 'S' if one
 * is.  'x' makes it exit with C_CODE, EOF with 0.  Its only descriptors
 * are the pipes (no copy of any descriptor keeps it or another alive).
 */
static void __attribute__((noreturn))
c_kid_main(void)
{
	sigset_t set;
	char c;

	alarm(T_LIFE);
	for (;;) {
		if (read(STDIN_FILENO, &c, 1) != 1)
			_exit(0);
		if (c == 'x')
			_exit(C_CODE);
		c = (sigpending(&set) == 0 && !sigismember(&set, SIGUSR1)) ?
		    'P' : 'S';
		if (write(STDOUT_FILENO, &c, 1) != 1)
			_exit(1);
	}
}

static void
c_kid_start(struct c_kid *k)
{
	sigset_t set, old;
	int ping[2], pong[2];

	ATF_REQUIRE(pipe2(ping, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(pong, O_CLOEXEC) == 0);
	/* Blocked before the child exists: no window for a stray signal. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ATF_REQUIRE(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	k->pid = pdfork(&k->fd, 0);
	if (k->pid == 0) {
		if (dup2(ping[0], STDIN_FILENO) == -1 ||
		    dup2(pong[1], STDOUT_FILENO) == -1)
			_exit(126);
		(void)syscall(SYS_close_range, 3, ~0U, 0);
		c_kid_main();
	}
	ATF_REQUIRE(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	ATF_REQUIRE_MSG(k->pid > 0, "pdfork: %s", strerror(errno));
	ATF_REQUIRE(close(ping[0]) == 0);
	ATF_REQUIRE(close(pong[1]) == 0);
	k->ping = ping[1];
	k->pong = pong[0];
	k->w = t_watch(k->pid);
}

/* Ping the child: 'P', 'S' (a signal reached it), or -1 (it is dead). */
static int
c_kid_ask(const struct c_kid *k)
{

	ATF_REQUIRE(write(k->ping, "p", 1) == 1);
	return (t_read_byte(k->pong));
}

/* Tell the child to exit with C_CODE. */
static void
c_kid_exit(const struct c_kid *k)
{

	ATF_REQUIRE(write(k->ping, "x", 1) == 1);
}

/* The child runs, untouched by any signal, while what holds copies. */
static void
c_kid_running(const struct c_kid *k, const char *what)
{
	int c;

	ATF_CHECK_MSG(t_alive(k->w), "%s: pid %d died", what, (int)k->pid);
	c = c_kid_ask(k);
	ATF_CHECK_MSG(c == 'P', "%s: pid %d %s", what, (int)k->pid,
	    c == 'S' ? "was sent SIGUSR1" : "does not answer");
}

/* Close our ends of the child's pipes (it is gone, or goes at EOF). */
static void
c_kid_pipes(const struct c_kid *k)
{

	ATF_REQUIRE(close(k->ping) == 0);
	ATF_REQUIRE(close(k->pong) == 0);
}

/* Without failing on the way: the child dies, every descriptor closed. */
static void
c_kid_dispose(struct c_kid *k)
{

	(void)pdkill(k->fd, SIGKILL);
	(void)close(k->fd);
	t_expect_death(k->w);
	c_kid_pipes(k);
}

/*
 * poll(2)'s revents of fd: at once, or with hup, once POLLHUP has come
 * (within T_LONG_MS; events 0 waits for it alone, as t_reaped_within()
 * does).  No ATF macro.
 */
static short
c_revents(int fd, bool hup)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = 0;
	pfd.revents = 0;
	if (hup && poll(&pfd, 1, T_LONG_MS) == -1)
		return (POLLNVAL);
	pfd.events = POLLIN | POLLRDHUP;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == -1)
		return (POLLNVAL);
	return (pfd.revents);
}

/*
 * While the child runs, the descriptor is neither readable nor hung up
 * (pdfork(3), "Waiting for the exit"), and pdwait has nothing yet.
 */
static void
c_quiet(int fd, const char *what)
{
	short re;
	int st;

	re = c_revents(fd, false);
	ATF_CHECK_MSG((re & (POLLIN | POLLHUP | POLLERR)) == 0, "%s: the "
	    "owner's copy polls %#x (POLLIN %d, POLLHUP %d, POLLERR %d) while "
	    "the child runs", what, (unsigned)re, (re & POLLIN) != 0,
	    (re & POLLHUP) != 0, (re & POLLERR) != 0);
	ATF_CHECK_MSG(pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) == -1 &&
	    errno == EAGAIN, "%s: pdwait WNOHANG while the child runs: %s",
	    what, strerror(errno));
}

/*
 * 2. Look-alikes, and what each call must say of one.  No ATF macro:
 * forked processes call c_refused().
 */

/*
 * What a non-descriptor gets: EBADF from pdgetpid and pdkill, EINVAL from
 * pdwait and pddupfd (pdfork(3), ERRORS).  0, else a bit per call that
 * said anything else.
 */
static int
c_refused(int fd)
{
	pid_t pid;
	int bad, nfd, st;

	bad = 0;
	if (pdgetpid(fd, &pid) != -1 || errno != EBADF)
		bad |= 0x01;
	if (pdkill(fd, 0) != -1 || errno != EBADF)
		bad |= 0x02;
	if (pdkill(fd, SIGUSR1) != -1 || errno != EBADF)
		bad |= 0x04;
	if (pdkill(fd, SIGKILL) != -1 || errno != EBADF)
		bad |= 0x08;
	if (pdwait(fd, &st, WEXITED | WNOHANG, NULL, NULL) != -1 ||
	    errno != EINVAL)
		bad |= 0x10;
	if ((nfd = pddupfd(fd, 0, 0)) != -1 || errno != EINVAL) {
		if (nfd != -1)
			(void)close(nfd);
		bad |= 0x20;
	}
	return (bad);
}

/* Bind s to the abstract name of n bytes (which may hold a NUL). */
static int
c_bind(int s, const char *name, size_t n)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, name, n);
	return (bind(s, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)));
}

/*
 * The name of descriptor fd, as an attacker reads it in /proc/net/unix:
 * the guardian's key and the descriptor's id.
 */
static void
c_name(int fd, uint64_t *keyp, uint64_t *idp)
{
	struct sockaddr_un sa;
	socklen_t len;

	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	ATF_REQUIRE(getsockname(fd, (struct sockaddr *)&sa, &len) == 0);
	ATF_REQUIRE(len < sizeof(sa) && sa.sun_path[0] == '\0');
	ATF_REQUIRE_MSG(sscanf(sa.sun_path + 1, PG_NAME_PREFIX "%16" SCNx64
	    ":%16" SCNx64, keyp, idp) == 2, "not a descriptor's name: %s",
	    sa.sun_path + 1);
}

static uint64_t
c_random(void)
{
	uint64_t v;

	ATF_REQUIRE(getrandom(&v, sizeof(v), 0) == sizeof(v));
	return (v);
}

struct c_look {
	char	what[80];
	int	fd;		/* The look-alike. */
	int	peer;		/* Its socketpair's other end, or -1. */
};

/*
 * The exact name of descriptor real, on a socket of a new network
 * namespace (abstract names are per namespace), made by a forked helper
 * and passed back: a look-alike whose getsockname(2) is the real one's
 * byte for byte.  -1 if this process may not make a namespace.
 */
static int
c_netns_twin(int real)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, s[2], t;
	pid_t pid;
	char c;

	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	ATF_REQUIRE(getsockname(real, (struct sockaddr *)&sa, &len) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) == -1 ||
		    (t = socket(AF_UNIX, SOCK_SEQPACKET, 0)) == -1 ||
		    bind(t, (struct sockaddr *)&sa, len) == -1 ||
		    t_sendfd(s[1], "n", 1, t) == -1)
			_exit(1);
		_exit(0);
	}
	fd = -1;
	if (t_reap(pid) == 0)
		ATF_REQUIRE(t_recvfd(s[0], &c, 1, &fd, MSG_DONTWAIT |
		    MSG_CMSG_CLOEXEC) == 1 && fd != -1);
	t_close_pipe(s);
	return (fd);
}

/*
 * Look-alikes of descriptor real: AF_UNIX sockets of every type (and one
 * end of a SEQPACKET socketpair, as a descriptor is) bound to names of a
 * descriptor's format: random, with the real guardian's key, with the
 * real key and id (followed by a NUL, since the real one holds the exact
 * name; a parser that stops at the NUL reads the real name), and the
 * exact name in another network namespace.
 */
static int
c_looks(int real, struct c_look *l)
{
	static const struct { int type; bool pair; const char *name; } t[] = {
		{ SOCK_SEQPACKET, false, "SEQPACKET" },
		{ SOCK_STREAM, false, "STREAM" },
		{ SOCK_DGRAM, false, "DGRAM" },
		{ SOCK_SEQPACKET, true, "SEQPACKET pair" },
	};
	static const char *kinds[] = { "random key and id", "real key",
	    "real key and id, NUL" };
	char name[108];
	uint64_t id, key;
	size_t i, k, n;
	int fds[2], nl;

	c_name(real, &key, &id);
	nl = 0;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			if (k == 0)
				n = (size_t)snprintf(name, sizeof(name),
				    PG_NAME_FMT, c_random(), c_random());
			else if (k == 1)
				n = (size_t)snprintf(name, sizeof(name),
				    PG_NAME_FMT, key, c_random());
			else {
				n = (size_t)snprintf(name, sizeof(name),
				    PG_NAME_FMT "%cx%zu", key, id, '\0', i);
			}
			fds[1] = -1;
			if (t[i].pair)
				ATF_REQUIRE(socketpair(AF_UNIX, t[i].type |
				    SOCK_CLOEXEC, 0, fds) == 0);
			else
				ATF_REQUIRE((fds[0] = socket(AF_UNIX,
				    t[i].type | SOCK_CLOEXEC, 0)) >= 0);
			ATF_REQUIRE_MSG(c_bind(fds[0], name, n) == 0,
			    "bind: %s", strerror(errno));
			snprintf(l[nl].what, sizeof(l[nl].what), "%s, %s",
			    t[i].name, kinds[k]);
			l[nl].fd = fds[0];
			l[nl++].peer = fds[1];
		}
	if ((l[nl].fd = c_netns_twin(real)) != -1) {
		snprintf(l[nl].what, sizeof(l[nl].what), "SEQPACKET, the "
		    "exact name in another network namespace");
		l[nl++].peer = -1;
	} else
		fprintf(stderr, "no network namespace: its look-alike left "
		    "out\n");
	ATF_REQUIRE(nl <= C_NLOOK);
	return (nl);
}

static void
c_looks_close(struct c_look *l, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		ATF_REQUIRE(close(l[i].fd) == 0);
		if (l[i].peer != -1)
			ATF_REQUIRE(close(l[i].peer) == 0);
	}
}

/*
 * 3. The holder: a forked process that drops every descriptor it
 * inherited, receives copies over a socket, and does as told; with nobody,
 * as uid T_NOBODY.  No ATF macro on its side.
 */

enum c_op {
	C_WRITE, C_SEND, C_READ, C_RECV, C_SHUT_RD, C_SHUT_WR, C_SHUT_RDWR,
	C_SELFSEND, C_PARK, C_PEEKOFF, C_FILTER, C_NONBLOCK
};

static const char *const c_opname[] = {
	"write(2)", "send(2)", "non-blocking read(2)", "recv(MSG_DONTWAIT)",
	"shutdown(SHUT_RD)", "shutdown(SHUT_WR)", "shutdown(SHUT_RDWR)",
	"sendmsg of itself to itself (SCM_RIGHTS)",
	"itself sent to its own name (SCM_RIGHTS)", "SO_PEEK_OFF",
	"SO_ATTACH_FILTER drop-all and SO_LOCK_FILTER", "fcntl(O_NONBLOCK)",
};

struct c_cmd {
	char	cc_op;		/* 'r'ecv, 'm'anipulate, 'k'ill, 'w'ait,
				   'g'etpid, 'f'orgery, 'R'ead, 'c'lose. */
	int	cc_slot;
	int	cc_arg;
};

struct c_ans {
	int	ca_rc;
	int	ca_errno;
	int	ca_status;
	int	ca_revents;
	pid_t	ca_pid;
};

struct c_holder {
	pid_t	pid;
	int	s;		/* Our end of its command socket. */
};

/* Send fd to the socket's own peer, carried by the socket: 0 or errno. */
static int
c_selfsend(int fd)
{

	return (t_sendfd(fd, "s", 1, fd) == 0 ? 0 : errno);
}

/*
 * Send fd, from a fresh socket of each type, to fd's own name (connected
 * first, and for a datagram socket also unconnected): were it accepted, fd
 * would sit in its own receive queue.  0 if any send went through, else
 * the last errno.
 */
static int
c_park(int fd)
{
	static const int types[] = { SOCK_SEQPACKET, SOCK_STREAM, SOCK_DGRAM };
	struct sockaddr_un sa;
	socklen_t len;
	size_t i;
	int error, s;

	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == -1)
		return (errno);
	error = 0;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if ((s = socket(AF_UNIX, types[i] | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0)) == -1)
			return (errno);
		if (connect(s, (struct sockaddr *)&sa, len) == 0 &&
		    t_sendfd(s, "s", 1, fd) == 0)
			error = -1;
		else if (error != -1)
			error = errno;
		if (types[i] == SOCK_DGRAM && error != -1) {
			(void)close(s);
			if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC,
			    0)) == -1)
				return (errno);
			if ((error = t_sendfd_to(s, &sa, len, "s", 1, fd,
			    MSG_DONTWAIT) == 0 ? 0 : errno) == 0)
				error = -1;
		}
		(void)close(s);
	}
	return (error == -1 ? 0 : error);
}

/*
 * Do op to a copy of a descriptor: 0 if the call worked, else its errno.
 * The result is for the messages: what counts is what the other holders
 * see afterwards.  No ATF macro.
 */
static int
c_manipulate(int fd, enum c_op op)
{
	struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { 1, drop };
	struct sigaction sa, old;
	int fl, one, r, zero;
	char buf[64];

	one = 1;
	zero = 0;
	r = 0;
	switch (op) {
	case C_WRITE:
		/* A descriptor's peer takes nothing: EPIPE, and SIGPIPE. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		if (sigaction(SIGPIPE, &sa, &old) == -1)
			return (errno);
		r = write(fd, "w", 1) == 1 ? 0 : errno;
		(void)sigaction(SIGPIPE, &old, NULL);
		return (r);
	case C_SEND:
		return (send(fd, "s", 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 ?
		    0 : errno);
	case C_READ:
		if ((fl = fcntl(fd, F_GETFL)) == -1 ||
		    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
			return (errno);
		r = read(fd, buf, sizeof(buf)) >= 0 ? 0 : errno;
		(void)fcntl(fd, F_SETFL, fl);
		return (r);
	case C_RECV:
		return (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0 ? 0 :
		    errno);
	case C_SHUT_RD:
		return (shutdown(fd, SHUT_RD) == 0 ? 0 : errno);
	case C_SHUT_WR:
		return (shutdown(fd, SHUT_WR) == 0 ? 0 : errno);
	case C_SHUT_RDWR:
		return (shutdown(fd, SHUT_RDWR) == 0 ? 0 : errno);
	case C_SELFSEND:
		return (c_selfsend(fd));
	case C_PARK:
		return (c_park(fd));
	case C_PEEKOFF:
		return (setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &zero,
		    sizeof(zero)) == 0 ? 0 : errno);
	case C_FILTER:
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		    sizeof(prog)) == -1 || setsockopt(fd, SOL_SOCKET,
		    SO_LOCK_FILTER, &one, sizeof(one)) == -1)
			return (errno);
		return (0);
	case C_NONBLOCK:
		if ((fl = fcntl(fd, F_GETFL)) == -1 ||
		    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
			return (errno);
		return (0);
	}
	return (EINVAL);
}

/* Close every descriptor from 3 up but keep. */
static void
c_close_from3(int keep)
{

	if (keep > 3)
		(void)syscall(SYS_close_range, 3, keep - 1, 0);
	(void)syscall(SYS_close_range, keep + 1, ~0U, 0);
}

static void __attribute__((noreturn))
c_holder_main(int s, bool nobody)
{
	struct c_cmd cmd;
	struct c_ans ans;
	int fds[C_NSLOT], i, nfd;
	char buf[64];

	alarm(T_LIFE);
	c_close_from3(s);
	if (nobody && !t_become_nobody())
		_exit(255);
	for (i = 0; i < C_NSLOT; i++)
		fds[i] = -1;
	for (;;) {
		if (t_recvfd(s, &cmd, sizeof(cmd), &nfd, MSG_CMSG_CLOEXEC) !=
		    (ssize_t)sizeof(cmd) || cmd.cc_slot < 0 ||
		    cmd.cc_slot >= C_NSLOT)
			_exit(0);
		memset(&ans, 0, sizeof(ans));
		i = cmd.cc_slot;
		errno = 0;
		switch (cmd.cc_op) {
		case 'r':
			if (fds[i] != -1)
				(void)close(fds[i]);
			fds[i] = nfd;
			ans.ca_rc = (nfd == -1) ? -1 : 0;
			break;
		case 'm':
			ans.ca_rc = c_manipulate(fds[i], (enum c_op)cmd.cc_arg);
			break;
		case 'k':
			ans.ca_rc = pdkill(fds[i], cmd.cc_arg);
			break;
		case 'w':
			ans.ca_rc = pdwait(fds[i], &ans.ca_status, WEXITED,
			    NULL, NULL);
			ans.ca_errno = errno;
			ans.ca_revents = c_revents(fds[i], true);
			break;
		case 'g':
			ans.ca_rc = pdgetpid(fds[i], &ans.ca_pid);
			break;
		case 'f':
			ans.ca_rc = c_refused(fds[i]);
			break;
		case 'R':
			/* After the exit: a read(2) takes nothing away. */
			ans.ca_rc = (int)read(fds[i], buf, sizeof(buf));
			break;
		case 'c':
			ans.ca_rc = close(fds[i]);
			fds[i] = -1;
			break;
		default:
			_exit(2);
		}
		if (cmd.cc_op != 'w')
			ans.ca_errno = errno;
		if (send(s, &ans, sizeof(ans), MSG_NOSIGNAL) != sizeof(ans))
			_exit(3);
	}
}

static void
c_holder_start(struct c_holder *h, bool nobody)
{
	int s[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s) == 0);
	ATF_REQUIRE((h->pid = fork()) >= 0);
	if (h->pid == 0)
		c_holder_main(s[1], nobody);
	ATF_REQUIRE(close(s[1]) == 0);
	h->s = s[0];
}

/* The holder's answer to op on slot (fd along with it unless -1). */
static struct c_ans
c_holder_do(struct c_holder *h, char op, int slot, int arg, int fd)
{
	struct c_cmd cmd;
	struct c_ans ans;
	struct pollfd pfd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.cc_op = op;
	cmd.cc_slot = slot;
	cmd.cc_arg = arg;
	ATF_REQUIRE(t_sendfd(h->s, &cmd, sizeof(cmd), fd) == 0);
	pfd.fd = h->s;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) != 1 ||
	    recv(h->s, &ans, sizeof(ans), 0) != (ssize_t)sizeof(ans)) {
		/* Hung in a call, or died: the case fails either way. */
		(void)kill(h->pid, SIGKILL);
		(void)t_reap(h->pid);
		atf_tc_fail("the holder did not answer '%c' within %d ms",
		    op, T_LONG_MS);
	}
	return (ans);
}

/* The holder closes what it holds and exits. */
static void
c_holder_end(struct c_holder *h)
{

	ATF_REQUIRE(close(h->s) == 0);
	ATF_CHECK_EQ(t_reap(h->pid), 0);
}

/*
 * 4. Forgery.
 */

/* The owner: every look-alike refused, the child untouched. */
T_TC(forgery__owner, "the owner refuses look-alikes of its descriptor")
{
	struct c_look l[C_NLOOK];
	struct c_kid k;
	pid_t pid;
	int bad, i, n;

	c_kid_start(&k);
	n = c_looks(k.fd, l);
	for (i = 0; i < n; i++) {
		bad = c_refused(l[i].fd);
		ATF_CHECK_MSG(bad == 0, "look-alike %s: accepted, failure "
		    "bits %#x", l[i].what, (unsigned)bad);
	}
	ATF_CHECK(pdgetpid(k.fd, &pid) == 0 && pid == k.pid);
	c_kid_running(&k, "after pdkill of every look-alike");
	c_quiet(k.fd, "after the look-alikes");
	c_looks_close(l, n);
	c_kid_dispose(&k);
}

/*
 * A fork(2) copy of the owner, which holds copies of everything: the
 * look-alikes refused, the real descriptor working.
 */
T_TC(forgery__fork_copy, "a fork copy refuses look-alikes, takes the real")
{
	struct c_look l[C_NLOOK];
	int i, n, p[2], res[C_NLOOK + 1];
	struct c_kid k;
	pid_t f, pid;

	c_kid_start(&k);
	n = c_looks(k.fd, l);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE((f = fork()) >= 0);
	if (f == 0) {
		for (i = 0; i < n; i++)
			res[i] = c_refused(l[i].fd);
		res[n] = (pdgetpid(k.fd, &pid) == 0 && pid == k.pid ? 0 : 1) |
		    (pdkill(k.fd, 0) == 0 ? 0 : 2);
		t_child_write(p[1], res, sizeof(res));
		_exit(0);
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_CHECK_EQ(t_reap(f), 0);
	ATF_REQUIRE(read(p[0], res, sizeof(res)) == (ssize_t)sizeof(res));
	ATF_REQUIRE(close(p[0]) == 0);
	for (i = 0; i < n; i++)
		ATF_CHECK_EQ_MSG(res[i], 0, "fork copy, look-alike %s: "
		    "accepted, failure bits %#x", l[i].what, (unsigned)res[i]);
	ATF_CHECK_EQ_MSG(res[n], 0, "fork copy, the real descriptor: "
	    "failure bits %#x (1 pdgetpid, 2 pdkill 0)", (unsigned)res[n]);
	c_kid_running(&k, "after the fork copy's pdkill of look-alikes");
	c_looks_close(l, n);
	c_kid_dispose(&k);
}

/*
 * Nobody receives every look-alike and the real descriptor by SCM_RIGHTS:
 * the look-alikes are refused, the real one is recognised (its pid; EPERM,
 * not EBADF, for a signal nobody may not send).
 */
T_TC(forgery__nobody, "a receiver as nobody refuses look-alikes")
{
	struct c_look l[C_NLOOK];
	struct c_holder h;
	struct c_ans a;
	struct c_kid k;
	int i, n;

	if (geteuid() != 0)
		atf_tc_skip("needs root to run a holder as nobody");
	c_kid_start(&k);
	n = c_looks(k.fd, l);
	c_holder_start(&h, true);
	a = c_holder_do(&h, 'r', 0, 0, k.fd);
	ATF_REQUIRE_EQ(a.ca_rc, 0);
	for (i = 0; i < n; i++) {
		a = c_holder_do(&h, 'r', 1, 0, l[i].fd);
		ATF_REQUIRE_EQ(a.ca_rc, 0);
		a = c_holder_do(&h, 'f', 1, 0, -1);
		ATF_CHECK_EQ_MSG(a.ca_rc, 0, "nobody, look-alike %s: "
		    "accepted, failure bits %#x", l[i].what,
		    (unsigned)a.ca_rc);
	}
	a = c_holder_do(&h, 'g', 0, 0, -1);
	ATF_CHECK_MSG(a.ca_rc == 0 && a.ca_pid == k.pid, "nobody's pdgetpid "
	    "of the real descriptor: %d (%s), pid %d for %d", a.ca_rc,
	    strerror(a.ca_errno), (int)a.ca_pid, (int)k.pid);
	a = c_holder_do(&h, 'k', 0, 0, -1);
	ATF_CHECK_MSG(a.ca_rc == -1 && a.ca_errno == EPERM, "nobody's "
	    "pdkill 0 of root's real descriptor: %d (%s), expected EPERM",
	    a.ca_rc, strerror(a.ca_errno));
	c_holder_end(&h);
	c_kid_running(&k, "after nobody's pdkill of look-alikes");
	c_looks_close(l, n);
	c_kid_dispose(&k);
}

/*
 * 5. Other kinds of descriptor: a pidfd of the very child (anybody can
 * open one), pipes, a regular file, sockets (one connected to the
 * guardian's own listener), an eventfd.
 */
T_TC(not_a_descriptor, "pidfds, pipes, files, sockets are refused")
{
	struct sockaddr_un sa;
	uint64_t id, key;
	int bad, fds[10], i, n, p[2], s[2];
	struct c_kid k;
	socklen_t len;

	c_kid_start(&k);
	c_name(k.fd, &key, &id);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    s) == 0);
	n = 0;
	fds[n++] = t_watch(k.pid);
	fds[n++] = p[0];
	fds[n++] = p[1];
	fds[n++] = t_regular_file();
	fds[n++] = s[0];
	ATF_REQUIRE((fds[n++] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0)) >= 0);
	ATF_REQUIRE((fds[n] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0)) >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
	    PG_LISTEN_FMT, key));
	ATF_REQUIRE_MSG(connect(fds[n++], (struct sockaddr *)&sa, len) == 0,
	    "connect to the guardian's listener: %s", strerror(errno));
	ATF_REQUIRE((fds[n++] = eventfd(0, EFD_CLOEXEC)) >= 0);
	ATF_REQUIRE((fds[n++] = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0);
	for (i = 0; i < n; i++) {
		bad = c_refused(fds[i]);
		ATF_CHECK_MSG(bad == 0, "descriptor %d of %d (0: a pidfd of "
		    "the child): accepted, failure bits %#x", i, n,
		    (unsigned)bad);
	}
	c_kid_running(&k, "after pdkill of other descriptors");
	for (i = 0; i < n; i++)
		ATF_REQUIRE(close(fds[i]) == 0);
	ATF_REQUIRE(close(s[1]) == 0);
	c_kid_dispose(&k);
}

/*
 * 6. A descriptor's number reused: the real descriptor at N is closed
 * (after pdwait, or killing its child), and a look-alike bound to the very
 * name it had is put at N.  Nothing cached by number or name may let it
 * pass.
 */
static void
c_reuse(bool waited)
{
	struct sockaddr_un sa;
	struct c_kid k, other;
	socklen_t len;
	int bad, fd, st;
	pid_t pid;

	c_kid_start(&other);	/* A live one, which pdkill must not hit. */
	c_kid_start(&k);
	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	ATF_REQUIRE(getsockname(k.fd, (struct sockaddr *)&sa, &len) == 0);
	/* Every call once on the real one, for any cache to fill. */
	ATF_REQUIRE(pdgetpid(k.fd, &pid) == 0 && pid == k.pid);
	ATF_REQUIRE(pdkill(k.fd, 0) == 0);
	ATF_REQUIRE(pdwait(k.fd, &st, WEXITED | WNOHANG, NULL, NULL) == -1 &&
	    errno == EAGAIN);
	if (waited) {
		c_kid_exit(&k);
		ATF_REQUIRE(pdwait(k.fd, &st, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == C_CODE);
	}
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);

	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0)) >= 0);
	ATF_REQUIRE_MSG(bind(fd, (struct sockaddr *)&sa, len) == 0,
	    "bind to the closed descriptor's name: %s", strerror(errno));
	ATF_REQUIRE(dup3(fd, k.fd, O_CLOEXEC) == k.fd);
	ATF_REQUIRE(close(fd) == 0);
	bad = c_refused(k.fd);
	ATF_CHECK_MSG(bad == 0, "a look-alike at the number and under the "
	    "name of a closed descriptor: accepted, failure bits %#x",
	    (unsigned)bad);
	ATF_REQUIRE(close(k.fd) == 0);
	c_kid_running(&other, "the other child");
	c_kid_dispose(&other);
}

T_TC(reuse__after_pdwait, "a look-alike at a waited descriptor's number")
{

	c_reuse(true);
}

T_TC(reuse__after_kill, "a look-alike at a killed descriptor's number")
{

	c_reuse(false);
}

/*
 * 7. A holder manipulates its copy.  Four rounds per manipulation: a dup
 * in the owner, then a holder process's copy received by SCM_RIGHTS; each
 * once to see the exit, once to see the last close.
 */

/* Every holder's status: the owner's, twice, and a poll of its copy. */
static void
c_owner_status(int fd, int sig, const char *what)
{
	short re;
	int i, st;

	for (i = 0; i < 2; i++) {
		st = -1;
		ATF_CHECK_MSG(pdwait(fd, &st, WEXITED, NULL, NULL) == 0,
		    "%s: pdwait %d: %s", what, i, strerror(errno));
		if (sig == 0)
			ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) ==
			    C_CODE, "%s: pdwait %d: status %#x, expected exit "
			    "%d", what, i, (unsigned)st, C_CODE);
		else
			ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig,
			    "%s: pdwait %d: status %#x, expected signal %d",
			    what, i, (unsigned)st, sig);
	}
	re = c_revents(fd, true);
	ATF_CHECK_MSG((re & POLLHUP) != 0 && (re & (POLLERR | POLLNVAL)) == 0,
	    "%s: after the exit the copy polls %#x", what, (unsigned)re);
}

static void
c_holder_status(struct c_holder *h, int slot, int sig, const char *what)
{
	struct c_ans a;
	int i;

	for (i = 0; i < 2; i++) {
		a = c_holder_do(h, 'w', slot, 0, -1);
		ATF_CHECK_MSG(a.ca_rc == 0, "%s: the holder's pdwait %d: %s",
		    what, i, strerror(a.ca_errno));
		if (sig == 0)
			ATF_CHECK_MSG(WIFEXITED(a.ca_status) &&
			    WEXITSTATUS(a.ca_status) == C_CODE, "%s: the "
			    "holder's pdwait %d: status %#x, expected exit %d",
			    what, i, (unsigned)a.ca_status, C_CODE);
		else
			ATF_CHECK_MSG(WIFSIGNALED(a.ca_status) &&
			    WTERMSIG(a.ca_status) == sig, "%s: the holder's "
			    "pdwait %d: status %#x, expected signal %d", what,
			    i, (unsigned)a.ca_status, sig);
		ATF_CHECK_MSG((a.ca_revents & POLLHUP) != 0 &&
		    (a.ca_revents & (POLLERR | POLLNVAL)) == 0, "%s: after "
		    "the exit the holder's copy polls %#x", what,
		    (unsigned)a.ca_revents);
	}
}

/* A dup in the owner manipulated; the child exits by itself. */
static void
c_dup_exit(enum c_op op)
{
	char what[128];
	struct c_kid k;
	int d, r;

	c_kid_start(&k);
	ATF_REQUIRE((d = fcntl(k.fd, F_DUPFD_CLOEXEC, 0)) >= 0);
	r = c_manipulate(d, op);
	snprintf(what, sizeof(what), "a dup, %s (%s), exit", c_opname[op],
	    strerror(r));
	t_close_barrier();	/* The guardian has seen what it did. */
	c_kid_running(&k, what);
	c_quiet(k.fd, what);
	c_kid_exit(&k);
	ATF_CHECK_MSG(t_dead_within(k.w, T_LONG_MS), "%s: no exit", what);
	c_owner_status(k.fd, 0, what);
	c_owner_status(d, 0, what);
	ATF_REQUIRE(close(d) == 0);
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

/*
 * A dup in the owner manipulated, then closed: the owner's copy keeps the
 * child; the owner's close kills it.
 */
static void
c_dup_close(enum c_op op)
{
	char what[128];
	struct c_kid k;
	int d, r;

	c_kid_start(&k);
	ATF_REQUIRE((d = fcntl(k.fd, F_DUPFD_CLOEXEC, 0)) >= 0);
	r = c_manipulate(d, op);
	snprintf(what, sizeof(what), "a dup, %s (%s), closed first",
	    c_opname[op], strerror(r));
	ATF_REQUIRE(close(d) == 0);
	t_close_barrier();
	c_kid_running(&k, what);
	c_quiet(k.fd, what);
	ATF_REQUIRE(close(k.fd) == 0);
	ATF_CHECK_MSG(t_dead_within(k.w, T_LONG_MS), "%s: pid %d survived "
	    "the close of every copy by %d ms", what, (int)k.pid, T_LONG_MS);
	if (!t_dead_within(k.w, 0))
		(void)syscall(SYS_pidfd_send_signal, k.w, SIGKILL, NULL, 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

/*
 * A holder's copy manipulated; the holder pdkills the child through it
 * with SIGTERM, and both holders see the status.
 */
static void
c_holder_kill(enum c_op op)
{
	struct c_holder h;
	char what[128];
	struct c_ans a;
	struct c_kid k;

	c_kid_start(&k);
	c_holder_start(&h, false);
	ATF_REQUIRE_EQ(c_holder_do(&h, 'r', 0, 0, k.fd).ca_rc, 0);
	a = c_holder_do(&h, 'm', 0, (int)op, -1);
	snprintf(what, sizeof(what), "a holder's copy, %s (%s), pdkill",
	    c_opname[op], strerror(a.ca_rc));
	t_close_barrier();
	c_kid_running(&k, what);
	c_quiet(k.fd, what);
	a = c_holder_do(&h, 'k', 0, SIGTERM, -1);
	ATF_CHECK_MSG(a.ca_rc == 0, "%s: pdkill through the manipulated "
	    "copy: %s", what, strerror(a.ca_errno));
	if (a.ca_rc != 0)
		ATF_REQUIRE(pdkill(k.fd, SIGTERM) == 0);
	c_holder_status(&h, 0, SIGTERM, what);
	c_owner_status(k.fd, SIGTERM, what);
	c_holder_end(&h);
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

/*
 * A holder's copy manipulated; the owner closes first: the holder's copy
 * keeps the child; the holder's close kills it.
 */
static void
c_holder_close(enum c_op op)
{
	struct c_holder h;
	char what[128];
	struct c_ans a;
	struct c_kid k;

	c_kid_start(&k);
	c_holder_start(&h, false);
	ATF_REQUIRE_EQ(c_holder_do(&h, 'r', 0, 0, k.fd).ca_rc, 0);
	a = c_holder_do(&h, 'm', 0, (int)op, -1);
	snprintf(what, sizeof(what), "a holder's copy, %s (%s), owner closes "
	    "first", c_opname[op], strerror(a.ca_rc));
	t_close_barrier();
	c_kid_running(&k, what);
	c_quiet(k.fd, what);
	ATF_REQUIRE(close(k.fd) == 0);
	t_close_barrier();
	c_kid_running(&k, what);
	ATF_REQUIRE_EQ(c_holder_do(&h, 'c', 0, 0, -1).ca_rc, 0);
	ATF_CHECK_MSG(t_dead_within(k.w, T_LONG_MS), "%s: pid %d survived "
	    "the close of every copy by %d ms", what, (int)k.pid, T_LONG_MS);
	if (!t_dead_within(k.w, 0))
		(void)syscall(SYS_pidfd_send_signal, k.w, SIGKILL, NULL, 0);
	c_holder_end(&h);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

static void
c_manip(enum c_op op)
{

	c_dup_exit(op);
	c_dup_close(op);
	c_holder_kill(op);
	c_holder_close(op);
}

#define	C_MANIP_TC(name, op, descr)					\
	T_TC(manip__##name, "a holder's " descr " changes nothing for "	\
	    "the others")						\
	{								\
									\
		c_manip(op);						\
	}

C_MANIP_TC(write, C_WRITE, "write(2)")
C_MANIP_TC(send, C_SEND, "send(2)")
C_MANIP_TC(read, C_READ, "non-blocking read(2)")
C_MANIP_TC(recv, C_RECV, "recv(MSG_DONTWAIT)")
/*
 * A known limitation: shutdown(2) acts on the socket that every copy
 * shares, and its SHUT_RD sets the same bit the guardian's shutdown of its
 * end sets at the exit.  Every copy then polls POLLIN | POLLHUP while the
 * child runs; pdwait, pdkill and close-kill are not fooled (pdfork(3),
 * CAVEATS; NOTES 3.1).  Expected to fail until the descriptor is an object
 * its holders cannot shut down.
 */
#define	C_MANIP_TC_SHUTDOWN(name, op, descr)				\
	T_TC(manip__##name, "a holder's " descr " changes nothing for "	\
	    "the others")						\
	{								\
									\
		atf_tc_expect_fail("a holder's shutdown(SHUT_RD) makes "	\
		    "every copy poll as exited (pdfork(3) CAVEATS)");	\
		c_manip(op);						\
	}

C_MANIP_TC_SHUTDOWN(shut_rd, C_SHUT_RD, "shutdown(SHUT_RD)")
C_MANIP_TC(shut_wr, C_SHUT_WR, "shutdown(SHUT_WR)")
C_MANIP_TC_SHUTDOWN(shut_rdwr, C_SHUT_RDWR, "shutdown(SHUT_RDWR)")
C_MANIP_TC(selfsend, C_SELFSEND, "sendmsg of the descriptor into itself")
C_MANIP_TC(park, C_PARK, "send of the descriptor to its own name")
C_MANIP_TC(peek_off, C_PEEKOFF, "SO_PEEK_OFF")
C_MANIP_TC(filter, C_FILTER, "drop-all socket filter, locked")
C_MANIP_TC(nonblock, C_NONBLOCK, "fcntl(O_NONBLOCK)")

/*
 * The self-send once more with nothing to hide behind: the only copy is
 * sent into itself (and to its own name), then closed.  A copy parked in
 * the socket's own queue would keep the child alive for ever.
 */
T_TC(selfsend__only_copy, "the only copy sent into itself, then closed")
{
	struct c_kid k;
	int e1, e2;

	c_kid_start(&k);
	e1 = c_selfsend(k.fd);
	e2 = c_park(k.fd);
	t_close_barrier();
	c_kid_running(&k, "sent into itself");
	ATF_REQUIRE(close(k.fd) == 0);
	ATF_CHECK_MSG(t_dead_within(k.w, T_LONG_MS), "pid %d survived the "
	    "close of its only descriptor, sent into itself (sendmsg: %s, "
	    "to its name: %s)", (int)k.pid, strerror(e1), strerror(e2));
	if (!t_dead_within(k.w, 0))
		(void)syscall(SYS_pidfd_send_signal, k.w, SIGKILL, NULL, 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

/*
 * 8. Reading takes nothing away: read(2) by every holder, before the exit
 * (non-blocking) and after it, then pdwait twice in each holder.
 */
T_TC(read__keeps_status, "read(2) never consumes the exit status")
{
	struct c_holder h;
	struct c_ans a;
	struct c_kid k;
	char buf[64];
	ssize_t n;

	c_kid_start(&k);
	c_holder_start(&h, false);
	ATF_REQUIRE_EQ(c_holder_do(&h, 'r', 0, 0, k.fd).ca_rc, 0);
	(void)c_holder_do(&h, 'm', 0, C_READ, -1);
	(void)c_manipulate(k.fd, C_READ);
	c_kid_running(&k, "read before the exit");
	c_kid_exit(&k);
	t_wait_reaped(k.fd);
	a = c_holder_do(&h, 'R', 0, 0, -1);
	ATF_CHECK_MSG(a.ca_rc >= 0, "the holder's read after the exit: %s",
	    strerror(a.ca_errno));
	n = read(k.fd, buf, sizeof(buf));
	ATF_CHECK_MSG(n >= 0, "the owner's read after the exit: %s",
	    strerror(errno));
	c_holder_status(&h, 0, 0, "after read(2)");
	c_owner_status(k.fd, 0, "after read(2)");
	a = c_holder_do(&h, 'R', 0, 0, -1);
	c_holder_status(&h, 0, 0, "after pdwait and read(2) again");
	c_holder_end(&h);
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

/*
 * 9. Nobody holds root's descriptor and shuts its copy down (and tries
 * every other manipulation): root's child lives on until root closes.
 */
T_TC(nobody_shutdown, "nobody's shutdown of its copy kills nothing")
{
	static const enum c_op ops[] = { C_SHUT_RDWR, C_SHUT_RD, C_SHUT_WR,
	    C_WRITE, C_SELFSEND, C_PARK, C_FILTER, C_NONBLOCK };
	struct c_holder h;
	struct c_ans a;
	struct c_kid k;
	size_t i;

	if (geteuid() != 0)
		atf_tc_skip("needs root to run a holder as nobody");
	c_kid_start(&k);
	c_holder_start(&h, true);
	ATF_REQUIRE_EQ(c_holder_do(&h, 'r', 0, 0, k.fd).ca_rc, 0);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		a = c_holder_do(&h, 'm', 0, (int)ops[i], -1);
		fprintf(stderr, "nobody's %s: %s\n", c_opname[ops[i]],
		    strerror(a.ca_rc));
		t_close_barrier();
		c_kid_running(&k, c_opname[ops[i]]);
	}
	ATF_REQUIRE_EQ(c_holder_do(&h, 'c', 0, 0, -1).ca_rc, 0);
	c_holder_end(&h);
	t_close_barrier();
	c_kid_running(&k, "nobody has closed its shut-down copy");
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	c_kid_pipes(&k);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, forgery__owner);
	ATF_TP_ADD_TC(tp, forgery__fork_copy);
	ATF_TP_ADD_TC(tp, forgery__nobody);
	ATF_TP_ADD_TC(tp, not_a_descriptor);
	ATF_TP_ADD_TC(tp, reuse__after_pdwait);
	ATF_TP_ADD_TC(tp, reuse__after_kill);
	ATF_TP_ADD_TC(tp, manip__write);
	ATF_TP_ADD_TC(tp, manip__send);
	ATF_TP_ADD_TC(tp, manip__read);
	ATF_TP_ADD_TC(tp, manip__recv);
	ATF_TP_ADD_TC(tp, manip__shut_rd);
	ATF_TP_ADD_TC(tp, manip__shut_wr);
	ATF_TP_ADD_TC(tp, manip__shut_rdwr);
	ATF_TP_ADD_TC(tp, manip__selfsend);
	ATF_TP_ADD_TC(tp, manip__park);
	ATF_TP_ADD_TC(tp, manip__peek_off);
	ATF_TP_ADD_TC(tp, manip__filter);
	ATF_TP_ADD_TC(tp, manip__nonblock);
	ATF_TP_ADD_TC(tp, selfsend__only_copy);
	ATF_TP_ADD_TC(tp, read__keeps_status);
	ATF_TP_ADD_TC(tp, nobody_shutdown);
	return (atf_no_error());
}
