/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The registry of process descriptors: our sys_procdesc.c.  It maps the
 * identity of any copy of a descriptor (the pidfs inode, shared by every
 * pidfd of one process) to the struct procdesc that keeps the child's pid
 * and, once the watchdog has reaped it, its exit status and rusage.
 *
 * Invariants: an entry lives while its child is unreaped or while any copy
 * of its descriptor is open (the guardian reports the last close); only
 * procdesc_exit() and procdesc_close() free entries, with procdesc_mtx held.
 */

#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/procdesc.h"
#include "procdesc_impl.h"
#include "syscall.h"

pthread_mutex_t procdesc_mtx = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t procdesc_cv = PTHREAD_COND_INITIALIZER;

static struct procdesc **pd_hash;	/* (l) Buckets by key. */
static struct procdesc **pd_phash;	/* (l) Buckets by pid, unreaped. */
static size_t pd_nbuckets;		/* (l) A power of two, or 0. */
static size_t pd_count;			/* (l) Entries. */
static pid_t pd_self;			/* (l) Our pid; new after fork. */

static size_t
pd_mix(uint64_t key)
{

	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 32;
	return ((size_t)key & (pd_nbuckets - 1));
}

static struct procdesc **
pd_bucket(uint64_t key)
{

	return (&pd_hash[pd_mix(key)]);
}

static struct procdesc **
pd_pbucket(pid_t pid)
{

	return (&pd_phash[pd_mix((uint64_t)pid)]);
}

static void
pd_insert(struct procdesc *pd)
{

	pd->pd_next = *pd_bucket(pd->pd_key);
	*pd_bucket(pd->pd_key) = pd;
	if (pd->pd_state == PDS_RUNNING && pd->pd_parent) {
		pd->pd_pnext = *pd_pbucket(pd->pd_pid);
		*pd_pbucket(pd->pd_pid) = pd;
	}
}

/* Keep at most one entry per bucket on average. */
static int
pd_grow(void)
{
	struct procdesc **old, **oldp, *pd, *next;
	size_t i, n;

	if (pd_count < pd_nbuckets)
		return (0);
	old = pd_hash;
	oldp = pd_phash;
	n = pd_nbuckets;
	pd_nbuckets = (n == 0) ? 64 : n * 2;
	pd_hash = calloc(pd_nbuckets, sizeof(*pd_hash));
	pd_phash = calloc(pd_nbuckets, sizeof(*pd_phash));
	if (pd_hash == NULL || pd_phash == NULL) {
		free(pd_hash);
		free(pd_phash);
		pd_hash = old;
		pd_phash = oldp;
		pd_nbuckets = n;
		return (ENOMEM);
	}
	for (i = 0; i < n; i++) {
		for (pd = old[i]; pd != NULL; pd = next) {
			next = pd->pd_next;
			pd_insert(pd);
		}
	}
	free(old);
	free(oldp);
	return (0);
}

/*
 * The entry of key; where a process has two (pdopenpid of our own child),
 * the one we may reap.
 */
struct procdesc *
procdesc_find(uint64_t key)
{
	struct procdesc *pd, *found;

	if (pd_nbuckets == 0)
		return (NULL);
	found = NULL;
	for (pd = *pd_bucket(key); pd != NULL; pd = pd->pd_next) {
		if (pd->pd_key != key)
			continue;
		if (procdesc_mine(pd))
			return (pd);
		if (found == NULL)
			found = pd;
	}
	return (found);
}

/*
 * We may reap pd's process: we created it, in this process (not in the
 * process we are a fork copy of); procdesc_mtx held.
 */
bool
procdesc_mine(const struct procdesc *pd)
{

	return (pd->pd_parent && pd->pd_owner == pd_self);
}

/* An unreaped child of ours by pid, for the watchdog. */
struct procdesc *
procdesc_find_pid(pid_t pid)
{
	struct procdesc *pd;

	if (pd_nbuckets == 0)
		return (NULL);
	for (pd = *pd_pbucket(pid); pd != NULL; pd = pd->pd_pnext)
		if (pd->pd_pid == pid && procdesc_mine(pd) &&
		    pd->pd_state == PDS_RUNNING)
			return (pd);
	return (NULL);
}

