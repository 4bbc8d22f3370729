/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Attacks on close-kill and on the guardian (issue 12): another
 * description of the child squatting what the library waits on, an owner
 * killed while it creates children, a guardian short of descriptors,
 * killed or stopped, the guardian's own hygiene, and what the invoking
 * user of a set-uid owner can do to its guardian.
 *
 * Code that runs in a forked process never uses an ATF macro: it reports
 * through a pipe or its exit status, and the test checks that.
 */

#include <sys/procdesc.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	A_NOBODY	T_NOBODY
#define	A_MAXKIDS	1024	/* Children listed from /proc at most. */
#define	A_NSQUAT	20	/* Trials of the lock squatters. */
#define	A_NOWNER	40	/* Trials of the owner killed at random. */
#define	A_NKILLED	200	/* Children killed amid their pdfork. */
#define	A_OWNKIDS	32	/* Children an owner pdforks at most. */
#define	A_NLOWFD	150	/* pdforks under RLIMIT_NOFILE 64. */
#define	A_NFAULT	3	/* Children of a guardian that faults. */
#define	A_NATONCE	300	/* Descriptors asked about at once. */
#define	A_NHELD		4000	/* pdforks at most to a guardian held. */

/*
 * Helpers, usable in forked processes (no ATF macro) unless they say
 * otherwise.
 */

/* Close every descriptor from 3 up but keep (-1: none). */
static void
a_close_from3(int keep)
{

	if (keep > 3)
		(void)syscall(SYS_close_range, 3, keep - 1, 0);
	if (keep >= 3)
		(void)syscall(SYS_close_range, keep + 1, ~0U, 0);
	else
		(void)syscall(SYS_close_range, 3, ~0U, 0);
}

static int64_t
a_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Milliseconds left until deadline, at least 0. */
static int
a_left(int64_t deadline)
{
	int64_t left;

	left = deadline - a_now_ms();
	return (left < 0 ? 0 : (int)left);
}

/* What /proc/PID/stat says of a process. */
struct a_stat {
	char			comm[32];
	char			state;
	pid_t			ppid;
	pid_t			pgrp;
	pid_t			sid;
	unsigned long long	start;	/* Start time, clock ticks. */
};

static bool
a_stat(pid_t pid, struct a_stat *st)
{
	char path[64], buf[1024], *l, *r;
	FILE *fp;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (false);
	ok = fgets(buf, sizeof(buf), fp) != NULL;
	fclose(fp);
	if (!ok || (l = strchr(buf, '(')) == NULL ||
	    (r = strrchr(buf, ')')) == NULL || r < l)
		return (false);
	memset(st, 0, sizeof(*st));
	snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(r - l - 1), l + 1);
	return (sscanf(r + 2, "%c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %llu", &st->state, &st->ppid,
	    &st->pgrp, &st->sid, &st->start) == 5);
}

static bool
a_is_guardian(const struct a_stat *st)
{

	return (strcmp(st->comm, PG_GUARDIAN_COMM) == 0 && st->state != 'Z' &&
	    st->state != 'X');
}

/* Real uid of pid, or (uid_t)-1. */
static uid_t
a_ruid(pid_t pid)
{
	char buf[128];
	unsigned int uid;

	if (!t_proc_status(pid, "Uid:", buf, sizeof(buf)) ||
	    sscanf(buf, "%u", &uid) != 1)
		return ((uid_t)-1);
	return ((uid_t)uid);
}

static bool
a_in(pid_t pid, const pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return (true);
	return (false);
}

/*
 * The newest live guardian whose parent is ppid (-1: any) and whose real
 * uid is uid ((uid_t)-1: any), or -1.
 */
static pid_t
a_newest_guardian(pid_t ppid, uid_t uid)
{
	unsigned long long best;
	struct a_stat st;
	struct dirent *de;
	pid_t found, pid;
	DIR *d;

	found = -1;
	best = 0;
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = atoi(de->d_name);
		if (!a_stat(pid, &st) || !a_is_guardian(&st) ||
		    (ppid != -1 && st.ppid != ppid) ||
		    (uid != (uid_t)-1 && a_ruid(pid) != uid))
			continue;
		if (found == -1 || st.start >= best) {
			found = pid;
			best = st.start;
		}
	}
	closedir(d);
	return (found);
}

/* Whether pid holds socket inode ino. */
static bool
a_holds_sock(pid_t pid, ino_t ino)
{
	char want[64], path[300], link[64];
	struct dirent *de;
	bool found;
	DIR *d;

	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)ino);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (false);
	found = false;
	while (!found && (de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid,
		    de->d_name);
		memset(link, 0, sizeof(link));
		found = readlink(path, link, sizeof(link) - 1) > 0 &&
		    strcmp(link, want) == 0;
	}
	closedir(d);
	return (found);
}

/* The live guardian holding socket inode ino, or -1. */
static pid_t
a_guardian_holding(ino_t ino)
{
	struct a_stat st;
	struct dirent *de;
	pid_t found, pid;
	DIR *d;

	found = -1;
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while (found == -1 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = atoi(de->d_name);
		if (a_stat(pid, &st) && a_is_guardian(&st) &&
		    a_holds_sock(pid, ino))
			found = pid;
	}
	closedir(d);
	return (found);
}

/* A guardian at the other end of one of owner's sockets, or -1. */
static pid_t
a_guardian_by_sock(pid_t owner)
{
	char path[300], link[64];
	unsigned long ino;
	struct dirent *de;
	pid_t found;
	ino_t peer;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)owner);
	if ((d = opendir(path)) == NULL)
		return (-1);
	found = -1;
	while (found == -1 && (de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)owner,
		    de->d_name);
		memset(link, 0, sizeof(link));
		if (readlink(path, link, sizeof(link) - 1) <= 0 ||
		    sscanf(link, "socket:[%lu]", &ino) != 1 ||
		    (peer = t_peer_ino((ino_t)ino)) == 0)
			continue;
		found = a_guardian_holding(peer);
	}
	closedir(d);
	return (found);
}

/*
 * The guardian of owner: a child of owner's named procdesc-guardian (the
 * design of issue 12), else the guardian at the other end of one of its
 * sockets (the double-forked guardian before it), else the newest
 * guardian running as owner's real uid and started after owner.  -1 if
 * none.
 */
static pid_t
t_guardian_pid_of(pid_t owner)
{
	struct a_stat gst, ost;
	pid_t g;

	if ((g = a_newest_guardian(owner, (uid_t)-1)) != -1)
		return (g);
	if ((g = a_guardian_by_sock(owner)) != -1)
		return (g);
	if ((g = a_newest_guardian(-1, a_ruid(owner))) != -1 &&
	    (!a_stat(owner, &ost) || !a_stat(g, &gst) ||
	    gst.start < ost.start))
		g = -1;		/* Older than owner: not its. */
	if (g != -1)
		fprintf(stderr, "guardian of %d: %d, by uid\n", (int)owner,
		    (int)g);
	return (g);
}

/* Our own guardian. */
static pid_t
t_guardian_pid(void)
{

	return (t_guardian_pid_of(getpid()));
}

/*
 * A process that is not ours may be past death already; whether it is
 * dead within ms, and if not it is killed (so no failure leaves it).
 */
static bool
a_dies(int w, int ms)
{

	if (t_dead_within(w, ms))
		return (true);
	(void)syscall(SYS_pidfd_send_signal, w, SIGKILL, NULL, 0);
	(void)t_dead_within(w, T_LONG_MS);
	return (false);
}

/*
 * 1, 2: nobody can keep a child alive from outside.  A description of
 * the child's made with pidfd_open(2) is no copy of its descriptor.
 */

/* Lock every byte of fd's inode that no other description holds. */
static void
a_grab(int fd, off_t start, off_t len)
{
	struct flock fl;

	if (len <= 0)
		return;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0 || len == 1 ||
	    (errno != EAGAIN && errno != EACCES))
		return;
	a_grab(fd, start, len / 2);
	a_grab(fd, start + len / 2, len - len / 2);
}

