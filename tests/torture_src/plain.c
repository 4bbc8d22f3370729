/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The processes the library did not make: fork, vfork, posix_spawn,
 * system and popen children, which must end as told and be reaped by
 * their callers; pdopenpid of a plain fork() child; and the waitid(2)
 * check that nothing but those (and pdfork children that exec'd) is
 * ever reported to wait(2), with the pid map it reads.
 */

#include <sys/procdesc.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"
#include "waitstatus.h"

extern char **environ;

/*
 * The waitid check's view of our pids, indexed by pid: what made each.
 * Between its start and the filing of its pid (for system() and popen(),
 * whose pids are never known: until they return), a creation is
 * untracked, and an unknown pid that waitid reports meanwhile proves
 * nothing: tt_started and tt_finished count them.
 */
static pthread_mutex_t tt_pid_mtx = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned char *tt_pidkind;	/* PK_* | creator << 2. */
static long tt_pidmax;
static _Atomic unsigned long tt_started, tt_finished;

/* The map, as big as pid_max says: false if out of memory. */
bool
tt_pidmap_init(void)
{
	FILE *fp;

	tt_pidmax = 4194304;
	if ((fp = fopen("/proc/sys/kernel/pid_max", "re")) != NULL) {
		if (fscanf(fp, "%ld", &tt_pidmax) != 1)
			tt_pidmax = 4194304;
		fclose(fp);
	}
	tt_pidmax++;
	tt_pidkind = calloc((size_t)tt_pidmax, 1);
	return (tt_pidkind != NULL);
}

/*
 * The pid map (tt_pidkind): what made pid (an operation, TT_BY_HANDLER
 * for the signal handler, -1 for nothing), and what kind of child it is.
 * The handler stores without the mutex; a byte store is atomic.
 */
void
tt_pidstore(pid_t pid, int kind, int by)
{

	if (pid > 0 && pid < tt_pidmax)
		atomic_store(&tt_pidkind[pid],
		    (unsigned char)(kind | (by + 1) << 2));
}

void
tt_pidset(pid_t pid, int kind, int by)
{

	pthread_mutex_lock(&tt_pid_mtx);
	tt_pidstore(pid, kind, by);
	pthread_mutex_unlock(&tt_pid_mtx);
}

void
tt_untracked(bool start)
{

	atomic_fetch_add(start ? &tt_started : &tt_finished, 1);
}

/*
 * A plain child: fork() that pauses, for pdopenpid.  The pid is filed for
 * the waitid check before anyone can see it exit.
 */
static pid_t
tt_fork_pause(struct tthread *t)
{
	pid_t pid;

	tt_untracked(true);
	if ((pid = fork()) == 0)
		tt_pause();
	if (pid == -1)
		tt_fail(t, "fork: %s", strerror(errno));
	else
		tt_pidset(pid, PK_PLAIN, OP_OPENPID);
	tt_untracked(false);
	return (pid);
}

/* Reap a plain child, which must end with status want. */
void
tt_reap_plain(struct tthread *t, pid_t pid, int want, const char *what)
{
	char a[64], b[64];
	int st;

	st = -1;
	if (tt_waitpid(pid, &st, 0) != pid)
		tt_fail(t, "waitpid(%d) of a %s child: %s", pid, what,
		    strerror(errno));
	else if (st != want)
		tt_fail(t, "%s child %d: %s, expected %s", what, pid,
		    tt_st(st, a, sizeof(a)), tt_st(want, b, sizeof(b)));
	tt_pidset(pid, PK_NONE, -1);
}

/*
 * What a descriptor shows, for a message: hung up (the exit), or not yet.
 * Nothing is ever queued on it (NOTES 1.3).
 */
static const char *
tt_pd_state(int fd, char *buf, size_t len)
{
	char c;
	ssize_t n;

	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0)
		snprintf(buf, len, "data queued on it (%zd bytes)", n);
	else if (n == 0)
		snprintf(buf, len, "hung up: the exit");
	else
		snprintf(buf, len, "not hung up (%s)", strerror(errno));
	return (buf);
}

/* pdwait on a pdopenpid descriptor: it must say want. */
static void
tt_openpid_wait(struct tthread *t, int fd, pid_t pid, int want)
{
	struct tchild c;
	char a[64], b[64];
	int e, st;

	memset(&c, 0, sizeof(c));
	c.pid = pid;
	e = tt_pdwait(t, &c, fd, WEXITED, &st);
	if (!tt_exit_info_ok) {
		/* Before Linux 6.15 nobody keeps a status for us. */
		if (e != ECHILD && e != EINTR)
			tt_fail(t, "pdwait of pdopenpid(%d): %s, expected "
			    "ECHILD", pid, e == 0 ? "a status" : strerror(e));
	} else if (e != 0) {
		if (e != EINTR || !atomic_load(&tt_stop))
			tt_fail(t, "pdwait of pdopenpid(%d) (%s): %s; the "
			    "descriptor holds %s", pid,
			    tt_st(want, b, sizeof(b)), strerror(e),
			    tt_pd_state(fd, a, sizeof(a)));
	} else if (st != want)
		tt_fail(t, "pdwait of pdopenpid(%d): %s, expected %s", pid,
		    tt_st(st, a, sizeof(a)), tt_st(want, b, sizeof(b)));
}

