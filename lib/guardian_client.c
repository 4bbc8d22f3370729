/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The owner's side of procdesc-guardian (lib/guardian/guardian.c), the
 * process that kills a child when the last copy of its descriptor is
 * closed anywhere.  A thread in the owner cannot do that job: it dies with
 * the owner, and the owner's death or exec is exactly when FreeBSD kills.
 *
 * A guardian is started on first use, as a child of the owner that wait(2)
 * never reports (exit signal 0), so that the reaper sees it die and fails
 * closed (reaper.c); in a session of its own, so that the owner's
 * process-group signals miss it; with /dev/null as stdio and its control
 * socket as fd 3, nothing else.  One guardian holds two descriptors per
 * child; when it is full (its PG_HELLO says how many), another is started.
 * The client sends requests and returns what happened: it never touches
 * the registry.
 *
 * Invariants: gd_tab and its entries are under procdesc_mtx; a socket is
 * used only while it still names the socket we made (the application may
 * closefrom(3) it and reuse the number); procdesc_child_register() runs in
 * a new child before any code of the application, with raw system calls
 * only.
 */

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "procdesc_impl.h"
#include "syscall.h"
#include "guardian/protocol.h"

#ifndef PROCDESC_GUARDIAN_PATH
#define	PROCDESC_GUARDIAN_PATH	"/usr/local/libexec/procdesc-guardian"
#endif
#define	GD_ENV			"LIBPROCDESC_GUARDIAN"
#define	GD_SENTRY_COMM		"procdesc-sentry"

/* The control socket's number while 0 to PG_CTL_FD are being set up. */
#define	GD_FD_HIGH		(PG_CTL_FD + 1)

/* A pid in decimal, the guardian's argument: any positive int fits. */
#define	GD_PID_LEN		sizeof("2147483647")

struct gd {
	int		 gd_sock;	/* Our end of the control socket. */
	dev_t		 gd_dev;	/* Its identity. */
	ino_t		 gd_ino;
	pid_t		 gd_pid;	/* Its sentry; -1 once reaped. */
	pid_t		 gd_gpid;	/* The guardian itself. */
	uint32_t	 gd_capacity;	/* Children it can take. */
	uint32_t	 gd_count;	/* Children it may still hold. */
	uint32_t	 gd_inflight;	/* Registrations under way. */
	bool		 gd_full;	/* It refused one, or is killed. */
	bool		 gd_dead;	/* Reaped; gd_sock still open. */
};

static struct gd *gd_tab;		/* (l) */
static int gd_n;			/* (l) */
static bool gd_starting;		/* (l) A guardian is being started. */
static pthread_cond_t gd_cv = PTHREAD_COND_INITIALIZER; /* Start over. */
/* The sockets of the guardian being started, for a fork's child. */
static _Atomic int gd_start_fds[2] = { -1, -1 };

/*
 * Where the guardian is.  LIBPROCDESC_GUARDIAN first (not in set-uid
 * programs).  Then the guardian of the tree this libprocdesc.so was
 * loaded from, PROCDESC_GUARDIAN_REL (LIBEXECDIR as seen from LIBDIR) from
 * the library's own directory: so a tree installed with DESTDIR and used
 * where it was staged, a tree moved elsewhere, and a distribution's
 * LIBEXECDIR all work with the library they came with.  Then the
 * configured PROCDESC_GUARDIAN_PATH, the only choice of the static
 * library (a static program has no libprocdesc.so to start from; the
 * Makefile defines PROCDESC_GUARDIAN_REL for the shared one only).
 *
 * The directory is worked out once, when the library is loaded: the
 * loader's working directory is the one a relative name of the library
 * means, and dladdr(3) (the loader's lock) and realpath(3) (which may
 * allocate) are not for a pdfork called from a signal handler.  Symbolic
 * links are followed to the real file, whose tree the guardian belongs to.
 * The loader itself picked the library, so a set-uid program's guardian is
 * still one of a trusted directory.
 */
static char gd_rel_path[PATH_MAX];

#ifdef PROCDESC_GUARDIAN_REL
static void __attribute__((constructor))
gd_rel_init(void)
{
	char lib[PATH_MAX], *slash;
	Dl_info dli;
	int n;

	if (dladdr((void *)gd_rel_init, &dli) == 0 || dli.dli_fname == NULL ||
	    realpath(dli.dli_fname, lib) == NULL ||
	    (slash = strrchr(lib, '/')) == NULL)
		return;
	*slash = '\0';
	n = snprintf(gd_rel_path, sizeof(gd_rel_path), "%s/%s", lib,
	    PROCDESC_GUARDIAN_REL);
	if (n < 0 || (size_t)n >= sizeof(gd_rel_path))
		gd_rel_path[0] = '\0';
}
#endif

