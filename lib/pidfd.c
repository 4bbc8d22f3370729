/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Facts about a process and its pidfd, the one file that reads /proc for
 * them (systemd's pidfd-util.c is the model).  Linked into the library and
 * into the guardian program.
 *
 * Every function returns 0 or an errno value, and keeps errno as it was:
 * a public call that succeeds never shows a failed probe.
 */

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pidfd.h"
#include "syscall.h"

/* "/proc/self/fdinfo/" or "/proc/" and "/stat" around an int, with room. */
#define	PF_PATH_LEN	64

/* /proc/PID/status and /proc/self/fdinfo/N: about 1.5 KiB at most. */
#define	PF_STATUS_LEN	4096

/*
 * /proc/PID/stat (proc(5)): the fields read, and a buffer that holds
 * every field up to the start time (pid, a 16-byte comm, 19 numbers of
 * at most 20 digits: under 512 bytes); what is cut off after it is never
 * read.
 */
#define	PF_STAT_STATE		3
#define	PF_STAT_STARTTIME	22
#define	PF_STAT_EXITCODE	52
#define	PF_STAT_LEN		1024
#define	PF_STAT_ALL_LEN		2048	/* All 52 fields. */

/*
 * The /proc files below are read with open(2) and read(2) and parsed by
 * hand, without stdio, malloc or the locale: pdgetpid and pdkill, which
 * may run in a signal handler, come here on kernels without
 * PIDFD_GET_INFO.
 */

/* prefix, the decimal n, suffix: the path, in buf of PF_PATH_LEN. */
static void
pf_path(char *buf, const char *prefix, long n, const char *suffix)
{
	char digits[24];
	size_t i, k;

	i = 0;
	do
		digits[i++] = (char)('0' + n % 10);
	while ((n /= 10) > 0 && i < sizeof(digits));
	k = strlen(prefix);
	memcpy(buf, prefix, k);
	while (i > 0)
		buf[k++] = digits[--i];
	buf[k] = '\0';
	strncat(buf, suffix, PF_PATH_LEN - k - 1);
}

/* A small file, whole, into buf (NUL-terminated): 0, or -1. */
static int
pf_read(const char *path, char *buf, size_t len)
{
	size_t got;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	for (got = 0; got < len - 1; got += (size_t)n)
		if ((n = read(fd, buf + got, len - 1 - got)) <= 0)
			break;
	close(fd);
	buf[got] = '\0';
	return (got > 0 ? 0 : -1);
}

/*
 * The non-negative numbers after "key" at the start of a line of buf, at
 * most max of them, into v: how many (0 without the line).
 */
static int
pf_numbers(const char *buf, const char *key, long *v, int max)
{
	const char *p;
	size_t k;
	int n;

	k = strlen(key);
	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ?
	    p + 1 : NULL)
		if (strncmp(p, key, k) == 0)
			break;
	if (p == NULL || *p == '\0')
		return (0);
	for (p += k, n = 0; n < max; n++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		for (v[n] = 0; *p >= '0' && *p <= '9'; p++)
			v[n] = v[n] * 10 + (*p - '0');
	}
	return (n);
}

/*
 * Whether /proc shows pids as our pid namespace sees them: our own NSpid
 * line has one pid.  A /proc of an outer namespace (a new pid namespace
 * that mounted none of its own) shows two or more; one of an inner
 * namespace has no /proc/self for us.
 */
static bool
pf_proc_is_ours(void)
{
	char buf[PF_STATUS_LEN];
	long v[2];

	return (pf_read("/proc/self/status", buf, sizeof(buf)) == 0 &&
	    pf_numbers(buf, "NSpid:", v, 2) == 1);
}

/*
 * Pid of the process behind a pidfd while the kernel still knows it:
 * PIDFD_GET_INFO (Linux 6.13), else the fdinfo "Pid:" line, which is in
 * the namespace of /proc, and so ours only if pf_proc_is_ours().  ESRCH
 * once it is reaped, or if our pid namespace has no pid for it (or we
 * cannot tell).
 */
int
procdesc_pidfd_pid(int pidfd, pid_t *pidp)
{
	struct pidfd_info info;
	char path[PF_PATH_LEN], buf[PF_STATUS_LEN];
	long pid;
	int error, saved;

	saved = errno;
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_PID;
	if (ioctl(pidfd, PIDFD_GET_INFO, &info) == 0) {
		*pidp = (pid_t)info.pid;
		errno = saved;
		return (info.pid > 0 ? 0 : ESRCH);
	}
	/*
	 * ESRCH: reaped.  EREMOTE (Linux 6.18 at least): it has no pid in our
	 * namespace, and fdinfo would show its pid in the namespace of /proc,
	 * which need not be ours.  fdinfo says -1 once it is reaped.
	 */
	error = (errno == ESRCH || errno == EREMOTE) ? ESRCH : 0;
	pid = -1;
	pf_path(path, "/proc/self/fdinfo/", pidfd, "");
	if (error == 0 && pf_proc_is_ours() &&
	    pf_read(path, buf, sizeof(buf)) == 0 &&
	    pf_numbers(buf, "Pid:", &pid, 1) != 1)
		pid = -1;
	errno = saved;
	if (pid <= 0)
		return (ESRCH);
	*pidp = (pid_t)pid;
	return (0);
}