/*
 * The squatter: through a pidfd of its own of pid, hold every byte that
 * can be had, report 'r' on rdy, then try for the whole file (l_len 0,
 * every offset) until it is ours, and keep it.  Never returns.
 */
static void __attribute__((noreturn))
a_squat(pid_t pid, int rdy)
{
	struct flock fl;
	int fd;

	alarm(T_LIFE);
	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1) {
		t_child_write(rdy, "e", 1);
		_exit(1);
	}
	a_grab(fd, 0, (off_t)INT64_MAX);
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 0;
	t_child_write(rdy, "r", 1);
	while (fcntl(fd, F_OFD_SETLK, &fl) == -1)
		;
	t_pause();
}

/*
 * One child per trial whose pidfd is squatted by the child itself or, as
 * nobody, by a helper (other); closing the descriptor must kill it.
 */
static void
a_keepalive(bool other)
{
	const char *who;
	int fd, i, w, pp[2], rdy[2];
	pid_t h, pid;
	ssize_t n;
	bool dead;
	char c;

	who = other ? "a helper running as nobody" : "the child itself";
	for (i = 0; i < A_NSQUAT; i++) {
		ATF_REQUIRE(pipe2(rdy, O_CLOEXEC) == 0);
		h = -1;
		pp[0] = pp[1] = -1;
		if (other) {
			ATF_REQUIRE(pipe2(pp, O_CLOEXEC) == 0);
			ATF_REQUIRE((h = fork()) >= 0);
			if (h == 0) {
				if (!t_become_nobody()) {
					t_child_write(rdy[1], "u", 1);
					_exit(1);
				}
				if (t_read_within(pp[0], &pid, sizeof(pid),
				    T_LONG_MS) != (ssize_t)sizeof(pid))
					_exit(2);
				a_squat(pid, rdy[1]);
			}
			ATF_REQUIRE(close(pp[0]) == 0);
		}
		ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
		if (pid == 0) {
			if (other) {
				a_close_from3(-1);
				t_pause();
			}
			a_close_from3(rdy[1]);
			a_squat(getpid(), rdy[1]);
		}
		w = t_watch(pid);
		if (other) {
			ATF_REQUIRE(write(pp[1], &pid, sizeof(pid)) ==
			    (ssize_t)sizeof(pid));
			ATF_REQUIRE(close(pp[1]) == 0);
		}
		ATF_REQUIRE(close(rdy[1]) == 0);
		c = '?';
		n = t_read_within(rdy[0], &c, 1, T_LONG_MS);
		ATF_REQUIRE(close(fd) == 0);
		dead = t_dead_within(w, T_LONG_MS);
		if (!dead)
			(void)syscall(SYS_pidfd_send_signal, w, SIGKILL, NULL,
			    0);
		ATF_REQUIRE(t_reaped_within(w, T_LONG_MS));
		ATF_REQUIRE(close(w) == 0);
		if (other) {
			(void)kill(h, SIGKILL);
			(void)t_reap(h);
		}
		ATF_REQUIRE(close(rdy[0]) == 0);
		ATF_REQUIRE_MSG(n == 1 && c == 'r', "trial %d: the squatter "
		    "did not start (%c)", i, n == 1 ? c : '-');
		ATF_REQUIRE_MSG(dead, "trial %d: pid %d survived its last "
		    "close by %d ms while %s held OFD locks (l_len 0) through "
		    "a pidfd_open of it", i, (int)pid, T_LONG_MS, who);
	}
}

/*
 * The child's own pidfd_open(getpid()) cannot keep it alive: however it
 * locks that description, the last close of its descriptor kills it.
 */
T_TC(outside_keepalive__child_locks_own_pidfd,
    "a child squatting locks on its own pidfd still dies on close")
{

	a_keepalive(false);
}

/*
 * Another user's pidfd_open of the child cannot keep it alive: the last
 * close of its descriptor kills it whatever that user locks.
 */
T_TC(outside_keepalive__other_uid,
    "nobody squatting locks on a pidfd of the child does not keep it")
{

	if (geteuid() != 0)
		atf_tc_skip("needs root to run a helper as nobody");
	a_keepalive(true);
}

/*
 * 3: no child runs user code unguarded.  An owner loops pdforking
 * children that report their pid and pause, and is SIGKILLed at a random
 * moment; we are a subreaper, so its orphans (its guardian among them)
 * become our children and no pid is recycled before we reap it.
 */
static bool a_rfspawn;		/* The owner's children: RFSPAWN. */

static void __attribute__((noreturn))
a_owner_loop(int rep)
{
	pid_t pid;
	int fd, i;

	for (i = 0; i < A_OWNKIDS; i++) {
		pid = a_rfspawn ? pdrfork(&fd, 0, (int)RFSPAWN) :
		    pdfork(&fd, 0);
		if (pid == -1)
			break;
		if (pid == 0) {
			/* RFSPAWN: the owner's memory; pid is ours to set. */
			pid = getpid();
			t_child_write(rep, &pid, sizeof(pid));
			a_close_from3(-1);
			t_pause();
		}
	}
	t_pause();
}

/* One trial; false if something survived (reported by ATF_CHECK). */
static bool
a_owner_trial(int trial)
{
	pid_t s0[A_MAXKIDS], kids[A_MAXKIDS], rep_pids[A_OWNKIDS + 1];
	volatile unsigned long spin;
	struct a_stat st;
	int64_t deadline;
	int i, k, n0, nk, nrep, pass, rep[2], w;
	pid_t o, pid;
	ssize_t n;
	bool dead, ok;

	n0 = t_children(T_CHILDREN_ALL, s0, A_MAXKIDS);
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		close(rep[0]);
		a_owner_loop(rep[1]);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	/* An RFSPAWN owner waits in the clone for its first child. */
	k = a_rfspawn ? (int)(random() % 2) : 1 + (int)(random() % 12);
	nrep = 0;
	while (nrep < k && t_read_within(rep[0], &rep_pids[nrep],
	    sizeof(pid_t), T_LONG_MS) == (ssize_t)sizeof(pid_t))
		nrep++;
	/* Randomise the instant, 0 to ~100 us: not for correctness. */
	for (spin = (unsigned long)(random() % 40000); spin > 0; spin--)
		;
	ATF_REQUIRE(kill(o, SIGKILL) == 0);
	ATF_REQUIRE(waitpid(o, NULL, 0) == o);
	/* EOF once every child that ran has written and closed. */
	deadline = a_now_ms() + T_LONG_MS;
	while ((n = t_read_within(rep[0], &pid, sizeof(pid),
	    a_left(deadline))) == (ssize_t)sizeof(pid))
		if (nrep < A_OWNKIDS + 1)
			rep_pids[nrep++] = pid;
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_CHECK_MSG(n == 0, "trial %d: the report pipe is still held "
	    "%d ms after the owner's death", trial, T_LONG_MS);

	/* The owner's orphans: its children first, then its guardians. */
	nk = t_children(T_CHILDREN_ALL, kids, A_MAXKIDS);
	ok = true;
	deadline = a_now_ms() + T_LONG_MS;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nk; i++) {
			if (a_in(kids[i], s0, n0) || !a_stat(kids[i], &st) ||
			    (strcmp(st.comm, PG_GUARDIAN_COMM) == 0) != (pass == 1))
				continue;
			if ((w = (int)syscall(SYS_pidfd_open, kids[i], 0)) ==
			    -1)
				continue;	/* Reaped by somebody. */
			dead = a_dies(w, a_left(deadline));
			ATF_CHECK_MSG(dead, "trial %d (k %d): %s %d (%s) of "
			    "the SIGKILLed owner %d survived", trial, k,
			    pass == 1 ? "guardian" : a_in(kids[i], rep_pids,
			    nrep) ? "reported child" : "unreported child",
			    (int)kids[i], st.comm, (int)o);
			ok = ok && dead;
			(void)waitpid(kids[i], NULL, __WALL);
			ATF_REQUIRE(close(w) == 0);
		}
	}
	return (ok);
}

