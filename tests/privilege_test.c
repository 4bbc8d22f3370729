/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Attacks across users and on the guardian's protocol: a process of the
 * owner's user or of another user racing a guardian's start for its
 * control socket; an owner that sends its guardian garbage; a holder that
 * hangs up before its answer (SIGPIPE); a child that changes its uids or
 * execs a set-uid program; what another user learns from /proc.
 *
 * Code that runs in a forked process never uses an ATF macro: it reports
 * through a pipe or its exit status, and the test checks that.
 */

#include <sys/prctl.h>
#include <sys/procdesc.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	P_OWNER		65533	/* An owner's uid: neither root nor nobody. */
#define	P_NRACE		50	/* Guardian starts raced, per case (scaled). */
#define	P_RACE_PIDS	6	/* Pids after the owner's tried: its reaper
				   thread, sentry, guardian, child. */
#define	P_RACE_FDS	8	/* Descriptors tried in each: the control
				   socket is 3 or just above in both. */
#define	P_MANY_FDS	253	/* SCM_MAX_FD: most one message carries. */
#define	P_ROOT_HELPER	"privilege_test-root-helper"
#define	P_READY_FD	3	/* Where the set-uid child says it is ready. */

/*
 * Helpers, usable in forked processes (no ATF macro) unless they say
 * otherwise.
 */

/* Every uid and gid, and no supplementary group: uid's. */
static bool
p_become(uid_t uid)
{

	return (setgroups(0, NULL) == 0 && setresgid(uid, uid, uid) == 0 &&
	    setresuid(uid, uid, uid) == 0);
}

/* The parent of pid from /proc/PID/stat, or -1. */
static pid_t
p_ppid(pid_t pid)
{
	char path[64], buf[512], *r;
	FILE *fp;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	r = fgets(buf, sizeof(buf), fp) != NULL ? strrchr(buf, ')') : NULL;
	fclose(fp);
	if (r == NULL || sscanf(r + 2, "%*c %d", &ppid) != 1)
		return (-1);
	return ((pid_t)ppid);
}

/* A descriptor's name: its guardian's key and its id; false if not one. */
static bool
p_name(int fd, uint64_t *keyp, uint64_t *idp)
{
	struct sockaddr_un sa;
	char name[sizeof(sa.sun_path)];
	socklen_t len;
	int n;

	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == -1 ||
	    len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
	    sa.sun_path[0] != '\0')
		return (false);
	n = (int)(len - offsetof(struct sockaddr_un, sun_path) - 1);
	snprintf(name, sizeof(name), "%.*s", n, sa.sun_path + 1);
	return (n == (int)strlen(PG_NAME_PREFIX "0123456789abcdef:"
	    "0123456789abcdef") && sscanf(name, PG_NAME_PREFIX "%16" SCNx64
	    ":%16" SCNx64, keyp, idp) == 2);
}

/* Connect to abstract name, whose length is len: the socket, or -1. */
static int
p_connect_name(const char *name, size_t len)
{
	struct sockaddr_un sa;
	int s, error;

	if ((s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, name, len);
	if (connect(s, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct
	    sockaddr_un, sun_path) + 1 + len)) == -1) {
		error = errno;
		close(s);
		errno = error;
		return (-1);
	}
	return (s);
}

/* A connection to the listener of the guardian with key, or -1. */
static int
p_connect(uint64_t key)
{
	char name[64];
	int n;

	n = snprintf(name, sizeof(name), PG_LISTEN_FMT, key);
	return (p_connect_name(name, (size_t)n));
}

/* Send a PG_QUERY with flags and descriptor fd (-1: none) on s. */
static int
p_ask(int s, uint32_t flags, int fd)
{
	struct pg_msg m;

	memset(&m, 0, sizeof(m));
	m.pm_op = PG_QUERY;
	m.pm_flags = flags;
	return (t_sendfd(s, &m, sizeof(m), fd));
}

/*
 * The guardian's answer on s within T_LONG_MS, its pidfd (if any) in
 * *fdp: true if a whole PG_INFO came.
 */
static bool
p_answer(int s, struct pg_msg *m, int *fdp)
{
	struct pollfd pfd;

	*fdp = -1;
	pfd.fd = s;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) != 1)
		return (false);
	memset(m, 0, sizeof(*m));
	return (t_recvfd(s, m, sizeof(*m), fdp, MSG_CMSG_CLOEXEC) ==
	    (ssize_t)sizeof(*m) && m->pm_op == PG_INFO);
}

/*
 * sendmsg len bytes of buf and nfds descriptors (up to P_MANY_FDS) on s,
 * never waiting: sendmsg's result.
 */
static ssize_t
p_sendmsg(int s, const void *buf, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(P_MANY_FDS * sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm.hdr.cmsg_level = SOL_SOCKET;
		cm.hdr.cmsg_type = SCM_RIGHTS;
		cm.hdr.cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(&cm.hdr), fds, (size_t)nfds * sizeof(int));
	}
	/* The system call: musl's sendmsg refuses control data over 1 KiB. */
	return (syscall(SYS_sendmsg, s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT));
}

/*
 * Open descriptors of the guardian g, once it has handled everything sent
 * to it before (ATF macros).  A query without a descriptor is answered
 * (EBADF) in an epoll batch after the one that accepted it, which came
 * after everything that was pending when we connected; the guardian's
 * end of our own connection, which it may not have closed yet, is not
 * counted.
 */
static int
p_gfds(pid_t g, uint64_t key)
{
	char path[300], link[64], want[64];
	struct pg_msg m;
	struct dirent *de;
	struct stat st;
	int fd, n, s;
	DIR *d;

	ATF_REQUIRE_MSG((s = p_connect(key)) != -1, "connect to the "
	    "guardian's listener: %s", strerror(errno));
	ATF_REQUIRE(p_ask(s, 0, -1) == 0);
	ATF_REQUIRE_MSG(p_answer(s, &m, &fd), "the guardian did not answer");
	ATF_REQUIRE(fd == -1 && m.pm_error == EBADF);
	ATF_REQUIRE(fstat(s, &st) == 0);
	snprintf(want, sizeof(want), "socket:[%lu]",
	    (unsigned long)t_peer_ino(st.st_ino));
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)g);
	ATF_REQUIRE_MSG((d = opendir(path)) != NULL, "%s: %s", path,
	    strerror(errno));
	n = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)g,
		    de->d_name);
		memset(link, 0, sizeof(link));
		if (readlink(path, link, sizeof(link) - 1) > 0 &&
		    strcmp(link, want) != 0)
			n++;
	}
	closedir(d);
	ATF_REQUIRE(close(s) == 0);
	return (n);
}