static const char *
gd_path(void)
{
	const char *path;

	if ((path = secure_getenv(GD_ENV)) != NULL && *path != '\0')
		return (path);
	if (gd_rel_path[0] != '\0' &&
	    faccessat(AT_FDCWD, gd_rel_path, F_OK, AT_EACCESS) == 0)
		return (gd_rel_path);
	return (PROCDESC_GUARDIAN_PATH);
}

static bool
gd_ok(const struct gd *g)
{
	struct stat st;

	return (g->gd_sock != -1 && fstat(g->gd_sock, &st) == 0 &&
	    st.st_dev == g->gd_dev && st.st_ino == g->gd_ino);
}

/*
 * The guardian before its exec: a raw clone, so async-signal-safe calls
 * only.  An exec failure is reported on the control socket itself.
 */
static void __attribute__((noreturn))
gd_exec(int sock, int nullfd, const char *path, const char *sentry)
{
	char *const argv[] = { "procdesc-guardian", (char *)sentry, NULL };
	static char *const envp[] = { NULL };
	struct pg_msg m;
	int s;

	setsid();
	s = fcntl(sock, F_DUPFD_CLOEXEC, GD_FD_HIGH);
	if (s == -1 || dup2(nullfd, STDIN_FILENO) == -1 ||
	    dup2(nullfd, STDOUT_FILENO) == -1 ||
	    dup2(nullfd, STDERR_FILENO) == -1 || dup2(s, PG_CTL_FD) == -1)
		goto fail;
	sys_close_range(PG_CTL_FD + 1, (unsigned)s - 1, 0);
	sys_close_range((unsigned)s + 1, ~0U, 0);
	execve(path, argv, envp);
fail:
	memset(&m, 0, sizeof(m));
	m.pm_op = PG_ACK;
	m.pm_error = errno;
	(void)send(s != -1 ? s : sock, &m, sizeof(m), MSG_NOSIGNAL);
	_exit(PROCDESC_EXIT_NOEXEC);
}

/*
 * The sentry: the owner's child that stands for the guardian, so that the
 * reaper sees the guardian die (waitid(P_ALL) reports our children only,
 * and an exec'd guardian would be a SIGCHLD child that wait(2) in the
 * application reports).  It never execs, so its exit signal stays 0 and
 * wait(2) never sees it; it forks the guardian (whose parent-death signal
 * is SIGKILL: killing the sentry kills the guardian), holds nothing of the
 * owner's, and exits when the guardian does.  A raw clone of a possibly
 * multi-threaded owner: raw system calls only.
 */
static void __attribute__((noreturn))
gd_sentry(int sock, int nullfd, const char *path)
{
	struct procdesc_clone_args ca;
	char arg[GD_PID_LEN], *p;
	siginfo_t si;
	long g;
	pid_t self;

	(void)setsid();
	(void)prctl(PR_SET_NAME, GD_SENTRY_COMM, 0, 0, 0);
	self = sys_getpid();
	p = arg + sizeof(arg) - 1;
	*p = '\0';
	do
		*--p = (char)('0' + self % 10);
	while ((self /= 10) > 0);
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	if ((g = sys_clone3(&ca)) == 0)
		gd_exec(sock, nullfd, path, p);
	sys_close_range(0, ~0U, 0);
	/* As the guardian: a set-uid owner's user cannot signal us. */
	(void)syscall(SYS_setresgid, getegid(), getegid(), getegid());
	(void)syscall(SYS_setresuid, geteuid(), geteuid(), geteuid());
	while (g > 0 && sys_waitid(P_PID, (int)g, &si, WEXITED | __WALL,
	    NULL) == -1 && errno == EINTR)
		;
	sys_exit_group(0);
}

/* Kill and reap a guardian that did not come up. */
static void
gd_reap(int pidfd)
{
	siginfo_t si;

	(void)sys_pidfd_send_signal(pidfd, SIGKILL);
	while (sys_waitid(P_PIDFD, pidfd, &si, WEXITED | __WALL, NULL) == -1 &&
	    errno == EINTR)
		;
}

/*
 * Wait up to PG_REPLY_MS for one message on fd: 0; EAGAIN on a hang-up;
 * ETIMEDOUT.
 */
