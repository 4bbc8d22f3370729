/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Close semantics around the owner (pdfork(3)): the owner's death, exec
 * and fork, descriptors passed over unix sockets, pdfork from a thread,
 * credential changes in the child, and the invisibility of the guardian.
 *
 * Code that runs in a forked process never uses an ATF macro: it reports
 * through a pipe or its exit status, and the test checks that.
 */

#include <sys/procdesc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	O_HIGH	30	/* Where an owner parks fds before it execs. */

/* The process holding socket inode ino, or -1. */
static pid_t
o_sock_holder(ino_t ino)
{
	char want[64], path[600], link[64];
	struct dirent *de, *fe;
	DIR *d, *fd;
	pid_t found;

	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)ino);
	found = -1;
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while (found == -1 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", de->d_name);
		if ((fd = opendir(path)) == NULL)
			continue;
		while ((fe = readdir(fd)) != NULL) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
			    de->d_name, fe->d_name);
			memset(link, 0, sizeof(link));
			if (readlink(path, link, sizeof(link) - 1) > 0 &&
			    strcmp(link, want) == 0) {
				found = atoi(de->d_name);
				break;
			}
		}
		closedir(fd);
	}
	closedir(d);
	return (found);
}

/* Pid of this process's guardian (the peer of the library's socket). */
static pid_t
o_guardian_pid(void)
{
	struct stat st;
	ino_t peer;
	int s;

	if ((s = t_guardian_sock()) == -1 || fstat(s, &st) == -1 ||
	    (peer = t_peer_ino(st.st_ino)) == 0)
		return (-1);
	return (o_sock_holder(peer));
}

/*
 * A pdfork child of ours must be dead (and reaped) by now.  If not, the
 * check fails and the child is killed, so that no failure leaves it behind.
 */
#define	O_DEAD(w, msg) do {						\
	ATF_CHECK_MSG(t_dead_within((w), T_LONG_MS), "%s", (msg));	\
	if (!t_dead_within((w), 0))					\
		(void)syscall(SYS_pidfd_send_signal, (w), SIGKILL,	\
		    NULL, 0);						\
	ATF_CHECK(t_reaped_within((w), T_LONG_MS));			\
} while (0)

/* Kill a process that is not our child, through its watch, and close. */
static void
o_kill_watched(int w)
{

	ATF_REQUIRE(syscall(SYS_pidfd_send_signal, w, SIGKILL, NULL, 0) == 0);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(close(w) == 0);
}

static double
o_ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e6);
}

/*
 * Rule 1: an owner process pdforks N (and D, PD_DAEMON, if asked),
 * reports their pids and its guardian's, then dies as told.
 */
enum o_death { O_EXIT, O_UEXIT, O_SEGV, O_SIGKILL };

struct o_report {
	pid_t	n;		/* Non-daemon grandchild. */
	pid_t	d;		/* PD_DAEMON grandchild, or 0. */
	pid_t	g;		/* The owner's guardian. */
};

static void __attribute__((noreturn))
o_owner(enum o_death how, bool daemon, int rep, int go)
{
	struct o_report r;
	struct rlimit rl;
	int fdd, fdn;
	char c;

	memset(&r, 0, sizeof(r));
	/* D first: its descriptor is closed before N's when we die. */
	if (daemon && (r.d = t_pdfork_clean(&fdd, PD_DAEMON)) == -1)
		_exit(120);
	if ((r.n = t_pdfork_clean(&fdn, 0)) == -1)
		_exit(121);
	r.g = o_guardian_pid();
	t_child_write(rep, &r, sizeof(r));
	(void)read(go, &c, 1);
	switch (how) {
	case O_EXIT:
		exit(0);
	case O_UEXIT:
		_exit(0);
	case O_SEGV:
		rl.rlim_cur = rl.rlim_max = 0;
		(void)setrlimit(RLIMIT_CORE, &rl);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(122);
	case O_SIGKILL:
		for (;;)
			pause();
	}
	_exit(123);
}

