/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The only place in the library that calls syscall(2).  Each wrapper
 * returns -1 and sets errno as a libc wrapper would, so that glibc's own
 * wrapper could replace it.
 */

#ifndef _PROCDESC_SYSCALL_H_
#define	_PROCDESC_SYSCALL_H_

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "linux_pidfd.h"

#ifndef SYS_clone3
#define	SYS_clone3		435
#endif
#ifndef SYS_pidfd_open
#define	SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_send_signal
#define	SYS_pidfd_send_signal	424
#endif
#ifndef SYS_pidfd_getfd
#define	SYS_pidfd_getfd		438
#endif
#ifndef SYS_close_range
#define	SYS_close_range		436
#endif

/*
 * What the syscall user dispatch trap calls, and the new child's
 * registration inside it, is always inlined: the trap must not call into
 * a sanitizer's run time (lib/fork.c), and a sanitizer instruments an
 * out-of-line copy.
 */
#define	PROCDESC_TRAP_INLINE	inline __attribute__((always_inline))

/* clone3(2): Linux 5.3. */
static PROCDESC_TRAP_INLINE long
sys_clone3(struct procdesc_clone_args *_ca)
{

	return (syscall(SYS_clone3, _ca, sizeof(*_ca)));
}

/* pidfd_open(2): Linux 5.3. */
static inline int
sys_pidfd_open(pid_t _pid, unsigned int _flags)
{

	return ((int)syscall(SYS_pidfd_open, _pid, _flags));
}

/* pidfd_send_signal(2): Linux 5.1. */
static inline int
sys_pidfd_send_signal(int _fd, int _sig)
{

	return ((int)syscall(SYS_pidfd_send_signal, _fd, _sig, NULL, 0));
}

/* pidfd_getfd(2): Linux 5.6. */
static inline int
sys_pidfd_getfd(int _fd, int _remotefd, unsigned int _flags)
{

	return ((int)syscall(SYS_pidfd_getfd, _fd, _remotefd, _flags));
}

/*
 * kcmp(2) with KCMP_EPOLL_TFD (Linux 4.13; needs CONFIG_KCMP): whether the
 * epoll instance epfd of the caller holds a registration made under
 * descriptor number tfd.  0, 1 or 2 if it does, -1 with ENOENT if not.
 * The type and slot as <linux/kcmp.h> has them, which musl lacks.
 */
#define	PROCDESC_KCMP_EPOLL_TFD	7
struct procdesc_kcmp_epoll_slot {
	uint32_t	ks_efd;
	uint32_t	ks_tfd;
	uint32_t	ks_toff;
};

static inline int
sys_kcmp_epoll_tfd(pid_t _self, int _epfd, int _tfd)
{
	struct procdesc_kcmp_epoll_slot _slot;

	_slot.ks_efd = (uint32_t)_epfd;
	_slot.ks_tfd = (uint32_t)_tfd;
	_slot.ks_toff = 0;
	return ((int)syscall(SYS_kcmp, _self, _self, PROCDESC_KCMP_EPOLL_TFD,
	    _epfd, &_slot));
}

/* waitid(2) with the kernel's fifth, rusage argument (glibc hides it). */
static inline int
sys_waitid(int _idtype, int _id, siginfo_t *_si, int _options,
    struct rusage *_ru)
{

	return ((int)syscall(SYS_waitid, _idtype, _id, _si, _options, _ru));
}

/* A getdents64(2) record. */
struct procdesc_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/*
 * close_range(2)'s work without it: each open descriptor in the range, as
 * /proc/self/fd lists them, else every number below the descriptor limit.
 * Async-signal-safe, for the children of a raw clone.
 */
static inline int
sys_close_fds(unsigned int _first, unsigned int _last)
{
	char _buf[1024] __attribute__((aligned(8)));
	struct procdesc_dirent64 *_d;
	struct rlimit _rl;
	unsigned int _fd;
	const char *_c;
	long _n, _off;
	int _dir;

	_dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (_dir == -1) {
		if (getrlimit(RLIMIT_NOFILE, &_rl) == -1)
			return (-1);
		for (_fd = _first; _fd <= _last && _fd < _rl.rlim_cur; _fd++)
			(void)close((int)_fd);
		return (0);
	}
	/* Closing ahead of the reading is safe: it goes in number order. */
	while ((_n = syscall(SYS_getdents64, _dir, _buf, sizeof(_buf))) > 0) {
		for (_off = 0; _off < _n; _off += _d->d_reclen) {
			_d = (struct procdesc_dirent64 *)(void *)(_buf + _off);
			if (_d->d_name[0] < '0' || _d->d_name[0] > '9')
				continue;
			for (_fd = 0, _c = _d->d_name; *_c != '\0'; _c++)
				_fd = _fd * 10 + (unsigned int)(*_c - '0');
			if (_fd >= _first && _fd <= _last && (int)_fd != _dir)
				(void)close((int)_fd);
		}
	}
	(void)close(_dir);
	return (_n == -1 ? -1 : 0);
}

/*
 * close_range(2) (Linux 5.9), done by hand on older kernels, where the
 * library still runs (5.4).
 */
static inline int
sys_close_range(unsigned int _first, unsigned int _last, unsigned int _flags)
{

	if (syscall(SYS_close_range, _first, _last, _flags) == 0)
		return (0);
	if (errno != ENOSYS || _flags != 0 || _first > _last)
		return (-1);
	return (sys_close_fds(_first, _last));
}

/* rt_sigaction(2) itself, past libc and a sanitizer's wrapper: Linux 2.2. */
static inline int
sys_rt_sigaction(int _sig, const struct procdesc_ksigaction *_act,
    struct procdesc_ksigaction *_old)
{

