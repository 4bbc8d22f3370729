/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Children and /proc for the benchmark.
 *
 * Every child made here closes all descriptors above 2 first, so that it
 * holds no copy of a sibling's process descriptor (which would keep the
 * sibling alive), and then pauses.  Raw clone3 children get SIGCHLD as
 * exit signal, as fork(2)'s do: the library's reaper reaps only its own
 * pdfork children and leaves these to us.
 *
 * The guardians of an owner are found first as its children named
 * GUARDIAN_COMM (the redesign of issue #12 starts them with clone3, one
 * per so many children), or as children of its children named
 * HELPER_PREFIX-something (a helper that stands between owner and
 * guardian).  Failing that, as before the redesign, the guardian is
 * the process at the other end of the library's SOCK_SEQPACKET socket:
 * SO_PEERCRED would name it for a connect()ed socket, but a socketpair's
 * peer credentials are its creator's, the owner's own; so the peer's
 * inode comes from sock_diag (UNIX_DIAG_PEER) and the guardian is the
 * process whose descriptor 3 is that socket.  That fallback only works
 * for the calling process's own guardian.
 *
 * Whether a guardian is done with its work is told without knowing how it
 * works (threads blocked on locks, an epoll loop): none of its threads is
 * runnable and its CPU time does not move.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "syscall.h"
#include "bench.h"

/* comm(5) of a guardian: 15 characters of "procdesc-guardian". */
#define	GUARDIAN_COMM	"procdesc-guardi"
#define	HELPER_PREFIX	"procdesc-"
/* Interval between two looks at a guardian that should be quiet. */
#define	QUIET_NS	200000

void
child_pause(void)
{

	(void)sys_close_range(3, ~0U, 0);
	for (;;)
		pause();
}

/* A paused child of kind k; *fdp its descriptor (K_FORK: -1). */
pid_t
spawn_paused(enum kind k, int *fdp)
{
	pid_t pid;

	if ((pid = spawn_try(k, fdp)) == -1)
		err(1, "spawn (kind %d)", (int)k);
	return (pid);
}

/* spawn_paused(), but -1 and errno on failure. */
pid_t
spawn_try(enum kind k, int *fdp)
{
	struct procdesc_clone_args ca;
	pid_t pid;

	*fdp = -1;
	switch (k) {
	case K_PD:
		pid = pdfork(fdp, 0);
		break;
	case K_FORK:
	case K_FORKFD:
		pid = fork();
		break;
	default:
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_PIDFD;
		ca.pidfd = (uint64_t)(uintptr_t)fdp;
		ca.exit_signal = SIGCHLD;
		pid = (pid_t)sys_clone3(&ca);
		break;
	}
	if (pid == 0)
		child_pause();
	if (pid > 0 && k == K_FORKFD && (*fdp = sys_pidfd_open(pid, 0)) == -1)
		err(1, "pidfd_open");
	return (pid);
}

/* SIGKILL n children of kind k, then collect them all. */
void
collect_all(enum kind k, const pid_t *pid, const int *fd, size_t n)
{
	siginfo_t si;
	size_t i;
	int st;

	for (i = 0; i < n; i++) {
		if (k == K_PD)
			(void)pdkill(fd[i], SIGKILL);
		else if (k == K_FORK)
			(void)kill(pid[i], SIGKILL);
		else
			(void)sys_pidfd_send_signal(fd[i], SIGKILL);
	}
	for (i = 0; i < n; i++) {
		if (k == K_PD) {
			if (pdwait(fd[i], &st, WEXITED, NULL, NULL) == -1)
				warn("pdwait");
			close(fd[i]);
		} else if (k == K_FORK || k == K_FORKFD) {
			if (waitpid(pid[i], &st, 0) == -1)
				warn("waitpid");
			if (k == K_FORKFD)
				close(fd[i]);
		} else {
			if (sys_waitid(P_PIDFD, fd[i], &si, WEXITED,
			    NULL) == -1)
				warn("waitid");
			close(fd[i]);
		}
	}
}