static void
o_owner_dies(enum o_death how, bool daemon)
{
	static const char *names[] = { "exit", "_exit", "SIGSEGV", "SIGKILL" };
	struct o_report r;
	struct timespec t0;
	int rep[2], go[2], status, wd, wg, wn;
	pid_t o;

	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0)
		o_owner(how, daemon, rep[1], go[0]);
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(read(rep[0], &r, sizeof(r)) == (ssize_t)sizeof(r));
	ATF_REQUIRE(r.n > 0 && r.g > 0 && (!daemon || r.d > 0));
	wn = t_watch(r.n);
	wg = t_watch(r.g);
	wd = daemon ? t_watch(r.d) : -1;
	ATF_REQUIRE(t_alive(wn));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (how == O_SIGKILL)
		ATF_REQUIRE(kill(o, SIGKILL) == 0);
	else
		ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_REQUIRE(waitpid(o, &status, 0) == o);
	switch (how) {
	case O_EXIT:
	case O_UEXIT:
		ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		break;
	case O_SEGV:
		ATF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
		break;
	case O_SIGKILL:
		ATF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		break;
	}
	ATF_CHECK_MSG(t_dead_within(wn, T_LONG_MS),
	    "owner %s: the grandchild survived", names[how]);
	fprintf(stderr, "owner %s -> grandchild dead: %.3f ms\n", names[how],
	    o_ms_since(&t0));
	/* Nothing left to guard: the guardian goes, and D is past harm. */
	ATF_CHECK(t_dead_within(wg, T_LONG_MS));
	if (daemon) {
		ATF_CHECK_MSG(t_alive(wd), "owner %s: PD_DAEMON grandchild "
		    "died", names[how]);
		o_kill_watched(wd);
	}
	(void)syscall(SYS_pidfd_send_signal, wn, SIGKILL, NULL, 0);
	ATF_REQUIRE(close(wn) == 0);
	ATF_REQUIRE(close(wg) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
}

/* The owner exiting with exit() closes its only descriptor: the child dies. */
T_TC(owner__exit, "owner exit() kills the child")
{

	o_owner_dies(O_EXIT, false);
}

/* The owner exiting with _exit() closes its only descriptor: the child dies. */
T_TC(owner__uexit, "owner _exit() kills the child")
{

	o_owner_dies(O_UEXIT, false);
}

/* The owner crashing (SIGSEGV) closes its only descriptor: the child dies. */
T_TC(owner__segv, "owner crash kills the child")
{

	o_owner_dies(O_SEGV, false);
}

/* The owner SIGKILLed closes its only descriptor: the child dies. */
T_TC(owner__sigkill, "owner SIGKILLed kills the child")
{

	o_owner_dies(O_SIGKILL, false);
}

/* A PD_DAEMON child outlives its owner, however the owner dies. */
T_TC(owner__daemon_survives, "PD_DAEMON child survives the owner's death")
{

	o_owner_dies(O_EXIT, true);
	o_owner_dies(O_UEXIT, true);
	o_owner_dies(O_SEGV, true);
	o_owner_dies(O_SIGKILL, true);
}

/*
 * Rule 2: an owner pdforks S (PD_CLOEXEC, a sentinel) and N, then execs a
 * shell (which never linked libprocdesc) with stdin a pipe from us and
 * fd 3 a pipe to us; N's descriptor is fd 5 there unless PD_CLOEXEC.
 */
struct o_exec {
	pid_t	o;		/* The owner, then the shell. */
	int	in;		/* Lines to the shell. */
	int	ready;		/* The shell's echo >&3. */
	int	wn, ws, wg;	/* Watches of N, S, the guardian. */
};

static int
o_park(int fd)
{
	int high;

	if ((high = fcntl(fd, F_DUPFD_CLOEXEC, O_HIGH)) == -1)
		_exit(124);
	close(fd);
	return (high);
}

