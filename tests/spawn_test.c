/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * posix_spawn and posix_spawnp with a process descriptor
 * (posix_spawnattr_setprocdescp_np(3)), written as FreeBSD code is: with
 * <spawn.h> through the overlay (include/procdesc-overlay).  What the
 * descriptor does (status, close-kill, PD_DAEMON, close-on-exec), that a
 * failure leaves nothing behind, and that the child gets what the system's
 * own posix_spawn gives it for the same file actions and attributes, and
 * fails with the same errors.  The system's functions are reached at the
 * end of this file, where the overlay's names are undefined.
 */

#include <sys/procdesc.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	S_MAXACTS	12
#define	S_OUTMAX	8192
#define	S_UNTOUCHED	(-77)	/* What *fdp and *pid hold before a spawn. */
#define	S_STR(s)	((char *)(uintptr_t)(s))	/* For argv. */

/* A file action, for either implementation. */
enum s_kind {
	S_OPEN,
	S_CLOSE,
	S_DUP2,
	S_CHDIR,
	S_FCHDIR,
	S_CLOSEFROM,
	S_TCSETPGRP,
};

struct s_act {
	enum s_kind	 kind;
	int		 fd;
	int		 newfd;		/* S_DUP2. */
	const char	*path;		/* S_OPEN, S_CHDIR. */
	int		 oflag;		/* S_OPEN. */
	mode_t		 mode;		/* S_OPEN. */
};

/* One spawn request, for either implementation. */
struct s_req {
	const char	*path;
	bool		 search;	/* posix_spawnp. */
	char		*argv[8];
	char	       **envp;		/* NULL: environ. */
	struct s_act	 acts[S_MAXACTS];
	int		 nacts;
	short		 flags;		/* POSIX_SPAWN_*. */
	pid_t		 pgroup;
	int		 policy;
	sigset_t	 sigmask;
	sigset_t	 sigdefault;
	bool		 hold;		/* Prints "ready", then reads stdin. */
};

/* The system's posix_spawn/posix_spawnp, at the end of this file. */
static int	s_spawn_plain(const struct s_req *, pid_t *);

/* A request to run the shell script s. */
static void
s_init(struct s_req *r, const char *script)
{

	memset(r, 0, sizeof(*r));
	r->path = "/bin/sh";
	r->argv[0] = S_STR("sh");
	r->argv[1] = S_STR("-c");
	r->argv[2] = S_STR(script);
	sigemptyset(&r->sigmask);
	sigemptyset(&r->sigdefault);
}

static struct s_act *
s_add(struct s_req *r, enum s_kind kind, int fd)
{
	struct s_act *a;

	ATF_REQUIRE(r->nacts < S_MAXACTS);
	a = &r->acts[r->nacts++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->fd = fd;
	return (a);
}

static void
s_add_open(struct s_req *r, int fd, const char *path, int oflag, mode_t mode)
{
	struct s_act *a;

	a = s_add(r, S_OPEN, fd);
	a->path = path;
	a->oflag = oflag;
	a->mode = mode;
}

static void
s_add_dup2(struct s_req *r, int fd, int newfd)
{

	s_add(r, S_DUP2, fd)->newfd = newfd;
}

static void
s_add_chdir(struct s_req *r, const char *path)
{

	s_add(r, S_CHDIR, -1)->path = path;
}

/* The file actions of r, through the overlay's calls. */
/*
 * The file actions of r into fa, written once and compiled twice: here
 * through the overlay, and after its names are undone, against the
 * system's <spawn.h> (s_plain_actions).
 */
#define	S_ACTIONS_FN(name)						\
static void								\
name(posix_spawn_file_actions_t *fa, const struct s_req *r)		\
{									\
	const struct s_act *a;						\
	int i, e;							\
									\
	for (i = 0; i < r->nacts; i++) {				\
		a = &r->acts[i];					\
		switch (a->kind) {					\
		case S_OPEN:						\
			e = posix_spawn_file_actions_addopen(fa, a->fd,	\
			    a->path, a->oflag, a->mode);		\
			break;						\
		case S_CLOSE:						\
			e = posix_spawn_file_actions_addclose(fa, a->fd); \
			break;						\
		case S_DUP2:						\
			e = posix_spawn_file_actions_adddup2(fa, a->fd,	\
			    a->newfd);					\
			break;						\
		case S_CHDIR:						\
			e = posix_spawn_file_actions_addchdir_np(fa, a->path); \
			break;						\
		case S_FCHDIR:						\
			e = posix_spawn_file_actions_addfchdir_np(fa, a->fd); \
			break;						\
		case S_CLOSEFROM:					\
			e = posix_spawn_file_actions_addclosefrom_np(fa, \
			    a->fd);					\
			break;						\
		case S_TCSETPGRP:					\
			e = posix_spawn_file_actions_addtcsetpgrp_np(fa, \
			    a->fd);					\
			break;						\
		default:						\
			e = EINVAL;					\
		}							\
		ATF_REQUIRE_MSG(e == 0, "file action %d: %s", i,	\
		    strerror(e));					\
	}								\
}

S_ACTIONS_FN(s_fill_actions)

static void
s_fill_attr(posix_spawnattr_t *sa, const struct s_req *r)
{
	struct sched_param sp;

	memset(&sp, 0, sizeof(sp));
	ATF_REQUIRE(posix_spawnattr_setflags(sa, r->flags) == 0);
	ATF_REQUIRE(posix_spawnattr_setpgroup(sa, r->pgroup) == 0);
	ATF_REQUIRE(posix_spawnattr_setschedpolicy(sa, r->policy) == 0);
	ATF_REQUIRE(posix_spawnattr_setschedparam(sa, &sp) == 0);
	ATF_REQUIRE(posix_spawnattr_setsigmask(sa, &r->sigmask) == 0);
	ATF_REQUIRE(posix_spawnattr_setsigdefault(sa, &r->sigdefault) == 0);
}

/* Spawn r with a descriptor request for *fdp: posix_spawn's result. */
static int
s_spawn_pd(const struct s_req *r, pid_t *pidp, int *fdp, int pdrflags)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	int error;

	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
	s_fill_actions(&fa, r);
	s_fill_attr(&sa, r);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, fdp, pdrflags) == 0);
	error = (r->search ? posix_spawnp : posix_spawn)(pidp, r->path, &fa,
	    &sa, r->argv, r->envp != NULL ? r->envp : environ);
	ATF_REQUIRE(posix_spawn_file_actions_destroy(&fa) == 0);
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
	return (error);
}

