/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The owner's side of the guardian, the helper process that kills a child
 * when the last copy of its descriptor is closed anywhere (procdesc-guardian,
 * lib/guardian.c).  A thread in the owner cannot do that job: it dies with
 * the owner, and the owner's death or exec is exactly when FreeBSD kills.
 *
 * The guardian is started on first use, double-forked so that it is nobody's
 * child but init's (or a subreaper's), in a session of its own so that the
 * owner's process-group signals miss it, with /dev/null as its stdio and
 * no other descriptor of the owner.  It talks to the owner over one
 * SOCK_SEQPACKET socketpair, which only the owner holds: per child one
 * PROCDESC_MSG_GUARD with a pidfd of the child's (a description of its own);
 * back one PROCDESC_MSG_CLOSED when the last copy is gone, which lets the
 * registry free the entry.  When its end of the socket closes (the owner
 * exited or exec'd) it keeps guarding what it has and exits when that is done.
 *
 * Invariants: hl_sock is used only while it still names the socket we made
 * (the application may closefrom(3) it and reuse the number); all state is
 * under procdesc_mtx.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procdesc_impl.h"
#include "syscall.h"

#ifndef PROCDESC_GUARDIAN_PATH
#define	PROCDESC_GUARDIAN_PATH	"/usr/local/libexec/procdesc-guardian"
#endif
#define	HL_ENV			"LIBPROCDESC_GUARDIAN"
#define	HL_FD_HIGH		10	/* Above 0-3 while setting up. */

static int hl_sock = -1;		/* (l) Our end, or -1. */
static dev_t hl_dev;			/* (l) Identity of hl_sock. */
static ino_t hl_ino;			/* (l) */

static bool
hl_sock_ok(void)
{
	struct stat st;

	return (hl_sock != -1 && fstat(hl_sock, &st) == 0 &&
	    st.st_dev == hl_dev && st.st_ino == hl_ino);
}

/*
 * The intermediate process, a raw clone of a possibly multi-threaded owner:
 * async-signal-safe calls only.  It forks the guardian and exits at once.
 */
static void __attribute__((noreturn))
hl_intermediate(int sock, int errfd, int nullfd, const char *path)
{
	static char *const argv[] = { "procdesc-guardian", NULL };
	static char *const envp[] = { NULL };
	struct procdesc_clone_args ca;
	int err, s;

	setsid();
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	switch (sys_clone3(&ca)) {
	case -1:
		err = errno;
		(void)write(errfd, &err, sizeof(err));
		_exit(1);
	case 0:
		break;
	default:
		_exit(0);
	}
	/* The guardian: stdio on /dev/null, the socket as 3, nothing else. */
	s = fcntl(sock, F_DUPFD_CLOEXEC, HL_FD_HIGH);
	errfd = fcntl(errfd, F_DUPFD_CLOEXEC, HL_FD_HIGH);
	if (s == -1 || errfd == -1 || dup2(nullfd, 0) == -1 ||
	    dup2(nullfd, 1) == -1 || dup2(nullfd, 2) == -1 ||
	    dup2(s, 3) == -1)
		goto fail;
	sys_close_range(4, (unsigned)errfd - 1, 0);
	sys_close_range((unsigned)errfd + 1, ~0U, 0);
	execve(path, argv, envp);
fail:
	err = errno;
	(void)write(errfd, &err, sizeof(err));
	_exit(127);
}

/* Start a guardian; on success *sockp is our end of its socket. */
static int
hl_spawn(int *sockp)
{
	struct procdesc_clone_args ca;
	const char *path;
	sigset_t all, old;
	siginfo_t si;
	int sv[2], ep[2], err, error, ifd, nullfd;
	ssize_t n;
	long pid;

	if ((path = secure_getenv(HL_ENV)) == NULL || *path == '\0')
		path = PROCDESC_GUARDIAN_PATH;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return (errno);
	if (pipe2(ep, O_CLOEXEC) == -1) {
		error = errno;
		goto out_sv;
	}
	if ((nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1) {
		error = errno;
		goto out_ep;
	}
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uintptr_t)&ifd;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = sys_clone3(&ca);
	if (pid == 0)
		hl_intermediate(sv[1], ep[1], nullfd, path);
	error = (pid == -1) ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(nullfd);
	close(ep[1]);
	ep[1] = -1;
	if (error != 0)
		goto out_ep;
	/* The intermediate exits at once; reap it here, not in the watchdog. */
	while (sys_waitid(P_PIDFD, ifd, &si, WEXITED | __WALL, NULL) == -1 &&
	    errno == EINTR)
		;
	close(ifd);
	procdesc_watchdog_kick();
	/* EOF means the exec worked: every write end is closed. */
	err = 0;
	while ((n = read(ep[0], &err, sizeof(err))) == -1 && errno == EINTR)
		;
	error = (n == (ssize_t)sizeof(err)) ? err : 0;
out_ep:
	close(ep[0]);
	if (ep[1] != -1)
		close(ep[1]);
out_sv:
	close(sv[1]);
	if (error != 0)
		close(sv[0]);
	else
		*sockp = sv[0];
	return (error);
}

/* Make hl_sock a live guardian's socket; procdesc_mtx held. */
static int
hl_connect(void)
{
	struct stat st;
	int error;

	if (hl_sock_ok())
		return (0);
	/* A stale number now belongs to the application: leave it. */
	hl_sock = -1;
	if ((error = hl_spawn(&hl_sock)) != 0)
		return (error);
	if (fstat(hl_sock, &st) == -1) {
		error = errno;
		close(hl_sock);
		hl_sock = -1;
		return (error);
	}
	hl_dev = st.st_dev;
	hl_ino = st.st_ino;
	return (0);
}

static int
hl_send(const struct procdesc_msg *m, int fd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)m;
	iov.iov_len = sizeof(*m);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.hdr), &fd, sizeof(int));
	while ((n = sendmsg(hl_sock, &mh, MSG_NOSIGNAL)) == -1 &&
	    errno == EINTR)
		;
	return (n == -1 ? errno : 0);
}

