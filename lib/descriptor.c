/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What the kernel says of a process descriptor and of a pidfd: the one
 * place that knows the descriptor's shape (lib/guardian/protocol.h).  A
 * descriptor is a socket bound to "procdesc:<pid>:<tag>:<id>"; every
 * holder reads the pid from that name and the exit record from the
 * socket's queue.  Linked into the library and into the guardian.
 *
 * Every function returns 0 or an errno value and keeps errno as it was.
 */

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procdesc_impl.h"
#include "syscall.h"
#include "guardian/protocol.h"

/* "/proc/self/fdinfo/" or "/proc/" and "/stat" around an int, with room. */
#define	DS_PATH_LEN	64

/*
 * A line of /proc/self/fdinfo/N: "Pid:" and a number fit many times;
 * longer lines are read in pieces that do not match.
 */
#define	DS_LINE_LEN	128

/*
 * Pid of the process behind a pidfd while the kernel still knows it:
 * PIDFD_GET_INFO (Linux 6.13), else the fdinfo "Pid:" line.  ESRCH once
 * it is reaped.
 */
int
procdesc_pidfd_pid(int pidfd, pid_t *pidp)
{
	struct pidfd_info info;
	char path[DS_PATH_LEN], line[DS_LINE_LEN];
	FILE *fp;
	int error, pid, saved;

	saved = errno;
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_PID;
	if (ioctl(pidfd, PIDFD_GET_INFO, &info) == 0) {
		*pidp = (pid_t)info.pid;
		errno = saved;
		return (info.pid > 0 ? 0 : ESRCH);
	}
	error = (errno == ESRCH) ? ESRCH : 0;
	pid = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (error == 0 && (fp = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL)
			if (sscanf(line, "Pid: %d", &pid) == 1)
				break;
		fclose(fp);
	}
	errno = saved;
	if (pid <= 0)
		return (ESRCH);
	*pidp = pid;
	return (0);
}

/*
 * Field n (numbered as in proc(5), n >= 3) of /proc/PID/stat, read into
 * buf: a pointer to it, or NULL.  The fields after "(comm)" are counted,
 * since comm may hold spaces and parentheses.
 */
const char *
procdesc_proc_stat(pid_t pid, int n, char *buf, size_t len)
{
	char path[DS_PATH_LEN], *p;
	ssize_t r;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
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
ds_starttime(pid_t pid)
{
	char buf[PROCDESC_STAT_LEN];
	const char *p;
	unsigned long long t;

	if ((p = procdesc_proc_stat(pid, PROCDESC_STAT_STARTTIME, buf,
	    sizeof(buf))) == NULL || sscanf(p, "%llu", &t) != 1)
		return (0);
	return ((uint64_t)t);
}

/*
 * What tells the process behind pidfd from a later one with the same pid:
 * its pidfs inode (Linux 6.9: unique for the boot), else its start time.
 */
static int
ds_tag(pid_t pid, int pidfd, char *kindp, uint64_t *tagp)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(pidfd, &sfs) == 0 && sfs.f_type == PID_FS_MAGIC &&
	    fstat(pidfd, &st) == 0) {
		*kindp = 'i';
		*tagp = (uint64_t)st.st_ino;
		return (0);
	}
	*kindp = 't';
	*tagp = ds_starttime(pid);
	return (*tagp != 0 ? 0 : ESRCH);
}

static socklen_t
ds_addr(struct sockaddr_un *sa, pid_t pid, char kind, uint64_t tag,
    uint64_t id)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] stays '\0': an abstract name. */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, PG_NAME_FMT,
	    (int)pid, kind, tag, id);
	return ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
}

/*
 * Give the descriptor a its name, for the process behind pidfd; the name
 * into *np too, unless NULL.
 */
int
procdesc_desc_bind(int a, pid_t pid, int pidfd, uint64_t id,
    struct procdesc_name *np)
{
	struct sockaddr_un sa;
	uint64_t tag;
	socklen_t len;
	char kind;
	int error, saved;