static void
o_exec_start(struct o_exec *x, int nflags, const char *script)
{
	struct o_report r;
	int rep[2], go[2], in[2], ready[2], fdn, fds;
	pid_t o;
	char c;

	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(ready, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		memset(&r, 0, sizeof(r));
		if ((r.d = t_pdfork_clean(&fds, PD_CLOEXEC)) == -1 ||
		    (r.n = t_pdfork_clean(&fdn, nflags)) == -1)
			_exit(120);
		r.g = o_guardian_pid();
		t_child_write(rep[1], &r, sizeof(r));
		(void)read(go[0], &c, 1);
		in[0] = o_park(in[0]);
		ready[1] = o_park(ready[1]);
		fds = o_park(fds);
		fdn = o_park(fdn);
		if ((nflags & PD_CLOEXEC) == 0) {
			if (dup2(fdn, 5) != 5)
				_exit(126);
		}
		if (dup2(in[0], 0) != 0 || dup2(ready[1], 3) != 3)
			_exit(126);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(ready[1]) == 0);
	ATF_REQUIRE(read(rep[0], &r, sizeof(r)) == (ssize_t)sizeof(r));
	ATF_REQUIRE(r.n > 0 && r.d > 0 && r.g > 0);
	x->o = o;
	x->in = in[1];
	x->ready = ready[0];
	x->wn = t_watch(r.n);
	x->ws = t_watch(r.d);
	x->wg = t_watch(r.g);
	ATF_REQUIRE(t_alive(x->wn));
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
	/* The shell runs: the exec is done. */
	ATF_REQUIRE(read(x->ready, &c, 1) == 1);
	/* S was closed by the exec: when it is dead, so is that exec's news. */
	ATF_REQUIRE(t_dead_within(x->ws, T_LONG_MS));
}

static void
o_exec_end(struct o_exec *x)
{

	if (x->in != -1)
		ATF_REQUIRE(close(x->in) == 0);
	ATF_CHECK_EQ(t_reap(x->o), 0);
	ATF_CHECK(t_dead_within(x->wg, T_LONG_MS));
	(void)syscall(SYS_pidfd_send_signal, x->wn, SIGKILL, NULL, 0);
	ATF_REQUIRE(close(x->wn) == 0);
	ATF_REQUIRE(close(x->ws) == 0);
	ATF_REQUIRE(close(x->wg) == 0);
	ATF_REQUIRE(close(x->ready) == 0);
}

/* The owner's exec closes a PD_CLOEXEC descriptor: the child dies. */
T_TC(owner__exec_cloexec, "owner exec closing a PD_CLOEXEC pd kills")
{
	struct o_exec x;

	o_exec_start(&x, PD_CLOEXEC, "echo >&3; read x; exit 0");
	ATF_CHECK(t_dead_within(x.wn, T_LONG_MS));
	o_exec_end(&x);
}

/*
 * A descriptor kept across the owner's exec keeps the child alive; the new
 * image closing it (exec 5>&- in the shell) kills the child.
 */
T_TC(owner__exec_kept_close, "kept across exec; closed by the new image")
{
	struct o_exec x;
	char c;

	o_exec_start(&x, 0,
	    "echo >&3; read x; exec 5>&-; echo >&3; read y; exit 0");
	ATF_CHECK_MSG(t_alive(x.wn), "died at the owner's exec");
	ATF_REQUIRE(write(x.in, "\n", 1) == 1);
	ATF_REQUIRE(read(x.ready, &c, 1) == 1);
	ATF_CHECK(t_dead_within(x.wn, T_LONG_MS));
	o_exec_end(&x);
}

/* A descriptor kept across the owner's exec dies with the new image. */
T_TC(owner__exec_kept_exit, "kept across exec; the new image exits")
{
	struct o_exec x;

	o_exec_start(&x, 0, "echo >&3; read x; exit 0");
	ATF_CHECK_MSG(t_alive(x.wn), "died at the owner's exec");
	ATF_REQUIRE(close(x.in) == 0);
	x.in = -1;
	ATF_CHECK_EQ(t_reap(x.o), 0);
	x.o = -1;
	ATF_CHECK(t_dead_within(x.wn, T_LONG_MS));
	ATF_CHECK(t_dead_within(x.wg, T_LONG_MS));
	ATF_REQUIRE(close(x.wn) == 0);
	ATF_REQUIRE(close(x.ws) == 0);
	ATF_REQUIRE(close(x.wg) == 0);
	ATF_REQUIRE(close(x.ready) == 0);
}

/*
 * Rule 3: a forked copy (no exec).  The helper obeys one-byte commands:
 * 'c' close the copy, 'o' pdgetpid/pdkill/pdwait on it (t_copy_ops(),
 * exit status 0 if all behaved), EOF exit.  It answers each command with
 * one byte.
 */
