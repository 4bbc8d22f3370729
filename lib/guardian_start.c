/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Starting a procdesc-guardian (lib/guardian/guardian.c): where its
 * program is, the sentry that stands for it among our children, its exec,
 * and its hello.  A thread in the owner cannot do the guardian's job: it
 * dies with the owner, and the owner's death or exec is exactly when
 * FreeBSD kills (NOTES 2.13).
 *
 * A guardian is started as a grandchild: the sentry is our child that
 * wait(2) never reports (exit signal 0, never execs), so that the reaper
 * sees the guardian die and fails closed; the guardian has a session of its
 * own, so that the owner's process-group signals miss it, /dev/null as
 * stdio, its control socket as fd 3 and nothing else.
 *
 * Invariants: the sentry and the guardian before its exec are raw clones
 * of a possibly multi-threaded owner and make async-signal-safe calls only;
 * the sockets of a start in progress are in gs_fds, so that a fork's child
 * closes them.
 */

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guardian.h"
#include "pidfd.h"
#include "syscall.h"
#include "guardian/protocol.h"

#ifndef PROCDESC_GUARDIAN_PATH
#define	PROCDESC_GUARDIAN_PATH	"/usr/local/libexec/procdesc-guardian"
#endif
#define	GS_ENV			"LIBPROCDESC_GUARDIAN"

/* The control socket's number while 0 to PG_CTL_FD are being set up. */
#define	GS_FD_HIGH		(PG_CTL_FD + 1)

/* A pid in decimal, the guardian's argument: any positive int fits. */
#define	GS_PID_LEN		sizeof("2147483647")

/* The sockets of the guardian being started, for a fork's child. */
static _Atomic int gs_fds[2] = { -1, -1 };

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
static char gs_rel_path[PATH_MAX];

#ifdef PROCDESC_GUARDIAN_REL
static void __attribute__((constructor))
gs_rel_init(void)
{
	char lib[PATH_MAX], *slash;
	Dl_info dli;
	int n;

	if (dladdr((void *)gs_rel_init, &dli) == 0 || dli.dli_fname == NULL ||
	    realpath(dli.dli_fname, lib) == NULL ||
	    (slash = strrchr(lib, '/')) == NULL)
		return;
	*slash = '\0';
	n = snprintf(gs_rel_path, sizeof(gs_rel_path), "%s/%s", lib,
	    PROCDESC_GUARDIAN_REL);
	if (n < 0 || (size_t)n >= sizeof(gs_rel_path))
		gs_rel_path[0] = '\0';
}
#endif

static const char *
gs_path(void)
{
	const char *path;

	if ((path = secure_getenv(GS_ENV)) != NULL && *path != '\0')
		return (path);
	if (gs_rel_path[0] != '\0' &&
	    faccessat(AT_FDCWD, gs_rel_path, F_OK, AT_EACCESS) == 0)
		return (gs_rel_path);
	return (PROCDESC_GUARDIAN_PATH);
}

/*
 * Close every descriptor from PG_CTL_FD + 1 on but a and b (a <= b; a
 * single one if they are equal).
 */
static void
gs_close_all_but(int a, int b)
{

	sys_close_range(PG_CTL_FD + 1, (unsigned)a - 1, 0);
	if (b > a + 1)
		sys_close_range((unsigned)a + 1, (unsigned)b - 1, 0);
	sys_close_range((unsigned)b + 1, ~0U, 0);
}

/*
 * The guardian before its exec: a raw clone, so async-signal-safe calls
 * only.  It execs the copy of its program in prog (gs_program()), or, if
 * there is none, the program at path.  An exec failure is reported on the
 * control socket itself.
 */
