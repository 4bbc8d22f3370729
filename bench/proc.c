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
 * exit signal, so that the library's watchdog (which waits for __WCLONE
 * children only) never sees them.
 *
 * The guardian is the process at the other end of the library's
 * SOCK_SEQPACKET socket.  SO_PEERCRED would name it for a connect()ed
 * socket, but a socketpair's peer credentials are its creator's, the
 * owner's own; so the peer's inode comes from sock_diag (UNIX_DIAG_PEER)
 * and the guardian is the process whose descriptor 3 is that socket.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "syscall.h"
#include "bench.h"

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
	struct procdesc_clone_args ca;
	pid_t pid;

	*fdp = -1;
	switch (k) {
	case K_PD:
		pid = pdfork(fdp, 0);
		break;
	case K_FORK:
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
	if (pid == -1)
		err(1, "spawn (kind %d)", (int)k);
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
		} else if (k == K_FORK) {
			if (waitpid(pid[i], &st, 0) == -1)
				warn("waitpid");
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
 * The guardian of this process, or -1.  *howp says whether SO_PEERCRED
 * named it or sock_diag had to.
 */
pid_t
guardian_find(const char **howp)
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
	struct dirent *de;
	char path[320];
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
	}
	closedir(d);
	return (sum);
}

/* Threads of pid other than the first that sit in system call nr. */
long
proc_blocked(pid_t pid, long nr)
{
	struct dirent *de;
	char path[320];
	long n, v;
	FILE *fp;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (-1);
	n = 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    atoi(de->d_name) == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall",
		    (int)pid, de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fscanf(fp, "%ld", &v) == 1 && v == nr)
			n++;
		fclose(fp);
	}
	closedir(d);
	return (n);
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

/*
 * Wait until the guardian has n threads in all: the time it took, or -1
 * after timeout ns.
 */
int64_t
guardian_wait_threads(pid_t g, long n, int64_t timeout)
{
	int64_t t0, t;

	t0 = now_ns();
	for (;;) {
		t = now_ns() - t0;
		if (proc_status(g, "Threads:") == n)
			return (t);
		if (t > timeout)
			return (-1);
		sleep_ns(t < 10000000 ? 20000 : 1000000);
	}
}

/* Wait until n guardian threads are blocked on their lock (fcntl). */
int64_t
guardian_wait_blocked(pid_t g, long n, int64_t timeout)
{
	int64_t t0, t;

	t0 = now_ns();
	for (;;) {
		t = now_ns() - t0;
		if (proc_blocked(g, SYS_fcntl) == n)
			return (t);
		if (t > timeout)
			return (-1);
		sleep_ns(20000);
	}
}