/*
 * An owner SIGKILLed at any moment of a pdfork loop leaves no child: each
 * one that ran user code (reported its pid) was guarded and dies, as do
 * the ones that had not yet, and the guardian then exits.
 */
T_TC(creation_window__owner_killed,
    "an owner killed amid pdforks leaves no child behind")
{
	unsigned int seed;
	int i;

	seed = (unsigned int)getpid() ^ (unsigned int)time(NULL);
	srandom(seed);
	fprintf(stderr, "seed %u\n", seed);
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	/* An RFSPAWN trial makes one child: half as many cover its window. */
	for (i = 0; i < (a_rfspawn ? A_NOWNER / 2 : A_NOWNER); i++)
		if (!a_owner_trial(i))
			break;
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0);
}

/*
 * creation_window__child_killed's killer: SIGKILL every child of tid but
 * those in keep[nkeep] (the sentries), as soon as /proc lists it.
 */
struct a_killer {
	pid_t		 ak_tid;
	const pid_t	*ak_keep;
	int		 ak_nkeep;
	_Atomic bool	 ak_stop;
	_Atomic int	 ak_kills;
};

static void *
a_killer_thread(void *arg)
{
	struct a_killer *ak = arg;
	char path[64], buf[4096], *p, *end;
	ssize_t n;
	long pid;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
	    (int)ak->ak_tid);
	while (!atomic_load(&ak->ak_stop)) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		for (p = buf; (pid = strtol(p, &end, 10)) > 0; p = end) {
			for (i = 0; i < ak->ak_nkeep; i++)
				if (ak->ak_keep[i] == (pid_t)pid)
					break;
			if (i == ak->ak_nkeep && kill((pid_t)pid, SIGKILL) == 0)
				atomic_fetch_add(&ak->ak_kills, 1);
		}
	}
	return (NULL);
}

/*
 * A new child killed from outside at any moment of its creation, by a
 * thread that kills each as soon as /proc lists it: pdfork returns its
 * descriptor, on which the kill shows; or, where pdfork has no trap and
 * the child died before it could send its pidfd (fork.c), fails with
 * EAGAIN.  Either way nothing is left behind: no zombie, no descriptor.
 */
T_TC(creation_window__child_killed, "a child killed at any moment of "
    "pdfork: its descriptor shows the kill, or EAGAIN; nothing left")
{
	struct a_killer ak;
	pid_t keep[A_MAXKIDS], pid;
	pthread_t t;
	int e, fd, i, st, nfail;

	memset(&ak, 0, sizeof(ak));
	ak.ak_tid = (pid_t)syscall(SYS_gettid);
	ak.ak_nkeep = t_children(T_CHILDREN_SENTRIES, keep, A_MAXKIDS);
	ak.ak_keep = keep;
	ATF_REQUIRE(pthread_create(&t, NULL, a_killer_thread, &ak) == 0);
	nfail = 0;
	for (i = 0; i < A_NKILLED; i++) {
		if ((pid = pdfork(&fd, 0)) == 0)
			t_pause();
		if (pid == -1) {
			e = errno;
			ATF_CHECK_MSG(e == EAGAIN && !t_fork_trap(),
			    "pdfork %d: %s", i, strerror(e));
			nfail++;
			continue;
		}
		ATF_REQUIRE(pdwait(fd, &st, WEXITED, NULL, NULL) == 0);
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		    "child %d: status %#x", i, st);
		ATF_REQUIRE(close(fd) == 0);
	}
	atomic_store(&ak.ak_stop, true);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	fprintf(stderr, "%d kills, %d pdforks failed\n",
	    atomic_load(&ak.ak_kills), nfail);
	ATF_CHECK(atomic_load(&ak.ak_kills) >= A_NKILLED);
}

/*
 * The same with pdrfork(RFSPAWN), whose owner is killed while it waits in
 * the clone for a child that shares its memory, before or after that
 * child registered itself and ran user code: the child dies all the same.
 */
T_TC(creation_window__owner_killed_rfspawn,
    "an owner killed in pdrfork(RFSPAWN) leaves no child behind")
{

	a_rfspawn = true;
	creation_window__owner_killed_body(tc);
}

#ifdef PTRACE_GET_SYSCALL_INFO
/*
 * The owner for creation_window__owner_killed_pipe_held: its guardian
 * started, it says 'r' on rep, then pdforks once when told 'p' on cmdp.
 * Another thread forks once when told 'f' on cmdf; that fork child reports
 * its pid on rep and waits.
 */
struct a_forker {
	int	af_cmdf;
	int	af_rep;
};

static void *
a_forker_thread(void *arg)
{
	const struct a_forker *af;
	pid_t x;
	char c;

	af = arg;
	if (read(af->af_cmdf, &c, 1) != 1 || (x = fork()) == -1)
		_exit(90);
	if (x == 0) {
		alarm(T_LIFE);
		x = getpid();
		t_child_write(af->af_rep, &x, sizeof(x));
		t_pause();
	}
	return (NULL);
}

static void __attribute__((noreturn))
a_forker_owner(int cmdp, int cmdf, int rep)
{
	struct a_forker af;
	pthread_t t;
	pid_t pid;
	int fd, st;
	char c;

	alarm(T_LIFE);
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(0);
	if (pid == -1 || pdwait(fd, &st, WEXITED, NULL, NULL) == -1)
		_exit(91);
	(void)close(fd);
	af.af_cmdf = cmdf;
	af.af_rep = rep;
	if (pthread_create(&t, NULL, a_forker_thread, &af) != 0)
		_exit(92);
	t_child_write(rep, "r", 1);
	if (read(cmdp, &c, 1) != 1)
		_exit(93);
	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(0);
	t_pause();
}

/*
 * Resume the traced owner o until its next system call stop, passing on
 * any signal it was stopped for (the trap's SIGSYS); the stop's
 * information, or false if o is gone.
 */
static bool
a_next_syscall(pid_t o, struct __ptrace_syscall_info *si)
{
	int sig, st;

	sig = 0;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, o, NULL, (void *)(intptr_t)sig) == -1 ||
		    waitpid(o, &st, __WALL) != o || !WIFSTOPPED(st))
			return (false);
		sig = 0;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80))
			return (ptrace(PTRACE_GET_SYSCALL_INFO, o,
			    (void *)sizeof(*si), si) > 0);
		if (st >> 16 == 0)
			sig = WSTOPSIG(st);	/* A signal for o. */
	}
}

/*
 * Each child of ours that is not in s0, nor skip, nor (unless helpers) a
 * guardian or sentry, must die by itself (else the check says why and
 * a_dies() kills it); reaped.  How many there were.
 */
static int
a_new_die(const pid_t *s0, int n0, pid_t skip, bool helpers,
    const char *why)
{
	pid_t kids[A_MAXKIDS];
	struct a_stat as;
	int i, n, nk, w;

	n = 0;
	nk = t_children(T_CHILDREN_ALL, kids, A_MAXKIDS);
	for (i = 0; i < nk; i++) {
		if (a_in(kids[i], s0, n0) || kids[i] == skip ||
		    !a_stat(kids[i], &as) || (!helpers &&
		    strncmp(as.comm, "procdesc-", 9) == 0) ||
		    (w = (int)syscall(SYS_pidfd_open, kids[i], 0)) == -1)
			continue;
		n++;
		ATF_CHECK_MSG(a_dies(w, T_LONG_MS), "%d (%s) %s",
		    (int)kids[i], as.comm, why);
		(void)waitpid(kids[i], NULL, __WALL);
		ATF_REQUIRE(close(w) == 0);
	}
	return (n);
}
#endif

/*
 * The owner is SIGKILLed after the clone and before the byte that lets
 * its child run, while a plain fork(2) of another of its threads holds a
 * copy of that byte's pipe: the child, which ran nothing, must still go at
 * once, not wait for the fork child to exit or exec.  The owner is held
 * at that instant by ptrace, on the 1-byte write(2) that is the byte.
 */