	saved = errno;
	if ((error = ds_tag(pid, pidfd, &kind, &tag)) != 0)
		return (error);
	len = ds_addr(&sa, pid, kind, tag, id);
	error = bind(a, (struct sockaddr *)&sa, len) == -1 ? errno : 0;
	if (error == 0 && np != NULL) {
		np->pn_pid = pid;
		np->pn_kind = kind;
		np->pn_tag = tag;
		np->pn_id = id;
	}
	errno = saved;
	return (error);
}

/* Parse a decimal (base 10) or hex (16) number up to end; false if bad. */
static bool
ds_num(const char **pp, int base, char end, uint64_t *vp)
{
	const char *p;
	uint64_t v;
	int d;

	v = 0;
	for (p = *pp; *p != end; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return (false);
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return (false);
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (p == *pp)
		return (false);
	*pp = p + 1;
	*vp = v;
	return (true);
}

/*
 * Read the name of descriptor fd: 0, EBADF if fd is not open, EINVAL if it
 * is not a process descriptor.  Parsed by hand: pdkill's cost is mostly
 * this.
 */
int
procdesc_desc_name(int fd, struct procdesc_name *np)
{
	struct sockaddr_un sa;
	const char *p;
	uint64_t pid, tag, id;
	socklen_t len;
	char kind;
	int error, saved;

	saved = errno;
	len = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == -1) {
		error = (errno == EBADF) ? EBADF : EINVAL;
		errno = saved;
		return (error);
	}
	if (sa.sun_family != AF_UNIX || len >= sizeof(sa) ||
	    len <= offsetof(struct sockaddr_un, sun_path) +
	    sizeof(PG_NAME_PREFIX) || sa.sun_path[0] != '\0' ||
	    memcmp(sa.sun_path + 1, PG_NAME_PREFIX,
	    sizeof(PG_NAME_PREFIX) - 1) != 0)
		return (EINVAL);
	((char *)&sa)[len] = '\0';
	p = sa.sun_path + sizeof(PG_NAME_PREFIX);
	if (!ds_num(&p, 10, ':', &pid) || pid == 0 || pid > INT32_MAX)
		return (EINVAL);
	kind = *p++;
	if ((kind != 'i' && kind != 't') || !ds_num(&p, 10, ':', &tag) ||
	    !ds_num(&p, 16, '\0', &id))
		return (EINVAL);
	np->pn_pid = (pid_t)pid;
	np->pn_kind = kind;
	np->pn_tag = tag;
	np->pn_id = id;
	return (0);
}

/*
 * A pidfd of the process that descriptor name np names: ESRCH if it is
 * gone (its pid may belong to another process by now).
 */
int
procdesc_desc_pidfd(const struct procdesc_name *np, int *pidfdp)
{
	uint64_t tag;
	char kind;
	int error, pidfd, saved;

	saved = errno;
	if ((pidfd = sys_pidfd_open(np->pn_pid, 0)) == -1) {
		error = (errno == ENOMEM || errno == EMFILE ||
		    errno == ENFILE || errno == ENOSYS) ? errno : ESRCH;
		errno = saved;
		return (error);
	}
	error = ds_tag(np->pn_pid, pidfd, &kind, &tag);
	if (error == 0 && (kind != np->pn_kind || tag != np->pn_tag))
		error = ESRCH;
	if (error != 0)
		close(pidfd);
	else
		*pidfdp = pidfd;
	errno = saved;
	return (error);
}

/*
 * The exit record on descriptor fd, read without taking it off the queue:
 * 0 and *m; EAGAIN if the process has not been recorded yet; ECHILD if the
 * guardian hung up without a record (it died, or a holder read the record
 * away): the status is lost.
 */
int
procdesc_desc_record(int fd, struct pg_msg *m)
{
	ssize_t n;
	int error, saved;

	saved = errno;
	n = recv(fd, m, sizeof(*m), MSG_PEEK | MSG_DONTWAIT);
	if (n == (ssize_t)sizeof(*m) && m->pm_op == PG_RECORD)
		error = 0;
	else if (n == 0)
		error = ECHILD;
	else if (n == -1 && errno != EAGAIN)
		error = (errno == EBADF) ? EBADF : ECHILD;
	else
		error = EAGAIN;
	errno = saved;
	return (error);
}
