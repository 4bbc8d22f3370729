/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/* Test helpers: leak check, children to play with, death detection. */

#include <sys/procdesc.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "linux_pidfd.h"
#include "testutil.h"

/*
 * Point the library at the build tree's guardian, and start it once (a
 * pdfork of a child that exits) so that its socket, opened on first use,
 * is there before the leak check takes its snapshot.
 */
void
t_init(void)
{

	/*
	 * PROCDESC_TEST_NOTRAP=1: pdfork without its trap, as on an
	 * architecture that has none (make check-notrap).
	 */
	if (getenv("PROCDESC_TEST_NOTRAP") != NULL)
		ATF_REQUIRE(t_refuse_syscall(SYS_prctl,
		    PR_SET_SYSCALL_USER_DISPATCH, EINVAL) == 0);
	(void)t_kernel_pidfs();	/* Probes the kernel: a fork and a pidfd. */
	t_start_guardian();
}

/* t_init() without the kernel probe, whose fork() a program may replace. */
void
t_start_guardian(void)
{
	int fd;
	pid_t pid;

	setenv("LIBPROCDESC_GUARDIAN", T_GUARDIAN, 1);
	pid = pdfork(&fd, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(pdwait(fd, NULL, WEXITED, NULL, NULL) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static void
t_fds(char *buf, size_t len)
{
	struct dirent *de;
	DIR *d;
	size_t n;
	int dfd;

	buf[0] = '\0';
	d = opendir("/proc/self/fd");
	ATF_REQUIRE(d != NULL);
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dfd)
			continue;
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s ", de->d_name);
	}
	closedir(d);
}

void
t_leak_begin(struct t_leak *l)
{

	t_fds(l->fds, sizeof(l->fds));
}

/*
 * The children of parent (from /proc), running ones and zombies alike:
 * all, the sentries of its guardians (children of their owner that stay
 * while it lives), or all the others.  Their pids go to pids, max at
 * most; returns how many were listed, or with pids NULL how many there
 * are.
 */
int
t_children_of(pid_t parent, enum t_childkind which, pid_t *pids, int max)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	DIR *d;
	FILE *fp;
	bool sentry;
	int n, ppid;

	n = 0;
	d = opendir("/proc");
	ATF_REQUIRE(d != NULL);
	while ((pids == NULL || n < max) && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), fp) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == parent) {
			sentry = strstr(buf, "(" PG_SENTRY_COMM ")") != NULL;
			if (which == T_CHILDREN_ALL ||
			    sentry == (which == T_CHILDREN_SENTRIES)) {
				if (pids != NULL)
					pids[n] = (pid_t)atoi(de->d_name);
				n++;
			}
		}
		fclose(fp);
	}
	closedir(d);
	return (n);
}

/* Our own children, as t_children_of() lists them. */
int
t_children(enum t_childkind which, pid_t *pids, int max)
{

	return (t_children_of(getpid(), which, pids, max));
}

/* Our children but the sentries of our guardians. */
int
t_nchildren(void)
{

	return (t_children(T_CHILDREN_OTHERS, NULL, 0));
}

/* The sentries of our guardians: one per guardian. */
int
t_nsentries(void)
{

	return (t_children(T_CHILDREN_SENTRIES, NULL, 0));
}

/* Drop every group and uid for nobody's; false on failure. */
bool
t_become_nobody(void)
{

	return (setgroups(0, NULL) == 0 &&
	    setresgid(T_NOBODY, T_NOBODY, T_NOBODY) == 0 &&
	    setresuid(T_NOBODY, T_NOBODY, T_NOBODY) == 0);
}

/*
 * Run fn(fd, pid) in a forked helper that has become nobody: its exit
 * status (fn's result), 255 if it could not become nobody.
 */
int
t_as_nobody(int (*fn)(int, pid_t), int fd, pid_t pid)
{
	pid_t w;

	w = fork();
	ATF_REQUIRE(w >= 0);
	if (w == 0)
		_exit(t_become_nobody() ? fn(fd, pid) : 255);
	return (t_reap(w));
}

/*
 * $PROCDESC_TEST_SCALE, at least 1: how much slower than the host the
 * machine is taken to be.  The kernel matrix's guests run under emulation
 * and set 10.
 */