/*
 * pdopenpid of our own fork() child, then one of: pdkill and both waits
 * (pdwait and waitpid must agree); close (kills unless PD_DAEMON); a kill
 * behind the descriptor's back, then pdkill of a reaped process, whose
 * pid may be somebody else's by now.
 */
void
tt_op_openpid(struct tthread *t)
{
	pid_t pid;
	int fd, flags, r, sig, w;

	if ((pid = tt_fork_pause(t)) == -1)
		return;
	tt_doing(t, OP_OPENPID, pid);
	flags = PD_CLOEXEC | (tt_rand(t, 4) == 0 ? PD_DAEMON : 0);
	fd = LIB(t, pdopenpid(pid, flags));
	LIBEND(t);
	if (fd == -1) {
		tt_fail(t, "pdopenpid(%d, %#x) of a paused fork child: %s",
		    pid, flags, strerror(errno));
		kill(pid, SIGKILL);
		tt_reap_plain(t, pid, SIGKILL, "pdopenpid");
		return;
	}
	if (tt_errno_kept(t, "pdopenpid"))
		tt_check_getpid(t, fd, pid);
	sig = tt_randsig(t);
	switch (tt_rand(t, 3)) {
	case 0:
		r = LIB(t, pdkill(fd, sig));
		LIBEND(t);
		if (r != 0)
			tt_fail(t, "pdkill(%d, %d) of pdopenpid(%d): %s", fd,
			    sig, pid, strerror(errno));
		tt_openpid_wait(t, fd, pid, sig);
		tt_reap_plain(t, pid, sig, "pdopenpid");
		break;
	case 1:
		/* Unreaped, it is ours: its pid is its own. */
		w = tt_pidfd_open(pid);
		close(fd);
		fd = -1;
		if ((flags & PD_DAEMON) != 0) {
			if (tt_dead_within(w, TT_HELD_MS))
				tt_fail(t, "pdopenpid(%d, PD_DAEMON): the "
				    "close killed it", pid);
			kill(pid, sig);
		} else if (!tt_dead_within(w, TT_LONG_MS)) {
			tt_fail(t, "pdopenpid(%d): survived its last close by "
			    "%d ms", pid, TT_LONG_MS);
			kill(pid, SIGKILL);
		}
		if ((flags & PD_DAEMON) == 0)
			sig = SIGKILL;
		close(w);
		tt_reap_plain(t, pid, sig, "pdopenpid");
		break;
	case 2:
		kill(pid, sig);
		tt_reap_plain(t, pid, sig, "pdopenpid");
		tt_openpid_wait(t, fd, pid, sig);
		r = LIB(t, pdkill(fd, SIGKILL));
		LIBEND(t);
		if (r != 0)
			tt_fail(t, "pdkill(%d) of reaped pdopenpid(%d): %s",
			    fd, pid, strerror(errno));
		break;
	}
	if (fd != -1)
		close(fd);
}

/* fork(), vfork(): the child exits or kills itself; waitpid sees it. */
void
tt_op_fork(struct tthread *t, bool v)
{
	pid_t pid;
	int code, sig;

	code = (int)tt_rand(t, 126);
	sig = tt_rand(t, 2) == 0 ? tt_randsig(t) : 0;
	tt_untracked(true);
	pid = v ? vfork() : fork();
	if (pid == 0) {
		if (sig != 0 && !v)
			tt_kill_self(sig);
		tt_exit(code);
	}
	if (pid == -1) {
		tt_untracked(false);
		tt_fail(t, "%s: %s", v ? "vfork" : "fork", strerror(errno));
		return;
	}
	tt_pidset(pid, PK_PLAIN, v ? OP_VFORK : OP_FORK);
	tt_untracked(false);
	tt_doing(t, v ? OP_VFORK : OP_FORK, pid);
	tt_reap_plain(t, pid, sig != 0 && !v ? sig : W_EXITCODE(code, 0),
	    v ? "vfork" : "fork");
}