/*
 * 1: the guardian's start.  Its control socket lives in three processes
 * for a moment: the owner (for good), the sentry (a raw clone of the
 * owner, until it has cloned the guardian and closed everything) and the
 * guardian (fd 3, from before its exec).  The sentry and the guardian
 * before its exec are as dumpable as the owner; after the exec the
 * guardian runs a copy of its program that it cannot read, which the
 * kernel makes non-dumpable from the exec on, and then makes itself so
 * (lib/guardian_start.c, NOTES 6.1).  So whoever cannot ptrace the owner
 * never gets a handle on the socket from the other two either.
 */
struct p_race {
	int	hits;		/* Handles taken from the sentry or guardian. */
	int	seen;		/* Processes of the start tried at all. */
	char	ok;		/* The owner's report: 'o' its pdfork worked. */
	char	what[200];	/* The first hit. */
};

/*
 * The owner of one start: uid ouid, dumpable unless nodump (an owner that
 * keeps its own user out; the change of uid made it so, which is undone
 * otherwise, as for a process that started as ouid), 'r' on rdy; on go,
 * its first pdfork (and so its guardian's start); its result on done;
 * then exit, which ends that guardian.
 */
static void __attribute__((noreturn))
p_race_owner(uid_t ouid, bool nodump, int rdy, int go, int done)
{
	pid_t pid;
	char c;
	int fd;

	alarm(T_LIFE);
	if (!p_become(ouid) ||
	    prctl(PR_SET_DUMPABLE, nodump ? 0 : 1, 0, 0, 0) == -1) {
		t_child_write(rdy, "e", 1);
		_exit(1);
	}
	t_child_write(rdy, "r", 1);
	if (t_read_within(go, &c, 1, T_LONG_MS) != 1)
		_exit(2);
	c = 'f';
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(0);
	if (pid > 0 && pdwait(fd, NULL, WEXITED, NULL, NULL) == 0 &&
	    close(fd) == 0)
		c = 'o';
	t_child_write(done, &c, 1);
	_exit(0);
}

/*
 * Everything the attacker tries on pid, a process of owner's start, if it
 * is one (the sentry, the guardian, the new child, which holds the
 * control socket until it is guarded): pidfd_getfd(2) of its first
 * descriptors, ptrace's access, an open of /proc/PID/fd/3.  *kind
 * caches what pid is: 0 unknown, 1 a process of the start (the owner's
 * child or grandchild), -1 another.
 */
static void
p_try(pid_t owner, pid_t pid, int *kind, struct p_race *r)
{
	struct iovec local, remote;
	char path[64], what[128], c;
	socklen_t len;
	int fd, nfd, pfd, type;
	pid_t pp;

	if (*kind == -1 ||
	    (pfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return;
	if (*kind == 0) {
		pp = p_ppid(pid);
		*kind = (pp == owner || (pp > 0 && p_ppid(pp) == owner)) ? 1 :
		    -1;
		if (*kind == 1)
			r->seen++;
	}
	what[0] = '\0';
	for (fd = 0; *kind == 1 && fd < P_RACE_FDS; fd++) {
		if ((nfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0)) == -1)
			continue;
		len = sizeof(type);
		type = 0;
		(void)getsockopt(nfd, SOL_SOCKET, SO_TYPE, &type, &len);
		snprintf(what, sizeof(what), "pidfd_getfd of fd %d%s", fd,
		    type == SOCK_SEQPACKET ? " (a SOCK_SEQPACKET socket)" : "");
		close(nfd);
		break;
	}
	/* EFAULT, not EPERM: the right to ptrace it, stopping nothing. */
	local.iov_base = &c;
	local.iov_len = 1;
	remote.iov_base = NULL;
	remote.iov_len = 1;
	if (*kind == 1 && what[0] == '\0' &&
	    process_vm_readv(pid, &local, 1, &remote, 1, 0) == -1 &&
	    errno == EFAULT)
		snprintf(what, sizeof(what), "process_vm_readv (ptrace "
		    "access)");
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, PG_CTL_FD);
	if (*kind == 1 && what[0] == '\0' &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		close(fd);
		snprintf(what, sizeof(what), "open of %s", path);
	}
	if (what[0] != '\0' && r->hits++ == 0)
		snprintf(r->what, sizeof(r->what), "%s, on pid %d (%s of "
		    "the owner)", what, (int)pid, p_ppid(pid) == owner ?
		    "child" : "grandchild");
	close(pfd);
}

/*
 * The attacker of one start: forks the owner (so that it is its parent,
 * which Yama's ptrace_scope 1 allows to trace), becomes auid, lets the
 * owner start its guardian and tries the pids after the owner's until
 * the owner is done, then once more.  Its p_race goes to res.  Being the
 * owner's parent is no help to another uid: ptrace needs its uid too.
 */
static void __attribute__((noreturn))
p_race_attacker(uid_t auid, uid_t ouid, bool nodump, int res)
{
	int kind[P_RACE_PIDS + 1], rdy[2], go[2], done[2], i, pass;
	struct pollfd pfd;
	struct p_race r;
	pid_t o;
	char c;

	alarm(T_LIFE);
	memset(&r, 0, sizeof(r));
	memset(kind, 0, sizeof(kind));
	if (pipe2(rdy, O_CLOEXEC) == -1 || pipe2(go, O_CLOEXEC) == -1 ||
	    pipe2(done, O_CLOEXEC) == -1 || (o = fork()) == -1)
		_exit(1);
	if (o == 0) {
		close(res);
		p_race_owner(ouid, nodump, rdy[1], go[0], done[1]);
	}
	close(rdy[1]);
	close(go[0]);
	close(done[1]);
	if (!p_become(auid) || t_read_within(rdy[0], &c, 1, T_LONG_MS) != 1 ||
	    c != 'r')
		_exit(2);
	t_child_write(go[1], "g", 1);
	pfd.fd = done[0];
	pfd.events = POLLIN;
	for (pass = 0; pass < 2; ) {
		for (i = 1; i <= P_RACE_PIDS; i++)
			p_try(o, o + i, &kind[i], &r);
		if (pass > 0 || poll(&pfd, 1, 0) != 0)
			pass++;
	}
	if (t_read_within(done[0], &r.ok, 1, T_LONG_MS) != 1)
		r.ok = '-';
	(void)waitpid(o, NULL, 0);
	t_child_write(res, &r, sizeof(r));
	_exit(0);
}