static void
pd_unlink_pid(struct procdesc *pd)
{
	struct procdesc **pp;

	for (pp = pd_pbucket(pd->pd_pid); *pp != NULL; pp = &(*pp)->pd_pnext) {
		if (*pp == pd) {
			*pp = pd->pd_pnext;
			return;
		}
	}
}

static void
pd_unlink(struct procdesc *pd)
{
	struct procdesc **pp;

	for (pp = pd_bucket(pd->pd_key); *pp != pd; pp = &(*pp)->pd_next)
		;
	*pp = pd->pd_next;
	pd_count--;
}

/*
 * What /proc/self/fdinfo says of a pidfd: the pid (-1 once reaped) and the
 * start of the OFD lock this open file description holds (-1 if none).
 * The kernel lists there only the locks of the description itself
 * (show_fd_locks(), Linux 4.1), so the close-kill lock names the
 * description, whatever fd and process it is seen from.
 */
static int
pd_fdinfo(int fd, pid_t *pidp, off_t *lockp)
{
	char path[64], line[256], *end, *start;
	FILE *fp;
	int pid;

	*pidp = -1;
	*lockp = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((fp = fopen(path, "re")) == NULL)
		return (ESRCH);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "Pid: %d", &pid) == 1)
			*pidp = pid;
		/* "lock:\t1: OFDLCK ADVISORY WRITE -1 dev:ino START END" */
		if (strncmp(line, "lock:", 5) != 0 ||
		    strstr(line, "OFDLCK") == NULL || *lockp != -1 ||
		    (end = strrchr(line, ' ')) == NULL)
			continue;
		*end = '\0';
		if ((start = strrchr(line, ' ')) != NULL)
			*lockp = (off_t)strtoll(start + 1, NULL, 10);
	}
	fclose(fp);
	return (0);
}

/*
 * Pid of a live process from its pidfd, for copies the registry does not
 * know: PIDFD_GET_INFO (Linux 6.13), else the fdinfo "Pid:" line.  ESRCH
 * once the process is reaped.
 */
int
procdesc_kernel_pid(int fd, pid_t *pidp)
{
	struct pidfd_info info;
	off_t off;
	pid_t pid;

	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_PID;
	if (ioctl(fd, PIDFD_GET_INFO, &info) == 0 && info.pid > 0) {
		*pidp = (pid_t)info.pid;
		return (0);
	}
	if (pd_fdinfo(fd, &pid, &off) != 0 || pid <= 0)
		return (ESRCH);
	*pidp = pid;
	return (0);
}

/* Before pidfs: the key of our unreaped child pid, else PD_KEY_FOREIGN. */
static uint64_t
pd_key_of_pid(pid_t pid)
{
	struct procdesc *pd;
	uint64_t key;

	key = PD_KEY_FOREIGN;
	pthread_mutex_lock(&procdesc_mtx);
	for (pd = (pd_nbuckets != 0 && pid > 0) ? *pd_pbucket(pid) : NULL;
	    pd != NULL; pd = pd->pd_pnext)
		if (pd->pd_pid == pid && pd->pd_state == PDS_RUNNING)
			key = pd->pd_key;
	pthread_mutex_unlock(&procdesc_mtx);
	return (key);
}

/*
 * Identify fd as a process descriptor: 0 and its key, EBADF for a closed
 * fd, EINVAL for an open fd that is not a pidfd, ENOSYS for a kernel
 * without process descriptors.
 *
 * With pidfs (Linux 6.9) every pidfd of a process shares one inode, unique
 * for the boot, which is the key.  Before it all pidfds share one
 * anonymous inode, and the key is the offset of the close-kill lock that
 * the description holds (PD_KEY_LOCK): unique among live descriptions,
 * since they all lock the same inode, and still there after the reap.  A
 * pidfd that holds no such lock was not made by this library: while its
 * process is an unreaped child of ours it gets that child's key (as with
 * pidfs), else a key that matches no entry (PD_KEY_FOREIGN).  After the
 * reap nothing in the kernel ties it to the child any more.
 */