/* A spawn with a descriptor that must work: the pid, *fdp set. */
static pid_t
s_spawn_ok(const struct s_req *r, int *fdp, int pdrflags)
{
	pid_t pid;
	int error;

	pid = S_UNTOUCHED;
	*fdp = S_UNTOUCHED;
	error = s_spawn_pd(r, &pid, fdp, pdrflags);
	ATF_REQUIRE_MSG(error == 0, "posix_spawn: %s", strerror(error));
	ATF_REQUIRE(pid > 0 && *fdp >= 0);
	return (pid);
}

/* The exit status through the descriptor; fd is closed. */
static int
s_pdwait_close(int fd)
{
	int status;

	status = -1;
	ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, NULL, NULL) == 0,
	    "pdwait: %s", strerror(errno));
	ATF_REQUIRE(close(fd) == 0);
	return (status);
}

/* Nothing of ours for waitid(P_ALL) to report: no zombie, no SIGCHLD child. */
static void
s_nothing_to_wait(void)
{
	siginfo_t si;
	int r;

	memset(&si, 0, sizeof(si));
	r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
	ATF_CHECK_MSG((r == -1 && errno == ECHILD) || (r == 0 &&
	    si.si_pid == 0), "waitid(P_ALL) reported pid %d", (int)si.si_pid);
}

/* "[123]" -> "[]": pipe and socket inode numbers differ from run to run. */
static void
s_mask_inodes(char *s)
{
	char *d;

	for (d = s; *s != '\0'; s++) {
		*d++ = *s;
		if (*s == '[')
			while (s[1] >= '0' && s[1] <= '9')
				s++;
	}
	*d = '\0';
}

/*
 * Read fd into buf (len bytes, NUL included) until EOF, or until what was
 * read ends with mark (if not NULL); the length read.
 */
static size_t
s_read(int fd, char *buf, size_t len, const char *mark)
{
	size_t m, n;
	ssize_t r;

	n = 0;
	m = (mark != NULL) ? strlen(mark) : 0;
	buf[0] = '\0';
	while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		ATF_REQUIRE(r > 0);
		n += (size_t)r;
		buf[n] = '\0';
		if (mark != NULL && n >= m && strcmp(buf + n - m, mark) == 0)
			break;
	}
	return (n);
}

static void
s_read_all(int fd, char *buf, size_t len)
{

	(void)s_read(fd, buf, len, NULL);
}

static int
s_intcmp(const void *a, const void *b)
{

	return (*(const int *)a - *(const int *)b);
}

/* The descriptors of process pid and what they name, one line each. */
static size_t
s_list_fds(pid_t pid, char *buf, size_t len)
{
	char path[64], target[PATH_MAX];
	struct dirent *de;
	int fds[256], i, n;
	size_t off;
	ssize_t l;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	n = 0;
	while ((de = readdir(d)) != NULL && n < 256)
		if (de->d_name[0] != '.')
			fds[n++] = atoi(de->d_name);
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), s_intcmp);
	off = 0;
	buf[0] = '\0';
	for (i = 0; i < n && off < len - 1; i++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid,
		    fds[i]);
		if ((l = readlink(path, target, sizeof(target) - 1)) == -1)
			continue;
		target[l] = '\0';
		off += (size_t)snprintf(buf + off, len - off, "%d %s\n", fds[i],
		    target);
	}
	return (off < len ? off : len - 1);
}

/* Put "dup2 fd onto newfd" first in r's file actions. */
static void
s_prepend_dup2(struct s_req *r, int fd, int newfd)
{

	ATF_REQUIRE(r->nacts < S_MAXACTS);
	memmove(&r->acts[1], &r->acts[0],
	    (size_t)r->nacts * sizeof(r->acts[0]));
	r->nacts++;
	memset(&r->acts[0], 0, sizeof(r->acts[0]));
	r->acts[0].kind = S_DUP2;
	r->acts[0].fd = fd;
	r->acts[0].newfd = newfd;
}

/*
 * Run r with its stdout on a pipe (the first file action), through the
 * overlay with a descriptor (pd) or the system's posix_spawn: its output
 * (inode numbers masked) in out, its status in *statusp.  A holding
 * program (r->hold) also gets its stdin from a pipe: once it has printed
 * "ready" its descriptors, as the kernel lists them, are added to the
 * output, and closing the pipe lets it finish.
 */
static void
s_run(const struct s_req *r0, bool pd, char *out, int *statusp)
{
	struct s_req r;
	pid_t pid;
	int p[2], in[2], error, fd;
	size_t n;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	r = *r0;
	s_prepend_dup2(&r, p[1], STDOUT_FILENO);
	if (r.hold) {
		ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
		s_prepend_dup2(&r, in[0], STDIN_FILENO);
	}
	fd = -1;
	error = pd ? s_spawn_pd(&r, &pid, &fd, 0) : s_spawn_plain(&r, &pid);
	ATF_REQUIRE(close(p[1]) == 0);
	if (r.hold)
		ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE_MSG(error == 0, "%s posix_spawn: %s", pd ? "procdesc" :
	    "plain", strerror(error));
	n = 0;
	if (r.hold) {
		n = s_read(p[0], out, S_OUTMAX, "ready\n");
		n += s_list_fds(pid, out + n, S_OUTMAX - n);
		ATF_REQUIRE(close(in[1]) == 0);
	}
	s_read_all(p[0], out + n, S_OUTMAX - n);
	ATF_REQUIRE(close(p[0]) == 0);
	if (pd)
		*statusp = s_pdwait_close(fd);
	else
		ATF_REQUIRE(waitpid(pid, statusp, 0) == pid);
	s_mask_inodes(out);
}