static pid_t
o_copy_start(int fd, pid_t want, int *cmdp, int *ackp)
{
	int cmd[2], ack[2], r;
	pid_t f;
	char c;

	ATF_REQUIRE(pipe2(cmd, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(ack, O_CLOEXEC) == 0);
	ATF_REQUIRE((f = fork()) >= 0);
	if (f == 0) {
		close(cmd[1]);
		close(ack[0]);
		r = 0;
		while (read(cmd[0], &c, 1) == 1) {
			if (c == 'c' && close(fd) != 0)
				r = 10;
			if (c == 'o' && r == 0)
				r = t_copy_ops(fd, want);
			t_child_write(ack[1], &c, 1);
		}
		_exit(r);
	}
	ATF_REQUIRE(close(cmd[0]) == 0);
	ATF_REQUIRE(close(ack[1]) == 0);
	*cmdp = cmd[1];
	*ackp = ack[0];
	return (f);
}

static void
o_copy_do(int cmd, int ack, char c)
{
	char r;

	ATF_REQUIRE(write(cmd, &c, 1) == 1);
	ATF_REQUIRE(read(ack, &r, 1) == 1 && r == c);
}

static void
o_copy_end(pid_t f, int cmd, int ack)
{

	ATF_REQUIRE(close(cmd) == 0);
	ATF_CHECK_EQ(t_reap(f), 0);
	ATF_REQUIRE(close(ack) == 0);
}

/*
 * A fork copy keeps the child alive after the owner closes its own; the
 * copy's close, the last, kills it.
 */
T_TC(owner__fork_copy_outlives, "owner closes first, the fork copy last")
{
	int fd, w, cmd, ack;
	pid_t f, pid;

	ATF_REQUIRE((pid = t_pdfork_clean(&fd, 0)) > 0);
	w = t_watch(pid);
	f = o_copy_start(fd, pid, &cmd, &ack);
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "the fork copy did not keep it alive");
	o_copy_do(cmd, ack, 'c');
	O_DEAD(w, "survived the last close");
	o_copy_end(f, cmd, ack);
	ATF_REQUIRE(close(w) == 0);
}

/* The fork copy closes first: the owner's close, the last, kills. */
T_TC(owner__fork_copy_first, "the fork copy closes first, the owner last")
{
	int fd, w, cmd, ack;
	pid_t f, pid;

	ATF_REQUIRE((pid = t_pdfork_clean(&fd, 0)) > 0);
	w = t_watch(pid);
	f = o_copy_start(fd, pid, &cmd, &ack);
	o_copy_do(cmd, ack, 'c');
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "the copy's close killed it");
	ATF_REQUIRE(close(fd) == 0);
	O_DEAD(w, "survived the last close");
	o_copy_end(f, cmd, ack);
	ATF_REQUIRE(close(w) == 0);
}

/*
 * pdgetpid, pdkill and pdwait work on a fork copy (PIDFD_INFO_EXIT; before
 * Linux 6.15 pdwait fails there with ECHILD).
 */
T_TC(owner__fork_copy_ops, "pdgetpid/pdkill/pdwait in a fork copy")
{
	int fd, w, cmd, ack, status;
	pid_t f, pid;

	ATF_REQUIRE((pid = t_pdfork_clean(&fd, 0)) > 0);
	w = t_watch(pid);
	f = o_copy_start(fd, pid, &cmd, &ack);
	o_copy_do(cmd, ack, 'o');
	ATF_CHECK(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(close(cmd) == 0);
	ATF_CHECK_EQ_MSG(t_reap(f), 0, "step failed in the fork copy");
	ATF_REQUIRE(close(ack) == 0);
	ATF_REQUIRE(pdkill(fd, SIGKILL) == 0);	/* If the copy did not. */
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(close(w) == 0);
}

/*
 * Rule 4: SCM_RIGHTS.  A receiver forked before the pdfork (so that it
 * holds no inherited copy) obeys commands on a stream socket: 'f' with a
 * descriptor attached: keep it; 'c' close it; 'x' exit holding it.
 */
static int
o_sendfd(int s, char c, int fd)
{

	return (t_sendfd(s, &c, 1, fd));
}

/* One byte and maybe a descriptor (*fdp, else -1); 0 at EOF. */
static int
o_recvfd(int s, char *cp, int *fdp)
{

	return (t_recvfd(s, cp, 1, fdp, MSG_CMSG_CLOEXEC) > 0 ? 1 : 0);
}

static pid_t
o_receiver(int *sp)
{
	int sv[2], fd, held;
	pid_t f;
	char c;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
	    0);
	ATF_REQUIRE((f = fork()) >= 0);
	if (f == 0) {
		close(sv[0]);
		held = -1;
		while (o_recvfd(sv[1], &c, &fd) == 1) {
			if (c == 'f') {
				if (fd == -1)
					_exit(1);
				held = fd;
			} else if (c == 'c') {
				if (held == -1 || close(held) != 0)
					_exit(2);
				held = -1;
			} else if (c == 'x')
				_exit(held == -1 ? 3 : 0);
			t_child_write(sv[1], &c, 1);
		}
		_exit(0);
	}
	ATF_REQUIRE(close(sv[1]) == 0);
	*sp = sv[0];
	return (f);
}

