/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdrfork, pdopenpid and pddupfd (pdfork(3)): what each accepts,
 * what it refuses with which errno, and that a refused call creates
 * nothing.
 */

#include <sys/procdesc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	RF_PD	(RFPROC | RFPROCDESC)

/*
 * Make sure the child behind fd is gone: kill it if it runs, reap it
 * here if the library left it unreaped, close fd.
 */
static void
dispose(int fd)
{
	siginfo_t si;

	if (!t_reaped_within(fd, 0)) {
		(void)pdkill(fd, SIGKILL);
		(void)t_dead_within(fd, T_LONG_MS);
		if (!t_reaped_within(fd, 1000))
			(void)waitid(P_PIDFD, (id_t)fd, &si, WEXITED | __WALL);
	}
	(void)close(fd);
}

/*
 * Wait at most T_LONG_MS for the library to reap the child behind fd
 * (POLLHUP), then return its status; otherwise dispose of it and fail.
 */
static int
bounded_wait(int fd)
{
	int status;

	if (!t_reaped_within(fd, T_LONG_MS)) {
		dispose(fd);
		atf_tc_fail("child not reaped by the library within %d ms",
		    T_LONG_MS);
	}
	status = -1;
	ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, NULL, NULL) == 0,
	    "pdwait: %s", strerror(errno));
	return (status);
}

static void
wait_exit_code(int fd, int code)
{
	int status;

	status = bounded_wait(fd);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == code,
	    "status %#x, expected exit %d", status, code);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * Wait until no child of ours is left, by polling a pidfd of each child
 * found in /proc for POLLHUP (reaped), never by sleeping.
 */
static void
wait_no_children(void)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	DIR *d;
	FILE *fp;
	int fd, ppid, round;

	for (round = 0; round < 100 && t_nchildren() != 0; round++) {
		d = opendir("/proc");
		ATF_REQUIRE(d != NULL);
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat",
			    de->d_name);
			if ((fp = fopen(path, "re")) == NULL)
				continue;
			ppid = -1;
			if (fgets(buf, sizeof(buf), fp) != NULL &&
			    (p = strrchr(buf, ')')) != NULL)
				(void)sscanf(p + 2, "%*c %d", &ppid);
			fclose(fp);
			if (ppid != getpid() ||
			    strstr(buf, "(" T_SENTRY_COMM ")") != NULL)
				continue;
			fd = (int)syscall(SYS_pidfd_open, atoi(de->d_name), 0);
			if (fd == -1)
				continue;
			ATF_CHECK_MSG(t_reaped_within(fd, T_LONG_MS),
			    "child %s not reaped", de->d_name);
			ATF_REQUIRE(close(fd) == 0);
		}
		closedir(d);
	}
	ATF_REQUIRE_EQ(t_nchildren(), 0);
}

/* pdrfork(RFPROC|RFPROCDESC) works like pdfork. */
T_TC(pdrfork__proc_procdesc, "pdrfork(RFPROC|RFPROCDESC) creates a child "
    "and a descriptor")
{
	pid_t pid, got;
	int fd;

	fd = -1;
	pid = pdrfork(&fd, 0, RF_PD);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0)
		_exit(3);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK(pdgetpid(fd, &got) == 0 && got == pid);
	ATF_CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	wait_exit_code(fd, 3);
}

/* pdrfork(RFFDG|RFPROC|RFPROCDESC) works; the child has a copy of our fds. */
T_TC(pdrfork__fdg, "pdrfork with RFFDG: the child gets a copy of the fds")
{
	pid_t pid;
	int fd, p[2];
	char c;

	ATF_REQUIRE(pipe(p) == 0);
	pid = pdrfork(&fd, PD_CLOEXEC, RFFDG | RF_PD);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(p[0]);
		_exit(write(p[1], "f", 1) == 1 ? 0 : 1);
	}
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ATF_CHECK(read(p[0], &c, 1) == 1 && c == 'f');
	ATF_REQUIRE(close(p[0]) == 0);
	wait_exit_code(fd, 0);
}

/* The /proc stat file of the calling thread, for spawner_blocked(). */
static void
spawner_path(char *path, size_t len)
{

	snprintf(path, len, "/proc/%d/task/%d/stat", (int)getpid(),
	    (int)gettid());
}

/*
 * In an RFSPAWN child: true once the thread that called pdrfork, whose
 * stat file is path, sleeps in the kernel's vfork wait (state D), false
 * if it does not within T_LONG_MS.  Async-signal-safe calls only.
 */