int
t_scale(void)
{
	const char *e;
	long d;

	if ((e = getenv("PROCDESC_TEST_SCALE")) == NULL ||
	    (d = strtol(e, NULL, 10)) <= 1 || d > 1000)
		return (1);
	return ((int)d);
}

/*
 * n divided by t_scale(), at least 1: for the cases that repeat a round
 * many times or make thousands of children, which would take minutes in
 * an emulated guest.  The host's run keeps n.
 */
int
t_scaled(int n)
{

	return (n / t_scale() > 0 ? n / t_scale() : 1);
}

/*
 * The value of the line "key" of /proc/PID/status, without the leading
 * blanks, into buf: true, or false without that line.
 */
bool
t_proc_status(pid_t pid, const char *key, char *buf, size_t len)
{
	char path[64], line[512], *p;
	size_t klen;
	FILE *fp;
	bool found;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return (false);
	klen = strlen(key);
	found = false;
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, key, klen) != 0)
			continue;
		for (p = line + klen; *p == ' ' || *p == '\t'; p++)
			;
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		found = true;
	}
	fclose(fp);
	return (found);
}

/* The first line of thread tid's /proc file name in buf: false if none. */
static bool
t_task_line(pid_t pid, pid_t tid, const char *name, char *buf, int size)
{
	char path[64];
	FILE *fp;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
	    (int)tid, name);
	if ((fp = fopen(path, "re")) == NULL)
		return (false);
	ok = (fgets(buf, size, fp) != NULL);
	fclose(fp);
	return (ok);
}

/*
 * Thread tid of process pid is asleep: state 'S' in its stat and a wait
 * channel.  The state alone is not enough: poll(2) and waitid(2) set
 * TASK_INTERRUPTIBLE before they look, so a thread that still runs may
 * show 'S'; wchan is "0" unless the thread is off the run queue.
 */
bool
t_task_asleep(pid_t pid, pid_t tid)
{
	char buf[256], *p;

	if (!t_task_line(pid, tid, "stat", buf, sizeof(buf)) ||
	    (p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] != 'S')
		return (false);
	return (t_task_line(pid, tid, "wchan", buf, sizeof(buf)) &&
	    buf[0] != '\0' && strcmp(buf, "0") != 0);
}

/*
 * Whether thread tid of process pid is in poll(2) now, as its syscall
 * file says (ppoll on arm64, which has no poll).
 */
bool
t_task_in_poll(pid_t pid, pid_t tid)
{
	char buf[64];
	long nr;

	if (!t_task_line(pid, tid, "syscall", buf, sizeof(buf)))
		return (false);
	nr = strtol(buf, NULL, 10);
#ifdef SYS_poll
	if (nr == SYS_poll)
		return (true);
#endif
	return (nr == SYS_ppoll);
}

/* The thread is asleep within ms.  No sleeping here: look, yield, look. */
bool
t_task_sleeping(pid_t pid, pid_t tid, int ms)
{
	int64_t end;

	end = t_now_ms() + ms;
	while (!t_task_asleep(pid, tid)) {
		if (t_now_ms() > end)
			return (false);
		sched_yield();
	}
	return (true);
}

/*
 * Wait for a helper we forked: its exit status, or -1 if it did not exit
 * (the signal that killed it is said on stderr).
 */