/* The inode of the peer of unix socket ino, through sock_diag. */
static int
unix_peer_ino(ino_t ino, uint32_t *peerp)
{
	struct {
		struct nlmsghdr		nlh;
		struct unix_diag_req	req;
	} q;
	union {
		struct nlmsghdr	h;
		char		b[32768];
	} buf;
	struct unix_diag_msg *m;
	struct nlmsghdr *h;
	struct rtattr *a;
	size_t left, alen, step;
	ssize_t n;
	int s, found, done;

	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return (errno);
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.req.sdiag_family = AF_UNIX;
	q.req.udiag_states = ~0U;
	q.req.udiag_show = UDIAG_SHOW_PEER;
	if (send(s, &q, sizeof(q), 0) == -1) {
		close(s);
		return (errno);
	}
	found = done = 0;
	while (done == 0 && (n = recv(s, buf.b, sizeof(buf.b), 0)) > 0) {
		h = &buf.h;
		for (left = (size_t)n; left >= sizeof(*h) &&
		    h->nlmsg_len >= sizeof(*h) && h->nlmsg_len <= left;) {
			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			m = NLMSG_DATA(h);
			alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			a = (struct rtattr *)(m + 1);
			while (m->udiag_ino == (uint32_t)ino &&
			    alen >= sizeof(*a) && a->rta_len >= sizeof(*a) &&
			    a->rta_len <= alen) {
				if (a->rta_type == UNIX_DIAG_PEER) {
					memcpy(peerp, RTA_DATA(a),
					    sizeof(*peerp));
					found = 1;
				}
				if ((step = RTA_ALIGN(a->rta_len)) >= alen)
					break;
				alen -= step;
				a = (struct rtattr *)((char *)a + step);
			}
			if ((step = NLMSG_ALIGN(h->nlmsg_len)) >= left)
				break;
			left -= step;
			h = (struct nlmsghdr *)((char *)h + step);
		}
	}
	close(s);
	return (found != 0 ? 0 : ESRCH);
}

/* The process whose descriptor 3 is the unix socket of inode ino. */
static pid_t
proc_sock_owner(uint32_t ino)
{
	struct dirent *de;
	char path[320], link[64], want[64];
	ssize_t n;
	pid_t pid;
	DIR *d;

	snprintf(want, sizeof(want), "socket:[%u]", ino);
	if ((d = opendir("/proc")) == NULL)
		return (-1);
	pid = -1;
	while (pid == -1 && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/3", de->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, want) == 0)
			pid = atoi(de->d_name);
	}
	closedir(d);
	return (pid);
}

/*
 * The guardian of this process through its socket, or -1.  *howp says
 * whether SO_PEERCRED named it or sock_diag had to.
 */
static pid_t
guardian_sockdiag(const char **howp)
{
	struct dirent *de;
	struct ucred cr;
	struct stat st;
	socklen_t len;
	uint32_t peer;
	pid_t pid;
	DIR *d;
	int dom, fd, type;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return (-1);
	pid = -1;
	while (pid == -1 && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    (fd = atoi(de->d_name)) == dirfd(d))
			continue;
		len = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
		    type != SOCK_SEQPACKET)
			continue;
		len = sizeof(dom);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) == -1 ||
		    dom != AF_UNIX)
			continue;
		len = sizeof(cr);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
		    cr.pid > 0 && cr.pid != getpid()) {
			*howp = "SO_PEERCRED";
			pid = cr.pid;
		} else if (fstat(fd, &st) == 0 &&
		    unix_peer_ino(st.st_ino, &peer) == 0) {
			*howp = "sock_diag UNIX_DIAG_PEER (SO_PEERCRED of the "
			    "socketpair names the owner itself)";
			pid = proc_sock_owner(peer);
		}
	}
	closedir(d);
	return (pid);
}

static void
pids_add(pid_t **vp, size_t *np, size_t *capp, pid_t pid)
{

	if (*np == *capp) {
		*capp = (*capp == 0) ? 256 : 2 * *capp;
		if ((*vp = realloc(*vp, *capp * sizeof(**vp))) == NULL)
			err(1, "realloc");
	}
	(*vp)[(*np)++] = pid;
}

/*
 * The state and parent from a stat file (/proc/pid/stat or a task's), or
 * -1 and a state of 0.
 */
static pid_t
stat_read(const char *path, char *statep)
{
	char buf[512], *p;
	ssize_t n;
	int fd, ppid;

	*statep = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: skip to the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %d", statep, &ppid) != 2)
		return (-1);
	return (ppid);
}

/* The parent of pid, or -1. */
static pid_t
proc_ppid(const char *pid)
{
	char path[320], state;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	return (stat_read(path, &state));
}

/*
 * The children of owner (zombies included), from every thread's
 * /proc/owner/task/tid/children, or, in kernels without
 * CONFIG_PROC_CHILDREN, from a scan of /proc.  Free the result.
 */