static bool
spawner_blocked(const char *path)
{
	struct timespec t0, t;
	char buf[512], *p;
	ssize_t n;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return (false);
		n = read(fd, buf, sizeof(buf) - 1);
		(void)close(fd);
		if (n <= 0)
			return (false);
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
		    p[2] == 'D')
			return (true);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
	    (t.tv_nsec - t0.tv_nsec) / 1000000 < T_LONG_MS);
	return (false);
}

/*
 * RFSPAWN: the parent resumes only once the child has exec'd: it waits in
 * the kernel while the child runs, the child becomes /bin/sh, and the
 * status is the program's.  (The kernel releases the parent at the exec's
 * point of no return; Linux 6.1 updates /proc/pid/exe only after that, so
 * the parent may read it a moment later.)
 */
T_TC(pdrfork__spawn_exec, "pdrfork(RFSPAWN): the parent resumes after "
    "the exec; status of the program")
{
	struct timespec tick = { 0, 1000 * 1000 };
	char exe[PATH_MAX], sh[PATH_MAX], path[64], self[64];
	ssize_t n;
	pid_t pid;
	int fd, i, in[2], status;

	ATF_REQUIRE(realpath("/bin/sh", sh) != NULL);
	ATF_REQUIRE(pipe(in) == 0);
	spawner_path(self, sizeof(self));
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (!spawner_blocked(self))
			_exit(125);
		if (dup2(in[0], 0) == -1)
			_exit(126);
		execl("/bin/sh", "sh", "-c", "read x; exit 3", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (i = 0; i < T_LONG_MS; i++) {
		n = readlink(path, exe, sizeof(exe) - 1);
		exe[n >= 0 ? n : 0] = '\0';
		if (strcmp(exe, sh) == 0 || n < 0)
			break;
		(void)nanosleep(&tick, NULL);
	}
	/* Let the shell go on to exit 3. */
	ATF_REQUIRE(write(in[1], "\n", 1) == 1);
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(in[1]) == 0);
	status = bounded_wait(fd);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(!WIFEXITED(status) || WEXITSTATUS(status) != 125,
	    "the parent did not wait in the kernel while the child ran");
	ATF_CHECK_MSG(strcmp(exe, sh) == 0, "the child became '%s', not %s",
	    exe, sh);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	    "status %#x, expected exit 3", status);
}

/*
 * RFSPAWN: the parent resumes only once the child has exited: it waits in
 * the kernel while the child runs, and what the child did before _exit is
 * already done.
 */
T_TC(pdrfork__spawn_exit, "pdrfork(RFSPAWN): the parent resumes after "
    "the child's _exit")
{
	char self[64];
	pid_t pid;
	int fd, p[2];
	char c;

	ATF_REQUIRE(pipe2(p, O_NONBLOCK) == 0);
	spawner_path(self, sizeof(self));
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (!spawner_blocked(self))
			_exit(5);
		(void)write(p[1], "e", 1);
		_exit(4);
	}
	ATF_CHECK_MSG(read(p[0], &c, 1) == 1 && c == 'e',
	    "pdrfork returned before the child wrote and exited");
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(p[1]) == 0);
	wait_exit_code(fd, 4);
}

static void
on_usr1(int sig)
{

	(void)sig;
}

/*
 * RFSPAWN resets caught signals to the default in the child, as exec
 * would; ignored signals stay ignored.
 */
T_TC(pdrfork__spawn_sigdfl, "pdrfork(RFSPAWN): caught signals are "
    "SIG_DFL in the child")
{
	struct sigaction sa, cur;
	pid_t pid;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	ATF_REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
	ATF_REQUIRE(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	ATF_REQUIRE_MSG(pid >= 0, "pdrfork: %s", strerror(errno));
	if (pid == 0) {
		if (sigaction(SIGUSR1, NULL, &cur) != 0)
			_exit(10);
		if (cur.sa_handler != SIG_DFL)
			_exit(11);
		if (sigaction(SIGUSR2, NULL, &cur) != 0 ||
		    cur.sa_handler != SIG_IGN)
			_exit(12);
		_exit(0);
	}
	wait_exit_code(fd, 0);
	/* The parent's handler is untouched. */
	ATF_REQUIRE(sigaction(SIGUSR1, NULL, &cur) == 0);
	ATF_CHECK(cur.sa_handler == on_usr1);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

struct releaser {
	int	done;		/* Readable once pdrfork has returned. */
	int	rel;		/* A byte here lets the grandchild exit. */
	bool	stuck;		/* pdrfork had not returned in time. */
};

static void *
releaser_main(void *arg)
{
	struct releaser *r;
	struct pollfd pfd;

	r = arg;
	pfd.fd = r->done;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) == 0) {
		r->stuck = true;
		(void)write(r->rel, "x", 1);
	}
	return (NULL);
}