/* r gives the same output and status both ways (and is returned). */
static void
s_same(const struct s_req *r, const char *what, char *out)
{
	char plain[S_OUTMAX];
	int ps, ss;

	s_run(r, false, plain, &ps);
	s_run(r, true, out, &ss);
	ATF_CHECK_MSG(strcmp(plain, out) == 0, "%s: posix_spawn gave\n%s\n"
	    "with a descriptor:\n%s", what, plain, out);
	ATF_CHECK_MSG(ps == ss, "%s: status %#x plain, %#x with a descriptor",
	    what, ps, ss);
}

static void
s_write_file(const char *path, const char *text, mode_t mode)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ATF_REQUIRE_MSG(fd >= 0, "%s: %s", path, strerror(errno));
	ATF_REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(chmod(path, mode) == 0);
}

/* in.txt, sub/ and sub/rel.txt in the case's working directory. */
static void
s_tree(void)
{

	s_write_file("in.txt", "from in.txt\n", 0644);
	ATF_REQUIRE(mkdir("sub", 0755) == 0 || errno == EEXIST);
	s_write_file("sub/rel.txt", "from sub/rel.txt\n", 0644);
}

/* A descriptor number of ours that is not open, above the low ones. */
static int
s_closed_fd(void)
{
	int fd;

	for (fd = 200; fcntl(fd, F_GETFD) != -1; fd++)
		;
	return (fd);
}

/*
 * The status of a child comes through the descriptor; pdgetpid names the
 * pid posix_spawn stored; nothing is left for wait(2).
 */
T_TC(spawn__exit_status, "posix_spawn with a descriptor: pdwait gives "
    "the status, pdgetpid the pid, wait(2) nothing")
{
	struct s_req r;
	pid_t pid, p;
	int fd, status;

	s_init(&r, "exit 7");
	pid = s_spawn_ok(&r, &fd, 0);
	ATF_CHECK(t_is_pd(fd));
	p = -1;
	ATF_REQUIRE(pdgetpid(fd, &p) == 0);
	ATF_CHECK_EQ(p, pid);
	status = s_pdwait_close(fd);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 7,
	    "status %#x", status);
	s_nothing_to_wait();
}

/*
 * The waiting rules (pdfork(3)): without PD_NOWAITPID the caller may wait
 * for the spawned process by its pid, as for any spawned process; with
 * it only pdwait sees it; no wait for any child ever does.
 */
T_TC(spawn__waitpid, "posix_spawn with a descriptor: waitpid(pid) "
    "takes it unless PD_NOWAITPID")
{
	struct s_req r;
	pid_t pid;
	int fd, status;

	s_init(&r, "exit 5");
	pid = s_spawn_ok(&r, &fd, 0);
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);
	status = s_pdwait_close(fd);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);

	s_init(&r, "exit 6");
	pid = s_spawn_ok(&r, &fd, PD_NOWAITPID);
	ATF_CHECK_ERRNO(ECHILD, waitpid(pid, &status, 0) == -1);
	status = s_pdwait_close(fd);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 6);
	s_nothing_to_wait();
}

/* posix_spawnp: the PATH search, and the status through the descriptor. */
T_TC(spawnp__exit_status, "posix_spawnp with a descriptor finds sh in PATH")
{
	struct s_req r;
	int fd, status;

	s_init(&r, "exit 9");
	r.path = "sh";
	r.search = true;
	(void)s_spawn_ok(&r, &fd, PD_CLOEXEC);
	status = s_pdwait_close(fd);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 9,
	    "status %#x", status);
}