int
procdesc_ident(int fd, uint64_t *keyp)
{
	struct statfs sfs;
	struct stat st;
	char path[32], link[32];
	ssize_t n;
	pid_t pid;
	off_t off;
	int error;

	if ((error = procdesc_kernel_ok()) != 0)
		return (error);
	if (fstat(fd, &st) == -1)
		return (EBADF);
	if (fstatfs(fd, &sfs) == -1)
		return (EBADF);
	if (sfs.f_type == PID_FS_MAGIC) {
		*keyp = (uint64_t)st.st_ino;
		return (0);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0 || (size_t)n != strlen("anon_inode:[pidfd]") ||
	    memcmp(link, "anon_inode:[pidfd]", (size_t)n) != 0)
		return (EINVAL);
	if (pd_fdinfo(fd, &pid, &off) != 0)
		return (EINVAL);
	*keyp = (off >= 0) ? PD_KEY_LOCK | (uint64_t)off : pd_key_of_pid(pid);
	return (0);
}

/* A waitid(2)-style siginfo from a wait status, for PIDFD_INFO_EXIT. */
static void
pd_status_si(int status, pid_t pid, siginfo_t *si)
{

	memset(si, 0, sizeof(*si));
	si->si_signo = SIGCHLD;
	si->si_pid = pid;
	if (WIFEXITED(status)) {
		si->si_code = CLD_EXITED;
		si->si_status = WEXITSTATUS(status);
	} else {
		si->si_code = WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
		si->si_status = WTERMSIG(status);
	}
}

/*
 * The exit status the kernel keeps for any holder of the pidfd (Linux
 * 6.15, PIDFD_INFO_EXIT), as a siginfo: 0, EAGAIN before the reap,
 * ECHILD where the kernel has no such thing.
 */
int
procdesc_exit_info(int fd, pid_t pid, siginfo_t *si)
{
	struct pidfd_info info;

	memset(&info, 0, sizeof(info));
	info.mask = PIDFD_INFO_EXIT;
	if (ioctl(fd, PIDFD_GET_INFO, &info) == -1 && errno != ESRCH)
		return (ECHILD);
	if ((info.mask & PIDFD_INFO_EXIT) == 0)
		return (EAGAIN);
	pd_status_si(info.exit_code, pid, si);
	return (0);
}

/*
 * Take the close-kill lock: an OFD write lock on one byte through the
 * user's description.  The guardian waits for the same byte through its own
 * description and gets it only when the user's description is gone.  The
 * offset is the pid (unique while the child is unreaped, which matters
 * where all pidfds share one inode) and 24 random bits (so nobody else's
 * lock on the same inode collides by accident).
 */
static int
pd_lock(int pidfd, pid_t pid, off_t *offp)
{
	struct flock fl;
	uint32_t r;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)random();
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		fl.l_start = ((off_t)pid << 24) | (off_t)(r & 0xffffff);
		fl.l_len = 1;
		if (fcntl(pidfd, F_OFD_SETLK, &fl) == 0) {
			*offp = fl.l_start;
			return (0);
		}
		if (errno != EAGAIN && errno != EACCES)
			return (errno);
	}
	return (EAGAIN);
}

/*
 * Register a process with pidfd as its descriptor (parent: a child we
 * created and will reap; else pdopenpid's process): lock the
 * close-kill byte, hand the child to the guardian, then to the watchdog.
 * On failure nothing is left registered and the caller must dispose of
 * the child.
 */
int
procdesc_new(pid_t pid, int pidfd, int flags, bool parent)
{
	struct procdesc *pd;
	uint64_t key;
	off_t off;
	int error;

	off = 0;
	if ((error = pd_lock(pidfd, pid, &off)) != 0 ||
	    (error = procdesc_ident(pidfd, &key)) != 0)
		return (error);
	if (key == PD_KEY_FOREIGN)
		return (EOPNOTSUPP);	/* /proc hides our own lock. */
	if ((pd = calloc(1, sizeof(*pd))) == NULL)
		return (ENOMEM);
	pd->pd_key = key;
	pd->pd_pid = pid;
	pd->pd_flags = flags;
	pd->pd_off = off;
	pd->pd_state = PDS_RUNNING;
	pd->pd_parent = parent;

	pthread_mutex_lock(&procdesc_mtx);
	if (pd_self == 0)
		pd_self = getpid();
	pd->pd_owner = pd_self;
	error = pd_grow();
	if (error == 0)
		error = procdesc_helper_guard(pid, flags, key, off);
	if (error == ESRCH && parent) {
		/*
		 * Our child is gone already: the kernel reaps a child that
		 * exec'd (exit signal SIGCHLD again) at its exit when we
		 * ignore SIGCHLD.  Nothing is left to kill or to guard: file
		 * what the kernel kept (NOTES 1.2).  No guardian will report
		 * the last close, so the entry stays until we exit.
		 */
		if (procdesc_exit_info(pidfd, pid, &pd->pd_si) != 0)
			memset(&pd->pd_si, 0, sizeof(pd->pd_si));
		pd->pd_state = PDS_REAPED;
		error = 0;
	}
	if (error == 0) {
		pd_insert(pd);
		pd_count++;
		procdesc_watchdog_kick();
	}
	pthread_mutex_unlock(&procdesc_mtx);
	if (error != 0)
		free(pd);
	return (error);
}