static void
o_rcv_do(int s, char c, int fd)
{
	int nfd;
	char r;

	ATF_REQUIRE(o_sendfd(s, c, fd) == 0);
	ATF_REQUIRE(o_recvfd(s, &r, &nfd) == 1 && r == c);
}

/*
 * A copy received over SCM_RIGHTS keeps the child alive after the sender
 * closes its own; the receiver's close, the last, kills it.
 */
T_TC(owner__scm_receiver_close, "SCM_RIGHTS receiver's close is the last")
{
	int fd, w, s;
	pid_t f;

	f = o_receiver(&s);
	ATF_REQUIRE((w = t_watch(t_pdfork_clean(&fd, 0))) >= 0);
	o_rcv_do(s, 'f', fd);
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "the received copy did not keep it alive");
	o_rcv_do(s, 'c', -1);
	O_DEAD(w, "survived the last close");
	ATF_REQUIRE(close(s) == 0);
	ATF_CHECK_EQ(t_reap(f), 0);
	ATF_REQUIRE(close(w) == 0);
}

/* A receiver exiting with the only copy kills the child. */
T_TC(owner__scm_receiver_exit, "SCM_RIGHTS receiver exits holding it")
{
	int fd, w, s;
	pid_t f;

	f = o_receiver(&s);
	ATF_REQUIRE((w = t_watch(t_pdfork_clean(&fd, 0))) >= 0);
	o_rcv_do(s, 'f', fd);
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "the received copy did not keep it alive");
	ATF_REQUIRE(o_sendfd(s, 'x', -1) == 0);
	ATF_CHECK_EQ(t_reap(f), 0);
	O_DEAD(w, "survived the last close");
	ATF_REQUIRE(close(s) == 0);
	ATF_REQUIRE(close(w) == 0);
}

/*
 * A copy in flight keeps the child alive; closing both ends of the socket
 * with it unreceived is the last close.
 */
T_TC(owner__scm_in_flight, "a copy in flight, then both ends closed")
{
	int fd, w, sv[2];

	ATF_REQUIRE((w = t_watch(t_pdfork_clean(&fd, 0))) >= 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
	    0);
	ATF_REQUIRE(o_sendfd(sv[0], 'f', fd) == 0);
	ATF_REQUIRE(close(fd) == 0);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "the copy in flight did not keep it alive");
	ATF_REQUIRE(close(sv[0]) == 0);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "killed with the socket still open");
	ATF_REQUIRE(close(sv[1]) == 0);
	O_DEAD(w, "survived the last close");
	ATF_REQUIRE(close(w) == 0);
}

/* Rule 5. */
static void *
o_thread_pdfork(void *arg)
{
	int *fdp;

	fdp = arg;
	if (t_pdfork_clean(fdp, 0) == -1)
		*fdp = -1;
	return (NULL);
}

/* pdfork from a thread that exits at once: the child lives on. */
T_TC(owner__thread_exits, "the pdforking thread's exit does not kill")
{
	pthread_t td;
	pid_t pid;
	int fd, w;

	fd = -1;
	ATF_REQUIRE(pthread_create(&td, NULL, o_thread_pdfork, &fd) == 0);
	ATF_REQUIRE(pthread_join(td, NULL) == 0);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(pdgetpid(fd, &pid) == 0);
	w = t_watch(pid);
	t_close_barrier();
	ATF_CHECK_MSG(t_alive(w), "died with the thread that pdforked it");
	ATF_REQUIRE(close(fd) == 0);
	O_DEAD(w, "survived the last close");
	ATF_REQUIRE(close(w) == 0);
}