int
t_reap(pid_t pid)
{
	int status;

	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		fprintf(stderr, "helper %d died of signal %d\n", (int)pid,
		    WTERMSIG(status));
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

#ifdef PROCDESC_DEBUG
int	procdesc_debug_entries(void);	/* The library's, in a debug build. */
#endif

/* CLOCK_MONOTONIC in ms. */
int64_t
t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * Wait up to T_LONG_MS for our children but the sentries to be gone: the
 * last close of a descriptor kills its child (the guardian's SIGKILL) and
 * lets its owner reap it (the guardian's word to the reaper), a moment
 * after close(2) returns.  Each child is waited for on a pidfd of its own
 * (readable at the exit; at the reap, Linux 6.9, it hangs up), else the
 * list is looked at again every millisecond.
 */
static void
t_children_gone(void)
{
	pid_t pids[64];
	int64_t deadline;
	struct pollfd pfd;
	int fd, n;

	deadline = t_now_ms() + T_LONG_MS;
	while ((n = t_children(T_CHILDREN_OTHERS, pids, 64)) > 0 &&
	    t_now_ms() < deadline) {
		fd = (int)syscall(SYS_pidfd_open, pids[0], 0);
		pfd.fd = fd;
		pfd.events = POLLHUP;
		if (fd == -1 || !t_kernel_pollhup() ||
		    poll(&pfd, 1, (int)(deadline - t_now_ms())) != 1)
			(void)poll(NULL, 0, 1);
		if (fd != -1)
			close(fd);
	}
}

/* NULL if nothing leaked, else what did. */
const char *
t_leak_check(const struct t_leak *l)
{
	static char msg[128];
	char now[sizeof(l->fds)];
#ifdef PROCDESC_DEBUG
	int64_t deadline;
#endif
	int n;

	t_fds(now, sizeof(now));
	if (strcmp(now, l->fds) != 0) {
		snprintf(msg, sizeof(msg), "fds leaked: before [%.40s] "
		    "after [%.40s]", l->fds, now);
		return (msg);
	}
	t_children_gone();
	if ((n = t_nchildren()) != 0) {
		snprintf(msg, sizeof(msg), "%d child processes left", n);
		return (msg);
	}
#ifdef PROCDESC_DEBUG
	/*
	 * No child left: its entry goes once the guardian has told the
	 * reaper of the last close, a moment after close(2) returns; a
	 * child reaped by pdwait or waitpid leaves nothing to poll for, so
	 * the count is looked at again every millisecond (make DEBUG=1).
	 */
	deadline = t_now_ms() + T_LONG_MS;
	while ((n = procdesc_debug_entries()) != 0 && t_now_ms() < deadline)
		(void)poll(NULL, 0, 1);
	if (n != 0) {
		snprintf(msg, sizeof(msg), "%d registry entries left", n);
		return (msg);
	}
#endif
	return (NULL);
}

void
t_leak_end(const struct t_leak *l)
{
	const char *msg;

	if ((msg = t_leak_check(l)) != NULL)
		atf_tc_fail("%s", msg);
}

pid_t
t_pdfork_exit(int *fdp, int flags, int code)
{
	pid_t pid;

	pid = pdfork(fdp, flags);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0)
		_exit(code);
	return (pid);
}

pid_t
t_pdfork_pause(int *fdp, int flags)
{
	pid_t pid;

	pid = pdfork(fdp, flags);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			pause();
	}
	return (pid);
}

/* Pause until killed, T_LIFE seconds at most. */
void
t_pause(void)
{

	alarm(T_LIFE);
	for (;;)
		pause();
}

/*
 * pdfork a child that drops every descriptor it inherited (other pds
 * among them, which would keep their children alive) and pauses.  No ATF
 * macro: forked processes call it too.  -1 on failure.
 */
pid_t
t_pdfork_clean(int *fdp, int flags)
{
	pid_t pid;

	pid = pdfork(fdp, flags);
	if (pid == 0) {
		(void)syscall(SYS_close_range, 3, ~0U, 0);
		t_pause();
	}
	return (pid);
}

/* In a forked process (no ATF macro): write len bytes or _exit(125). */
void
t_child_write(int fd, const void *buf, size_t len)
{

	if (write(fd, buf, len) != (ssize_t)len)
		_exit(125);
}

/*
 * Close a non-daemon sibling and wait for it to die: by then the guardian
 * has handled every close made before (its waiters wake in close order),
 * so a child that should have died already has.
 */
void
t_close_barrier(void)
{
	pid_t pid;
	int fd, w;

	pid = t_pdfork_clean(&fd, 0);
	ATF_REQUIRE_MSG(pid > 0, "pdfork: %s", strerror(errno));
	w = t_watch(pid);
	ATF_REQUIRE(close(fd) == 0);
	t_expect_death(w);
}

/* A second description of pid, to watch it die independently. */
int
t_watch(pid_t pid)
{
	int fd;

	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	ATF_REQUIRE_MSG(fd >= 0, "pidfd_open: %s", strerror(errno));
	return (fd);
}

static bool
t_poll(int fd, short ev, int ms)
{
	struct pollfd pfd;
	int r;

	pfd.fd = fd;
	pfd.events = ev;
	pfd.revents = 0;
	while ((r = poll(&pfd, 1, ms)) == -1 && errno == EINTR)
		;
	ATF_REQUIRE(r >= 0);
	return (r == 1 && (pfd.revents & (ev | POLLHUP)) != 0);
}

/* The process is dead (exited, maybe not yet reaped) within ms. */
bool
t_dead_within(int watchfd, int ms)
{

	return (t_poll(watchfd, POLLIN, ms));
}

/*
 * What the kernel does with the pidfd of a reaped process, measured once
 * on a plain fork() (t_init() does it before any leak snapshot):
 * - pollhup: POLLHUP, and pollers woken for it (Linux 6.9).  Before, an
 *   exit shows as POLLIN alone, for ever.
 * - exit_info: the exit status for any holder (PIDFD_INFO_EXIT, 6.15).
 *   Before, pdwait outside the parent fails with ECHILD.
 * - pidfs: one inode per process (6.9).  Before, another description of
 *   our child (pidfd_open) is known to the library only until the reap.
 */
static struct {
	bool	probed;
	bool	pollhup;
	bool	exit_info;
	bool	pidfs;
} t_kern;

static void
t_kernel_probe(void)
{
	struct pidfd_info info;
	struct statfs sfs;
	struct pollfd pfd;
	pid_t pid;

	if (t_kern.probed)
		return;
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(3);
	pfd.fd = t_watch(pid);
	pfd.events = 0;
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
	t_kern.pollhup = (poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & POLLHUP) != 0);
	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	t_kern.exit_info = (ioctl(pfd.fd, PIDFD_GET_INFO, &info) == 0 &&
	    (info.mask & PIDFD_INFO_EXIT) != 0);
	t_kern.pidfs = (fstatfs(pfd.fd, &sfs) == 0 &&
	    sfs.f_type == PID_FS_MAGIC);
	ATF_REQUIRE(close(pfd.fd) == 0);
	t_kern.probed = true;
}