pid_t *
proc_children(pid_t owner, size_t *np)
{
	struct dirent *de;
	char path[320];
	size_t cap;
	pid_t *v;
	FILE *fp;
	DIR *d;
	int pid, ntask;

	v = NULL;
	*np = cap = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)owner);
	if ((d = opendir(path)) == NULL)
		return (NULL);
	ntask = 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
		    (int)owner, de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		ntask++;
		while (fscanf(fp, "%d", &pid) == 1)
			pids_add(&v, np, &cap, pid);
		fclose(fp);
	}
	closedir(d);
	if (ntask > 0 || (d = opendir("/proc")) == NULL)
		return (v);
	while ((de = readdir(d)) != NULL)
		if (isdigit((unsigned char)de->d_name[0]) &&
		    proc_ppid(de->d_name) == owner)
			pids_add(&v, np, &cap, atoi(de->d_name));
	closedir(d);
	return (v);
}

static bool
guardians_has(const struct guardians *gs, pid_t pid)
{
	size_t i;

	for (i = 0; i < gs->gs_n; i++)
		if (gs->gs_pid[i] == pid)
			return (true);
	for (i = 0; i < gs->gs_naux; i++)
		if (gs->gs_aux[i] == pid)
			return (true);
	return (false);
}

/* Children of owner, the guardians and helpers of gs left out. */
size_t
children_count(pid_t owner, const struct guardians *gs)
{
	size_t i, n, m;
	pid_t *v;

	v = proc_children(owner, &n);
	for (m = i = 0; i < n; i++)
		if (!guardians_has(gs, v[i]))
			m++;
	free(v);
	return (m);
}

/* The comm(5) of pid into comm[32], or "". */
static void
proc_comm(pid_t pid, char *comm)
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, comm, 31);
	close(fd);
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static bool
proc_is_guardian(pid_t pid)
{
	char comm[32];

	proc_comm(pid, comm);
	return (strcmp(comm, GUARDIAN_COMM) == 0);
}

/* Guardians among the children of pid into gs; helpers, depth levels. */
static void
guardians_scan(pid_t pid, struct guardians *gs, int depth)
{
	char comm[32];
	size_t i, n;
	pid_t *v;

	v = proc_children(pid, &n);
	for (i = 0; i < n; i++) {
		proc_comm(v[i], comm);
		if (strcmp(comm, GUARDIAN_COMM) == 0) {
			if (gs->gs_n < GUARDIANS_MAX)
				gs->gs_pid[gs->gs_n++] = v[i];
		} else if (depth > 0 && strncmp(comm, HELPER_PREFIX,
		    strlen(HELPER_PREFIX)) == 0) {
			if (gs->gs_naux < GUARDIANS_MAX)
				gs->gs_aux[gs->gs_naux++] = v[i];
			guardians_scan(v[i], gs, depth - 1);
		}
	}
	free(v);
}

/*
 * The guardians of owner into *gs: its children named GUARDIAN_COMM, or,
 * for this process only, the peer of the library's socket.  Returns their
 * number; *howp says how they were found.
 */
size_t
guardians_find(pid_t owner, struct guardians *gs, const char **howp)
{
	pid_t g;

	memset(gs, 0, sizeof(*gs));
	guardians_scan(owner, gs, 1);
	if (gs->gs_n > 0) {
		*howp = gs->gs_naux == 0 ? "children of the owner named "
		    GUARDIAN_COMM : "descendants of the owner named "
		    GUARDIAN_COMM " (through " HELPER_PREFIX "* children)";
		return (gs->gs_n);
	}
	gs->gs_naux = 0;
	if (owner == getpid() && (g = guardian_sockdiag(howp)) != -1)
		gs->gs_pid[gs->gs_n++] = g;
	return (gs->gs_n);
}

/* The sum of a /proc/pid/status number over the guardians, or -1. */
long
guardians_status(const struct guardians *gs, const char *key)
{
	size_t i;
	long sum, v;

	sum = -1;
	for (i = 0; i < gs->gs_n; i++)
		if ((v = proc_status(gs->gs_pid[i], key)) >= 0)
			sum = (sum < 0 ? 0 : sum) + v;
	return (sum);
}

/* Threads of pid, but skip, in ns of CPU; *nrunp += the runnable ones. */
static uint64_t
task_scan(pid_t pid, pid_t skip, long *nrunp)
{
	struct dirent *de;
	char path[320], state;
	unsigned long long v;
	uint64_t sum;
	FILE *fp;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	sum = 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    atoi(de->d_name) == skip)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
		    (int)pid, de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fscanf(fp, "%llu", &v) == 1)
			sum += v;
		fclose(fp);
		if (nrunp == NULL)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat",
		    (int)pid, de->d_name);
		(void)stat_read(path, &state);
		if (state == 'R')
			(*nrunp)++;
	}
	closedir(d);
	return (sum);
}