/*
 * RFSPAWN: the parent resumes when the child exits, even if the child
 * left a process of its own running (vfork semantics follow the child
 * alone).
 */
T_TC(pdrfork__spawn_grandchild, "pdrfork(RFSPAWN): a grandchild that "
    "lives on does not hold the parent")
{
	struct releaser r;
	pthread_t td;
	pid_t pid, gpid;
	int done[2], fd, gfd, gp[2], rel[2];
	char c;

	ATF_REQUIRE(pipe(done) == 0);
	ATF_REQUIRE(pipe(gp) == 0);
	ATF_REQUIRE(pipe(rel) == 0);
	r.done = done[0];
	r.rel = rel[1];
	r.stuck = false;
	ATF_REQUIRE(pthread_create(&td, NULL, releaser_main, &r) == 0);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	if (pid == 0) {
		/* _Fork: the spawn child may call async-signal-safe ones only. */
		gpid = _Fork();
		if (gpid == 0) {
			(void)close(rel[1]);
			_exit(read(rel[0], &c, 1) >= 0 ? 0 : 1);
		}
		_exit(write(gp[1], &gpid, sizeof(gpid)) == sizeof(gpid) ?
		    4 : 5);
	}
	ATF_REQUIRE(write(done[1], "d", 1) == 1);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
	ATF_REQUIRE(close(gp[1]) == 0);
	ATF_REQUIRE(read(gp[0], &gpid, sizeof(gpid)) == sizeof(gpid));
	ATF_REQUIRE(gpid > 0);
	/* Release the grandchild and see it die (init reaps it). */
	gfd = (int)syscall(SYS_pidfd_open, gpid, 0);
	ATF_REQUIRE(write(rel[1], "x", 1) == 1);
	if (gfd >= 0) {
		ATF_CHECK(t_dead_within(gfd, T_LONG_MS));
		ATF_REQUIRE(close(gfd) == 0);
	}
	ATF_REQUIRE(close(gp[0]) == 0);
	ATF_REQUIRE(close(rel[0]) == 0);
	ATF_REQUIRE(close(rel[1]) == 0);
	ATF_REQUIRE(close(done[0]) == 0);
	ATF_REQUIRE(close(done[1]) == 0);
	wait_exit_code(fd, 4);
	ATF_CHECK_MSG(!r.stuck, "pdrfork(RFSPAWN) returned only when the "
	    "grandchild exited, not when the child did");
}

struct others {
	int	run;		/* Readable once the spawn child runs. */
	int	go;		/* A byte here lets the spawn child exit. */
	int	status;		/* Of the pdfork child; -1 if it failed. */
};

/* Another thread of the spawning parent: pdfork and malloc, then go. */
static void *
others_main(void *arg)
{
	struct others *o;
	void *p;
	pid_t pid;
	int fd;
	char c;

	o = arg;
	o->status = -1;
	if (read(o->run, &c, 1) != 1)
		return (NULL);
	pid = pdfork(&fd, 0);
	if (pid == 0)
		_exit(6);
	p = malloc(100000);
	free(p);
	(void)write(o->go, "g", 1);
	if (pid > 0) {
		if (pdwait(fd, &o->status, WEXITED, NULL, NULL) != 0)
			o->status = -1;
		(void)close(fd);
	}
	return (NULL);
}

/*
 * RFSPAWN stops only the calling thread: while its child runs, the
 * parent's other threads can pdfork and malloc (no lock is held across
 * the wait).
 */