bool
t_kernel_pollhup(void)
{

	t_kernel_probe();
	return (t_kern.pollhup);
}

bool
t_kernel_exit_info(void)
{

	t_kernel_probe();
	return (t_kern.exit_info);
}

bool
t_kernel_pidfs(void)
{

	t_kernel_probe();
	return (t_kern.pidfs);
}

/*
 * Whether pdfork runs libc's fork() under its trap (lib/fork.c): the
 * library has a trap for this architecture (lib/arch/arch.h) and the
 * kernel has syscall user dispatch (5.11, and only where the architecture
 * uses the generic entry code: not arm64 in 6.1 or 6.12).  Otherwise
 * pdfork runs libc's fork() untrapped, whose child sends SIGCHLD.
 */
bool
t_fork_trap(void)
{

#if PROCDESC_ARCH_TRAP
	return (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0,
	    0) == 0);
#else
	return (false);
#endif
}

/*
 * Make system call nr fail with err in this thread and the children it
 * makes from now on, as a kernel without it would: a seccomp filter.
 * With arg0 other than T_ANY_ARG, only the calls whose first argument is
 * arg0 (a prctl option).  0, or -1 with errno (ENOSYS: no seccomp
 * architecture constant for this build).
 */
int
t_refuse_syscall(int nr, long arg0, int err)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		arg0 == T_ANY_ARG ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA,
		    0, 0, 0) : (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (unsigned int)arg0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO |
		    ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		return (-1);
	return (0);
#else
	(void)nr;
	(void)arg0;
	(void)err;
	errno = ENOSYS;
	return (-1);
#endif
}

/* fdinfo's "Pid:" line of a pidfd: -1 once the process is reaped. */
static int
t_fdinfo_pid(int fd)
{
	char path[64], line[128];
	FILE *fp;
	int pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	ATF_REQUIRE((fp = fopen(path, "re")) != NULL);
	pid = 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(fp);
	return (pid);
}

/*
 * The process behind fd has been reaped within ms: POLLHUP.  A process
 * descriptor raises it on every kernel once its exit is recorded (after
 * the reap).  A pidfd before Linux 6.9 has no event for the reap: wait for
 * the exit, then look at fdinfo every millisecond until "Pid: -1".
 */