/* Rule 6: a child that changes credentials, then reports on a pipe. */
T_TC(owner__setuid_child, "setuid/setgid in the child do not disarm")
{
	int fd, w, p[2];
	pid_t pid;
	char c;

	if (geteuid() != 0)
		atf_tc_skip("needs root to setuid");
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
	if (pid == 0) {
		c = (setgroups(0, NULL) == 0 && setgid(65534) == 0 &&
		    setuid(65534) == 0 && getuid() == 65534) ? 'y' : 'n';
		t_child_write(p[1], &c, 1);
		syscall(SYS_close_range, 3, ~0U, 0);
		t_pause();
	}
	w = t_watch(pid);
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_REQUIRE(read(p[0], &c, 1) == 1);
	ATF_REQUIRE_MSG(c == 'y', "setuid failed in the child");
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(fd) == 0);
	O_DEAD(w, "survived the last close");
	ATF_REQUIRE(close(w) == 0);
}

/*
 * A dead pdfork child that had exec'd is reaped by the library like any
 * other (POLLHUP, no zombie), although execve() reset its exit signal to
 * SIGCHLD (de_thread()).  On failure reap it here, so that the leak check
 * does not hide the cause.
 */
static void
o_exec_reaped(int w, pid_t pid)
{

	if (!t_reaped_within(w, T_LONG_MS)) {
		atf_tc_fail_nonfatal("exec'd child not reaped: zombie left");
		(void)waitpid(pid, NULL, WNOHANG | __WALL);
	}
}

/*
 * The child, as nobody, execs a setuid-root copy of cat(1) (AT_SECURE,
 * which clears PR_SET_PDEATHSIG): close still kills it.
 */