T_TC(pdrfork__spawn_others_run, "pdrfork(RFSPAWN): other threads pdfork "
    "and malloc while the parent waits")
{
	struct releaser r;
	struct others o;
	pthread_t td, tr;
	pid_t pid;
	int done[2], fd, go[2], run[2];
	char c;

	ATF_REQUIRE(pipe(done) == 0);
	ATF_REQUIRE(pipe(go) == 0);
	ATF_REQUIRE(pipe(run) == 0);
	r.done = done[0];
	r.rel = go[1];
	r.stuck = false;
	o.run = run[0];
	o.go = go[1];
	ATF_REQUIRE(pthread_create(&tr, NULL, releaser_main, &r) == 0);
	ATF_REQUIRE(pthread_create(&td, NULL, others_main, &o) == 0);
	pid = pdrfork(&fd, 0, (int)RFSPAWN);
	if (pid == 0) {
		if (write(run[1], "r", 1) != 1)
			_exit(10);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 11);
	}
	ATF_REQUIRE(write(done[1], "d", 1) == 1);
	ATF_REQUIRE(pthread_join(tr, NULL) == 0);
	ATF_REQUIRE_MSG(pid > 0, "pdrfork: %s", strerror(errno));
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_REQUIRE(close(done[0]) == 0);
	ATF_REQUIRE(close(done[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
	ATF_REQUIRE(close(run[0]) == 0);
	ATF_REQUIRE(close(run[1]) == 0);
	wait_exit_code(fd, 0);
	ATF_CHECK_MSG(!r.stuck, "another thread's pdfork or malloc waited for "
	    "the RFSPAWN child");
	ATF_CHECK_MSG(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 6,
	    "the other thread's pdfork child: status %#x", o.status);
}

/* Try pdrfork(pdflags, rf), expecting EINVAL and no process. */
static void
expect_einval(int pdflags, int rf)
{
	pid_t pid;
	int fd;

	fd = -42;
	errno = 0;
	pid = pdrfork(&fd, pdflags, rf);
	if (pid == 0)
		_exit(0);
	ATF_CHECK_MSG(pid == -1 && errno == EINVAL, "pdrfork(%#x, %#x): "
	    "%d, %s", pdflags, (unsigned int)rf, (int)pid, strerror(errno));
	if (pid > 0)
		dispose(fd);
	else
		ATF_CHECK_EQ(fd, -42);
	ATF_CHECK_EQ(t_nchildren(), 0);
}

/* Bad rfflags: EINVAL, and no process is created. */
T_TC(pdrfork__einval_rfflags, "pdrfork: EINVAL for bad rfflags, nothing "
    "created")
{
	static const int bad[] = {
		RFPROCDESC,
		RFPROC,
		(int)(RFSPAWN | RFPROC),
		RFFDG | RFCFDG | RF_PD,
		RFSTOPPED | RF_PD,
		RFHIGHPID | RF_PD,
		1 << 20,
		(1 << 20) | RF_PD,
		-1,
		0,
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_einval(0, bad[i]);
}

/* Bad pdflags with valid rfflags: EINVAL, and no process is created. */
T_TC(pdrfork__einval_pdflags, "pdrfork: EINVAL for bad pdflags")
{

	expect_einval(0x100, RF_PD);
	expect_einval(-1, RF_PD);
	expect_einval(8, RFFDG | RF_PD);
	expect_einval(0x100, (int)RFSPAWN);
}

/*
 * An unwritable fdp: -1/EFAULT in the parent, no fd leaked, and the child,
 * whose only descriptor was closed, dies and is reaped.
 */
T_TC(pdrfork__efault, "pdrfork: EFAULT for an unwritable fdp, nothing "
    "left behind")
{
	pid_t pid;

	errno = 0;
	pid = pdrfork(t_unmapped(), 0, RF_PD);
	if (pid == 0)
		_exit(0);
	ATF_CHECK_MSG(pid == -1 && errno == EFAULT, "RFPROC: %d, %s",
	    (int)pid, strerror(errno));
	wait_no_children();
	errno = 0;
	pid = pdrfork(t_unmapped(), 0, (int)RFSPAWN);
	if (pid == 0)
		_exit(0);
	ATF_CHECK_MSG(pid == -1 && errno == EFAULT, "RFSPAWN: %d, %s",
	    (int)pid, strerror(errno));
	wait_no_children();
}

/* A plain fork() child that pauses until killed. */
static pid_t
plain_child(void)
{
	pid_t pid;

	pid = fork();
	ATF_REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			pause();
	}
	return (pid);
}

/* Kill plain child pid (watched by watch) unless dead; reap it; status. */
static int
plain_reap(pid_t pid, int watch)
{
	int status;

	if (!t_dead_within(watch, 0))
		(void)kill(pid, SIGKILL);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE(close(watch) == 0);
	return (status);
}

/* A plain child, its pidfd watch, and a pdopenpid descriptor of it. */
static int
plain_open(int pdflags, pid_t *pidp, int *watchp)
{
	int fd;

	*pidp = plain_child();
	*watchp = t_watch(*pidp);
	if ((fd = pdopenpid(*pidp, pdflags)) == -1) {
		(void)plain_reap(*pidp, *watchp);
		atf_tc_fail("pdopenpid: %s", strerror(errno));
	}
	return (fd);
}

/*
 * Run tests/nokernel_helper (every call must fail with ENOSYS) on a kernel
 * made to look older by seccomp: waitid(P_PIDFD) fails with EINVAL as
 * before Linux 5.4, and without has_clone3 clone3 fails with ENOSYS as
 * before 5.3.
 */
static void
old_kernel(const atf_tc_t *tc, bool has_clone3)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, has_clone3 ? SECCOMP_RET_ALLOW :
		    SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_waitid, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, P_PIDFD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	char path[PATH_MAX];
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/nokernel_helper",
	    atf_tc_get_config_var(tc, "srcdir"));
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
			_exit(126);
		execl(path, "nokernel_helper", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) < 126,
	    "%s did not run: status %#x", path, status);
	ATF_CHECK_MSG(WEXITSTATUS(status) == 0,
	    "%d calls did not fail with ENOSYS (see stdout)",
	    WEXITSTATUS(status));
}