static int
gd_recv(int fd, struct pg_msg *m)
{
	struct pollfd pfd;
	ssize_t n;
	int r;

	pfd.fd = fd;
	pfd.events = POLLIN;
	while ((r = poll(&pfd, 1, PG_REPLY_MS)) == -1 && errno == EINTR)
		;
	if (r == 0)
		return (ETIMEDOUT);
	while ((n = recv(fd, m, sizeof(*m), MSG_DONTWAIT)) == -1 &&
	    errno == EINTR)
		;
	return (n == (ssize_t)sizeof(*m) ? 0 : EAGAIN);
}

/* Start a guardian into g; it answers PG_HELLO once it runs. */
static int
gd_spawn(struct gd *g)
{
	struct procdesc_clone_args ca;
	struct pg_msg m;
	const char *path;
	struct stat st;
	sigset_t all, old;
	int sv[2], error, nullfd, pidfd;
	long pid;

	path = gd_path();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return (errno);
	atomic_store(&gd_start_fds[0], sv[0]);
	atomic_store(&gd_start_fds[1], sv[1]);
	if ((nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1) {
		error = errno;
		goto out;
	}
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uintptr_t)&pidfd;
	ca.exit_signal = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = sys_clone3(&ca);
	if (pid == 0)
		gd_sentry(sv[1], nullfd, path);
	error = (pid == -1) ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(nullfd);
	if (error != 0)
		goto out;
	atomic_store(&gd_start_fds[1], -1);
	close(sv[1]);
	sv[1] = -1;
	if ((error = gd_recv(sv[0], &m)) == 0 && m.pm_op != PG_HELLO)
		error = (m.pm_error != 0) ? m.pm_error : EAGAIN;
	if (error == 0 && fstat(sv[0], &st) == -1)
		error = errno;
	if (error != 0) {
		gd_reap(pidfd);
		close(pidfd);
		goto out;
	}
	close(pidfd);
	atomic_store(&gd_start_fds[0], -1);
	g->gd_sock = sv[0];
	g->gd_dev = st.st_dev;
	g->gd_ino = st.st_ino;
	g->gd_pid = (pid_t)pid;
	g->gd_gpid = m.pm_pid;
	g->gd_capacity = m.pm_capacity;
	g->gd_count = 0;
	g->gd_inflight = 0;
	g->gd_full = false;
	g->gd_dead = false;
	return (0);
out:
	atomic_store(&gd_start_fds[0], -1);
	atomic_store(&gd_start_fds[1], -1);
	close(sv[0]);
	if (sv[1] != -1)
		close(sv[1]);
	return (error);
}

/*
 * A guardian with room for one more child (0, *idxp and *sockp), or a
 * free slot to start one in (EINPROGRESS, *idxp); EAGAIN if another
 * thread is starting one.  mtx held.
 */
static int
gd_find(int *idxp, int *sockp)
{
	struct gd *g, *tab;
	int i, slot;

	PROCDESC_ASSERT_LOCKED();
	slot = -1;
	for (i = 0; i < gd_n; i++) {
		g = &gd_tab[i];
		if (gd_ok(g) && !g->gd_full && !g->gd_dead &&
		    g->gd_count + g->gd_inflight < g->gd_capacity) {
			g->gd_inflight++;
			*idxp = i;
			*sockp = g->gd_sock;
			return (0);
		}
		if (g->gd_sock == -1 && g->gd_pid == -1 && slot == -1)
			slot = i;
	}
	if (gd_starting)
		return (EAGAIN);
	if (slot == -1) {
		tab = realloc(gd_tab, (gd_n + 1) * sizeof(*gd_tab));
		if (tab == NULL)
			return (ENOMEM);
		gd_tab = tab;
		slot = gd_n++;
		gd_tab[slot].gd_sock = -1;
		gd_tab[slot].gd_pid = -1;
	}
	gd_starting = true;
	*idxp = slot;
	return (EINPROGRESS);
}

/*
 * A guardian with room for one more child: its index and control socket.
 * Starting one takes a few descriptors for a moment, which must not fail
 * once a child runs: so this comes before the clone.  Called without mtx:
 * a start waits for the guardian's hello, and nothing but other pickers
 * must wait for that.  Only one thread starts a guardian at a time (into
 * a slot it reserved); the others wait for it on gd_cv, then look again.
 */
int
procdesc_guardian_pick(int *idxp, int *sockp)
{
	struct gd g;
	int error, slot;

	PROCDESC_ASSERT_UNLOCKED();
	procdesc_lock();
	while ((error = gd_find(idxp, sockp)) == EAGAIN)
		pthread_cond_wait(&gd_cv, &procdesc_mtx);
	procdesc_unlock();
	if (error != EINPROGRESS)
		return (error);
	slot = *idxp;
	error = gd_spawn(&g);
	procdesc_lock();
	gd_starting = false;
	pthread_cond_broadcast(&gd_cv);
	if (error == 0) {
		g.gd_inflight = 1;
		gd_tab[slot] = g;
		*sockp = g.gd_sock;
		if (g.gd_capacity == 0) {
			procdesc_guardian_release(slot);
			error = EMFILE;
		}
	}
	procdesc_unlock();
	return (error == ETIMEDOUT ? EAGAIN : error);
}