bool
t_reaped_within(int fd, int ms)
{
	struct timespec tick = { 0, 1000 * 1000 };
	int i;

	if (t_kernel_pollhup() || t_is_pd(fd))
		return (t_poll(fd, 0, ms));
	if (!t_dead_within(fd, ms))
		return (false);
	for (i = 0; t_fdinfo_pid(fd) != -1; i++) {
		if (i >= ms)
			return (false);
		(void)nanosleep(&tick, NULL);
	}
	return (true);
}

bool
t_alive(int watchfd)
{

	return (!t_poll(watchfd, POLLIN, 0));
}

/* Kill the process behind watchfd, wait until reaped, close watchfd. */
void
t_kill_wait(int watchfd)
{

	(void)syscall(SYS_pidfd_send_signal, watchfd, SIGKILL, NULL, 0);
	ATF_REQUIRE(t_reaped_within(watchfd, T_LONG_MS));
	ATF_REQUIRE(close(watchfd) == 0);
}

/* The process behind watchfd dies and is reaped; close watchfd. */
void
t_expect_death(int watchfd)
{

	ATF_REQUIRE(t_dead_within(watchfd, T_LONG_MS));
	ATF_REQUIRE(t_reaped_within(watchfd, T_LONG_MS));
	ATF_REQUIRE(close(watchfd) == 0);
}

/* A page that is mapped nowhere, for EFAULT. */
void *
t_unmapped(void)
{
	void *p;

	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ATF_REQUIRE(p != MAP_FAILED);
	ATF_REQUIRE(munmap(p, 4096) == 0);
	return (p);
}

/*
 * Send len bytes on s, to the address sa (NULL: s's peer), with fd
 * attached (SCM_RIGHTS) unless it is -1, and flags besides MSG_NOSIGNAL:
 * 0, or -1 and errno.
 */
int
t_sendfd_to(int s, const void *sa, socklen_t salen, const void *buf,
    size_t len, int fd, int flags)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)buf;
	iov.iov_len = len;
	mh.msg_name = (void *)(uintptr_t)sa;
	mh.msg_namelen = salen;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd != -1) {
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		cm.hdr.cmsg_level = SOL_SOCKET;
		cm.hdr.cmsg_type = SCM_RIGHTS;
		cm.hdr.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&cm.hdr), &fd, sizeof(int));
	}
	return (sendmsg(s, &mh, MSG_NOSIGNAL | flags) == (ssize_t)len ? 0 :
	    -1);
}

/* Send len bytes to s's peer, with fd attached unless it is -1. */
int
t_sendfd(int s, const void *buf, size_t len, int fd)
{

	return (t_sendfd_to(s, NULL, 0, buf, len, fd, 0));
}

/*
 * Receive up to len bytes (recvmsg flags: MSG_WAITALL, MSG_CMSG_CLOEXEC)
 * and the descriptor that came with them, in *fdp (else -1).
 */
ssize_t
t_recvfd(int s, void *buf, size_t len, int *fdp, int flags)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	*fdp = -1;
	if ((n = recvmsg(s, &mh, flags)) <= 0)
		return (n);
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_type == SCM_RIGHTS)
		memcpy(fdp, CMSG_DATA(c), sizeof(int));
	return (n);
}

/* The library's SEQPACKET socket to its guardian, or -1. */
/*
 * The inode of the peer of unix socket ino (sock_diag, as ss -x does), or
 * 0.  SO_PEERCRED cannot tell: a socketpair's peer credentials are those
 * of its creator, the owner itself.
 */