T_TC(kernel__enosys_without_clone3, "a kernel without clone3 (< 5.3): "
    "every call fails with ENOSYS")
{

	old_kernel(tc, false);
}

T_TC(kernel__enosys_without_waitid_pidfd, "a kernel without "
    "waitid(P_PIDFD) (5.3): every call fails with ENOSYS")
{

	old_kernel(tc, true);
}

/*
 * pdopenpid gives a descriptor for an existing process: pdgetpid matches,
 * pdkill signals it, poll reports its exit.
 */
T_TC(pdopenpid__basic, "pdopenpid: pdgetpid, pdkill and poll on a "
    "process we did not pdfork")
{
	struct pollfd pfd;
	pid_t pid, got;
	int fd, status, watch;

	fd = plain_open(PD_DAEMON, &pid, &watch);
	ATF_CHECK(pdgetpid(fd, &got) == 0 && got == pid);
	pfd.fd = fd;
	pfd.events = POLLIN;
	ATF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	ATF_CHECK(pdkill(fd, SIGTERM) == 0);
	pfd.revents = 0;
	ATF_CHECK_EQ(poll(&pfd, 1, T_LONG_MS), 1);
	ATF_CHECK(pfd.revents & POLLIN);
	/* Not the library's child: we reap it. */
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/* pdopenpid of a process that does not exist: ESRCH. */
T_TC(pdopenpid__esrch, "pdopenpid: ESRCH for a nonexistent pid")
{
	FILE *fp;
	pid_t pid;
	long pidmax;

	fp = fopen("/proc/sys/kernel/pid_max", "re");
	ATF_REQUIRE(fp != NULL);
	ATF_REQUIRE(fscanf(fp, "%ld", &pidmax) == 1);
	fclose(fp);
	ATF_CHECK_ERRNO(ESRCH, pdopenpid((pid_t)pidmax + 1, 0) == -1);
	/* A child of ours, exited and reaped. */
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
	ATF_CHECK_ERRNO(ESRCH, pdopenpid(pid, 0) == -1);
}

/* pdopenpid with flag bits outside PD_ALLOWED_AT_FORK: EINVAL. */
T_TC(pdopenpid__einval, "pdopenpid: EINVAL for bad flags")
{

	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), 0x100) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), 8) == -1);
	ATF_CHECK_ERRNO(EINVAL, pdopenpid(getpid(), -1) == -1);
}

/* pdopenpid of a zombie (exited, not yet reaped): EBUSY. */
T_TC(pdopenpid__ebusy_zombie, "pdopenpid: EBUSY for a zombie")
{
	siginfo_t si;
	pid_t pid;
	int fd;

	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	errno = 0;
	fd = pdopenpid(pid, PD_DAEMON);
	ATF_CHECK_MSG(fd == -1 && errno == EBUSY, "pdopenpid: %d, %s", fd,
	    strerror(errno));
	if (fd >= 0)
		ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
}

/*
 * pdopenpid of the caller's own fork() child: pdwait gets the status the
 * child's parent can see, with rusage, as often as asked, and leaves the
 * child for waitpid, which still reports it.  (FreeBSD's
 * pdopenpid_fork_then_open.)
 */