/*
 * Field n (numbered as in proc(5), n >= 3) of /proc/PID/stat, read into
 * buf: a pointer to it, or NULL.  The fields after "(comm)" are counted,
 * since comm may hold spaces and parentheses.
 */
static const char *
pf_stat(pid_t pid, int n, char *buf, size_t len)
{
	char path[PF_PATH_LEN], *p;
	ssize_t r;
	int fd, i;

	pf_path(path, "/proc/", pid, "/stat");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	r = read(fd, buf, len - 1);
	close(fd);
	if (r <= 0)
		return (NULL);
	buf[r] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return (NULL);
	/* Field 3 starts two characters after the ')'. */
	for (i = 2; i < n && p != NULL; i++)
		p = strchr(p + 1, ' ');
	return (p != NULL ? p + 1 : NULL);
}

/* The start time of pid, from /proc: 0 if it cannot be read. */
static uint64_t
pf_starttime(pid_t pid)
{
	char buf[PF_STAT_LEN];
	const char *p;
	unsigned long long t;
	int saved;

	saved = errno;
	if ((p = pf_stat(pid, PF_STAT_STARTTIME, buf, sizeof(buf))) == NULL ||
	    sscanf(p, "%llu", &t) != 1)
		t = 0;
	errno = saved;
	return ((uint64_t)t);
}

/* Whether pid is stopped (or traced): /proc/PID/stat's state. */
bool
procdesc_proc_stopped(pid_t pid)
{
	char buf[PF_STAT_LEN];
	const char *p;
	int saved;
	bool stopped;

	saved = errno;
	stopped = (p = pf_stat(pid, PF_STAT_STATE, buf, sizeof(buf))) !=
	    NULL && (*p == 'T' || *p == 't');
	errno = saved;
	return (stopped);
}

/*
 * What tells the process pid, behind pidfd, from a later one with the
 * same pid: its pidfs inode, else its start time.
 */
int
procdesc_pidfd_proc(int pidfd, pid_t pid, struct procdesc_proc *pp)
{
	struct statfs sfs;
	struct stat st;
	int saved;

	saved = errno;
	pp->pp_pid = pid;
	if (fstatfs(pidfd, &sfs) == 0 && sfs.f_type == PID_FS_MAGIC &&
	    fstat(pidfd, &st) == 0) {
		pp->pp_kind = PROCDESC_PROC_INODE;
		pp->pp_tag = (uint64_t)st.st_ino;
	} else {
		pp->pp_kind = PROCDESC_PROC_START;
		pp->pp_tag = pf_starttime(pid);
	}
	errno = saved;
	return (pp->pp_tag != 0 ? 0 : ESRCH);
}

/*
 * A pidfd of process pp: ESRCH if it is gone (its pid may belong to
 * another process by now).
 */
int
procdesc_pidfd_open_proc(const struct procdesc_proc *pp, int *pidfdp)
{
	struct procdesc_proc now;
	int error, pidfd, saved;

	saved = errno;
	if ((pidfd = sys_pidfd_open(pp->pp_pid, 0)) == -1) {
		error = (errno == ENOMEM || errno == EMFILE ||
		    errno == ENFILE || errno == ENOSYS) ? errno : ESRCH;
		errno = saved;
		return (error);
	}
	error = procdesc_pidfd_proc(pidfd, pp->pp_pid, &now);
	if (error == 0 && (now.pp_kind != pp->pp_kind ||
	    now.pp_tag != pp->pp_tag))
		error = ESRCH;
	if (error != 0)
		close(pidfd);
	else
		*pidfdp = pidfd;
	errno = saved;
	return (error);
}

/*
 * The real and saved uids of the process pid behind pidfd: PIDFD_GET_INFO
 * (Linux 6.13), else /proc/PID/status's "Uid:" line.
 */
int
procdesc_pidfd_uids(int pidfd, pid_t pid, uid_t *ruidp, uid_t *suidp)
{
	struct pidfd_info info;
	char path[PF_PATH_LEN], buf[PF_STATUS_LEN];
	long v[3];
	int error, saved;

	saved = errno;
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_PID;
	if (ioctl(pidfd, PIDFD_GET_INFO, &info) == 0) {
		*ruidp = info.ruid;
		*suidp = info.suid;
		errno = saved;
		return (0);
	}
	error = ESRCH;
	pf_path(path, "/proc/", pid, "/status");
	if (pf_read(path, buf, sizeof(buf)) == 0 &&
	    pf_numbers(buf, "Uid:", v, 3) == 3) {
		*ruidp = (uid_t)v[0];
		*suidp = (uid_t)v[2];
		error = 0;
	}
	errno = saved;
	return (error);
}