/* One more (delta 1) or one less (-1) child of guardian idx. */
void
procdesc_guardian_hold(int idx, int delta)
{

	PROCDESC_ASSERT_LOCKED();
	gd_tab[idx].gd_count += delta;
}

/* The guardian whose pid this is, or -1. */
int
procdesc_guardian_find_pid(pid_t pid)
{
	int i;

	PROCDESC_ASSERT_LOCKED();
	for (i = 0; i < gd_n; i++)
		if (gd_tab[i].gd_pid == pid)
			return (i);
	return (-1);
}

/*
 * Guardian idx was reaped: forget it.  Its socket is closed once no
 * registration uses its number any more (a new child may be sending on it
 * right now; the number must not name anything else meanwhile).
 */
void
procdesc_guardian_died(int idx)
{
	struct gd *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gd_tab[idx];
	g->gd_pid = -1;
	g->gd_dead = true;
	if (g->gd_inflight == 0) {
		if (gd_ok(g))
			close(g->gd_sock);
		g->gd_sock = -1;
	}
}

/* A registration with guardian idx is over. */
void
procdesc_guardian_release(int idx)
{
	struct gd *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gd_tab[idx];
	if (--g->gd_inflight == 0 && g->gd_dead)
		procdesc_guardian_died(idx);
}

/* Whether pid is stopped (or traced): /proc/PID/stat's state. */
static bool
gd_stopped(pid_t pid)
{
	char buf[PROCDESC_STAT_LEN];
	const char *p;

	return ((p = procdesc_proc_stat(pid, PROCDESC_STAT_STATE, buf,
	    sizeof(buf))) != NULL && (*p == 'T' || *p == 't'));
}

/*
 * Guardian idx did not answer in time.  Stopped: it guards nothing while
 * it is, so kill its sentry, and so the guardian; the reaper sees the
 * sentry die and fails its children closed.  Merely slow (a loaded
 * machine): take no new child there.  The sentry's pid is safe: only the
 * reaper reaps it, under procdesc_mtx, which we hold.
 */
void
procdesc_guardian_stalled(int idx)
{
	struct gd *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gd_tab[idx];
	g->gd_full = true;
	if (g->gd_pid > 0 && gd_stopped(g->gd_gpid))
		(void)kill(g->gd_pid, SIGKILL);
}

/*
 * Tell guardian idx the status the owner reaped for pd, which it puts on
 * the descriptor.  Never waits (the reaper holds mtx): ESRCH if the
 * guardian is gone or its socket was taken from us; EAGAIN if its socket
 * is full, thousands of messages behind: it is stopped, or as good as.
 */
int
procdesc_guardian_exited(int idx, const struct procdesc *pd,
    const siginfo_t *si, const struct rusage *ru)
{
	struct pg_msg m;
	struct gd *g;

	PROCDESC_ASSERT_LOCKED();
	g = &gd_tab[idx];
	if (!gd_ok(g))
		return (ESRCH);
	memset(&m, 0, sizeof(m));
	m.pm_op = PG_EXITED;
	m.pm_id = pd->pd_id;
	m.pm_pid = pd->pd_pid;
	m.pm_code = si->si_code;
	m.pm_status = si->si_status;
	m.pm_ru = *ru;
	while (send(g->gd_sock, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(m))
		if (errno != EINTR)
			return (errno == EAGAIN ? EAGAIN : ESRCH);
	return (0);
}

/*
 * PG_GUARD from the owner, for pdopenpid: guard pid, whose pidfd comes
 * along with b, the peer of the user's descriptor.  The answer comes on
 * the descriptor (procdesc_guardian_ack()).
 */
int
procdesc_guardian_send(int sock, uint64_t id, pid_t pid, int flags, int b,
    int pidfd)
{
	/* No go pipe: the process runs already. */
	int fds[PG_GUARD_FDS - 1];
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(fds))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	struct pg_msg m;

	memset(&m, 0, sizeof(m));
	m.pm_op = PG_GUARD;
	m.pm_id = id;
	m.pm_pid = pid;
	m.pm_flags = (uint32_t)flags;
	fds[0] = b;
	fds[1] = pidfd;
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = &m;
	iov.iov_len = sizeof(m);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(&cm.hdr), fds, sizeof(fds));
	if (sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == -1)
		return (errno == EAGAIN ? EAGAIN : ESRCH);
	return (0);
}