/* The last close of the descriptor kills the spawned program. */
T_TC(spawn__close_kills, "closing the only descriptor kills the child")
{
	struct s_req r;
	pid_t pid;
	int fd, w;

	s_init(&r, "exec sleep 100");
	pid = s_spawn_ok(&r, &fd, 0);
	w = t_watch(pid);
	ATF_CHECK(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

/* PD_DAEMON: the child outlives the descriptor. */
T_TC(spawn__daemon_survives, "PD_DAEMON: the child survives the close")
{
	struct s_req r;
	pid_t pid;
	int fd, w;

	s_init(&r, "exec sleep 100");
	pid = s_spawn_ok(&r, &fd, PD_DAEMON);
	w = t_watch(pid);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(!t_dead_within(w, 300), "PD_DAEMON child died at the "
	    "close");
	t_kill_wait(w);
}

/*
 * The descriptor is close-on-exec whatever pdrflags says (FreeBSD forces
 * PD_CLOEXEC): a second spawned program does not inherit the first's.
 */
T_TC(spawn__cloexec, "the descriptor is always close-on-exec")
{
	char script[128];
	struct s_req r, r2;
	pid_t pid;
	int fd, fd2, status, w;

	s_init(&r, "exec sleep 100");
	pid = s_spawn_ok(&r, &fd, 0);
	w = t_watch(pid);
	ATF_CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	snprintf(script, sizeof(script), "test ! -e /proc/$$/fd/%d", fd);
	s_init(&r2, script);
	(void)s_spawn_ok(&r2, &fd2, PD_DAEMON);
	ATF_CHECK((fcntl(fd2, F_GETFD) & FD_CLOEXEC) != 0);
	status = s_pdwait_close(fd2);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the second child inherited descriptor %d", fd);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

/*
 * A spawn that fails (exec, or a file action) returns the error and
 * leaves nothing: no descriptor, no child, *fdp and *pid untouched.
 */
static void
s_fails_clean(const struct s_req *r, int want)
{
	pid_t pid;
	int error, fd;

	pid = S_UNTOUCHED;
	fd = S_UNTOUCHED;
	error = s_spawn_pd(r, &pid, &fd, 0);
	ATF_CHECK_MSG(error == want, "posix_spawn: %d (%s), not %s", error,
	    strerror(error), strerror(want));
	ATF_CHECK_EQ(fd, S_UNTOUCHED);
	ATF_CHECK_EQ(pid, S_UNTOUCHED);
	ATF_CHECK_EQ(t_nchildren(), 0);
	s_nothing_to_wait();
}

T_TC(spawn__exec_fails_clean, "an exec failure: the error, no descriptor, "
    "no child")
{
	struct s_req r;

	s_init(&r, "exit 0");
	r.path = "/nonexistent/t-prog";
	s_fails_clean(&r, ENOENT);
}

T_TC(spawn__action_fails_clean, "a file action failure: the error, no "
    "descriptor, no child")
{
	struct s_req r;

	s_init(&r, "exit 0");
	s_add_open(&r, 5, "missing.txt", O_RDONLY, 0);
	s_fails_clean(&r, ENOENT);
}

/* FreeBSD's setter takes any pdrflags; the spawn refuses bad ones. */
T_TC(spawn__bad_pdrflags, "a bad pdrflags: the setter stores it, "
    "posix_spawn fails with EINVAL and creates nothing")
{
	struct s_req r;
	pid_t pid;
	int error, fd;

	s_init(&r, "exit 0");
	pid = S_UNTOUCHED;
	fd = S_UNTOUCHED;
	error = s_spawn_pd(&r, &pid, &fd, 0x100);
	ATF_CHECK_MSG(error == EINVAL, "posix_spawn: %s", strerror(error));
	ATF_CHECK_EQ(fd, S_UNTOUCHED);
	ATF_CHECK_EQ(pid, S_UNTOUCHED);
	ATF_CHECK_EQ(t_nchildren(), 0);
}

/* The getter returns what the setter stored; the default is no request. */
T_TC(attr__getset, "getprocdescp_np returns what setprocdescp_np set")
{
	posix_spawnattr_t sa;
	int fd, *fdp, flags;

	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	fdp = &flags;
	flags = -1;
	ATF_REQUIRE(posix_spawnattr_getprocdescp_np(&sa, &fdp, &flags) == 0);
	ATF_CHECK(fdp == NULL);
	ATF_CHECK_EQ(flags, 0);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, &fd, PD_DAEMON) ==
	    0);
	ATF_REQUIRE(posix_spawnattr_getprocdescp_np(&sa, &fdp, &flags) == 0);
	ATF_CHECK(fdp == &fd);
	ATF_CHECK_EQ(flags, PD_DAEMON);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, NULL, 0) == 0);
	ATF_REQUIRE(posix_spawnattr_getprocdescp_np(&sa, &fdp, &flags) == 0);
	ATF_CHECK(fdp == NULL);
	ATF_CHECK_EQ(flags, 0);
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
}

/*
 * Without a request (never set, or set back to NULL) the child is a plain
 * posix_spawn child: waitpid(2) collects it.
 */
T_TC(spawn__no_request, "no descriptor requested: a plain child that "
    "waitpid collects")
{
	posix_spawnattr_t sa;
	char *argv[] = { S_STR("sh"), S_STR("-c"),
	    S_STR("exit 4"), NULL };
	pid_t pid;
	int fd, status;

	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, &fd, 0) == 0);
	ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa, NULL, 0) == 0);
	fd = S_UNTOUCHED;
	ATF_REQUIRE(posix_spawn(&pid, "/bin/sh", NULL, &sa, argv, environ) ==
	    0);
	ATF_CHECK_EQ(fd, S_UNTOUCHED);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	ATF_REQUIRE(posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) ==
	    0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
}

/* A NULL envp means environ, as on FreeBSD, with and without a request. */
T_TC(spawn__null_envp, "a NULL envp runs the child with environ")
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	char *argv[] = { S_STR("sh"), S_STR("-c"),
	    S_STR("echo \"$T_SPAWN_ENV\""), NULL };
	char out[S_OUTMAX];
	pid_t pid;
	int p[2], fd, i, status;

	ATF_REQUIRE(setenv("T_SPAWN_ENV", "from environ", 1) == 0);
	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	for (i = 0; i < 2; i++) {
		ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
		ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
		ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, p[1], 1) ==
		    0);
		ATF_REQUIRE(posix_spawnattr_setprocdescp_np(&sa,
		    i == 0 ? &fd : NULL, 0) == 0);
		ATF_REQUIRE(posix_spawn(&pid, "/bin/sh", &fa, &sa, argv,
		    NULL) == 0);
		ATF_REQUIRE(close(p[1]) == 0);
		s_read_all(p[0], out, sizeof(out));
		ATF_REQUIRE(close(p[0]) == 0);
		if (i == 0)
			(void)s_pdwait_close(fd);
		else
			ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
		ATF_CHECK_MSG(strcmp(out, "from environ\n") == 0, "%s: the "
		    "child saw \"%s\"", i == 0 ? "with a descriptor" :
		    "without", out);
		ATF_REQUIRE(posix_spawn_file_actions_destroy(&fa) == 0);
	}
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
	ATF_REQUIRE(unsetenv("T_SPAWN_ENV") == 0);
}

/*
 * File actions: open, dup2, close, chdir (and an open relative to it),
 * dup2 onto itself (clears close-on-exec), closefrom (over an inheritable
 * descriptor).  The child reads its descriptors and writes a file; what
 * it read, its descriptors as /proc lists them and the file are the same
 * as with the system's posix_spawn.
 */