T_TC(creation_window__owner_killed_pipe_held,
    "an owner killed before its child's go, the pipe held by another fork, "
    "leaves no child waiting")
{
#ifdef PTRACE_GET_SYSCALL_INFO
	struct __ptrace_syscall_info si;
	pid_t s0[A_MAXKIDS];
	int cmdp[2], cmdf[2], rep[2], n0, nc, st;
	pid_t o, x;
	bool seen;
	char r;

	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	n0 = t_children(T_CHILDREN_ALL, s0, A_MAXKIDS);
	ATF_REQUIRE(pipe2(cmdp, O_CLOEXEC) == 0 && pipe2(cmdf, O_CLOEXEC) ==
	    0 && pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) != -1);
	if (o == 0)
		a_forker_owner(cmdp[0], cmdf[0], rep[1]);
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(t_read_within(rep[0], &r, 1, T_LONG_MS) == 1 && r == 'r');
	if (ptrace(PTRACE_SEIZE, o, NULL, (void *)(PTRACE_O_TRACESYSGOOD |
	    PTRACE_O_EXITKILL)) == -1) {
		(void)kill(o, SIGKILL);
		(void)waitpid(o, NULL, 0);
		atf_tc_skip("PTRACE_SEIZE: %s", strerror(errno));
	}
	ATF_REQUIRE(ptrace(PTRACE_INTERRUPT, o, NULL, NULL) == 0);
	ATF_REQUIRE(waitpid(o, &st, __WALL) == o && WIFSTOPPED(st));
	ATF_REQUIRE(write(cmdp[1], "p", 1) == 1);
	/* The pdfork's only 1-byte write(2) is its child's go. */
	seen = false;
	while (!seen && a_next_syscall(o, &si))
		seen = si.op == PTRACE_SYSCALL_INFO_ENTRY &&
		    si.entry.nr == SYS_write && si.entry.args[2] == 1;
	ATF_REQUIRE_MSG(seen, "the owner never wrote its child's go");
	ATF_REQUIRE(write(cmdf[1], "f", 1) == 1);
	ATF_REQUIRE(t_read_within(rep[0], &x, sizeof(x), T_LONG_MS) ==
	    (ssize_t)sizeof(x));
	ATF_REQUIRE(kill(o, SIGKILL) == 0);
	ATF_REQUIRE(waitpid(o, NULL, __WALL) == o);
	/* The owner's pdfork child is ours now; it must go by itself. */
	nc = a_new_die(s0, n0, x, false, "still waits for its go");
	ATF_CHECK_EQ_MSG(nc, 1, "%d children of the owner's pdfork", nc);
	/*
	 * Then the fork child, and with it the owner's sentry and guardian,
	 * which comes to us when its sentry goes.
	 */
	ATF_REQUIRE(kill(x, SIGKILL) == 0);
	ATF_REQUIRE(waitpid(x, NULL, 0) == x);
	while (a_new_die(s0, n0, 0, true, "outlived its owner") != 0)
		;
	ATF_REQUIRE(close(rep[0]) == 0 && close(cmdp[0]) == 0 &&
	    close(cmdp[1]) == 0 && close(cmdf[0]) == 0 && close(cmdf[1]) == 0);
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0);
#else
	atf_tc_skip("no PTRACE_GET_SYSCALL_INFO in this C library");
#endif
}

/* Answer each descriptor that comes on s with its pdgetpid, or -errno. */
static void __attribute__((noreturn))
a_asker(int s)
{
	pid_t pid;
	char c;
	int fd;

	alarm(T_LIFE);
	while (t_recvfd(s, &c, 1, &fd, MSG_CMSG_CLOEXEC) == 1) {
		if (pdgetpid(fd, &pid) == -1)
			pid = -errno;
		close(fd);
		t_child_write(s, &pid, sizeof(pid));
	}
	_exit(0);
}

/*
 * A holder may ask about a descriptor the moment pdfork returns it: the
 * registration is in the guardian's queue by then (the parent sends it),
 * and the guardian reads that queue before it says it does not know a
 * descriptor.  Another process receives each new descriptor at once and
 * asks its guardian.
 */
T_TC(creation_window__holder_at_once,
    "a receiver's pdgetpid works the moment pdfork returns")
{
	int bad, fd, first, i, status, sv[2];
	pid_t h, pid, got;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv) == 0);
	ATF_REQUIRE((h = fork()) >= 0);
	if (h == 0) {
		close(sv[0]);
		a_asker(sv[1]);
	}
	ATF_REQUIRE(close(sv[1]) == 0);
	bad = first = 0;
	for (i = 0; i < A_NATONCE; i++) {
		ATF_REQUIRE((pid = pdfork(&fd, 0)) >= 0);
		if (pid == 0)
			_exit(0);
		ATF_REQUIRE(t_sendfd(sv[0], "q", 1, fd) == 0);
		ATF_REQUIRE(t_read_within(sv[0], &got, sizeof(got),
		    T_LONG_MS) == (ssize_t)sizeof(got));
		if (got != pid && bad++ == 0)
			first = got < 0 ? -got : 0;
		ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(close(fd) == 0);
	}
	ATF_REQUIRE(close(sv[0]) == 0);
	ATF_REQUIRE(waitpid(h, &status, 0) == h);
	ATF_CHECK_MSG(bad == 0, "%d of %d receivers' pdgetpid failed at "
	    "once (the first: %s)", bad, A_NATONCE, strerror(first));
}

/*
 * 4: nothing is dropped silently.  A worker with a soft RLIMIT_NOFILE of
 * 64 from before its first pdfork hands each descriptor to a keeper
 * (which has the normal limit) and closes its own, so it can guard far
 * more children than 64 descriptors hold.
 */
struct a_rec {
	pid_t	pid;		/* pdfork's result; 0 ends the list. */
	int	err;		/* errno when pid is -1. */
};

static void __attribute__((noreturn))
a_keeper(int s)
{
	char c;
	int fd;

	alarm(T_LIFE);
	while (t_recvfd(s, &c, 1, &fd, MSG_CMSG_CLOEXEC) == 1 && c == 'f')
		;	/* Keep fd. */
	_exit(0);
}

static void __attribute__((noreturn))
a_lowfd_worker(int s, int rep, int go)
{
	struct a_rec r;
	struct rlimit rl;
	char c;
	int fd, i;

	alarm(T_LIFE);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		_exit(1);
	rl.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		_exit(2);
	for (i = 0; i < A_NLOWFD; i++) {
		r.pid = pdfork(&fd, 0);
		r.err = errno;
		if (r.pid == 0) {
			a_close_from3(-1);
			t_pause();
		}
		if (r.pid > 0) {
			if (t_sendfd(s, "f", 1, fd) != 0)
				_exit(3);
			close(fd);
		}
		t_child_write(rep, &r, sizeof(r));
	}
	r.pid = 0;
	r.err = 0;
	t_child_write(rep, &r, sizeof(r));
	(void)read(go, &c, 1);
	_exit(0);
}

/*
 * With RLIMIT_NOFILE 64 in the owner, every pdfork either works, and
 * then the child dies at the last close, or fails with EMFILE or EAGAIN:
 * no child is left unguarded.
 */