/* P_NRACE starts, each raced by an attacker of uid auid (ATF macros). */
static void
p_race(uid_t auid, uid_t ouid, bool nodump)
{
	int hits, i, n, nok, res[2], seen;
	struct p_race r;
	char first[sizeof(r.what)];
	pid_t a;

	if (geteuid() != 0)
		atf_tc_skip("needs root to run an owner and an attacker as "
		    "other users");
	hits = seen = nok = 0;
	first[0] = '\0';
	n = t_scaled(P_NRACE);
	for (i = 0; i < n; i++) {
		ATF_REQUIRE(pipe2(res, O_CLOEXEC) == 0);
		ATF_REQUIRE((a = fork()) >= 0);
		if (a == 0) {
			close(res[0]);
			p_race_attacker(auid, ouid, nodump, res[1]);
		}
		ATF_REQUIRE(close(res[1]) == 0);
		ATF_REQUIRE_MSG(t_read_within(res[0], &r, sizeof(r),
		    T_LONG_MS) == (ssize_t)sizeof(r), "start %d: the "
		    "attacker did not report", i);
		ATF_REQUIRE(close(res[0]) == 0);
		ATF_REQUIRE_EQ(t_reap(a), 0);
		if (r.ok == 'o')
			nok++;
		seen += r.seen;
		if (r.hits > 0 && hits == 0)
			snprintf(first, sizeof(first), "%s", r.what);
		hits += r.hits;
	}
	fprintf(stderr, "%d starts, %d worked, %d processes of the starts "
	    "tried, %d handles taken\n", n, nok, seen, hits);
	ATF_CHECK_MSG(nok == n, "only %d of %d owners could pdfork",
	    nok, n);
	ATF_CHECK_MSG(seen > 0, "the attacker never found a sentry or "
	    "guardian to try (pids not sequential?)");
	ATF_CHECK_MSG(hits == 0, "uid %u took %d handle(s) on the sentry or "
	    "guardian of uid %u's owner%s; first: %s", (unsigned int)auid,
	    hits, (unsigned int)ouid, nodump ? " (not dumpable)" : "", first);
}

T_TC(start_race__other_uid,
    "nobody gets no handle on another user's guardian as it starts")
{

	p_race(T_NOBODY, P_OWNER, false);
}

/*
 * The owner's own user, where the owner is not dumpable: it cannot ptrace
 * the owner, and must not get in through the sentry or the guardian.
 * (With a dumpable owner it can: it could take the owner's own end of the
 * socket anyway, NOTES 6.1.)
 */
T_TC(start_race__same_uid_nondumpable,
    "the owner's user gets no handle on the guardian of an owner that is "
    "not dumpable as it starts")
{

	p_race(P_OWNER, P_OWNER, true);
}

/*
 * 2: an owner that sends its guardian garbage on the control socket.  The
 * guardian must take none of it for a message: stay alive, keep guarding,
 * close every descriptor that came, and never report an exit that did not
 * happen.
 */
struct p_kid {
	int		fd;	/* Its descriptor. */
	int		w;	/* A pidfd, to watch it. */
	pid_t		pid;
	uint64_t	id;	/* Its descriptor's id. */
};

/* Each garbage message, by index; NULL past the last. */
static const char *const p_junk_names[] = {
	"an empty message",
	"one byte",
	"PG_GUARD one byte short, with A, B and a pidfd",
	"PG_GUARD one byte too long, with A, B and a pidfd",
	"a 4096-byte PG_STATUS of a running child: a fake exit",
	"pm_op 0 with a descriptor",
	"pm_op PG_HELLO with a descriptor",
	"pm_op PG_ACK with a descriptor",
	"pm_op PG_CLOSED of a running child's id, with a descriptor",
	"pm_op PG_QUERY with a descriptor",
	"pm_op PG_INFO with a descriptor",
	"pm_op 0xffffffff with a descriptor",
	"PG_GUARD without descriptors",
	"PG_GUARD | PG_CHILD without descriptors",
	"PG_GUARD | PG_CHILD with 4 descriptors",
	"PG_GUARD with 4 descriptors",
	"PG_GUARD | PG_CHILD with 5 descriptors",
	"PG_GUARD with a pipe as A and B",
	"PG_GUARD with A, B and a pipe as the pidfd",
	"PG_GUARD with A, B, a pidfd and 250 more descriptors",
	"PG_STATUS with 253 descriptors",
	"PG_STATUS of an unknown id",
	"PG_STATUS of a running child: a fake exit 77",
	"PG_STATUS of a running child: a fake SIGKILL, with a descriptor",
	NULL
};

/* Whether junk i tells the guardian that kid k exited. */
static bool
p_junk_fakes_exit(int i)
{

	return (i == 4 || i == 22 || i == 23);
}

/*
 * Send junk i on the control socket s, about kid k.  Every descriptor we
 * make for it is closed again here: whatever the guardian keeps, it keeps
 * as a copy (ATF macros).
 */