T_TC(owner__setuid_exec, "exec of a setuid program does not disarm")
{
	char path[64], cwd[PATH_MAX];
	struct statvfs sv;
	int fd, w, in[2], ex[2], err, src, dst;
	char buf[8192];
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to make a setuid program");
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	ATF_REQUIRE(statvfs(cwd, &sv) == 0);
	if ((sv.f_flag & ST_NOSUID) != 0)
		atf_tc_skip("working directory is on a nosuid mount");
	snprintf(path, sizeof(path), "./owner_test.suid.%d", (int)getpid());
	ATF_REQUIRE((src = open("/bin/cat", O_RDONLY | O_CLOEXEC)) >= 0);
	ATF_REQUIRE((dst = open(path, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0700)) >= 0);
	while ((n = read(src, buf, sizeof(buf))) > 0)
		ATF_REQUIRE(write(dst, buf, (size_t)n) == n);
	ATF_REQUIRE(n == 0);
	ATF_REQUIRE(close(src) == 0);
	ATF_REQUIRE(fchmod(dst, 04755) == 0);
	ATF_REQUIRE(close(dst) == 0);

	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(ex, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
	if (pid == 0) {
		/* stdin the pipe (cat blocks); ex reports a failed exec. */
		if (dup2(in[0], 0) == 0 && setgroups(0, NULL) == 0 &&
		    setgid(65534) == 0 && setuid(65534) == 0)
			execl(path, "cat", (char *)NULL);
		err = errno;
		t_child_write(ex[1], &err, sizeof(err));
		_exit(127);
	}
	w = t_watch(pid);
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(ex[1]) == 0);
	/* EOF: the exec closed ex[1].  The setuid copy goes at once. */
	n = read(ex[0], &err, sizeof(err));
	ATF_REQUIRE(unlink(path) == 0);
	ATF_REQUIRE_MSG(n == 0, "exec failed: %s", n > 0 ? strerror(err) :
	    "?");
	ATF_REQUIRE(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK(t_dead_within(w, T_LONG_MS));
	if (!t_dead_within(w, 0))
		(void)syscall(SYS_pidfd_send_signal, w, SIGKILL, NULL, 0);
	o_exec_reaped(w, pid);
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(close(ex[0]) == 0);
	ATF_REQUIRE(close(in[1]) == 0);
}

/* The same without setuid: a pdfork child that execs, then dies on close. */
T_TC(owner__child_exec, "a child that execs dies on close and is reaped")
{
	int fd, w, in[2], ex[2], err;
	ssize_t n;
	pid_t pid;

	ATF_REQUIRE(pipe2(in, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(ex, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
	if (pid == 0) {
		if (dup2(in[0], 0) == 0)
			execl("/bin/cat", "cat", (char *)NULL);
		err = errno;
		t_child_write(ex[1], &err, sizeof(err));
		_exit(127);
	}
	w = t_watch(pid);
	ATF_REQUIRE(close(in[0]) == 0);
	ATF_REQUIRE(close(ex[1]) == 0);
	ATF_REQUIRE((n = read(ex[0], &err, sizeof(err))) == 0);
	ATF_REQUIRE(t_alive(w));
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK(t_dead_within(w, T_LONG_MS));
	if (!t_dead_within(w, 0))
		(void)syscall(SYS_pidfd_send_signal, w, SIGKILL, NULL, 0);
	o_exec_reaped(w, pid);
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(close(ex[0]) == 0);
	ATF_REQUIRE(close(in[1]) == 0);
}

/* Rule 7: the helpers are invisible. */

/* Parent pid of pid, from /proc, or -1. */
static pid_t
o_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	ppid = -1;
	if (fgets(buf, sizeof(buf), fp) == NULL ||
	    (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %d", &ppid) != 1)
		ppid = -1;
	fclose(fp);
	return (ppid);
}

/*
 * The guardian is not our child; its sentry (which stands for it, so that
 * our reaper sees it die) is, and wait(2) never reports it.
 */
T_TC(owner__guardian_not_child, "the guardian is not our child")
{
	pid_t g, pid;
	int fd, w;

	ATF_REQUIRE((pid = t_pdfork_clean(&fd, 0)) > 0);
	w = t_watch(pid);
	ATF_REQUIRE((g = o_guardian_pid()) > 0);
	ATF_CHECK(g != getpid());
	ATF_CHECK(o_ppid(g) != getpid());
	ATF_CHECK(o_ppid(o_ppid(g)) == getpid());
	ATF_CHECK_EQ(t_nchildren(), 1);
	/*
	 * Only the running pd child and the sentry, which even __WALL shows
	 * the kernel: neither is the application's to wait for (NOTES 1.11).
	 */
	ATF_CHECK_ERRNO(ECHILD, waitpid(-1, NULL, WNOHANG | __WALL) == -1);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	ATF_REQUIRE(close(w) == 0);
	/* The sentry is invisible to wait(2): ECHILD. */
	errno = 0;
	ATF_CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ATF_CHECK_EQ(errno, ECHILD);
	errno = 0;
	ATF_CHECK_EQ(wait(NULL), -1);
	ATF_CHECK_EQ(errno, ECHILD);
	ATF_CHECK_EQ(t_nchildren(), 0);
	ATF_CHECK(kill(g, 0) == 0);
}

/*
 * A signal to our whole process group (kill(0, SIGTERM)) does not reach
 * the guardian: close still kills afterwards.
 */
T_TC(owner__killpg, "kill(0, SIGTERM) does not break close-kill")
{
	struct sigaction ign, old;
	int fd, w, p[2];
	pid_t pid;
	char c;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	ATF_REQUIRE(sigaction(SIGTERM, &ign, &old) == 0);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		t_child_write(p[1], "r", 1);
		syscall(SYS_close_range, 3, ~0U, 0);
		t_pause();
	}
	w = t_watch(pid);
	ATF_REQUIRE(close(p[1]) == 0);
	ATF_REQUIRE(read(p[0], &c, 1) == 1);
	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(kill(0, SIGTERM) == 0);
	ATF_REQUIRE(close(fd) == 0);
	O_DEAD(w, "kill(0, SIGTERM) disarmed the close");
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(sigaction(SIGTERM, &old, NULL) == 0);
}

/*
 * The guardian holds none of our descriptors: stdio on /dev/null, its
 * socket as 3, its epoll, and per child a socket (the peer of the
 * descriptor) and a pidfd of its own.
 */
T_TC(owner__guardian_fds, "the guardian holds none of our fds")
{
	char path[300], link[64];
	struct dirent *de;
	int fd, w, n, nfds;
	pid_t g;
	DIR *d;

	ATF_REQUIRE((w = t_watch(t_pdfork_clean(&fd, 0))) >= 0);
	ATF_REQUIRE((g = o_guardian_pid()) > 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)g);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	nfds = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)g,
		    de->d_name);
		memset(link, 0, sizeof(link));
		if (readlink(path, link, sizeof(link) - 1) == -1 &&
		    errno == ENOENT)
			continue;	/* A reaped child's waiter closed it. */
		ATF_REQUIRE(link[0] != '\0');
		nfds++;
		if (n <= 2)
			ATF_CHECK_STREQ_MSG(link, "/dev/null", "fd %d", n);
		else if (n == 3)
			ATF_CHECK_MSG(strncmp(link, "socket:", 7) == 0,
			    "fd 3 is %s", link);
		else
			ATF_CHECK_MSG(strcmp(link, "anon_inode:[pidfd]") == 0 ||
			    strcmp(link, "anon_inode:[eventpoll]") == 0 ||
			    strncmp(link, "socket:", 7) == 0,
			    "fd %d is %s", n, link);
	}
	closedir(d);
	ATF_CHECK(nfds >= 4);
	ATF_REQUIRE(close(fd) == 0);
	ATF_REQUIRE(t_dead_within(w, T_LONG_MS));
	ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
	ATF_REQUIRE(close(w) == 0);
}