T_TC(nothing_silent__low_nofile,
    "under RLIMIT_NOFILE 64, a child is guarded or pdfork fails")
{
	char surv[256];
	struct a_rec r[A_NLOWFD];
	int w[A_NLOWFD], ks[2], rep[2], go[2];
	int64_t deadline;
	int i, nok, nrec, nsurv;
	pid_t keeper, worker;
	size_t len;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    ks) == 0);
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((keeper = fork()) >= 0);
	if (keeper == 0) {
		a_close_from3(ks[1]);
		a_keeper(ks[1]);
	}
	ATF_REQUIRE(close(ks[1]) == 0);
	ATF_REQUIRE((worker = fork()) >= 0);
	if (worker == 0) {
		close(rep[0]);
		close(go[1]);
		a_lowfd_worker(ks[0], rep[1], go[0]);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);

	nok = 0;
	for (nrec = 0; nrec < A_NLOWFD; nrec++) {
		w[nrec] = -1;
		ATF_REQUIRE_MSG(t_read_within(rep[0], &r[nrec], sizeof(r[0]),
		    T_LONG_MS) == (ssize_t)sizeof(r[0]), "the worker did not "
		    "report pdfork %d", nrec);
		if (r[nrec].pid > 0) {
			w[nrec] = t_watch(r[nrec].pid);
			nok++;
		} else
			ATF_CHECK_MSG(r[nrec].err == EMFILE ||
			    r[nrec].err == EAGAIN, "pdfork %d: %s, not "
			    "EMFILE or EAGAIN", nrec, strerror(r[nrec].err));
	}
	ATF_REQUIRE(t_read_within(rep[0], &r[0], sizeof(r[0]), T_LONG_MS) ==
	    (ssize_t)sizeof(r[0]));
	ATF_REQUIRE(r[0].pid == 0);
	fprintf(stderr, "%d of %d pdforks worked\n", nok, A_NLOWFD);

	/* The keeper's exit closes the last copies; the worker lives on. */
	ATF_REQUIRE(t_sendfd(ks[0], "x", 1, -1) == 0);
	ATF_CHECK_EQ(t_reap(keeper), 0);
	deadline = a_now_ms() + T_LONG_MS;
	nsurv = 0;
	surv[0] = '\0';
	for (i = 0; i < A_NLOWFD; i++) {
		if (w[i] == -1)
			continue;
		if (!a_dies(w[i], a_left(deadline))) {
			len = strlen(surv);
			if (nsurv++ < 16)
				snprintf(surv + len, sizeof(surv) - len, " %d",
				    (int)r[i].pid);
		}
		ATF_REQUIRE(close(w[i]) == 0);
	}
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_CHECK_EQ(t_reap(worker), 0);
	ATF_REQUIRE(close(go[1]) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(ks[0]) == 0);
	ATF_CHECK_MSG(nsurv == 0, "%d of %d children survived the last "
	    "close (pids%s%s)", nsurv, nok, surv, nsurv > 16 ? " ..." : "");
}

#define	A_SMALLFD	176	/* Hard NOFILE: a guardian takes 32. */
#define	A_NSECOND	48	/* Children: more than one guardian holds. */

/* How many processes uid runs (its RLIMIT_NPROC count). */
static int
a_nprocs_of(uid_t uid)
{
	struct dirent *de;
	struct stat st;
	char path[300];
	DIR *d;
	int n;

	n = 0;
	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' &&
		    stat(path, &st) == 0 && st.st_uid == uid)
			n++;
	}
	closedir(d);
	return (n);
}

/*
 * In an owner: pdfork a child that pauses, holding nothing, and report its
 * pid (or -errno) on rep.
 */
static pid_t
a_pdfork_report(int rep)
{
	pid_t pid;
	int fd;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == 0) {
		syscall(SYS_close_range, 3, ~0U, 0);
		for (;;)
			pause();
	}
	if (pid == -1)
		pid = -errno;
	t_child_write(rep, &pid, sizeof(pid));
	return (pid);
}

/* In an owner: report n, wait for go, exit (the last close of all). */
static void __attribute__((noreturn))
a_owner_done(int rep, int go, int n)
{
	char c;

	t_child_write(rep, &n, sizeof(n));
	(void)read(go, &c, 1);
	_exit(0);
}

/*
 * The owner of nothing_silent__second_guardian: a hard NOFILE of
 * A_SMALLFD, A_NSECOND pdforks (their pids, or -errno, to rep), then the
 * number of guardians, then wait for go and exit (the last close of all).
 */
static void
a_second_owner(int rep, int go)
{
	struct rlimit rl;
	int i;

	rl.rlim_cur = rl.rlim_max = A_SMALLFD;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		_exit(2);
	for (i = 0; i < A_NSECOND; i++)
		(void)a_pdfork_report(rep);
	a_owner_done(rep, go, t_nsentries());
}

/*
 * Fork an owner running fn(rep, go): it reports on rep, and exits once
 * go is written to.
 */
static pid_t
a_start_owner(void (*fn)(int, int), int *repp, int *gop)
{
	int rep[2], go[2];
	pid_t o;

	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		close(rep[0]);
		close(go[1]);
		fn(rep[1], go[0]);
		_exit(1);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	*repp = rep[0];
	*gop = go[1];
	return (o);
}

/* Let the owner go, reap it, and close our ends of its pipes. */
static void
a_end_owner(pid_t o, int rep, int go)
{

	ATF_REQUIRE(write(go, "g", 1) == 1);
	ATF_CHECK_EQ(t_reap(o), 0);
	ATF_REQUIRE(close(rep) == 0);
	ATF_REQUIRE(close(go) == 0);
}

/*
 * A guardian takes only what its descriptor limit allows; past that the
 * owner starts another, and every child is guarded by one of them.
 */
T_TC(nothing_silent__second_guardian,
    "a full guardian is followed by another; every child is guarded")
{
	int w[A_NSECOND], rep, go, i, n, ndead;
	int64_t deadline;
	pid_t o, pid[A_NSECOND];

	o = a_start_owner(a_second_owner, &rep, &go);
	for (i = 0; i < A_NSECOND; i++) {
		ATF_REQUIRE(t_read_within(rep, &pid[i], sizeof(pid[i]),
		    T_LONG_MS) == (ssize_t)sizeof(pid[i]));
		ATF_CHECK_MSG(pid[i] > 0, "pdfork %d: %s", i,
		    strerror(-pid[i]));
		w[i] = pid[i] > 0 ? t_watch(pid[i]) : -1;
	}
	ATF_REQUIRE(t_read_within(rep, &n, sizeof(n), T_LONG_MS) ==
	    (ssize_t)sizeof(n));
	ATF_CHECK_MSG(n >= 2, "%d guardian(s) for %d children", n,
	    A_NSECOND);
	a_end_owner(o, rep, go);
	deadline = a_now_ms() + T_LONG_MS;
	ndead = 0;
	for (i = 0; i < A_NSECOND; i++) {
		if (w[i] == -1)
			continue;
		if (a_dies(w[i], a_left(deadline)))
			ndead++;
		ATF_REQUIRE(close(w[i]) == 0);
	}
	ATF_CHECK_EQ(ndead, A_NSECOND);
}

#define	A_NPROC_MORE	6	/* Processes nobody may still start. */

/*
 * The owner of nothing_silent__nproc, as nobody: RLIMIT_NPROC a few
 * processes above what nobody runs, pdforks until one fails (pids to rep,
 * then -errno), then the number of its children that are not sentries
 * (each must be a reported, guarded child), then waits for go.
 */
static void
a_nproc_owner(int rep, int go)
{
	struct rlimit rl;
	int i;

	if (!t_become_nobody())
		_exit(2);
	rl.rlim_cur = rl.rlim_max = (rlim_t)(a_nprocs_of(A_NOBODY) +
	    A_NPROC_MORE);
	if (setrlimit(RLIMIT_NPROC, &rl) == -1)
		_exit(3);
	for (i = 0; i < 4 * A_NPROC_MORE; i++)
		if (a_pdfork_report(rep) < 0)
			break;
	a_owner_done(rep, go, t_nchildren());
}

/*
 * Under RLIMIT_NPROC every pdfork that works has a guarded child, and the
 * first that fails says EAGAIN and leaves no child.
 */