static void
p_junk(int i, int s, const struct p_kid *k)
{
	int fds[P_MANY_FDS], ab[2], go[2], p[2], n, nfds;
	char big[4096];
	struct pg_msg m;
	size_t len;
	bool pipes;

	memset(&m, 0, sizeof(m));
	memset(big, 0, sizeof(big));
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    ab) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	/* A, B, the kid's pidfd (our watch): a registration's; more. */
	fds[0] = ab[0];
	fds[1] = ab[1];
	fds[2] = k->w;
	fds[3] = go[1];
	fds[4] = p[0];
	nfds = 0;
	len = sizeof(m);
	pipes = false;
	m.pm_id = k->id;
	m.pm_pid = k->pid;
	switch (i) {
	case 0:
		len = 0;
		break;
	case 1:
		len = 1;
		break;
	case 2:
	case 3:
		m.pm_op = PG_GUARD;
		m.pm_flags = PG_CHILD;
		len = (i == 2) ? sizeof(m) - 1 : sizeof(m) + 1;
		nfds = 3;
		break;
	case 4:
		m.pm_op = PG_STATUS;
		m.pm_code = CLD_EXITED;
		m.pm_status = 77;
		len = sizeof(big);
		break;
	case 5: case 6: case 7: case 8: case 9: case 10: case 11:
		m.pm_op = (const uint32_t[]){ 0, PG_HELLO, PG_ACK, PG_CLOSED,
		    PG_QUERY, PG_INFO, UINT32_MAX }[i - 5];
		fds[0] = p[1];
		nfds = 1;
		break;
	case 12:
	case 13:
		m.pm_op = PG_GUARD;
		m.pm_flags = (i == 13) ? PG_CHILD : 0;
		break;
	case 14:
	case 15:
	case 16:
		m.pm_op = PG_GUARD;
		m.pm_flags = (i == 15) ? 0 : PG_CHILD;
		nfds = (i == 16) ? 5 : 4;
		break;
	case 17:
		m.pm_op = PG_GUARD;
		m.pm_id = k->id + 1;
		fds[0] = p[0];
		fds[1] = p[1];
		nfds = 3;
		break;
	case 18:
		/* A pipe's read end: no event while its write end is ours. */
		m.pm_op = PG_GUARD;
		m.pm_id = k->id + 1;
		fds[2] = p[0];
		nfds = 3;
		pipes = true;
		break;
	case 19:
	case 20:
		m.pm_op = (i == 19) ? PG_GUARD : PG_STATUS;
		m.pm_flags = 0;
		for (n = (i == 19) ? 3 : 0; n < P_MANY_FDS; n++)
			fds[n] = p[n % 2];
		nfds = P_MANY_FDS;
		break;
	case 21:
	case 22:
	case 23:
		m.pm_op = PG_STATUS;
		m.pm_id = (i == 21) ? ~k->id : k->id;
		m.pm_code = (i == 23) ? CLD_KILLED : CLD_EXITED;
		m.pm_status = (i == 23) ? SIGKILL : 77;
		if (i == 23) {
			fds[0] = p[1];
			nfds = 1;
		}
		break;
	default:
		atf_tc_fail("no junk %d", i);
	}
	memcpy(big, &m, sizeof(m));
	ATF_REQUIRE_MSG(p_sendmsg(s, big, len, fds, nfds) == (ssize_t)len,
	    "junk %d (%s): sendmsg: %s", i, p_junk_names[i], strerror(errno));
	if (pipes) {
		/*
		 * The guardian may take this for a process (its check is
		 * pidfd_getfd's EPERM, which a pipe does not raise); then
		 * the last close of our A lets it go.  Say what it did.
		 */
		n = t_read_within(ab[0], &m, sizeof(m), T_LONG_MS);
		fprintf(stderr, "%s: %s\n", p_junk_names[i], n !=
		    (ssize_t)sizeof(m) ? "no answer" : m.pm_error == 0 ?
		    "guarded (PG_ACK 0)" : strerror(m.pm_error));
	}
	ATF_REQUIRE(close(ab[0]) == 0);
	ATF_REQUIRE(close(ab[1]) == 0);
	t_close_pipe(go);
	t_close_pipe(p);
}

/* The kid's descriptor reports no exit: no POLLIN or POLLHUP, EAGAIN. */
static void
p_no_exit(const struct p_kid *k, const char *what)
{
	struct pollfd pfd;
	int status;

	pfd.fd = k->fd;
	pfd.events = POLLIN;
	ATF_CHECK_MSG(poll(&pfd, 1, 0) == 0, "%s: the running child's "
	    "descriptor polls %#x", what, (unsigned int)pfd.revents);
	ATF_CHECK_MSG(pdwait(k->fd, &status, WEXITED | WNOHANG, NULL, NULL) ==
	    -1 && errno == EAGAIN, "%s: pdwait WNOHANG of the running child "
	    "does not fail with EAGAIN", what);
}

/* What the guardian tells a holder of the kid's descriptor (ATF macros). */
static uint32_t
p_info(const struct p_kid *k, uint64_t key, uint32_t flags, struct pg_msg *m)
{
	int fd, s;

	ATF_REQUIRE((s = p_connect(key)) != -1);
	ATF_REQUIRE(p_ask(s, flags, k->fd) == 0);
	ATF_REQUIRE_MSG(p_answer(s, m, &fd), "no answer to a query");
	ATF_REQUIRE(close(s) == 0);
	if (fd != -1)
		ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE_MSG(m->pm_error == 0, "query: %s",
	    strerror(m->pm_error));
	return (m->pm_state);
}

/* A new kid, guarded, that pauses (ATF macros). */
static void
p_kid(struct p_kid *k)
{
	uint64_t key;

	ATF_REQUIRE_MSG((k->pid = t_pdfork_clean(&k->fd, 0)) > 0,
	    "pdfork: %s", strerror(errno));
	k->w = t_watch(k->pid);
	ATF_REQUIRE(p_name(k->fd, &key, &k->id));
}

/*
 * Each junk message in turn, with a child guarded: afterwards the
 * guardian is the same process and alive, the child runs and its
 * descriptor reports no exit (a faked one neither: the real exit is
 * what pdwait and holders see), the last close still kills it, and the
 * guardian has as many descriptors as before.
 */