/* An owner's guardian exits once its owner is gone and nothing is guarded. */
T_TC(owner__guardian_exits, "the guardian goes when nothing is left")
{
	struct o_report r;
	int rep[2], go[2], fd, wn, wg;
	pid_t o;
	char c;

	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		memset(&r, 0, sizeof(r));
		if ((r.n = t_pdfork_clean(&fd, 0)) == -1)
			_exit(120);
		r.g = o_guardian_pid();
		t_child_write(rep[1], &r, sizeof(r));
		(void)read(go[0], &c, 1);
		close(fd);
		_exit(0);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(read(rep[0], &r, sizeof(r)) == (ssize_t)sizeof(r));
	ATF_REQUIRE(r.n > 0 && r.g > 0);
	wn = t_watch(r.n);
	wg = t_watch(r.g);
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_CHECK_EQ(t_reap(o), 0);
	ATF_CHECK(t_dead_within(wn, T_LONG_MS));
	ATF_CHECK_MSG(t_dead_within(wg, T_LONG_MS), "the guardian stayed");
	if (!t_dead_within(wg, 0))
		o_kill_watched(wg);
	else
		ATF_REQUIRE(close(wg) == 0);
	ATF_REQUIRE(close(wn) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, owner__exit);
	ATF_TP_ADD_TC(tp, owner__uexit);
	ATF_TP_ADD_TC(tp, owner__segv);
	ATF_TP_ADD_TC(tp, owner__sigkill);
	ATF_TP_ADD_TC(tp, owner__daemon_survives);
	ATF_TP_ADD_TC(tp, owner__exec_cloexec);
	ATF_TP_ADD_TC(tp, owner__exec_kept_close);
	ATF_TP_ADD_TC(tp, owner__exec_kept_exit);
	ATF_TP_ADD_TC(tp, owner__fork_copy_outlives);
	ATF_TP_ADD_TC(tp, owner__fork_copy_first);
	ATF_TP_ADD_TC(tp, owner__fork_copy_ops);
	ATF_TP_ADD_TC(tp, owner__scm_receiver_close);
	ATF_TP_ADD_TC(tp, owner__scm_receiver_exit);
	ATF_TP_ADD_TC(tp, owner__scm_in_flight);
	ATF_TP_ADD_TC(tp, owner__thread_exits);
	ATF_TP_ADD_TC(tp, owner__setuid_child);
	ATF_TP_ADD_TC(tp, owner__setuid_exec);
	ATF_TP_ADD_TC(tp, owner__child_exec);
	ATF_TP_ADD_TC(tp, owner__guardian_not_child);
	ATF_TP_ADD_TC(tp, owner__killpg);
	ATF_TP_ADD_TC(tp, owner__guardian_fds);
	ATF_TP_ADD_TC(tp, owner__guardian_exits);
	return (atf_no_error());
}