T_TC(actions__as_posix_spawn, "file actions give the child what "
    "posix_spawn gives it")
{
	char out[S_OUTMAX], text[256];
	struct s_req r;
	int fd, high, higher;

	s_tree();
	ATF_REQUIRE((fd = open("in.txt", O_RDONLY | O_CLOEXEC)) >= 0);
	ATF_REQUIRE((high = fcntl(fd, F_DUPFD_CLOEXEC, 20)) >= 20);
	ATF_REQUIRE((higher = fcntl(fd, F_DUPFD, high + 1)) > high);
	ATF_REQUIRE(close(fd) == 0);
	s_init(&r, "pwd; cat <&6; cat <&7; echo written >&9; echo ready; "
	    "read x");
	r.hold = true;
	s_add_open(&r, 5, "in.txt", O_RDONLY, 0);
	s_add_dup2(&r, 5, 6);
	s_add(&r, S_CLOSE, 5);
	s_add_chdir(&r, "sub");
	s_add_open(&r, 7, "rel.txt", O_RDONLY, 0);
	s_add_dup2(&r, high, high);
	s_add_open(&r, 9, "out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0640);
	s_add(&r, S_CLOSEFROM, high + 1);
	s_same(&r, "file actions", out);
	ATF_CHECK_MSG(strstr(out, "from in.txt\nfrom sub/rel.txt\n") != NULL,
	    "the child read:\n%s", out);
	snprintf(text, sizeof(text), "\n%d ", high);
	ATF_CHECK_MSG(strstr(out, text) != NULL, "descriptor %d (dup2 onto "
	    "itself) not inherited:\n%s", high, out);
	snprintf(text, sizeof(text), "\n%d ", higher);
	ATF_CHECK_MSG(strstr(out, text) == NULL, "descriptor %d inherited "
	    "past closefrom:\n%s", higher, out);
	ATF_REQUIRE((fd = open("sub/out.txt", O_RDONLY | O_CLOEXEC)) >= 0);
	s_read_all(fd, text, sizeof(text));
	ATF_CHECK_STREQ(text, "written\n");
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(high) == 0);
	ATF_REQUIRE(close(higher) == 0);
}