T_TC(malformed__owner_junk,
    "garbage from the owner neither kills, blinds nor leaks the guardian")
{
	struct pg_msg m;
	struct p_kid k;
	uint64_t key, id;
	int base, i, n, s, status, wg;
	pid_t g;

	ATF_REQUIRE_MSG((s = t_guardian_sock()) != -1, "no control socket");
	ATF_REQUIRE_MSG((g = t_guardian_of(getpid())) > 0, "no guardian");
	wg = t_watch(g);
	p_kid(&k);
	ATF_REQUIRE(p_name(k.fd, &key, &id));
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	base = p_gfds(g, key);
	for (i = 0; p_junk_names[i] != NULL; i++) {
		p_kid(&k);
		p_junk(i, s, &k);
		n = p_gfds(g, key);	/* The junk has been read. */
		ATF_REQUIRE_MSG(t_alive(wg) && t_guardian_of(getpid()) == g,
		    "%s: the guardian %d died", p_junk_names[i], (int)g);
		ATF_CHECK_MSG(t_alive(k.w), "%s: the child died",
		    p_junk_names[i]);
		p_no_exit(&k, p_junk_names[i]);
		ATF_CHECK_MSG(n == base + 3, "%s: the guardian has %d "
		    "descriptors with one child, %d with none",
		    p_junk_names[i], n, base);
		if (p_junk_fakes_exit(i)) {
			ATF_CHECK_MSG((p_info(&k, key, 0, &m) & (PG_EXITED |
			    PG_RECORDED)) == 0, "%s: holders are told of an "
			    "exit (state %#x)", p_junk_names[i], m.pm_state);
			ATF_REQUIRE(pdkill(k.fd, SIGTERM) == 0);
			ATF_REQUIRE(pdwait(k.fd, &status, WEXITED, NULL,
			    NULL) == 0);
			ATF_CHECK_MSG(WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGTERM, "%s: pdwait says "
			    "%#x, not the real SIGTERM", p_junk_names[i],
			    status);
			(void)p_info(&k, key, PG_WAIT, &m);
			ATF_CHECK_MSG(m.pm_code == CLD_KILLED &&
			    m.pm_status == SIGTERM, "%s: holders are told "
			    "code %d status %d, not the real SIGTERM",
			    p_junk_names[i], m.pm_code, m.pm_status);
		}
		ATF_REQUIRE(close(k.fd) == 0);
		ATF_CHECK_MSG(t_dead_within(k.w, T_LONG_MS), "%s: the child "
		    "survived its last close", p_junk_names[i]);
		t_kill_wait(k.w);
		n = p_gfds(g, key);
		ATF_CHECK_MSG(n == base, "%s: the guardian has %d "
		    "descriptors, %d before", p_junk_names[i], n, base);
		base = n;	/* Each leak is reported once, by its cause. */
	}
	ATF_REQUIRE(t_alive(wg));
	ATF_REQUIRE(close(wg) == 0);
}

/*
 * A holder's garbage on the guardian's listener, which anybody can
 * connect to: each item on a connection of its own.  Expected: an answer
 * without a pidfd (EBADF), the connection closed, every descriptor that
 * came closed.
 */
static const char *const p_qjunk_names[] = {
	"an empty message",
	"one byte",
	"pm_op PG_INFO with the descriptor",
	"PG_QUERY without descriptors",
	"PG_QUERY with the descriptor twice",
	"PG_QUERY with the descriptor and 252 more",
	"PG_QUERY with a pipe",
	"PG_QUERY with a socket that is no descriptor",
	"PG_QUERY one byte too long, with the descriptor",
	NULL
};

/* Send junk query i, about descriptor pd, on s (ATF macros). */
static void
p_qjunk(int i, int s, int pd)
{
	char big[sizeof(struct pg_msg) + 1];
	int fds[P_MANY_FDS], p[2], sv[2], n, nfds;
	struct pg_msg m;
	size_t len;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	memset(&m, 0, sizeof(m));
	memset(big, 0, sizeof(big));
	m.pm_op = PG_QUERY;
	len = sizeof(m);
	fds[0] = pd;
	nfds = 1;
	switch (i) {
	case 0:
	case 1:
		len = (size_t)i;
		nfds = 0;
		break;
	case 2:
		m.pm_op = PG_INFO;
		break;
	case 3:
		nfds = 0;
		break;
	case 4:
	case 5:
		nfds = (i == 4) ? 2 : P_MANY_FDS;
		for (n = 1; n < nfds; n++)
			fds[n] = (n == 1) ? pd : p[n % 2];
		break;
	case 6:
		fds[0] = p[1];
		break;
	case 7:
		fds[0] = sv[0];
		break;
	case 8:
		len = sizeof(big);
		break;
	default:
		atf_tc_fail("no junk query %d", i);
	}
	memcpy(big, &m, sizeof(m));
	ATF_REQUIRE_MSG(p_sendmsg(s, big, len, fds, nfds) == (ssize_t)len,
	    "junk query %d (%s): sendmsg: %s", i, p_qjunk_names[i],
	    strerror(errno));
	t_close_pipe(p);
	ATF_REQUIRE(close(sv[0]) == 0);
	ATF_REQUIRE(close(sv[1]) == 0);
}

T_TC(malformed__holder_junk,
    "garbage on the guardian's listener neither kills nor leaks it")
{
	struct pg_msg m;
	struct p_kid k;
	uint64_t key, id;
	int base, fd, i, n, s, wg;
	pid_t g;

	ATF_REQUIRE_MSG((g = t_guardian_of(getpid())) > 0, "no guardian");
	wg = t_watch(g);
	p_kid(&k);
	ATF_REQUIRE(p_name(k.fd, &key, &id));
	base = p_gfds(g, key);
	for (i = 0; p_qjunk_names[i] != NULL; i++) {
		ATF_REQUIRE((s = p_connect(key)) != -1);
		p_qjunk(i, s, k.fd);
		if (p_answer(s, &m, &fd)) {
			fprintf(stderr, "%s: PG_INFO, %s%s\n", p_qjunk_names[i],
			    m.pm_error == 0 ? "answered" :
			    strerror(m.pm_error), fd != -1 ? ", a pidfd" : "");
			ATF_CHECK_MSG(m.pm_error == 0 || fd == -1, "%s: %s, "
			    "and a descriptor", p_qjunk_names[i],
			    strerror(m.pm_error));
			if (fd != -1)
				ATF_REQUIRE(close(fd) == 0);
		} else
			fprintf(stderr, "%s: no answer\n", p_qjunk_names[i]);
		ATF_REQUIRE(close(s) == 0);
		n = p_gfds(g, key);
		ATF_REQUIRE_MSG(t_alive(wg), "%s: the guardian died",
		    p_qjunk_names[i]);
		ATF_CHECK_MSG(t_alive(k.w), "%s: the child died",
		    p_qjunk_names[i]);
		ATF_CHECK_MSG(n == base, "%s: the guardian has %d "
		    "descriptors, %d before", p_qjunk_names[i], n, base);
		base = n;
	}
	p_no_exit(&k, "after the junk queries");
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	ATF_REQUIRE(t_alive(wg));
	ATF_REQUIRE(close(wg) == 0);
}