T_TC(nothing_silent__nproc, "under RLIMIT_NPROC, guarded or EAGAIN")
{
	int w[4 * A_NPROC_MORE], rep, go, i, n, nok;
	int64_t deadline;
	pid_t o, pid;

	if (geteuid() != 0)
		atf_tc_skip("needs root to become nobody (RLIMIT_NPROC does "
		    "not bind root)");
	o = a_start_owner(a_nproc_owner, &rep, &go);
	for (nok = 0; nok < 4 * A_NPROC_MORE; nok++) {
		ATF_REQUIRE_MSG(t_read_within(rep, &pid, sizeof(pid),
		    T_LONG_MS) == (ssize_t)sizeof(pid), "owner silent");
		if (pid < 0) {
			ATF_CHECK_MSG(pid == -EAGAIN, "pdfork: %s, not EAGAIN",
			    strerror(-pid));
			break;
		}
		w[nok] = t_watch(pid);
	}
	ATF_CHECK_MSG(nok < 4 * A_NPROC_MORE, "RLIMIT_NPROC never bound");
	ATF_REQUIRE(t_read_within(rep, &n, sizeof(n), T_LONG_MS) ==
	    (ssize_t)sizeof(n));
	ATF_CHECK_MSG(n == nok, "the owner has %d children, %d pdforks "
	    "worked", n, nok);
	a_end_owner(o, rep, go);
	deadline = a_now_ms() + T_LONG_MS;
	for (i = 0; i < nok; i++) {
		ATF_CHECK_MSG(a_dies(w[i], a_left(deadline)),
		    "child %d survived its owner", i);
		ATF_REQUIRE(close(w[i]) == 0);
	}
}

/* 5, 6: a guardian that faults fails closed. */

/*
 * Signal sig to the guardian, which then dies, and every child it guarded
 * with it (fail closed): pdwait reports SIGKILL, and a later pdfork is
 * guarded by a new guardian.
 */
static void
a_guardian_fault(int sig)
{
	int fd[A_NFAULT], w[A_NFAULT], fd2, i, status, w2, wg;
	pid_t g, g2, pid[A_NFAULT];
	struct a_stat st;
	int64_t deadline;
	bool dead, gchild;

	for (i = 0; i < A_NFAULT; i++) {
		ATF_REQUIRE((pid[i] = t_pdfork_clean(&fd[i], 0)) > 0);
		w[i] = t_watch(pid[i]);
	}
	ATF_REQUIRE_MSG((g = t_guardian_pid()) > 0, "no guardian found");
	gchild = a_stat(g, &st) && st.ppid == getpid();
	wg = t_watch(g);
	ATF_REQUIRE(kill(g, sig) == 0);
	ATF_CHECK_MSG(t_dead_within(wg, T_LONG_MS), "the guardian %d lives "
	    "on after %s", (int)g, strsignal(sig));
	deadline = a_now_ms() + T_LONG_MS;
	for (i = 0; i < A_NFAULT; i++) {
		dead = t_dead_within(w[i], a_left(deadline));
		ATF_CHECK_MSG(dead, "child %d (pid %d) survived its guardian "
		    "%d by %d ms", i, (int)pid[i], (int)g, T_LONG_MS);
		if (!dead)
			ATF_REQUIRE(pdkill(fd[i], SIGKILL) == 0);
		status = 0;
		ATF_CHECK_MSG(pdwait(fd[i], &status, WEXITED, NULL, NULL) ==
		    0, "pdwait %d: %s", i, strerror(errno));
		if (dead)
			ATF_CHECK_MSG(WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGKILL, "child %d: status "
			    "%#x, not killed by SIGKILL", i, status);
		ATF_REQUIRE(t_reaped_within(w[i], T_LONG_MS));
		ATF_REQUIRE(close(fd[i]) == 0);
		ATF_REQUIRE(close(w[i]) == 0);
	}
	if (!t_dead_within(wg, 0))
		(void)kill(g, SIGKILL);
	/* Ours, the dead guardian must not stay a zombie. */
	if (gchild)
		ATF_CHECK_MSG(t_reaped_within(wg, T_LONG_MS),
		    "the dead guardian %d was not reaped", (int)g);
	ATF_REQUIRE(close(wg) == 0);
	w2 = t_watch(t_pdfork_pause(&fd2, 0));
	g2 = t_guardian_pid();
	ATF_CHECK_MSG(g2 > 0 && g2 != g, "no new guardian (%d)", (int)g2);
	ATF_REQUIRE(close(fd2) == 0);
	t_expect_death(w2);
}

T_TC(guardian_fault__killed, "a killed guardian takes its children along")
{

	a_guardian_fault(SIGKILL);
}

/*
 * A stopped guardian would guard nothing while it is stopped, so its
 * sentry kills it at once: no pdfork is needed to notice (NOTES 6).
 */
T_TC(guardian_fault__stopped, "a stopped guardian takes its children along")
{

	a_guardian_fault(SIGSTOP);
}

/*
 * A guardian that reads nothing (held in a ptrace stop, as a debugger
 * would, by root: it is not dumpable) makes pdfork fail with EAGAIN once
 * its queue is full, leaving no child, and since it is stopped, it is
 * killed, and every child it had, or was to have, dies with it.
 */
T_TC(guardian_fault__held, "a guardian that reads nothing takes no child "
    "past its queue, and fails closed")
{
	static int fd[A_NHELD], w[A_NHELD];
	int i, n, status, err;
	pid_t g, pid, c0[A_MAXKIDS], c1[A_MAXKIDS];
	int n0, n1, wg;

	if (geteuid() != 0)
		atf_tc_skip("needs root to hold the guardian with ptrace");
	w[0] = t_watch(t_pdfork_pause(&fd[0], 0));
	ATF_REQUIRE_MSG((g = t_guardian_pid()) > 0, "no guardian found");
	wg = t_watch(g);
	ATF_REQUIRE(ptrace(PTRACE_SEIZE, g, NULL, NULL) == 0);
	ATF_REQUIRE(ptrace(PTRACE_INTERRUPT, g, NULL, NULL) == 0);
	ATF_REQUIRE(waitpid(g, &status, __WALL) == g && WIFSTOPPED(status));
	n0 = t_children(T_CHILDREN_ALL, c0, A_MAXKIDS);
	pid = 0;
	err = 0;
	for (n = 1; n < A_NHELD; n++) {
		if ((pid = pdfork(&fd[n], 0)) == 0)
			t_pause();
		if (pid == -1) {
			err = errno;
			break;
		}
		w[n] = t_watch(pid);
	}
	n1 = t_children(T_CHILDREN_ALL, c1, A_MAXKIDS);
	fprintf(stderr, "pdfork %d failed: %s\n", n, strerror(err));
	ATF_CHECK_MSG(pid == -1 && err == EAGAIN, "pdfork %d with the "
	    "guardian held: %d (%s), not -1 with EAGAIN", n, (int)pid,
	    strerror(err));
	ATF_CHECK_MSG(n1 <= n0 + n - 1, "the failed pdfork left a child (%d "
	    "children, %d before and %d made)", n1, n0, n - 1);
	ATF_CHECK_MSG(t_dead_within(wg, T_LONG_MS), "the held guardian "
	    "lives on");
	(void)waitpid(g, &status, __WALL);
	for (i = 0; i < n; i++) {
		ATF_CHECK_MSG(t_dead_within(w[i], T_LONG_MS), "child %d of "
		    "the held guardian survived it", i);
		t_kill_wait(w[i]);
		ATF_REQUIRE(close(fd[i]) == 0);
	}
	ATF_REQUIRE(close(wg) == 0);
}

/*
 * In a helper: hold guardian g in a ptrace stop until its owner sleeps
 * in poll(2), which only a full queue makes pdfork do, then let it go.
 * Says 'h' on out once it holds it, 'r' once it let it go.
 */