T_TC(pdopenpid__fork_child_wait, "pdopenpid of a fork() child: pdwait "
    "reports its exit, repeatably, and waitpid still works")
{
	struct __wrusage wru;
	siginfo_t si;
	pid_t pid;
	int fd, i, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_CHECK_ERRNO(EAGAIN, pdwait(fd, &status, WEXITED | WNOHANG, NULL,
	    NULL) == -1);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	for (i = 0; i < 2; i++) {
		status = 0;
		memset(&wru, 0xff, sizeof(wru));
		ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, &wru, &si) == 0,
		    "pdwait %d: %s", i, strerror(errno));
		ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) ==
		    SIGKILL, "pdwait %d: status %#x", i, status);
		ATF_CHECK_EQ(si.si_pid, pid);
		ATF_CHECK(wru.wru_self.ru_maxrss >= 0 &&
		    wru.wru_self.ru_utime.tv_sec >= 0);
	}
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "waitpid: status %#x", status);
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * Two pdopenpid descriptors of one fork() child: both report its exit
 * code.  (FreeBSD's pdopenpid_open_twice.)
 */
T_TC(pdopenpid__open_twice, "two pdopenpid descriptors of a fork() child "
    "both report its exit")
{
	pid_t pid;
	int fd[2], i, p[2], status, watch;
	char c;

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		(void)read(p[0], &c, 1);
		_exit(9);
	}
	(void)close(p[0]);
	watch = t_watch(pid);
	fd[0] = pdopenpid(pid, PD_DAEMON);
	fd[1] = pdopenpid(pid, PD_DAEMON);
	ATF_REQUIRE_MSG(fd[0] >= 0 && fd[1] >= 0, "pdopenpid: %s",
	    strerror(errno));
	ATF_REQUIRE(write(p[1], "x", 1) == 1);
	(void)close(p[1]);
	for (i = 0; i < 2; i++) {
		status = 0;
		ATF_REQUIRE_MSG(pdwait(fd[i], &status, WEXITED, NULL,
		    NULL) == 0, "pdwait %d: %s", i, strerror(errno));
		ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 9,
		    "pdwait %d: status %#x", i, status);
	}
	status = plain_reap(pid, watch);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	ATF_REQUIRE(close(fd[0]) == 0);
	ATF_REQUIRE(close(fd[1]) == 0);
}

/*
 * pdwait with WUNTRACED on a pdopenpid descriptor of a fork() child: the
 * stop, then the exit.
 */
T_TC(pdopenpid__fork_child_stop, "pdopenpid of a fork() child: pdwait "
    "WUNTRACED reports the stop, then the exit")
{
	pid_t pid;
	int fd, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_REQUIRE(pdkill(fd, SIGSTOP) == 0);
	status = 0;
	ATF_REQUIRE(pdwait(fd, &status, WUNTRACED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP,
	    "status %#x", status);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED | WUNTRACED, NULL, NULL) == 0);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
	status = plain_reap(pid, watch);
	ATF_CHECK(WIFSIGNALED(status));
	ATF_REQUIRE(close(fd) == 0);
}

/*
 * pdopenpid of our own pdfork child: a second descriptor that guards it
 * too.  Closing the first kills the child; the second reports the death.
 * Closing both leaves no registry entry behind (checked by the leak check
 * of a DEBUG=1 build: an entry of the same pid once stayed for good).
 */
T_TC(pdopenpid__own_pdfork_child, "pdopenpid of our own pdfork child: "
    "both descriptors guard it, and both go away cleanly")
{
	pid_t pid, got;
	int fd1, fd2, status, watch;

	pid = t_pdfork_pause(&fd1, 0);
	watch = t_watch(pid);
	fd2 = pdopenpid(pid, 0);
	ATF_REQUIRE_MSG(fd2 >= 0, "pdopenpid: %s", strerror(errno));
	ATF_CHECK(pdgetpid(fd2, &got) == 0 && got == pid);
	ATF_REQUIRE(close(fd1) == 0);
	ATF_CHECK_MSG(t_dead_within(watch, T_LONG_MS),
	    "alive after its first descriptor's last close");
	ATF_CHECK_MSG(t_reaped_within(fd2, T_LONG_MS), "no record on fd2");
	status = 0;
	if (t_kernel_exit_info()) {
		ATF_CHECK_MSG(pdwait(fd2, &status, WEXITED, NULL, NULL) == 0,
		    "pdwait: %s", strerror(errno));
		ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) ==
		    SIGKILL, "status %#x", status);
	}
	ATF_REQUIRE(close(fd2) == 0);
	ATF_REQUIRE(close(watch) == 0);
}

/* pdopenpid of a thread id that is not a process: ESRCH. */
static void *
tid_thread(void *arg)
{
	int *a = arg;
	char c;

	__atomic_store_n(&a[0], (int)gettid(), __ATOMIC_RELEASE);
	(void)read(a[1], &c, 1);	/* Until the case is done. */
	return (NULL);
}