/*
 * Hold pid in a ptrace stop (root only: the guardian is not dumpable).
 * Not SIGSTOP: the sentry kills a guardian that stops, and the kernel
 * tells the sentry of a group stop, not of a tracer's stop.
 */
static void
p_hold(pid_t pid)
{
	int status;

	ATF_REQUIRE_MSG(ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0,
	    "PTRACE_SEIZE: %s", strerror(errno));
	ATF_REQUIRE(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) == 0);
	ATF_REQUIRE(waitpid(pid, &status, __WALL) == pid &&
	    WIFSTOPPED(status));
}

static void
p_release(pid_t pid)
{

	ATF_REQUIRE(ptrace(PTRACE_DETACH, pid, NULL, NULL) == 0);
}

/*
 * 3: SIGPIPE.  The guardian ignores it and sends with MSG_NOSIGNAL:
 * replies to a holder that hung up fail with EPIPE, never SIGPIPE, on
 * SOCK_SEQPACKET, but are tried too, in case a socket type changes.  The
 * guardian is held while the holder queries and hangs up, so that the
 * hang-up surely comes first.
 */
T_TC(sigpipe__hang_ups,
    "a holder gone before its answer does not kill the guardian")
{
	struct p_kid k, v;
	uint64_t key, id;
	int i, s, wg;
	pid_t g;

	if (geteuid() != 0)
		atf_tc_skip("needs root to hold the guardian with ptrace");
	ATF_REQUIRE_MSG((g = t_guardian_of(getpid())) > 0, "no guardian");
	wg = t_watch(g);
	p_kid(&k);
	ATF_REQUIRE(p_name(k.fd, &key, &id));
	for (i = 0; i < 3; i++) {
		p_kid(&v);
		p_hold(g);
		ATF_REQUIRE((s = p_connect(key)) != -1);
		/*
		 * 0: a plain query, answered at once.  1: PG_WAIT for a
		 * running child, dropped at the hang-up.  2: PG_WAIT for a
		 * child that exits meanwhile, answered at its record.
		 */
		ATF_REQUIRE(p_ask(s, i == 0 ? 0 : PG_WAIT, v.fd) == 0);
		ATF_REQUIRE(close(s) == 0);
		if (i == 2) {
			ATF_REQUIRE(pdkill(v.fd, SIGKILL) == 0);
			ATF_REQUIRE(t_dead_within(v.w, T_LONG_MS));
		}
		p_release(g);
		/* Twice: the first may be answered in the hang-up's batch. */
		(void)p_gfds(g, key);
		(void)p_gfds(g, key);
		ATF_REQUIRE_MSG(t_alive(wg), "query %d: the guardian died "
		    "when a holder hung up before its answer", i);
		ATF_CHECK_MSG(t_alive(k.w), "query %d: the guarded child "
		    "died", i);
		ATF_REQUIRE(close(v.fd) == 0);
		t_expect_death(v.w);
	}
	ATF_REQUIRE(close(k.fd) == 0);
	t_expect_death(k.w);
	ATF_CHECK_MSG(t_alive(wg), "the guardian died");
	ATF_REQUIRE(close(wg) == 0);
}

/*
 * 4: a child that changes its uids.  pdfork(3): "nor a change of user or
 * group ID in the child, nor the child's execution of a set-user-ID
 * program disarms the kill".  The guardian kills with its owner's uid,
 * through a pidfd, under kill(2)'s rules: the sender's real or effective
 * uid must be the target's real or saved uid.
 */

/* A pdfork child's uids once it is ready: its status line Uid:. */
static void
p_uids(pid_t pid, char *buf, size_t len)
{

	if (!t_proc_status(pid, "Uid:", buf, len))
		snprintf(buf, len, "(gone)");
}