/*
 * Make sure a guardian runs, before a child exists: starting one takes
 * five descriptors for a moment, which must not fail once the child runs.
 */
int
procdesc_helper_start(void)
{
	int error;

	pthread_mutex_lock(&procdesc_mtx);
	error = hl_connect();
	pthread_mutex_unlock(&procdesc_mtx);
	return (error);
}

/*
 * Have the guardian watch the close-kill byte off of the child pid, whose
 * descriptor holds it locked; procdesc_mtx held.  The guardian gets a
 * description of its own (pidfd_open), made while the child is certainly
 * unreaped, so it can never signal a recycled pid.  A guardian that died
 * is replaced once.
 */
int
procdesc_helper_guard(pid_t pid, int flags, uint64_t key, off_t off)
{
	struct procdesc_msg m;
	int error, fd, tries;

	procdesc_helper_drain();
	if ((fd = sys_pidfd_open(pid, 0)) == -1)
		return (errno);
	memset(&m, 0, sizeof(m));
	m.pm_op = PROCDESC_MSG_GUARD;
	m.pm_pid = pid;
	m.pm_flags = (uint32_t)flags;
	m.pm_key = key;
	m.pm_off = off;
	for (tries = 0; tries < 2; tries++) {
		if ((error = hl_connect()) != 0)
			break;
		if ((error = hl_send(&m, fd)) == 0)
			break;
		/* EPIPE, ECONNRESET: the guardian is gone. */
		close(hl_sock);
		hl_sock = -1;
	}
	close(fd);
	return (error);
}

/* Take the guardian's news of last closes; procdesc_mtx held. */
void
procdesc_helper_drain(void)
{
	struct procdesc_msg m;
	ssize_t n;

	if (!hl_sock_ok())
		return;
	while ((n = recv(hl_sock, &m, sizeof(m), MSG_DONTWAIT)) > 0)
		if (n == (ssize_t)sizeof(m) && m.pm_op == PROCDESC_MSG_CLOSED)
			procdesc_close(m.pm_key, (off_t)m.pm_off);
	if (n == 0) {
		/* The guardian is gone: start another on next use. */
		close(hl_sock);
		hl_sock = -1;
	}
}

/*
 * In a forked copy: the guardian belongs to the original owner, and our
 * copy of its socket must not keep it from seeing the owner go.
 */
void
procdesc_helper_child(void)
{

	if (hl_sock_ok())
		close(hl_sock);
	hl_sock = -1;
}