static int
a_hold_until_waited(pid_t g, pid_t owner, int out)
{
	int64_t deadline;
	int status;

	if (ptrace(PTRACE_SEIZE, g, NULL, NULL) == -1 ||
	    ptrace(PTRACE_INTERRUPT, g, NULL, NULL) == -1 ||
	    waitpid(g, &status, __WALL) != g || !WIFSTOPPED(status))
		return (1);
	t_child_write(out, "h", 1);
	deadline = a_now_ms() + T_LONG_MS;
	while (!t_task_in_poll(owner, owner))
		if (a_now_ms() > deadline)
			return (2);
	if (ptrace(PTRACE_DETACH, g, NULL, NULL) == -1)
		return (3);
	t_child_write(out, "r", 1);
	return (0);
}

/*
 * A guardian that is only behind (held, then let go, as a busy machine
 * would keep it from a CPU) makes the pdfork that finds its queue full
 * wait for room, not fail: a burst of creations outruns any guardian.
 */
T_TC(guardian_fault__behind, "a pdfork that finds its guardian's queue "
    "full waits for room")
{
	static int fd[A_NHELD];
	int i, n, p[2], err;
	pid_t g, h, pid;
	char c;

	if (geteuid() != 0)
		atf_tc_skip("needs root to hold the guardian with ptrace");
	ATF_REQUIRE(t_pdfork_pause(&fd[0], 0) > 0);
	ATF_REQUIRE_MSG((g = t_guardian_pid()) > 0, "no guardian found");
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE((h = fork()) >= 0);
	if (h == 0)
		_exit(a_hold_until_waited(g, getppid(), p[1]));
	ATF_REQUIRE(close(p[1]) == 0);
	/* read(2), not poll(2), which the helper waits for. */
	ATF_REQUIRE_MSG(read(p[0], &c, 1) == 1 && c == 'h',
	    "the helper could not hold the guardian");
	ATF_REQUIRE(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	err = 0;
	pid = 0;
	for (n = 1; n < A_NHELD; ) {
		if ((pid = pdfork(&fd[n], 0)) == 0)
			t_pause();
		if (pid == -1) {
			err = errno;
			break;
		}
		n++;
		if (read(p[0], &c, 1) == 1)
			break;
	}
	ATF_CHECK_MSG(pid > 0, "pdfork %d with the guardian behind: %s", n,
	    strerror(err));
	ATF_CHECK_MSG(n < A_NHELD, "%d pdforks never filled the queue", n);
	ATF_CHECK_EQ_MSG(t_reap(h), 0, "the helper failed (see its code)");
	for (i = 0; i < n; i++) {
		ATF_CHECK(pdkill(fd[i], SIGKILL) == 0);
		ATF_CHECK(pdwait(fd[i], NULL, WEXITED, NULL, NULL) == 0);
		ATF_REQUIRE(close(fd[i]) == 0);
	}
	ATF_REQUIRE(close(p[0]) == 0);
}

/*
 * 7: the guardian owes its owner nothing: checks of guardian g (of a
 * process whose session and group are ours) through /proc.
 */
static void
a_hygiene(pid_t g, const char *who)
{
	char path[300], link[300], buf[256], soft[64], hard[64];
	unsigned long long mask;
	unsigned int id[4];
	struct a_stat st;
	struct dirent *de;
	FILE *fp;
	ssize_t n;
	int fd, nfds;
	DIR *d;

	ATF_REQUIRE_MSG(a_stat(g, &st), "%s: no guardian %d", who, (int)g);
	ATF_CHECK_MSG(st.sid != getsid(0), "%s: the guardian is in our "
	    "session %d", who, (int)st.sid);
	ATF_CHECK_MSG(st.pgrp != getpgrp(), "%s: the guardian is in our "
	    "process group %d", who, (int)st.pgrp);

	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)g);
	memset(link, 0, sizeof(link));
	ATF_REQUIRE(readlink(path, link, sizeof(link) - 1) > 0);
	ATF_CHECK_MSG(strcmp(link, "/") == 0, "%s: the guardian's cwd is "
	    "%s, not /", who, link);

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)g);
	ATF_REQUIRE((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK_MSG(n == 0, "%s: the guardian's environment is not empty "
	    "(%zd bytes, \"%.*s\")", who, n, n > 0 ? (int)n : 0, buf);

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)g);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	nfds = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)g,
		    de->d_name);
		memset(link, 0, sizeof(link));
		if (readlink(path, link, sizeof(link) - 1) <= 0)
			continue;	/* Closed meanwhile. */
		nfds++;
		if (atoi(de->d_name) <= 2)
			ATF_CHECK_MSG(strcmp(link, "/dev/null") == 0,
			    "%s: guardian fd %s is %s", who, de->d_name,
			    link);
		else
			ATF_CHECK_MSG(strncmp(link, "socket:", 7) == 0 ||
			    strcmp(link, "anon_inode:[pidfd]") == 0 ||
			    strncmp(link, "pidfd:", 6) == 0 ||
			    strcmp(link, "anon_inode:[eventpoll]") == 0,
			    "%s: guardian fd %s is %s, not a socket, pidfd "
			    "or epoll", who, de->d_name, link);
	}
	closedir(d);
	ATF_CHECK_MSG(nfds >= 4, "%s: the guardian has %d fds", who, nfds);

	ATF_REQUIRE(t_proc_status(g, "SigBlk:", buf, sizeof(buf)));
	mask = strtoull(buf, NULL, 16);
	ATF_CHECK_MSG(mask == 0, "%s: the guardian blocks signals (%s)", who,
	    buf);
	ATF_REQUIRE(t_proc_status(g, "SigIgn:", buf, sizeof(buf)));
	mask = strtoull(buf, NULL, 16);
	/* SIGPIPE alone: a holder's copy gone mid-reply must not kill it. */
	ATF_CHECK_MSG(mask == 1ULL << (SIGPIPE - 1), "%s: the guardian "
	    "ignores signals other than SIGPIPE (%s)", who, buf);
	ATF_REQUIRE(t_proc_status(g, "Umask:", buf, sizeof(buf)));
	ATF_CHECK_MSG(strtoul(buf, NULL, 8) == 077, "%s: the guardian's "
	    "umask is %s, not 0077", who, buf);
	ATF_REQUIRE(t_proc_status(g, "Uid:", buf, sizeof(buf)));
	ATF_REQUIRE(sscanf(buf, "%u %u %u %u", &id[0], &id[1], &id[2],
	    &id[3]) == 4);
	ATF_CHECK_MSG(id[0] == id[1] && id[1] == id[2] && id[2] == id[3],
	    "%s: the guardian's uids differ (%s)", who, buf);
	ATF_REQUIRE(t_proc_status(g, "Gid:", buf, sizeof(buf)));
	ATF_REQUIRE(sscanf(buf, "%u %u %u %u", &id[0], &id[1], &id[2],
	    &id[3]) == 4);
	ATF_CHECK_MSG(id[0] == id[1] && id[1] == id[2] && id[2] == id[3],
	    "%s: the guardian's gids differ (%s)", who, buf);

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)g);
	ATF_REQUIRE((fp = fopen(path, "re")) != NULL);
	soft[0] = hard[0] = '\0';
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (strncmp(buf, "Max open files", 14) == 0 &&
		    sscanf(buf + 14, "%63s %63s", soft, hard) != 2)
			soft[0] = hard[0] = '\0';
	fclose(fp);
	ATF_CHECK_MSG(soft[0] != '\0' && strcmp(soft, hard) == 0, "%s: the "
	    "guardian's RLIMIT_NOFILE soft %s is not its hard %s", who, soft,
	    hard);
}

/*
 * The guardian is clean: cwd /, empty environment, stdio on /dev/null and
 * nothing but sockets and pidfds, no signal blocked or ignored, umask 077,
 * its own session, one uid and one gid, NOFILE soft raised to hard; run
 * by nobody, it is not dumpable (its /proc directory is root's).
 */