ino_t
t_peer_ino(ino_t ino)
{
	struct {
		struct nlmsghdr		nlh;
		struct unix_diag_req	r;
	} req;
	union {
		struct nlmsghdr	h;
		char		b[8192];
	} buf;
	struct unix_diag_msg *m;
	struct rtattr *a;
	uint32_t peer;
	ssize_t n;
	int s, len;

	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return (0);
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = ~0U;
	req.r.udiag_ino = (uint32_t)ino;
	req.r.udiag_show = UDIAG_SHOW_PEER;
	req.r.udiag_cookie[0] = req.r.udiag_cookie[1] = ~0U;
	peer = 0;
	if (send(s, &req, sizeof(req), 0) == (ssize_t)sizeof(req) &&
	    (n = recv(s, &buf, sizeof(buf), 0)) > 0 &&
	    NLMSG_OK(&buf.h, (unsigned)n) &&
	    buf.h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
		m = NLMSG_DATA(&buf.h);
		len = (int)(buf.h.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
		for (a = (struct rtattr *)(m + 1); RTA_OK(a, len);
		    a = RTA_NEXT(a, len))
			if (a->rta_type == UNIX_DIAG_PEER)
				memcpy(&peer, RTA_DATA(a), sizeof(peer));
	}
	close(s);
	return ((ino_t)peer);
}

/* fd is a process descriptor: a socket named PG_NAME_PREFIX "...". */
bool
t_is_pd(int fd)
{
	struct sockaddr_un sa;
	socklen_t len;

	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	return (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
	    sa.sun_family == AF_UNIX && sa.sun_path[0] == '\0' &&
	    strncmp(sa.sun_path + 1, PG_NAME_PREFIX,
	    sizeof(PG_NAME_PREFIX) - 1) == 0);
}

int
t_guardian_sock(void)
{
	char path[300], link[64];
	struct dirent *de;
	int fd, found, type;
	socklen_t len;
	DIR *d;

	found = -1;
	if ((d = opendir("/proc/self/fd")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		fd = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		memset(link, 0, sizeof(link));
		if (readlink(path, link, sizeof(link) - 1) <= 0 ||
		    strncmp(link, "socket:", 7) != 0)
			continue;
		len = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
		    type == SOCK_SEQPACKET && !t_is_pd(fd))
			found = fd;
	}
	closedir(d);
	return (found);
}

/*
 * In a fork() copy of the process that holds fd, the descriptor of the
 * running child want: pdgetpid, pdkill 0, pdwait WNOHANG (nothing yet),
 * SIGTERM through pdkill, then pdwait twice for the status and siginfo.
 * Before Linux 6.15 pdwait in a copy can only fail with ECHILD, which is
 * what is checked then.  0 if all behaved, else the failing step's number.
 */
int
t_copy_ops(int fd, pid_t want)
{
	siginfo_t si;
	pid_t pid;
	int status;

	if (pdgetpid(fd, &pid) != 0 || pid != want)
		return (1);
	if (pdkill(fd, 0) != 0)
		return (2);
	if (pdwait(fd, &status, WEXITED | WNOHANG, NULL, NULL) != -1 ||
	    errno != EAGAIN)
		return (3);
	if (pdkill(fd, SIGTERM) != 0)
		return (4);
	memset(&si, 0, sizeof(si));
	if (pdwait(fd, &status, WEXITED, NULL, &si) != 0)
		return (5);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
		return (6);
	if (si.si_pid != want || si.si_code != CLD_KILLED ||
	    si.si_status != SIGTERM)
		return (7);
	if (pdwait(fd, &status, WEXITED, NULL, NULL) != 0 ||
	    !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
		return (8);
	return (0);
}

/*
 * Read len bytes from fd within ms: len, 0 at EOF first, else -1.  No
 * ATF macro: forked processes call it too.
 */
ssize_t
t_read_within(int fd, void *buf, size_t len, int ms)
{
	struct pollfd pfd;
	int64_t deadline, left;
	size_t got;
	ssize_t n;
	int r;

	deadline = t_now_ms() + ms;
	for (got = 0; got < len; got += (size_t)n) {
		left = deadline - t_now_ms();
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		while ((r = poll(&pfd, 1, left < 0 ? 0 : (int)left)) == -1 &&
		    errno == EINTR)
			;
		if (r != 1)
			return (-1);
		while ((n = read(fd, (char *)buf + got, len - got)) == -1 &&
		    errno == EINTR)
			;
		if (n == -1)
			return (-1);
		if (n == 0)
			return (got == 0 ? 0 : -1);
	}
	return ((ssize_t)len);
}

/*
 * The guardian of owner: the one child of owner's one sentry (a guardian
 * is the sentry's child, lib/guardian_start.c).  -1 if owner has no
 * sentry or several, or the sentry no child.
 */
pid_t
t_guardian_of(pid_t owner)
{
	pid_t s, g;

	if (t_children_of(owner, T_CHILDREN_SENTRIES, &s, 1) != 1 ||
	    t_children_of(owner, T_CHILDREN_SENTRIES, NULL, 0) != 1 ||
	    t_children_of(s, T_CHILDREN_ALL, &g, 1) != 1)
		return (-1);
	return (g);
}

/* An fd number that is not open (the lowest). */
int
t_closed_fd(void)
{
	int fd;

	fd = dup(0);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(close(fd) == 0);
	return (fd);
}

/* A regular file in the work directory, unlinked at once. */
int
t_regular_file(void)
{
	char path[] = "t_file.XXXXXX";
	int fd;

	fd = mkstemp(path);
	ATF_REQUIRE_MSG(fd >= 0, "mkstemp: %s", strerror(errno));
	ATF_REQUIRE(unlink(path) == 0);
	return (fd);
}

void
t_close_pipe(int p[2])
{

	ATF_REQUIRE(close(p[0]) == 0);
	ATF_REQUIRE(close(p[1]) == 0);
}

/* One byte from fd within T_LONG_MS, or -1 (nothing, EOF or error). */
int
t_read_byte(int fd)
{
	struct pollfd pfd;
	char c;

	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, T_LONG_MS) != 1 || read(fd, &c, 1) != 1)
		return (-1);
	return ((unsigned char)c);
}