/*
 * The guardian's answer on the user's descriptor a: 0 if the process is
 * guarded; its errno value if it refused (EMFILE: full); EAGAIN if it hung
 * up (it never got the process); ETIMEDOUT if it did not answer in time.
 * Without mtx: the wait may last PG_REPLY_MS.
 */
int
procdesc_guardian_ack(int a)
{
	struct pg_msg m;
	int error;

	PROCDESC_ASSERT_UNLOCKED();
	if ((error = gd_recv(a, &m)) != 0)
		return (error);
	if (m.pm_op != PG_ACK)
		return (EAGAIN);
	return (m.pm_error);
}

/*
 * In a forked copy: the guardians belong to the original owner, and our
 * copies of their sockets must not keep them from seeing the owner go.
 */
void
procdesc_guardian_child(void)
{
	int i, fd;

	for (i = 0; i < gd_n; i++)
		if (gd_ok(&gd_tab[i]))
			close(gd_tab[i].gd_sock);
	for (i = 0; i < 2; i++)
		if ((fd = atomic_exchange(&gd_start_fds[i], -1)) != -1)
			close(fd);
	/* Dropped, not freed: the table is the parent's. */
	gd_tab = NULL;
	gd_n = 0;
	gd_starting = false;
	pthread_cond_init(&gd_cv, NULL);
}

/*
 * In the new child, before any code of the application: register with the
 * guardian (B, a pidfd of ourselves, and the write end of a pipe), close
 * our copies of A and B (FreeBSD's child holds no descriptor of its own),
 * and wait on the pipe until the guardian guards us: one byte.  EOF (it
 * refused, or died) or no answer within PG_REPLY_MS: _exit before the
 * application runs, with PG_EXIT_ERRNO + the errno value as the status;
 * the parent, told on A, reaps us and fails with that errno.  Raw system
 * calls only, nothing a sanitizer intercepts (this runs inside glibc's
 * fork, in the dispatch trap).
 */
void
procdesc_child_register(const struct procdesc_childreq *cr)
{
	static const struct timespec reply = {
		.tv_sec = PG_REPLY_MS / PROCDESC_MS_PER_S,
		.tv_nsec = PG_REPLY_MS % PROCDESC_MS_PER_S * PROCDESC_NS_PER_MS,
	};
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(PG_GUARD_FDS * sizeof(int))];
	} cm;
	volatile unsigned char *p;
	struct msghdr mh;
	struct iovec iov;
	struct pg_msg m;
	int *fds, go[2], pidfd;
	size_t i;
	char c;

	p = (volatile unsigned char *)&m;
	for (i = 0; i < sizeof(m); i++)
		p[i] = 0;
	p = (volatile unsigned char *)&cm;
	for (i = 0; i < sizeof(cm); i++)
		p[i] = 0;
	m.pm_op = PG_GUARD;
	m.pm_id = cr->cr_id;
	m.pm_pid = (int32_t)sys_getpid();
	m.pm_flags = cr->cr_flags;
	if ((pidfd = sys_pidfd_open(m.pm_pid, 0)) == -1 ||
	    sys_pipe2(go, O_CLOEXEC) == -1)
		sys_exit_group(PG_EXIT_ERRNO + (errno & PG_EXIT_MASK));
	iov.iov_base = &m;
	iov.iov_len = sizeof(m);
	mh.msg_name = NULL;
	mh.msg_namelen = 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	mh.msg_flags = 0;
	cm.hdr.cmsg_level = SOL_SOCKET;
	cm.hdr.cmsg_type = SCM_RIGHTS;
	cm.hdr.cmsg_len = CMSG_LEN(PG_GUARD_FDS * sizeof(int));
	fds = (int *)(void *)CMSG_DATA(&cm.hdr);
	fds[0] = cr->cr_b;
	fds[1] = pidfd;
	fds[2] = go[1];
	if (sys_sendmsg(cr->cr_ctl, &mh, MSG_NOSIGNAL) == -1)
		sys_exit_group(PG_EXIT_ERRNO + (errno & PG_EXIT_MASK));
	sys_close(pidfd);
	sys_close(go[1]);
	sys_close(cr->cr_a);
	sys_close(cr->cr_b);
	if (!sys_wait_readable(go[0], &reply) ||
	    sys_read(go[0], &c, 1) != 1 || c != PG_GO)
		sys_exit_group(PG_EXIT_ERRNO + EAGAIN);
	sys_close(go[0]);
}