T_TC(pdopenpid__tid, "pdopenpid of a thread's id: ESRCH")
{
	pthread_t td;
	int p[2], arg[2];

	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	arg[0] = 0;
	arg[1] = p[0];
	ATF_REQUIRE(pthread_create(&td, NULL, tid_thread, arg) == 0);
	while (__atomic_load_n(&arg[0], __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	ATF_CHECK_ERRNO(ESRCH, pdopenpid(arg[0], PD_DAEMON) == -1);
	ATF_REQUIRE(write(p[1], "x", 1) == 1);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	(void)close(p[0]);
	(void)close(p[1]);
}

/* pdopenpid of oneself: the last close kills the caller (as documented). */
T_TC(pdopenpid__self_close_kills, "pdopenpid(getpid()) then close kills "
    "the caller")
{
	siginfo_t si;
	pid_t pid;
	int fd;

	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		if ((fd = pdopenpid(getpid(), 0)) == -1)
			_exit(1);
		(void)close(fd);
		for (;;)
			pause();
	}
	memset(&si, 0, sizeof(si));
	ATF_REQUIRE(waitid(P_PID, (id_t)pid, &si, WEXITED) == 0);
	ATF_CHECK_MSG(si.si_code == CLD_KILLED && si.si_status == SIGKILL,
	    "code %d status %d", si.si_code, si.si_status);
}

/* Closing the last copy of a pdopenpid descriptor kills the process. */
T_TC(pdopenpid__close_kills, "pdopenpid: the last close kills without "
    "PD_DAEMON")
{
	pid_t pid;
	int fd, status, watch;

	fd = plain_open(0, &pid, &watch);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(t_dead_within(watch, T_LONG_MS),
	    "alive %d ms after the last close", T_LONG_MS);
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
}

/*
 * With PD_DAEMON, closing the last copy leaves the process running (seen
 * after a non-daemon child closed later has died).
 */
T_TC(pdopenpid__daemon_survives, "pdopenpid: PD_DAEMON, the last close "
    "does not kill")
{
	pid_t pid, bpid;
	int bfd, bwatch, fd, status, watch;

	fd = plain_open(PD_DAEMON, &pid, &watch);
	ATF_REQUIRE(close(fd) == 0);
	/* Barrier: a later close of a non-daemon child has taken effect. */
	bpid = t_pdfork_pause(&bfd, 0);
	bwatch = t_watch(bpid);
	ATF_REQUIRE(close(bfd) == 0);
	ATF_CHECK(t_dead_within(bwatch, T_LONG_MS));
	t_kill_wait(bwatch);
	ATF_CHECK_MSG(t_alive(watch), "PD_DAEMON process killed by close");
	status = plain_reap(pid, watch);
	ATF_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "status %#x", status);
}

/*
 * A pdfork child that opens /dev/null, reports the fd number, and waits
 * for a byte on *relp (the write end is returned there) before exiting.
 */
static pid_t
devnull_child(int *fdp, int *remotep, int *relp)
{
	int rep[2], rel[2], n;
	pid_t pid;
	char c;

	ATF_REQUIRE(pipe(rep) == 0);
	ATF_REQUIRE(pipe(rel) == 0);
	pid = pdfork(fdp, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)close(rep[0]);
		(void)close(rel[1]);
		n = open("/dev/null", O_RDONLY);
		if (write(rep[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(read(rel[0], &c, 1) >= 0 ? 0 : 2);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(rel[0]) == 0);
	ATF_REQUIRE(read(rep[0], remotep, sizeof(*remotep)) ==
	    sizeof(*remotep));
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(*remotep >= 0);
	*relp = rel[1];
	return (pid);
}

static void
devnull_release(int fd, int rel)
{

	ATF_REQUIRE(close(rel) == 0);
	wait_exit_code(fd, 0);
}

/*
 * pddupfd duplicates the child's descriptor into the caller, with
 * FD_CLOEXEC set.
 */
T_TC(pddupfd__basic, "pddupfd: a close-on-exec copy of the child's fd")
{
	struct stat st, dn;
	int fd, newfd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	newfd = pddupfd(fd, remote, 0);
	ATF_CHECK_MSG(newfd >= 0, "pddupfd: %s", strerror(errno));
	if (newfd >= 0) {
		ATF_CHECK_EQ(fcntl(newfd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		ATF_REQUIRE(stat("/dev/null", &dn) == 0);
		ATF_REQUIRE(fstat(newfd, &st) == 0);
		ATF_CHECK(S_ISCHR(st.st_mode) && st.st_rdev == dn.st_rdev);
		ATF_REQUIRE(close(newfd) == 0);
	}
	devnull_release(fd, rel);
}

/* pddupfd with flags other than 0: EINVAL. */
T_TC(pddupfd__einval_flags, "pddupfd: EINVAL for flags != 0")
{
	int fd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, 1) == -1);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, O_CLOEXEC) == -1);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(fd, remote, -1) == -1);
	devnull_release(fd, rel);
}