static void __attribute__((noreturn))
gs_exec(int sock, int nullfd, int prog, const char *path, const char *sentry)
{
	char *const argv[] = { PG_GUARDIAN_NAME, (char *)sentry, NULL };
	static char *const envp[] = { NULL };
	struct pg_msg m;
	int p, s;

	setsid();
	s = fcntl(sock, F_DUPFD_CLOEXEC, GS_FD_HIGH);
	p = (prog != -1) ? fcntl(prog, F_DUPFD_CLOEXEC, GS_FD_HIGH) : -1;
	if (s == -1 || (prog != -1 && p == -1) ||
	    dup2(nullfd, STDIN_FILENO) == -1 ||
	    dup2(nullfd, STDOUT_FILENO) == -1 ||
	    dup2(nullfd, STDERR_FILENO) == -1 || dup2(s, PG_CTL_FD) == -1)
		goto fail;
	if (p == -1)
		gs_close_all_but(s, s);
	else
		gs_close_all_but(s < p ? s : p, s < p ? p : s);
	if (p != -1)
		(void)sys_execveat(p, "", argv, envp, AT_EMPTY_PATH);
	else
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
 * owner's, kills the guardian if it stops, and exits when it does.
 */
static void __attribute__((noreturn))
gs_sentry(int sock, int nullfd, int prog, const char *path)
{
	struct procdesc_clone_args ca;
	char arg[GS_PID_LEN], *p;
	siginfo_t si;
	long g;
	pid_t self;

	(void)setsid();
	(void)prctl(PR_SET_NAME, PG_SENTRY_COMM, 0, 0, 0);
	self = sys_getpid();
	p = arg + sizeof(arg) - 1;
	*p = '\0';
	do
		*--p = (char)('0' + self % 10);
	while ((self /= 10) > 0);
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	if ((g = sys_clone3(&ca)) == 0)
		gs_exec(sock, nullfd, prog, path, p);
	sys_close_range(0, ~0U, 0);
	/* As the guardian: a set-uid owner's user cannot signal us. */
	(void)sys_setresgid(getegid(), getegid(), getegid());
	(void)sys_setresuid(geteuid(), geteuid(), geteuid());
	/*
	 * A stopped guardian guards nothing while it is: kill it, so that the
	 * owner's reaper fails its children closed at once (NOTES 6).
	 */
	while (g > 0) {
		if (sys_waitid(P_PID, (int)g, &si, WEXITED | WSTOPPED | __WALL,
		    NULL) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_code != CLD_STOPPED)
			break;
		(void)kill((pid_t)g, SIGKILL);
	}
	sys_exit_group(0);
}

/* The sentry, with all signals blocked around the clone: its pid. */
static long
gs_clone(int sock, int prog, const char *path, int *pidfdp)
{
	struct procdesc_clone_args ca;
	sigset_t all, old;
	int error, nullfd;
	long pid;

	if ((nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		return (-1);
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PIDFD;
	ca.pidfd = (uintptr_t)pidfdp;
	ca.exit_signal = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = sys_clone3(&ca);
	if (pid == 0)
		gs_sentry(sock, nullfd, prog, path);
	error = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(nullfd);
	errno = error;
	return (pid);
}

/* Wait for the guardian's hello on sock, into g. */
static int
gs_hello(int sock, struct procdesc_guardian *g)
{
	struct pg_msg m;
	struct stat st;
	int error;

	if ((error = procdesc_guardian_recv(sock, &m)) == 0 &&
	    m.pm_op != PG_HELLO)
		error = (m.pm_error != 0) ? m.pm_error : EAGAIN;
	if (error == 0 && fstat(sock, &st) == -1)
		error = errno;
	if (error != 0)
		return (error);
	memset(g, 0, sizeof(*g));
	g->gd_sock = sock;
	g->gd_dev = st.st_dev;
	g->gd_ino = st.st_ino;
	g->gd_pid = m.pm_pid;
	g->gd_key = m.pm_id;
	g->gd_capacity = m.pm_capacity;
	return (0);
}

/*
 * A copy of the guardian's program that we may execute but not read
 * (mode 0111, in a sealed memfd(2), Linux 3.17): the kernel makes a
 * process that execs a file it cannot read non-dumpable from the exec on,
 * so that no other process of our user can take the guardian's control
 * socket with pidfd_getfd(2), or ptrace it, before the guardian has made
 * itself non-dumpable (NOTES 6.1).  -1 (and the exec by path, with that
 * moment open) if memfd_create is refused, or if the program is a script,
 * whose interpreter must read it (a wrapper, as the tests use).  root
 * reads anything, so root's guardian is dumpable for that moment: to root
 * alone.
 */
static int
gs_program(const char *path, int *errorp)
{
	char buf[16384];
	ssize_t n;
	int fd, m;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		*errorp = errno;
		return (-1);
	}
	if ((m = memfd_create(PG_GUARDIAN_NAME, MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1) {
		close(fd);
		return (-1);
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(m, buf, (size_t)n) != n)
			n = -1;
	close(fd);
	if (n == 0 && pread(m, buf, 2, 0) == 2 && memcmp(buf, "#!", 2) == 0) {
		/* A script's interpreter must read it: exec it by path. */
		close(m);
		return (-1);
	}
	if (n == -1 || fchmod(m, 0111) == -1 || fcntl(m, F_ADD_SEALS,
	    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == -1) {
		*errorp = errno;
		close(m);
		return (-1);
	}
	return (m);
}

/* Start a guardian into g; it answers PG_HELLO once it runs. */
int
procdesc_guardian_start(struct procdesc_guardian *g)
{
	const char *path;
	siginfo_t si;
	int sv[2], error, pidfd, prog;
	long pid;

	path = gs_path();
	error = 0;
	if ((prog = gs_program(path, &error)) == -1 && error != 0)
		return (error);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		error = errno;
		if (prog != -1)
			close(prog);
		return (error);
	}
	atomic_store(&gs_fds[0], sv[0]);
	atomic_store(&gs_fds[1], sv[1]);
	if ((pid = gs_clone(sv[1], prog, path, &pidfd)) == -1)
		error = errno;
	atomic_store(&gs_fds[1], -1);
	close(sv[1]);
	if (prog != -1)
		close(prog);
	if (error == 0 && (error = gs_hello(sv[0], g)) != 0)
		procdesc_pidfd_kill_reap(pidfd, &si);
	if (pid != -1)
		close(pidfd);
	atomic_store(&gs_fds[0], -1);
	if (error != 0) {
		close(sv[0]);
		return (error);
	}
	g->gd_sentry = (pid_t)pid;
	return (0);
}

/*
 * In a forked copy: the sockets of a start in progress are the original
 * owner's, and must not keep that guardian from seeing the owner go.
 */
void
procdesc_guardian_start_atfork_child(void)
{
	int i, fd;

	for (i = 0; i < 2; i++)
		if ((fd = atomic_exchange(&gs_fds[i], -1)) != -1)
			close(fd);
}