/*
 * The pid and every uid and gid of the process behind pidfd, into *ip:
 * PIDFD_GET_INFO (Linux 6.13), else the fdinfo "Pid:" line and
 * /proc/PID/status, which a zombie still has.  0, or ESRCH.
 */
static int
pf_ids(int pidfd, struct pidfd_info *ip)
{
	char path[PF_PATH_LEN], buf[PF_STATUS_LEN];
	long u[3], g[3];
	pid_t pid;

	memset(ip, 0, sizeof(*ip));
	ip->mask = PIDFD_INFO_PID;
	if (ioctl(pidfd, PIDFD_GET_INFO, ip) == 0)
		return (ip->pid > 0 ? 0 : ESRCH);
	if (procdesc_pidfd_pid(pidfd, &pid) != 0)
		return (ESRCH);
	pf_path(path, "/proc/", pid, "/status");
	if (pf_read(path, buf, sizeof(buf)) != 0 ||
	    pf_numbers(buf, "Uid:", u, 3) != 3 ||
	    pf_numbers(buf, "Gid:", g, 3) != 3)
		return (ESRCH);
	ip->pid = (uint32_t)pid;
	ip->ruid = (uint32_t)u[0];
	ip->euid = (uint32_t)u[1];
	ip->suid = (uint32_t)u[2];
	ip->rgid = (uint32_t)g[0];
	ip->egid = (uint32_t)g[1];
	ip->sgid = (uint32_t)g[2];
	return (0);
}

/*
 * Whether we may read what /proc shows of the process only to those that
 * may ptrace-read it (PTRACE_MODE_READ_FSCREDS; a zombie has no memory,
 * so its dumpable flag does not count): root, or every uid and gid of
 * it ours.  /proc shows 0 for the fields otherwise, which would pass for
 * a status.
 */
static bool
pf_may_read(const struct pidfd_info *ip)
{
	uid_t u;
	gid_t g;

	if ((u = geteuid()) == 0)
		return (true);
	g = getegid();
	return (ip->ruid == u && ip->euid == u && ip->suid == u &&
	    ip->rgid == g && ip->egid == g && ip->sgid == g);
}

/*
 * The wait status the kernel keeps for any holder of pidfd once its
 * process is reaped (PIDFD_INFO_EXIT, Linux 6.15): 0 and *wstatusp, else
 * ESRCH (not reaped yet, or a kernel without it).
 */
int
procdesc_pidfd_exit_status(int pidfd, int *wstatusp)
{
	struct pidfd_info info;
	int saved;

	saved = errno;
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	if (ioctl(pidfd, PIDFD_GET_INFO, &info) == -1 ||
	    (info.mask & PIDFD_INFO_EXIT) == 0) {
		errno = saved;
		return (ESRCH);
	}
	*wstatusp = info.exit_code;
	return (0);
}

/* A wait status of an exit as waitid(2)'s si_code and si_status. */
void
procdesc_wstatus_split(int st, int *codep, int *statusp)
{

	if (WIFEXITED(st)) {
		*codep = CLD_EXITED;
		*statusp = WEXITSTATUS(st);
	} else {
		*codep = WCOREDUMP(st) ? CLD_DUMPED : CLD_KILLED;
		*statusp = WTERMSIG(st);
	}
}

/*
 * The wait status of the zombie behind pidfd, from /proc/PID/stat's
 * exit_code field, which /proc shows only to those that may read it
 * (pf_may_read()); its pid and credentials from PIDFD_GET_INFO (6.13), or
 * fdinfo and /proc/PID/status before.  The pidfd is looked at again after
 * the read: the zombie still there, the pid was its own throughout.  0
 * and *wstatusp, else ESRCH.
 */
int
procdesc_pidfd_zombie_status(int pidfd, int *wstatusp)
{
	struct pidfd_info info;
	char buf[PF_STAT_ALL_LEN];
	const char *p;
	int error, i, saved, st;

	saved = errno;
	error = ESRCH;
	if (pf_ids(pidfd, &info) == 0 && pf_may_read(&info) &&
	    (p = pf_stat((pid_t)info.pid, PF_STAT_STATE, buf,
	    sizeof(buf))) != NULL && *p == 'Z') {
		for (i = PF_STAT_STATE; i < PF_STAT_EXITCODE && p != NULL; i++)
			p = strchr(p + 1, ' ');
		if (p != NULL && sscanf(p + 1, "%d", &st) == 1 &&
		    sys_pidfd_send_signal(pidfd, 0) == 0) {
			*wstatusp = st;
			error = 0;
		}
	}
	errno = saved;
	return (error);
}

/*
 * SIGKILL our child behind pidfd and reap it: its exit in *si.  The pidfd
 * stays open.
 */
void
procdesc_pidfd_kill_reap(int pidfd, siginfo_t *si)
{
	int saved;

	saved = errno;
	(void)sys_pidfd_send_signal(pidfd, SIGKILL);
	memset(si, 0, sizeof(*si));
	while (sys_waitid(P_PIDFD, pidfd, si, WEXITED | __WALL, NULL) == -1 &&
	    errno == EINTR)
		;
	errno = saved;
}