/* fchdir to a directory descriptor, then an open relative to it. */
T_TC(actions__fchdir_as_posix_spawn, "an fchdir action gives what "
    "posix_spawn gives")
{
	char out[S_OUTMAX];
	struct s_req r;
	int dfd;

	s_tree();
	ATF_REQUIRE((dfd = open("sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >=
	    0);
	s_init(&r, "pwd; cat <&5");
	s_add(&r, S_FCHDIR, dfd);
	s_add_open(&r, 5, "rel.txt", O_RDONLY, 0);
	s_same(&r, "fchdir", out);
	ATF_CHECK_MSG(strstr(out, "/sub\nfrom sub/rel.txt\n") != NULL,
	    "the child said:\n%s", out);
	ATF_REQUIRE(close(dfd) == 0);
}

/* glibc's child leaves its two internal signals ignored: not a property. */
static void
s_mask_sigign(char *out)
{
	unsigned long long ign;
	char *p;

	if ((p = strstr(out, "SigIgn:\t")) == NULL)
		return;
	p += strlen("SigIgn:\t");
	ign = strtoull(p, NULL, 16) & ~((1ULL << 31) | (1ULL << 32));
	snprintf(p, 17, "%016llx", ign);
	p[16] = '\n';
}

/* The state the attributes set, as the exec'd program sees it. */
#define	S_ATTR_SCRIPT							\
	"read -r pid comm state ppid pgrp sid rest </proc/$$/stat; "	\
	"[ \"$pgrp\" = $$ ] && echo pgrp=own || echo pgrp=inherited; "	\
	"[ \"$sid\" = $$ ] && echo sid=own || echo sid=inherited; "	\
	"echo policy=$(cut -d' ' -f41 /proc/$$/stat); "			\
	"exec grep -E '^Sig(Blk|Ign|Cgt)' /proc/self/status"

static void
s_on_signal(int sig)
{

	(void)sig;
}

/*
 * SETSIGMASK, SETSIGDEF (over an ignored signal), SETPGROUP,
 * SETSCHEDULER (SCHED_OTHER, from a caller in SCHED_BATCH: glibc takes no
 * other policy without privilege) and RESETIDS; a caught signal is
 * SIG_DFL in the child and another ignored one stays ignored: all as with
 * posix_spawn.
 */
T_TC(attrs__as_posix_spawn, "signal, group, scheduling and id attributes "
    "as posix_spawn applies them")
{
	char out[S_OUTMAX], plain[S_OUTMAX];
	struct sched_param sp;
	struct sigaction sa;
	struct s_req r;
	int status;

	memset(&sp, 0, sizeof(sp));
	ATF_REQUIRE(sched_setscheduler(0, SCHED_BATCH, &sp) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = s_on_signal;
	ATF_REQUIRE(sigaction(SIGINT, &sa, NULL) == 0);
	ATF_REQUIRE(signal(SIGHUP, SIG_IGN) != SIG_ERR);
	ATF_REQUIRE(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	s_init(&r, S_ATTR_SCRIPT);
	r.flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
	    POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSCHEDULER |
	    POSIX_SPAWN_RESETIDS;
	r.policy = SCHED_OTHER;
	sigaddset(&r.sigmask, SIGUSR2);
	sigaddset(&r.sigmask, SIGTERM);
	sigaddset(&r.sigdefault, SIGUSR1);
	s_run(&r, false, plain, &status);
	s_run(&r, true, out, &status);
	s_mask_sigign(plain);
	s_mask_sigign(out);
	ATF_CHECK_MSG(strcmp(plain, out) == 0, "posix_spawn gave\n%s\nwith a "
	    "descriptor:\n%s", plain, out);
	ATF_CHECK_MSG(strstr(out, "pgrp=own\nsid=inherited\npolicy=0\n"
	    "SigBlk:\t0000000000004800\nSigIgn:\t0000000000000001\n") != NULL,
	    "the child saw:\n%s", out);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	ATF_REQUIRE(sched_setscheduler(0, SCHED_OTHER, &sp) == 0);
}

/* SETSID; without SETSIGMASK the child has the caller's mask. */
T_TC(attrs__setsid_as_posix_spawn, "SETSID, and the caller's signal mask, "
    "as posix_spawn applies them")
{
	char out[S_OUTMAX], plain[S_OUTMAX];
	sigset_t set, old;
	struct s_req r;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	ATF_REQUIRE(pthread_sigmask(SIG_BLOCK, &set, &old) == 0);
	s_init(&r, S_ATTR_SCRIPT);
	r.flags = POSIX_SPAWN_SETSID;
	s_run(&r, false, plain, &status);
	s_run(&r, true, out, &status);
	ATF_REQUIRE(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
	s_mask_sigign(plain);
	s_mask_sigign(out);
	ATF_CHECK_MSG(strcmp(plain, out) == 0, "posix_spawn gave\n%s\nwith a "
	    "descriptor:\n%s", plain, out);
	ATF_CHECK_MSG(strstr(out, "pgrp=own\nsid=own\npolicy=0\n"
	    "SigBlk:\t0000000000000800\n") != NULL, "the child saw:\n%s", out);
}

/* One failing spawn: the same error both ways, and the one expected. */
static void
s_same_error(const struct s_req *r, const char *what, int want)
{
	pid_t pid;
	int plain, error, fd;

	plain = s_spawn_plain(r, &pid);
	if (plain == 0)
		(void)waitpid(pid, NULL, 0);
	pid = S_UNTOUCHED;
	fd = S_UNTOUCHED;
	error = s_spawn_pd(r, &pid, &fd, 0);
	if (error == 0)
		(void)s_pdwait_close(fd);
	ATF_CHECK_MSG(plain == want, "%s: posix_spawn gave %d (%s), not %s",
	    what, plain, strerror(plain), strerror(want));
	ATF_CHECK_MSG(error == plain, "%s: %d (%s) with a descriptor, %d (%s) "
	    "without", what, error, strerror(error), plain, strerror(plain));
	ATF_CHECK_EQ(fd, S_UNTOUCHED);
	ATF_CHECK_EQ(pid, S_UNTOUCHED);
	ATF_CHECK_EQ(t_nchildren(), 0);
}

/*
 * Failures at every stage report what posix_spawn reports: exec (ENOENT,
 * EACCES, ENOEXEC), file actions, attributes, the PATH search; and the
 * report does not depend on any descriptor (closefrom 0).
 */
T_TC(errors__as_posix_spawn, "every failure reports posix_spawn's error "
    "and leaves nothing")
{
	struct s_req r;
	int file, null, bad;

	s_tree();
	s_write_file("noexec", "#!/bin/sh\nexit 0\n", 0644);
	s_write_file("garbage", "\001\002\003 not a program\n", 0755);
	ATF_REQUIRE((file = open("in.txt", O_RDONLY | O_CLOEXEC)) >= 0);
	ATF_REQUIRE((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0);
	bad = s_closed_fd();

	s_init(&r, "exit 0");
	r.path = "/nonexistent/t-prog";
	s_same_error(&r, "missing program", ENOENT);
	r.path = "/";
	s_same_error(&r, "a directory", EACCES);
	r.path = "./noexec";
	s_same_error(&r, "no execute permission", EACCES);
	r.path = "./garbage";
	s_same_error(&r, "not a program", ENOEXEC);
	s_init(&r, "exit 0");
	r.path = "t-no-such-program";
	r.search = true;
	s_same_error(&r, "posix_spawnp, not in PATH", ENOENT);
	r.path = "";
	s_same_error(&r, "posix_spawnp, empty name", ENOENT);

	s_init(&r, "exit 0");
	s_add_open(&r, 5, "missing.txt", O_RDONLY, 0);
	s_same_error(&r, "open action", ENOENT);
	s_init(&r, "exit 0");
	s_add_chdir(&r, "missing.dir");
	s_same_error(&r, "chdir action", ENOENT);
	s_init(&r, "exit 0");
	s_add(&r, S_FCHDIR, file);
	s_same_error(&r, "fchdir action on a file", ENOTDIR);
	s_init(&r, "exit 0");
	s_add_dup2(&r, bad, 5);
	s_same_error(&r, "dup2 action from a closed descriptor", EBADF);
	s_init(&r, "exit 0");
	s_add_dup2(&r, bad, bad);
	s_same_error(&r, "dup2 action onto itself, closed", EBADF);
	s_init(&r, "exit 0");
	s_add(&r, S_TCSETPGRP, null);
	s_same_error(&r, "tcsetpgrp action, not a terminal", ENOTTY);
	s_init(&r, "exit 0");
	r.flags = POSIX_SPAWN_SETPGROUP;
	r.pgroup = 1;
	s_same_error(&r, "SETPGROUP into another session", EPERM);

	s_init(&r, "exit 0");
	r.path = "/nonexistent/t-prog";
	s_add(&r, S_CLOSEFROM, 0);
	s_same_error(&r, "exec failure after closefrom(0)", ENOENT);

	ATF_REQUIRE(close(file) == 0);
	ATF_REQUIRE(close(null) == 0);
}

/*
 * posix_spawnp's search: a file without execute permission earlier in
 * PATH is passed over; with nothing else, EACCES.  Both as posix_spawnp.
 */
T_TC(spawnp__path_search, "posix_spawnp searches PATH as the system's does")
{
	char cwd[PATH_MAX], path[2 * PATH_MAX + 8], *old;
	char out[S_OUTMAX];
	struct s_req r;

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	ATF_REQUIRE(mkdir("p1", 0755) == 0 && mkdir("p2", 0755) == 0);
	s_write_file("p1/t-prog", "#!/bin/sh\necho p1\n", 0644);
	s_write_file("p2/t-prog", "#!/bin/sh\necho p2; exit 3\n", 0755);
	old = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof(path), "%s/p1:%s/p2", cwd, cwd);
	ATF_REQUIRE(setenv("PATH", path, 1) == 0);
	memset(&r, 0, sizeof(r));
	r.path = "t-prog";
	r.search = true;
	r.argv[0] = S_STR("t-prog");
	s_same(&r, "PATH search", out);
	ATF_CHECK_STREQ(out, "p2\n");
	snprintf(path, sizeof(path), "%s/p1", cwd);
	ATF_REQUIRE(setenv("PATH", path, 1) == 0);
	s_same_error(&r, "PATH search, only a non-executable", EACCES);
	if (old != NULL)
		ATF_REQUIRE(setenv("PATH", old, 1) == 0);
	free(old);
}

/* Threads spawning at once: each gets its own child and status. */
#define	S_NTHREADS	4
#define	S_NSPAWNS	25

static void *
s_spawner(void *arg)
{
	char script[32];
	struct s_req r;
	pid_t pid;
	int i, fd, status;
	intptr_t bad;

	bad = 0;
	for (i = 0; i < S_NSPAWNS; i++) {
		snprintf(script, sizeof(script), "exit %d", (int)(intptr_t)arg
		    * S_NSPAWNS + i);
		s_init(&r, script);
		fd = -1;
		if (s_spawn_pd(&r, &pid, &fd, 0) != 0 ||
		    pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) !=
		    (int)(intptr_t)arg * S_NSPAWNS + i)
			bad++;
		if (fd >= 0)
			(void)close(fd);
	}
	return ((void *)bad);
}

T_TC(spawn__threads, "threads spawning at once each get their own child")
{
	pthread_t t[S_NTHREADS];
	void *bad;
	intptr_t i;

	for (i = 0; i < S_NTHREADS; i++)
		ATF_REQUIRE(pthread_create(&t[i], NULL, s_spawner,
		    (void *)i) == 0);
	for (i = 0; i < S_NTHREADS; i++) {
		ATF_REQUIRE(pthread_join(t[i], &bad) == 0);
		ATF_CHECK_MSG(bad == NULL, "thread %d: %d spawns went wrong",
		    (int)i, (int)(intptr_t)bad);
	}
}

/*
 * A thread with a cancel pending: the spawns, a failing one (whose child
 * is collected) and one that works, run to their end and leave nothing;
 * the cancel takes effect at the next cancellation point.
 */
struct s_cancel {
	int	fail;		/* The failing spawn's error. */
	int	ok;		/* The working spawn's error. */
	int	fd;		/* Its descriptor. */
};

static void __attribute__((noinline))
s_cancel_spawns(struct s_cancel *sc)
{
	struct s_req r;
	pid_t pid;

	s_init(&r, "exit 0");
	s_add_open(&r, 5, "missing.txt", O_RDONLY, 0);
	sc->fail = s_spawn_pd(&r, &pid, &sc->fd, 0);
	s_init(&r, "exit 6");
	sc->ok = s_spawn_pd(&r, &pid, &sc->fd, 0);
}

/*
 * The cancel unwinds this frame only, which has no locals: ASan does not
 * unpoison the frames a cancel unwinds, and its own thread exit would
 * then trip over their red zones.
 */
static void *
s_cancelled(void *arg)
{

	ATF_REQUIRE(pthread_cancel(pthread_self()) == 0);
	s_cancel_spawns(arg);
	pthread_testcancel();
	return (NULL);
}

T_TC(spawn__cancel_pending, "a pending cancel does not cut a spawn short")
{
	struct s_cancel sc;
	pthread_t t;
	void *ret;
	int status;

	sc.fail = sc.ok = -1;
	sc.fd = -1;
	ATF_REQUIRE(pthread_create(&t, NULL, s_cancelled, &sc) == 0);
	ATF_REQUIRE(pthread_join(t, &ret) == 0);
	ATF_CHECK(ret == PTHREAD_CANCELED);
	ATF_CHECK_MSG(sc.fail == ENOENT, "failing spawn: %d", sc.fail);
	ATF_REQUIRE_MSG(sc.ok == 0 && sc.fd >= 0, "spawn: %d", sc.ok);
	status = s_pdwait_close(sc.fd);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 6);
}

/*
 * No window: an owner SIGKILLed at a random moment of a posix_spawn loop
 * leaves no spawned program running.  We are a subreaper, so its orphans
 * (spawned programs, whether posix_spawn had returned or not, and its
 * guardian) become our children; each must die.
 */
#define	S_TRIALS	10
#define	S_MAXKIDS	256

static void __attribute__((noreturn))
s_owner_loop(int rep)
{
	struct s_req r;
	pid_t pid;
	int fd;

	s_init(&r, "exec sleep 100");
	for (;;) {
		if (s_spawn_pd(&r, &pid, &fd, 0) == 0)
			(void)write(rep, &pid, sizeof(pid));
	}
}

T_TC(spawn__owner_killed, "an owner killed amid posix_spawns leaves no "
    "spawned program behind")
{
	pid_t before[S_MAXKIDS], kids[S_MAXKIDS], o, pid;
	struct timespec ts;
	int i, j, k, nb, nk, rep[2], w;
	bool dead, ok;

	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	nb = t_children(T_CHILDREN_ALL, before, S_MAXKIDS);
	srandom((unsigned int)getpid());
	ok = true;
	for (i = 0; i < S_TRIALS && ok; i++) {
		ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
		ATF_REQUIRE((o = fork()) >= 0);
		if (o == 0) {
			(void)close(rep[0]);
			s_owner_loop(rep[1]);
		}
		ATF_REQUIRE(close(rep[1]) == 0);
		for (k = 1 + (int)(random() % 5); k > 0; k--)
			ATF_REQUIRE(read(rep[0], &pid, sizeof(pid)) ==
			    (ssize_t)sizeof(pid));
		ts.tv_sec = 0;
		ts.tv_nsec = random() % 2000000;
		(void)nanosleep(&ts, NULL);
		ATF_REQUIRE(kill(o, SIGKILL) == 0);
		ATF_REQUIRE(waitpid(o, NULL, 0) == o);
		ATF_REQUIRE(close(rep[0]) == 0);
		nk = t_children(T_CHILDREN_ALL, kids, S_MAXKIDS);
		for (j = 0; j < nk; j++) {
			for (k = 0; k < nb && before[k] != kids[j]; k++)
				;
			if (k < nb ||
			    (w = (int)syscall(SYS_pidfd_open, kids[j], 0)) ==
			    -1)
				continue;
			/* One bound for the trial; a survivor is killed. */
			dead = t_dead_within(w, ok ? T_LONG_MS : 0);
			ATF_CHECK_MSG(dead, "trial %d: pid %d of the killed "
			    "owner survived", i, (int)kids[j]);
			ok = ok && dead;
			if (!dead)
				(void)syscall(SYS_pidfd_send_signal, w, SIGKILL,
				    NULL, 0);
			(void)waitpid(kids[j], NULL, __WALL);
			ATF_REQUIRE(close(w) == 0);
		}
	}
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0);
}

/*
 * The system's posix_spawn, for the comparisons: the overlay's names are
 * macros, and undefining them reaches glibc's own functions and types.
 */
#undef posix_spawn
#undef posix_spawnp
#undef posix_spawnattr_t
#undef posix_spawnattr_init
#undef posix_spawnattr_destroy
#undef posix_spawnattr_setflags
#undef posix_spawnattr_setpgroup
#undef posix_spawnattr_setschedpolicy
#undef posix_spawnattr_setschedparam
#undef posix_spawnattr_setsigmask
#undef posix_spawnattr_setsigdefault
#undef posix_spawn_file_actions_t
#undef posix_spawn_file_actions_init
#undef posix_spawn_file_actions_destroy
#undef posix_spawn_file_actions_addopen
#undef posix_spawn_file_actions_addclose
#undef posix_spawn_file_actions_adddup2
#undef posix_spawn_file_actions_addchdir_np
#undef posix_spawn_file_actions_addfchdir_np
#undef posix_spawn_file_actions_addclosefrom_np
#undef posix_spawn_file_actions_addtcsetpgrp_np

S_ACTIONS_FN(s_plain_actions)

static int
s_spawn_plain(const struct s_req *r, pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	struct sched_param sp;
	int error;

	memset(&sp, 0, sizeof(sp));
	ATF_REQUIRE(posix_spawnattr_init(&sa) == 0);
	ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
	s_plain_actions(&fa, r);
	ATF_REQUIRE(posix_spawnattr_setflags(&sa, r->flags) == 0);
	ATF_REQUIRE(posix_spawnattr_setpgroup(&sa, r->pgroup) == 0);
	ATF_REQUIRE(posix_spawnattr_setschedpolicy(&sa, r->policy) == 0);
	ATF_REQUIRE(posix_spawnattr_setschedparam(&sa, &sp) == 0);
	ATF_REQUIRE(posix_spawnattr_setsigmask(&sa, &r->sigmask) == 0);
	ATF_REQUIRE(posix_spawnattr_setsigdefault(&sa, &r->sigdefault) == 0);
	error = (r->search ? posix_spawnp : posix_spawn)(pidp, r->path, &fa,
	    &sa, r->argv, r->envp != NULL ? r->envp : environ);
	ATF_REQUIRE(posix_spawn_file_actions_destroy(&fa) == 0);
	ATF_REQUIRE(posix_spawnattr_destroy(&sa) == 0);
	return (error);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, spawn__exit_status);
	ATF_TP_ADD_TC(tp, spawn__waitpid);
	ATF_TP_ADD_TC(tp, spawnp__exit_status);
	ATF_TP_ADD_TC(tp, spawn__close_kills);
	ATF_TP_ADD_TC(tp, spawn__daemon_survives);
	ATF_TP_ADD_TC(tp, spawn__cloexec);
	ATF_TP_ADD_TC(tp, spawn__exec_fails_clean);
	ATF_TP_ADD_TC(tp, spawn__action_fails_clean);
	ATF_TP_ADD_TC(tp, spawn__bad_pdrflags);
	ATF_TP_ADD_TC(tp, attr__getset);
	ATF_TP_ADD_TC(tp, spawn__no_request);
	ATF_TP_ADD_TC(tp, spawn__null_envp);
	ATF_TP_ADD_TC(tp, actions__as_posix_spawn);
	ATF_TP_ADD_TC(tp, actions__fchdir_as_posix_spawn);
	ATF_TP_ADD_TC(tp, attrs__as_posix_spawn);
	ATF_TP_ADD_TC(tp, attrs__setsid_as_posix_spawn);
	ATF_TP_ADD_TC(tp, errors__as_posix_spawn);
	ATF_TP_ADD_TC(tp, spawnp__path_search);
	ATF_TP_ADD_TC(tp, spawn__threads);
	ATF_TP_ADD_TC(tp, spawn__cancel_pending);
	ATF_TP_ADD_TC(tp, spawn__owner_killed);

	return (atf_no_error());
}