/* pddupfd on an fd that is not a process descriptor: EINVAL. */
T_TC(pddupfd__einval_not_pd, "pddupfd: EINVAL for a pipe")
{
	int p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_CHECK_ERRNO(EINVAL, pddupfd(p[0], 0, 0) == -1);
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(p[1]) == 0);
}

/* pddupfd of an fd the child does not have open: EBADF. */
T_TC(pddupfd__ebadf_remote, "pddupfd: EBADF for a bad remotefd")
{
	int fd, rel, remote;

	devnull_child(&fd, &remote, &rel);
	ATF_CHECK_ERRNO(EBADF, pddupfd(fd, 1000, 0) == -1);
	ATF_CHECK_ERRNO(EBADF, pddupfd(fd, -1, 0) == -1);
	devnull_release(fd, rel);
}

/* pddupfd after the child exited: ESRCH. */
T_TC(pddupfd__esrch_exited, "pddupfd: ESRCH once the child has exited")
{
	int fd;

	t_pdfork_exit(&fd, 0, 0);
	(void)bounded_wait(fd);
	ATF_CHECK_ERRNO(ESRCH, pddupfd(fd, 0, 0) == -1);
	ATF_REQUIRE(close(fd) == 0);
}

/* pddupfd without the right to trace the target: EPERM. */
T_TC_UNPRIV(pddupfd__eperm, "pddupfd: EPERM on another uid's process")
{
	int fd;

	if (geteuid() == 0)
		atf_tc_skip("root may trace anything; run as nobody");
	/* Pid 1 runs as root; PD_DAEMON: the close must not try to kill it. */
	fd = pdopenpid(1, PD_DAEMON);
	ATF_REQUIRE_MSG(fd >= 0, "pdopenpid(1): %s", strerror(errno));
	ATF_CHECK_ERRNO(EPERM, pddupfd(fd, 0, 0) == -1);
	ATF_REQUIRE(close(fd) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, pdrfork__proc_procdesc);
	ATF_TP_ADD_TC(tp, pdrfork__fdg);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_exec);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_exit);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_sigdfl);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_grandchild);
	ATF_TP_ADD_TC(tp, pdrfork__spawn_others_run);
	ATF_TP_ADD_TC(tp, pdrfork__einval_rfflags);
	ATF_TP_ADD_TC(tp, pdrfork__einval_pdflags);
	ATF_TP_ADD_TC(tp, pdrfork__efault);
	ATF_TP_ADD_TC(tp, kernel__enosys_without_clone3);
	ATF_TP_ADD_TC(tp, kernel__enosys_without_waitid_pidfd);
	ATF_TP_ADD_TC(tp, pdopenpid__basic);
	ATF_TP_ADD_TC(tp, pdopenpid__esrch);
	ATF_TP_ADD_TC(tp, pdopenpid__einval);
	ATF_TP_ADD_TC(tp, pdopenpid__fork_child_wait);
	ATF_TP_ADD_TC(tp, pdopenpid__open_twice);
	ATF_TP_ADD_TC(tp, pdopenpid__fork_child_stop);
	ATF_TP_ADD_TC(tp, pdopenpid__own_pdfork_child);
	ATF_TP_ADD_TC(tp, pdopenpid__tid);
	ATF_TP_ADD_TC(tp, pdopenpid__self_close_kills);
	ATF_TP_ADD_TC(tp, pdopenpid__ebusy_zombie);
	ATF_TP_ADD_TC(tp, pdopenpid__close_kills);
	ATF_TP_ADD_TC(tp, pdopenpid__daemon_survives);
	ATF_TP_ADD_TC(tp, pddupfd__basic);
	ATF_TP_ADD_TC(tp, pddupfd__einval_flags);
	ATF_TP_ADD_TC(tp, pddupfd__einval_not_pd);
	ATF_TP_ADD_TC(tp, pddupfd__ebadf_remote);
	ATF_TP_ADD_TC(tp, pddupfd__esrch_exited);
	ATF_TP_ADD_TC(tp, pddupfd__eperm);
	return (atf_no_error());
}