/* Root's child becomes nobody through and through: root still kills. */
T_TC(setuid_child__root_owner,
    "root's child that becomes nobody still dies at the last close")
{
	char buf[256], c;
	int fd, rdy[2], w;
	pid_t pid;
	bool dead;

	if (geteuid() != 0)
		atf_tc_skip("needs root");
	ATF_REQUIRE(pipe2(rdy, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
	if (pid == 0) {
		t_child_write(rdy[1], p_become(T_NOBODY) ? "n" : "e", 1);
		(void)syscall(SYS_close_range, 3, ~0U, 0);
		t_pause();
	}
	w = t_watch(pid);
	ATF_REQUIRE(close(rdy[1]) == 0);
	ATF_REQUIRE(t_read_within(rdy[0], &c, 1, T_LONG_MS) == 1);
	ATF_REQUIRE(close(rdy[0]) == 0);
	ATF_REQUIRE_MSG(c == 'n', "the child could not become nobody");
	p_uids(pid, buf, sizeof(buf));
	ATF_REQUIRE(close(fd) == 0);
	dead = t_dead_within(w, T_LONG_MS);
	ATF_CHECK_MSG(dead, "the child (Uid: %s) survived its last close",
	    buf);
	t_kill_wait(w);
}

/*
 * A set-uid-root copy of prog in a new directory under /tmp, that
 * everyone may run; its path in path.  Skips if /tmp is mounted nosuid
 * (ATF macros).
 */
static void
p_setuid_copy(const char *prog, const char *name, char *path, size_t len,
    char *dir, size_t dlen)
{
	char buf[65536];
	struct statvfs sv;
	int in, out;
	ssize_t n;

	snprintf(dir, dlen, "/tmp/privilege_test.XXXXXX");
	ATF_REQUIRE(mkdtemp(dir) != NULL);
	ATF_REQUIRE(chmod(dir, 0755) == 0);
	ATF_REQUIRE(statvfs(dir, &sv) == 0);
	if ((sv.f_flag & ST_NOSUID) != 0) {
		(void)rmdir(dir);
		atf_tc_skip("/tmp is mounted nosuid");
	}
	snprintf(path, len, "%s/%s", dir, name);
	ATF_REQUIRE((in = open(prog, O_RDONLY | O_CLOEXEC)) >= 0);
	ATF_REQUIRE((out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0700)) >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ATF_REQUIRE(write(out, buf, (size_t)n) == n);
	ATF_REQUIRE(n == 0);
	ATF_REQUIRE(close(in) == 0);
	ATF_REQUIRE(close(out) == 0);
	ATF_REQUIRE(chown(path, 0, 0) == 0);
	ATF_REQUIRE(chmod(path, 04755) == 0);
}

/*
 * The set-uid helper, a copy of this program run as P_ROOT_HELPER: it
 * takes root for good, every uid, as su(1) and sudo(8) do, and pauses.
 * Runs before main, so before ATF.
 */
static void __attribute__((constructor))
p_root_helper(void)
{

	/* Not argv: musl passes a constructor no arguments. */
	if (program_invocation_name == NULL ||
	    strcmp(program_invocation_name, P_ROOT_HELPER) != 0)
		return;
	if (setresuid(0, 0, 0) == -1)
		_exit(3);
	t_child_write(P_READY_FD, "R", 1);
	(void)close(P_READY_FD);
	t_pause();
}

/*
 * The owner of a set-uid case, as nobody: pdforks a child that execs
 * path (argv[0] name; exe, the write end of a close-on-exec pipe, tells
 * the exec by its close; rdy, P_READY_FD in the program), reports the
 * child's pid on rep, closes the descriptor on the first byte on go and
 * exits on the second.
 */
static void __attribute__((noreturn))
p_setuid_owner(const char *path, const char *name, int exe, int rdy,
    int rep, int go)
{
	char *const argv[] = { (char *)name, (char *)"300", NULL };
	pid_t pid;
	char c;
	int fd;

	pid = -1;
	if (t_become_nobody() && (pid = pdfork(&fd, 0)) == 0) {
		alarm(T_LIFE);
		if (dup2(rdy, P_READY_FD) == -1)
			_exit(1);
		(void)execv(path, argv);
		c = (char)errno;
		t_child_write(exe, &c, 1);
		_exit(1);
	}
	alarm(T_LIFE);
	close(exe);
	close(rdy);
	t_child_write(rep, &pid, sizeof(pid));
	if (pid > 0 && read(go, &c, 1) == 1)
		close(fd);
	(void)read(go, &c, 1);
	_exit(0);
}

/*
 * Nobody's child execs a set-uid-root program (prog, copied), closes its
 * descriptor: whether the child died (ATF macros).  ready: the program
 * says when it is ready on P_READY_FD.  uids: the child's Uid: line then.
 */
static bool
p_setuid_exec(const char *prog, const char *name, bool ready, char *uids,
    size_t len)
{
	char path[PATH_MAX], dir[64], c;
	int exe[2], go[2], rdy[2], rep[2], w;
	pid_t o, pid;
	ssize_t n;
	bool dead;

	if (geteuid() != 0)
		atf_tc_skip("needs root to make a set-uid-root program");
	p_setuid_copy(prog, name, path, sizeof(path), dir, sizeof(dir));
	ATF_REQUIRE(pipe2(exe, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(rdy, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		close(exe[0]);
		close(rdy[0]);
		close(rep[0]);
		close(go[1]);
		p_setuid_owner(path, name, exe[1], rdy[1], rep[1], go[0]);
	}
	ATF_REQUIRE(close(exe[1]) == 0);
	ATF_REQUIRE(close(rdy[1]) == 0);
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(t_read_within(rep[0], &pid, sizeof(pid), T_LONG_MS) ==
	    (ssize_t)sizeof(pid));
	ATF_REQUIRE_MSG(pid > 0, "nobody could not pdfork");
	w = t_watch(pid);
	n = t_read_within(exe[0], &c, 1, T_LONG_MS);
	ATF_REQUIRE_MSG(n == 0, "the child did not exec %s: %s", path,
	    n == 1 ? strerror(c) : "no word");
	if (ready)
		ATF_REQUIRE_MSG(t_read_within(rdy[0], &c, 1, T_LONG_MS) == 1 &&
		    c == 'R', "%s did not get ready", path);
	p_uids(pid, uids, len);
	ATF_REQUIRE(write(go[1], "c", 1) == 1);	/* Close it. */
	dead = t_dead_within(w, T_LONG_MS);
	/* Root cleans up what the guardian could not. */
	t_kill_wait(w);
	ATF_REQUIRE(write(go[1], "x", 1) == 1);
	ATF_CHECK_EQ(t_reap(o), 0);
	ATF_REQUIRE(close(exe[0]) == 0);
	ATF_REQUIRE(close(rdy[0]) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
	ATF_REQUIRE(unlink(path) == 0);
	ATF_REQUIRE(rmdir(dir) == 0);
	return (dead);
}

/*
 * The common case, sleep(1) set-uid root: the real uid stays nobody,
 * which lets nobody's guardian kill it.
 */
T_TC(setuid_child__setuid_exec,
    "nobody's child running a set-uid-root program dies at the last close")
{
	char uids[256];
	bool dead;

	dead = p_setuid_exec("/bin/sleep", "sleep", false, uids,
	    sizeof(uids));
	ATF_CHECK_MSG(dead, "the set-uid child (Uid: %s) survived its last "
	    "close", uids);
}

/*
 * A set-uid-root program that takes root for good (setresuid(0, 0, 0), as
 * su(1) and sudo(8) do) leaves nobody's guardian no right to kill it:
 * kill(2)'s rules hold for a pidfd too.  FreeBSD's kernel kills it.  The
 * case asserts the kill, a known failure (pdfork(3) BUGS), so that it
 * says so the day the kill works (CLONE_PIDFD_AUTOKILL, NOTES 4.5).
 */
T_TC(setuid_child__setuid_root_for_good,
    "nobody's child that becomes root for good dies at the last close")
{
	char uids[256];
	bool dead;

	atf_tc_expect_fail("nobody's guardian may not SIGKILL a process "
	    "whose every uid is root (kill(2)): pdfork(3) BUGS");
	dead = p_setuid_exec("/proc/self/exe", P_ROOT_HELPER, true, uids,
	    sizeof(uids));
	ATF_CHECK_MSG(dead, "the child (Uid: %s) survived its last close",
	    uids);
}

/*
 * 5: what another user sees.  /proc/net/unix lists every descriptor's
 * name to everybody: "procdesc:<key>:<id>", random, never the pid.  The
 * guardian's and the child's private /proc entries are closed to nobody,
 * the names refuse connect(2), and the guardian's listener answers a
 * query without a descriptor with EBADF alone.
 */
static pid_t p_exp_g;		/* The guardian, for the helper. */

/*
 * 0 if name (no '@') has the form of a listener's or a descriptor's name
 * and none of its numbers is pid, in hex or in decimal digits; else 1
 * (a listener's), 2 (the form), 3 (a pid).
 */
static int
p_name_ok(const char *name, pid_t pid)
{
	char dec[16];
	uint64_t a, b, d;
	int n;

	n = (int)strlen(name);
	snprintf(dec, sizeof(dec), "%d", (int)pid);
	d = strtoull(dec, NULL, 16);
	if (strncmp(name, PG_LISTEN_PREFIX, strlen(PG_LISTEN_PREFIX)) == 0)
		return (n == (int)strlen(PG_LISTEN_PREFIX) + 16 &&
		    sscanf(name, PG_LISTEN_PREFIX "%16" SCNx64, &a) == 1 &&
		    a != (uint64_t)pid && a != d ? 0 : 1);
	if (n != (int)strlen(PG_NAME_PREFIX) + 33 ||
	    sscanf(name, PG_NAME_PREFIX "%16" SCNx64 ":%16" SCNx64, &a, &b) !=
	    2)
		return (2);
	return (a == (uint64_t)pid || b == (uint64_t)pid || a == d || b == d ?
	    3 : 0);
}

/*
 * As nobody, about root's child pid, whose descriptor fd we hold a copy
 * of (our fork's): 0, or the number of the step that failed.
 */
static int
p_exposure(int fd, pid_t pid)
{
	char line[512], path[300], mine[128], buf[64];
	struct sockaddr_un sa;
	uint64_t key, id;
	struct pg_msg m;
	socklen_t len;
	FILE *fp;
	int found, n, r, s, sv[2];
	DIR *d;

	/* Our copy's name, then no copy: nobody holds none. */
	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == -1 ||
	    !p_name(fd, &key, &id))
		return (10);
	snprintf(mine, sizeof(mine), "@%.*s", (int)(len -
	    offsetof(struct sockaddr_un, sun_path) - 1), sa.sun_path + 1);
	close(fd);
	if ((r = p_name_ok(mine + 1, pid)) != 0)
		return (10 + r);

	/* Every descriptor's name in /proc/net/unix: none says a pid. */
	if ((fp = fopen("/proc/net/unix", "re")) == NULL)
		return (20);
	found = 0;
	r = 0;
	while (r == 0 && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((n = (int)strlen(line)) < 2 ||
		    strrchr(line, ' ') == NULL ||
		    strncmp(strrchr(line, ' ') + 1, "@procdesc", 9) != 0)
			continue;
		if (strcmp(strrchr(line, ' ') + 1, mine) == 0)
			found++;
		r = p_name_ok(strrchr(line, ' ') + 2, pid);
	}
	fclose(fp);
	if (r != 0)
		return (20 + r);
	if (found != 1)
		return (25);

	/* Private entries: the child's and the guardian's. */
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) != NULL || errno != EACCES) {
		if (d != NULL)
			closedir(d);
		return (30);
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)p_exp_g);
	if ((d = opendir(path)) != NULL || errno != EACCES) {
		if (d != NULL)
			closedir(d);
		return (31);
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)p_exp_g);
	if ((s = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = (int)read(s, buf, sizeof(buf));
		close(s);
		if (n > 0)
			return (32);
	}

	/* The name refuses connect(2); the listener says EBADF. */
	if ((s = p_connect_name(mine + 1, strlen(mine + 1))) != -1 ||
	    errno != ECONNREFUSED)
		return (40);
	if ((s = p_connect(key)) == -1 || p_ask(s, PG_WAIT, -1) != 0 ||
	    !p_answer(s, &m, &n) || n != -1 || m.pm_error != EBADF ||
	    m.pm_pid != 0)
		return (41);
	close(s);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (s = p_connect(key)) == -1 || p_ask(s, 0, sv[0]) != 0 ||
	    !p_answer(s, &m, &n) || n != -1 || m.pm_error != EBADF ||
	    m.pm_pid != 0)
		return (42);
	close(s);
	close(sv[0]);
	close(sv[1]);
	return (0);
}