	return ((int)syscall(SYS_rt_sigaction, _sig, _act, _old,
	    sizeof(uint64_t)));
}

/*
 * rt_sigprocmask(2) itself, with the kernel's 64-bit mask: glibc's
 * sigprocmask(3) will not block its own internal signals.
 */
static inline int
sys_rt_sigprocmask(int _how, const uint64_t *_set, uint64_t *_old)
{

	return ((int)syscall(SYS_rt_sigprocmask, _how, _set, _old,
	    sizeof(uint64_t)));
}

/* A system call by number, for the syscall user dispatch trap. */
static PROCDESC_TRAP_INLINE long
sys_syscall6(long _nr, long _a, long _b, long _c, long _d, long _e, long _f)
{

	return (syscall(_nr, _a, _b, _c, _d, _e, _f));
}

/*
 * The calls a new child makes before any code of the application runs
 * (the close-kill mechanism's child hook): raw, so that nothing a
 * sanitizer intercepts runs inside glibc's fork.
 */
static PROCDESC_TRAP_INLINE pid_t
sys_getpid(void)
{

	return ((pid_t)syscall(SYS_getpid));
}

static PROCDESC_TRAP_INLINE int
sys_close(int _fd)
{

	return ((int)syscall(SYS_close, _fd));
}

static PROCDESC_TRAP_INLINE ssize_t
sys_sendmsg(int _fd, const struct msghdr *_mh, int _flags)
{

	return ((ssize_t)syscall(SYS_sendmsg, _fd, _mh, _flags));
}

static PROCDESC_TRAP_INLINE ssize_t
sys_read(int _fd, void *_buf, size_t _len)
{

	return ((ssize_t)syscall(SYS_read, _fd, _buf, _len));
}

static PROCDESC_TRAP_INLINE pid_t
sys_getppid(void)
{

	return ((pid_t)syscall(SYS_getppid));
}

/* ppoll(2) without a timeout or mask: aarch64 has no poll(2). */
static PROCDESC_TRAP_INLINE int
sys_ppoll(struct pollfd *_fds, unsigned int _n)
{

	return ((int)syscall(SYS_ppoll, _fds, _n, NULL, NULL, 0));
}

static PROCDESC_TRAP_INLINE void __attribute__((noreturn))
sys_exit_group(int _code)
{

	for (;;)
		syscall(SYS_exit_group, _code);
}

/*
 * setresuid(2) and setresgid(2) for this process alone: glibc's wrappers
 * also signal every thread glibc lists, and a posix_spawn child (a copy of
 * its parent's memory, lib/spawn.c) still lists the parent's threads.
 */
static inline int
sys_setresuid(uid_t _r, uid_t _e, uid_t _s)
{

	return ((int)syscall(SYS_setresuid, _r, _e, _s));
}

static inline int
sys_setresgid(gid_t _r, gid_t _e, gid_t _s)
{

	return ((int)syscall(SYS_setresgid, _r, _e, _s));
}

/* execveat(2): Linux 3.19; async-signal-safe, for a raw clone's child. */
static inline int
sys_execveat(int _fd, const char *_path, char *const _argv[],
    char *const _envp[], int _flags)
{

	return ((int)syscall(SYS_execveat, _fd, _path, _argv, _envp, _flags));
}

/*
 * The reaper thread's calls (lib/reaper.c): it has a descriptor table of
 * its own, whose numbers mean other files than the application's, so it
 * makes them raw, past any wrapper that tracks descriptors by number (a
 * thread sanitizer's).
 */

/* unshare(2): Linux 2.6.16. */
static inline int
sys_unshare(int _flags)
{

	return ((int)syscall(SYS_unshare, _flags));
}

/* tgkill(2): Linux 2.5.75. */
static inline int
sys_tgkill(pid_t _tgid, pid_t _tid, int _sig)
{

	return ((int)syscall(SYS_tgkill, _tgid, _tid, _sig));
}

/* gettid(2): Linux 2.4.11. */
static inline pid_t
sys_gettid(void)
{

	return ((pid_t)syscall(SYS_gettid));
}

/* epoll_create1(2): Linux 2.6.27. */
static inline int
sys_epoll_create1(int _flags)
{

	return ((int)syscall(SYS_epoll_create1, _flags));
}

/* epoll_ctl(2): Linux 2.6. */
static inline int
sys_epoll_ctl(int _ep, int _op, int _fd, void *_ev)
{

	return ((int)syscall(SYS_epoll_ctl, _ep, _op, _fd, _ev));
}

/* epoll_pwait(2), no signal mask: Linux 2.6.19. */
static inline int
sys_epoll_wait(int _ep, void *_evs, int _n, int _ms)
{

	return ((int)syscall(SYS_epoll_pwait, _ep, _evs, _n, _ms, NULL, 0));
}

/* signalfd4(2): Linux 2.6.27; the kernel's 64-bit mask. */
static inline int
sys_signalfd(const uint64_t *_mask, int _flags)
{

	return ((int)syscall(SYS_signalfd4, -1, _mask, sizeof(*_mask),
	    _flags));
}

static inline ssize_t
sys_recvmsg(int _fd, struct msghdr *_mh, int _flags)
{

	return ((ssize_t)syscall(SYS_recvmsg, _fd, _mh, _flags));
}

static inline ssize_t
sys_sendto(int _fd, const void *_buf, size_t _len, int _flags)
{

	return ((ssize_t)syscall(SYS_sendto, _fd, _buf, _len, _flags, NULL, 0));
}

static inline int
sys_fstat(int _fd, struct stat *_st)
{

	return ((int)syscall(SYS_fstat, _fd, _st));
}

#endif /* !_PROCDESC_SYSCALL_H_ */