uint64_t
guardians_cpu_ns(const struct guardians *gs)
{
	uint64_t sum;
	size_t i;

	sum = 0;
	for (i = 0; i < gs->gs_n; i++)
		sum += proc_cpu_ns(gs->gs_pid[i], 0);
	return (sum);
}

/*
 * Wait until the guardians are done with what they were given: no thread
 * runnable and the CPU time unchanged over QUIET_NS.  (schedstat is
 * brought up to date only when a thread is switched out or at a tick, so
 * that a running thread may look still: hence the runnable check.)
 * Returns the time it took, or -1 after timeout ns.
 */
int64_t
guardians_quiet(const struct guardians *gs, int64_t timeout)
{
	uint64_t cpu, prev;
	int64_t t0, t;
	long nrun;
	size_t i;
	bool have;

	t0 = now_ns();
	prev = 0;
	have = false;
	for (;;) {
		nrun = 0;
		cpu = 0;
		for (i = 0; i < gs->gs_n; i++)
			cpu += task_scan(gs->gs_pid[i], 0, &nrun);
		t = now_ns() - t0;
		if (nrun == 0 && have && cpu == prev)
			return (t);
		have = (nrun == 0);
		prev = cpu;
		if (t > timeout)
			return (-1);
		sleep_ns(QUIET_NS);
	}
}

/*
 * Wait until no process of gs is a live guardian any more (exited, its
 * pid unused or reused by something else); false after timeout ns.  A
 * zombie is gone: an orphan is reaped by init, which may take its time
 * (seconds in some containers).
 */
bool
guardians_gone(const struct guardians *gs, int64_t timeout)
{
	char path[64], state;
	int64_t t0;
	size_t i;

	t0 = now_ns();
	for (;;) {
		for (i = 0; i < gs->gs_n; i++) {
			snprintf(path, sizeof(path), "/proc/%d/stat",
			    (int)gs->gs_pid[i]);
			if (stat_read(path, &state) != -1 && state != 'Z' &&
			    state != 'X' && proc_is_guardian(gs->gs_pid[i]))
				break;
		}
		if (i == gs->gs_n)
			return (true);
		if (now_ns() - t0 > timeout)
			return (false);
		sleep_ns(1000000);
	}
}

/* A number from /proc/pid/status ("VmRSS:", "Threads:"), or -1. */
long
proc_status(pid_t pid, const char *key)
{

	return (proc_field(pid, "status", key));
}

/* A number after key in /proc/pid/file, or -1. */
long
proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	size_t klen;
	long v;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/%.16s", (int)pid, file);
	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	klen = strlen(key);
	v = -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, key, klen) == 0) {
			v = strtol(line + klen, NULL, 10);
			break;
		}
	fclose(fp);
	return (v);
}

/* Open descriptors of pid, not counting the one this count uses. */
long
proc_nfds(pid_t pid)
{
	struct dirent *de;
	char path[64];
	long n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (-1);
	n = 0;
	while ((de = readdir(d)) != NULL)
		if (isdigit((unsigned char)de->d_name[0]))
			n++;
	closedir(d);
	return (pid == getpid() ? n - 1 : n);
}

/*
 * CPU time of pid's threads, in ns (schedstat's sum_exec_runtime, exact,
 * unlike the tick-based utime/stime), leaving out thread skip.
 */
uint64_t
proc_cpu_ns(pid_t pid, pid_t skip)
{

	return (task_scan(pid, skip, NULL));
}

/*
 * The system call thread tid of pid sleeps in (/proc/pid/task/tid/syscall),
 * or -1 while it runs or when unknown.
 */
long
proc_syscall(pid_t pid, pid_t tid)
{
	char path[96];
	long v;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
	    (int)tid);
	if ((fp = fopen(path, "re")) == NULL)
		return (-1);
	if (fscanf(fp, "%ld", &v) != 1)
		v = -1;
	fclose(fp);
	return (v);
}

long
mem_available_kb(void)
{
	char line[256];
	long v;
	FILE *fp;

	if ((fp = fopen("/proc/meminfo", "re")) == NULL)
		return (-1);
	v = -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "MemAvailable: %ld", &v) == 1)
			break;
	fclose(fp);
	return (v);
}

void
sleep_ns(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