T_TC(proc_exposure__other_uid,
    "nobody learns no pid from a descriptor's name, and nothing private")
{
	char path[64], buf[256];
	uint64_t key, id;
	int fd, r, w;
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to run a helper as nobody");
	ATF_REQUIRE((pid = t_pdfork_clean(&fd, 0)) > 0);
	w = t_watch(pid);
	ATF_REQUIRE_MSG((p_exp_g = t_guardian_of(getpid())) > 0,
	    "no guardian");
	ATF_REQUIRE(p_name(fd, &key, &id));
	ATF_CHECK(key != (uint64_t)pid && id != (uint64_t)pid);
	r = t_as_nobody(p_exposure, fd, pid);
	ATF_CHECK_MSG(r == 0, "nobody's look at root's child failed at step "
	    "%d (1x: the name, 2x: /proc/net/unix, 3x: /proc, 4x: connect "
	    "and query; see p_exposure)", r);
	/* What anybody reads of the guardian: its argv, the sentry's pid. */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p_exp_g);
	ATF_REQUIRE((r = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	n = read(r, buf, sizeof(buf) - 1);
	ATF_REQUIRE(close(r) == 0);
	for (r = 0; r < n - 1; r++)
		if (buf[r] == '\0')
			buf[r] = ' ';
	fprintf(stderr, "guardian cmdline (world-readable): %.*s\n",
	    n > 0 ? (int)n : 0, buf);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, start_race__other_uid);
	ATF_TP_ADD_TC(tp, start_race__same_uid_nondumpable);
	ATF_TP_ADD_TC(tp, malformed__owner_junk);
	ATF_TP_ADD_TC(tp, malformed__holder_junk);
	ATF_TP_ADD_TC(tp, sigpipe__hang_ups);
	ATF_TP_ADD_TC(tp, setuid_child__root_owner);
	ATF_TP_ADD_TC(tp, setuid_child__setuid_exec);
	ATF_TP_ADD_TC(tp, setuid_child__setuid_root_for_good);
	ATF_TP_ADD_TC(tp, proc_exposure__other_uid);
	return (atf_no_error());
}