/* Record the exit of a reaped child; procdesc_mtx held. */
void
procdesc_exit(struct procdesc *pd, const siginfo_t *si,
    const struct rusage *ru)
{

	pd_unlink_pid(pd);
	pd->pd_si = *si;
	pd->pd_ru = *ru;
	pd->pd_state = PDS_REAPED;
	pthread_cond_broadcast(&procdesc_cv);
	if (pd->pd_closed) {
		pd_unlink(pd);
		free(pd);
	}
}

/*
 * The guardian saw the last copy of the descriptor (key, off) go;
 * procdesc_mtx held.
 */
void
procdesc_close(uint64_t key, off_t off)
{
	struct procdesc *pd;

	for (pd = procdesc_find(key); pd != NULL; pd = pd->pd_next)
		if (pd->pd_key == key && pd->pd_off == off)
			break;
	if (pd == NULL)
		return;
	pd->pd_closed = true;
	/* Ours once reaped; another's (pdopenpid) is never reaped here. */
	if (pd->pd_state == PDS_REAPED || !procdesc_mine(pd)) {
		pd_unlink(pd);
		free(pd);
	}
}

/* Call fn for every entry; procdesc_mtx held. */
void
procdesc_foreach(void (*fn)(struct procdesc *, void *), void *arg)
{
	struct procdesc *pd, *next;
	size_t i;

	for (i = 0; i < pd_nbuckets; i++) {
		for (pd = pd_hash[i]; pd != NULL; pd = next) {
			next = pd->pd_next;
			fn(pd, arg);
		}
	}
}

/*
 * In a forked copy of the process the children belong to the original
 * owner (procdesc_mine() is false for them from now on: pd_self changes).
 * What is known (pid, a status already reaped) stays for pdgetpid and
 * pdwait.  The entries are not touched, so that a fork does not copy the
 * whole registry page by page.  procdesc_mtx held, by the forking thread;
 * the condition variable is made anew, since the copy counts the parent's
 * waiters, which do not exist here.
 */
void
procdesc_registry_child(void)
{

	pthread_cond_init(&procdesc_cv, NULL);
	pd_self = getpid();
}

/*
 * Copy len bytes to a user pointer that may be bad: EFAULT instead of a
 * crash.  process_vm_writev(2) on ourselves needs no privilege.
 */
int
procdesc_copyout(void *uaddr, const void *kaddr, size_t len)
{
	struct iovec local, remote;
	ssize_t n;

	if (uaddr == NULL)
		return (EFAULT);
	local.iov_base = (void *)(uintptr_t)kaddr;
	local.iov_len = len;
	remote.iov_base = uaddr;
	remote.iov_len = len;
	n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return (0);
	if (n == -1 && errno != EFAULT) {
		/* process_vm_writev forbidden (seccomp): plain store. */
		memcpy(uaddr, kaddr, len);
		return (0);
	}
	return (EFAULT);
}

/* The waitpid(2)-style status word of a waitid(2) siginfo. */
int
procdesc_wstatus(const siginfo_t *si)
{

	switch (si->si_code) {
	case CLD_EXITED:
		return ((si->si_status & 0xff) << 8);
	case CLD_KILLED:
		return (si->si_status & 0x7f);
	case CLD_DUMPED:
		return ((si->si_status & 0x7f) | 0x80);
	case CLD_STOPPED:
	case CLD_TRAPPED:
		return (((si->si_status & 0xff) << 8) | 0x7f);
	case CLD_CONTINUED:
		return (0xffff);
	default:
		return (0);
	}
}