/* posix_spawn of true or false: waitpid sees its exit code. */
void
tt_op_spawn(struct tthread *t)
{
	char *argv[2];
	pid_t pid;
	int e, code;

	code = (int)tt_rand(t, 2);
	argv[0] = code == 0 ? "true" : "false";
	argv[1] = NULL;
	tt_untracked(true);
	e = posix_spawn(&pid, code == 0 ? "/bin/true" : "/bin/false", NULL,
	    NULL, argv, environ);
	if (e == 0)
		tt_pidset(pid, PK_PLAIN, OP_SPAWN);
	tt_untracked(false);
	if (e != 0) {
		tt_fail(t, "posix_spawn: %s", strerror(e));
		return;
	}
	tt_doing(t, OP_SPAWN, pid);
	tt_reap_plain(t, pid, W_EXITCODE(code, 0), "posix_spawn");
}

/* system(3) of "exit code": the status says code. */
void
tt_op_system(struct tthread *t)
{
	char cmd[32], a[64];
	int code, st;

	tt_doing(t, OP_SYSTEM, 0);
	code = (int)tt_rand(t, 126);
	snprintf(cmd, sizeof(cmd), "exit %d", code);
	tt_untracked(true);
	st = system(cmd);
	tt_untracked(false);
	if (st == -1)
		tt_fail(t, "system(\"%s\"): %s", cmd, strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
		tt_fail(t, "system(\"%s\"): %s", cmd, tt_st(st, a, sizeof(a)));
}

/* popen(3): the line it writes is read, pclose(3) says its code. */
void
tt_op_popen(struct tthread *t)
{
	char cmd[32], line[32], a[64];
	FILE *fp;
	char *p;
	int code, st;

	tt_doing(t, OP_POPEN, 0);
	code = (int)tt_rand(t, 126);
	snprintf(cmd, sizeof(cmd), "echo x; exit %d", code);
	tt_untracked(true);
	if ((fp = popen(cmd, "re")) == NULL) {
		tt_untracked(false);
		tt_fail(t, "popen(\"%s\"): %s", cmd, strerror(errno));
		return;
	}
	/* A read that the timer interrupts fails; stdio keeps no data. */
	while ((p = fgets(line, sizeof(line), fp)) == NULL && ferror(fp) &&
	    errno == EINTR)
		clearerr(fp);
	st = pclose(fp);
	tt_untracked(false);
	if (p == NULL || strcmp(line, "x\n") != 0)
		tt_fail(t, "popen(\"%s\") read %s", cmd,
		    p == NULL ? "nothing" : line);
	else if (st == -1)
		tt_fail(t, "pclose: %s", strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != code)
		tt_fail(t, "pclose of \"%s\": %s", cmd,
		    tt_st(st, a, sizeof(a)));
}

/* /proc/PID/stat up to the state, for a message. */
static const char *
tt_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return ("gone");
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return (buf);
}

/*
 * What wait(2) without __WALL reports must be a child of fork, vfork,
 * posix_spawn, system or popen, or a pdfork child that exec'd (exec gives
 * it SIGCHLD back, pdfork(3) COMPATIBILITY); never a pdfork child.
 * WNOWAIT: nothing is reaped.
 */
void
tt_op_waitid(struct tthread *t)
{
	char comm[128];
	unsigned long f0, s0;
	siginfo_t si;
	int by, kind, r;
	pid_t pid;

	tt_doing(t, OP_WAITID, 0);
	pthread_mutex_lock(&tt_pid_mtx);
	/*
	 * Nothing untracked ran at any moment of the check: none was under
	 * way when it began (finished read first: a count that is off errs
	 * towards "moot"), and none began until it ended.
	 */
	f0 = atomic_load(&tt_finished);
	s0 = atomic_load(&tt_started);
	do {
		memset(&si, 0, sizeof(si));
		r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
	} while (r == -1 && errno == EINTR);
	pid = si.si_pid;
	kind = (r == 0 && pid > 0 && pid < tt_pidmax) ?
	    atomic_load(&tt_pidkind[pid]) : PK_NONE;
	by = (kind >> 2) - 1;
	kind &= 3;
	if (r == 0 && pid != 0 && kind != PK_PLAIN && kind != PK_PDEXEC) {
		if (s0 != f0 || atomic_load(&tt_started) != s0)
			t->nwaitid_vague++;
		else
			tt_fail(t, "waitid(P_ALL) reported pid %d (%s), %s "
			    "(last made by %s)", pid,
			    tt_comm(pid, comm, sizeof(comm)),
			    kind == PK_PD ? "a pdfork child that never "
			    "exec'd" : "a child we did not make",
			    by == TT_BY_HANDLER ? "the handler's pdfork" :
			    by == -1 ? "nothing" : tt_opname[by]);
	} else if (r == -1 && errno != ECHILD)
		tt_fail(t, "waitid(P_ALL): %s", strerror(errno));
	pthread_mutex_unlock(&tt_pid_mtx);
}