T_TC(guardian_hygiene, "the guardian inherits nothing of its owner's")
{
	struct rlimit rl;
	struct stat sb;
	int fd, go[2], rep[2], w;
	char path[64], buf[128];
	pid_t g, o, pid;

	w = t_watch(t_pdfork_pause(&fd, 0));
	ATF_REQUIRE_MSG((g = t_guardian_pid()) > 0, "no guardian found");
	a_hygiene(g, "ours");
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
	if (geteuid() != 0) {
		atf_tc_skip("needs root to run an owner as nobody (the "
		    "checks of our own guardian passed)");
	}

	/* An owner as nobody, with a soft NOFILE below the hard one. */
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		pid = -1;
		if (t_become_nobody() &&
		    getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max > 256 ? 256 : rl.rlim_max / 2;
			if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
				pid = t_pdfork_clean(&fd, 0);
		}
		t_child_write(rep[1], &pid, sizeof(pid));
		(void)read(go[0], buf, 1);
		_exit(0);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(t_read_within(rep[0], &pid, sizeof(pid), T_LONG_MS) ==
	    (ssize_t)sizeof(pid));
	if (pid <= 0) {
		ATF_REQUIRE(write(go[1], "g", 1) == 1);
		(void)t_reap(o);
		atf_tc_fail("the owner as nobody could not pdfork");
	}
	w = t_watch(pid);
	g = t_guardian_pid_of(o);
	if (g > 0) {
		a_hygiene(g, "nobody's");
		ATF_REQUIRE(t_proc_status(g, "Uid:", buf, sizeof(buf)));
		ATF_CHECK_MSG(strncmp(buf, "65534\t65534\t65534\t65534", 23) ==
		    0, "nobody's guardian has uids %s", buf);
		/*
		 * Not /proc/PID itself, which always shows the effective
		 * uid: its private entries are root's once not dumpable.
		 */
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)g);
		ATF_REQUIRE(stat(path, &sb) == 0);
		ATF_CHECK_MSG(sb.st_uid == 0, "nobody's guardian is dumpable "
		    "(%s is owned by uid %u, not root)", path,
		    (unsigned int)sb.st_uid);
	}
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_CHECK_EQ(t_reap(o), 0);
	ATF_CHECK_MSG(a_dies(w, T_LONG_MS), "nobody's child survived its "
	    "owner");
	ATF_REQUIRE(close(w) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
	ATF_REQUIRE_MSG(g > 0, "no guardian found for the owner %d", (int)o);
}

/*
 * 8: the guardian of a set-uid-root owner run by nobody (real uid nobody,
 * effective and saved uid root) runs with root's uids only: the user
 * nobody can neither signal nor ptrace it.
 */
T_TC(setuid_owner, "nobody cannot signal the guardian of a set-uid owner")
{
	struct { pid_t pid; int err; } rr;
	int err[3], fd, go[2], rep[2], res[2], w, wg;
	char buf[128];
	pid_t a, g, o;
	bool dead;

	if (geteuid() != 0)
		atf_tc_skip("needs root to make a set-uid owner");
	ATF_REQUIRE(pipe2(rep, O_CLOEXEC) == 0);
	ATF_REQUIRE(pipe2(go, O_CLOEXEC) == 0);
	ATF_REQUIRE((o = fork()) >= 0);
	if (o == 0) {
		rr.pid = -1;
		rr.err = 0;
		if (setgroups(0, NULL) == 0 &&
		    setresgid(A_NOBODY, A_NOBODY, A_NOBODY) == 0 &&
		    setresuid(A_NOBODY, 0, 0) == 0)
			rr.pid = t_pdfork_clean(&fd, 0);
		rr.err = errno;
		t_child_write(rep[1], &rr, sizeof(rr));
		(void)read(go[0], buf, 1);
		_exit(0);
	}
	ATF_REQUIRE(close(rep[1]) == 0);
	ATF_REQUIRE(close(go[0]) == 0);
	ATF_REQUIRE(t_read_within(rep[0], &rr, sizeof(rr), T_LONG_MS) ==
	    (ssize_t)sizeof(rr));
	if (rr.pid <= 0) {
		ATF_REQUIRE(write(go[1], "g", 1) == 1);
		(void)t_reap(o);
		atf_tc_fail("the set-uid owner could not pdfork: %s",
		    strerror(rr.err));
	}
	w = t_watch(rr.pid);
	if ((g = t_guardian_pid_of(o)) <= 0) {
		ATF_REQUIRE(write(go[1], "g", 1) == 1);
		(void)t_reap(o);
		(void)a_dies(w, T_LONG_MS);
		ATF_REQUIRE(close(w) == 0);
		atf_tc_fail("no guardian found for the owner %d", (int)o);
	}
	wg = t_watch(g);
	if (t_proc_status(g, "Uid:", buf, sizeof(buf)))
		fprintf(stderr, "guardian %d: Uid: %s\n", (int)g, buf);

	/* The attacker: nobody through and through. */
	ATF_REQUIRE(pipe2(res, O_CLOEXEC) == 0);
	ATF_REQUIRE((a = fork()) >= 0);
	if (a == 0) {
		if (!t_become_nobody())
			_exit(1);
		err[0] = ptrace(PTRACE_ATTACH, g, NULL, NULL) == -1 ? errno : 0;
		err[1] = kill(g, SIGSTOP) == -1 ? errno : 0;
		err[2] = kill(g, SIGKILL) == -1 ? errno : 0;
		t_child_write(res[1], err, sizeof(err));
		_exit(0);	/* Detaches, had the attach worked. */
	}
	ATF_REQUIRE(close(res[1]) == 0);
	ATF_CHECK_EQ(t_reap(a), 0);
	memset(err, 0, sizeof(err));
	ATF_REQUIRE(t_read_within(res[0], err, sizeof(err), T_LONG_MS) ==
	    (ssize_t)sizeof(err));
	ATF_REQUIRE(close(res[0]) == 0);
	(void)kill(g, SIGCONT);
	ATF_CHECK_MSG(err[0] == EPERM, "nobody's PTRACE_ATTACH of the "
	    "guardian: %s", err[0] == 0 ? "worked" : strerror(err[0]));
	ATF_CHECK_MSG(err[1] == EPERM, "nobody's SIGSTOP to the guardian: %s",
	    err[1] == 0 ? "delivered" : strerror(err[1]));
	ATF_CHECK_MSG(err[2] == EPERM, "nobody's SIGKILL to the guardian: %s",
	    err[2] == 0 ? "delivered" : strerror(err[2]));

	/* Still guarded: the owner's exit kills the child. */
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_CHECK_EQ(t_reap(o), 0);
	dead = a_dies(w, T_LONG_MS);
	ATF_CHECK_MSG(dead, "the set-uid owner's child survived the owner");
	ATF_REQUIRE(close(w) == 0);
	(void)a_dies(wg, T_LONG_MS);
	ATF_REQUIRE(close(wg) == 0);
	ATF_REQUIRE(close(rep[0]) == 0);
	ATF_REQUIRE(close(go[1]) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, outside_keepalive__child_locks_own_pidfd);
	ATF_TP_ADD_TC(tp, outside_keepalive__other_uid);
	ATF_TP_ADD_TC(tp, creation_window__owner_killed);
	ATF_TP_ADD_TC(tp, creation_window__owner_killed_rfspawn);
	ATF_TP_ADD_TC(tp, creation_window__child_killed);
	ATF_TP_ADD_TC(tp, creation_window__owner_killed_pipe_held);
	ATF_TP_ADD_TC(tp, creation_window__holder_at_once);
	ATF_TP_ADD_TC(tp, nothing_silent__low_nofile);
	ATF_TP_ADD_TC(tp, nothing_silent__second_guardian);
	ATF_TP_ADD_TC(tp, nothing_silent__nproc);
	ATF_TP_ADD_TC(tp, guardian_fault__killed);
	ATF_TP_ADD_TC(tp, guardian_fault__stopped);
	ATF_TP_ADD_TC(tp, guardian_fault__held);
	ATF_TP_ADD_TC(tp, guardian_fault__behind);
	ATF_TP_ADD_TC(tp, guardian_hygiene);
	ATF_TP_ADD_TC(tp, setuid_owner);
	return (atf_no_error());
}