/* A child that exits with code once a byte arrives on the new pipe ctl. */
pid_t
t_pdfork_on_byte(int *fdp, int ctl[2], int code)
{
	pid_t pid;
	char c;

	ATF_REQUIRE(pipe(ctl) == 0);
	pid = pdfork(fdp, 0);
	ATF_REQUIRE_MSG(pid >= 0, "pdfork: %s", strerror(errno));
	if (pid == 0) {
		(void)read(ctl[0], &c, 1);
		_exit(code);
	}
	return (pid);
}

/* The child behind fd exits and is reaped within T_LONG_MS (POLLHUP). */
void
t_wait_reaped(int fd)
{

	ATF_REQUIRE_MSG(t_reaped_within(fd, T_LONG_MS), "child not reaped");
}

/*
 * Make sure the child behind process descriptor fd is gone, and close fd:
 * kill it if it still runs, reap it here if the library left it
 * unreaped.  Whether it had exited before.
 */
bool
t_dispose(int fd)
{
	siginfo_t si;
	bool exited;

	exited = true;
	if (!t_reaped_within(fd, 0)) {
		/* An unreaped zombie, or still running (hung)? */
		memset(&si, 0, sizeof(si));
		exited = (waitid(P_PIDFD, (id_t)fd, &si, WEXITED | WNOWAIT |
		    WNOHANG | __WALL) == 0 && si.si_pid != 0);
		if (!exited) {
			(void)pdkill(fd, SIGKILL);
			(void)t_dead_within(fd, T_LONG_MS);
		}
		if (!t_reaped_within(fd, 1000)) {
			/* Not reaped by the library: do it ourselves. */
			(void)waitid(P_PIDFD, (id_t)fd, &si, WEXITED | __WALL);
		}
	}
	(void)close(fd);
	return (exited);
}

/*
 * Wait at most T_LONG_MS for the child behind fd to be reaped by the
 * library (POLLHUP), then read its status.  A child that hangs is killed,
 * one that the library leaves unreaped is reaped here, and the case fails
 * either way: pdwait would block for ever.  Returns the wait status.
 */
int
t_bounded_wait(int fd, const char *what)
{
	int status;

	if (!t_reaped_within(fd, T_LONG_MS))
		atf_tc_fail("%s: child %s within %d ms", what, t_dispose(fd) ?
		    "exited but was not reaped by the library" :
		    "did not exit (deadlock)", T_LONG_MS);
	status = -1;
	ATF_REQUIRE_MSG(pdwait(fd, &status, WEXITED, NULL, NULL) == 0,
	    "%s: pdwait: %s", what, strerror(errno));
	return (status);
}

/* t_bounded_wait(), for an exit with code; closes fd. */
void
t_wait_exit_code(int fd, int code, const char *what)
{
	int status;

	status = t_bounded_wait(fd, what);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == code,
	    "%s: status %#x, expected exit %d", what, status, code);
	ATF_REQUIRE(close(fd) == 0);
}
