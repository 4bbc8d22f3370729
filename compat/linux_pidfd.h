/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Kernel definitions that Debian 12's linux-libc-dev (6.1) and glibc 2.36
 * lack.  The system headers come first; each definition here is guarded by
 * the kernel's own macro and says which release added it.  Private to the
 * library: never installed.
 */

#ifndef _PROCDESC_LINUX_PIDFD_H_
#define	_PROCDESC_LINUX_PIDFD_H_

#include <sys/ioctl.h>
#include <sys/types.h>

#include <sched.h>
#include <signal.h>
#include <stdint.h>

/* clone3(2) and struct clone_args: Linux 5.3. */
#ifndef CLONE_PIDFD
#define	CLONE_PIDFD		0x00001000
#endif
#ifndef CSIGNAL
#define	CSIGNAL			0x000000ff
#endif

/*
 * The kernel's close-kill: Linux 7.1.  AUTOKILL needs CLONE_PIDFD and
 * AUTOREAP, and CAP_SYS_ADMIN unless CLONE_NNP.  The kernel marks such a
 * pidfd with O_TRUNC in its file flags, which nothing else carries.
 */
#ifndef CLONE_AUTOREAP
#define	CLONE_AUTOREAP		(1ULL << 34)
#endif
#ifndef CLONE_NNP
#define	CLONE_NNP		(1ULL << 35)
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define	CLONE_PIDFD_AUTOKILL	(1ULL << 36)
#endif
#ifndef CLONE_INTO_CGROUP
#define	CLONE_INTO_CGROUP	(1ULL << 33)	/* Linux 5.7. */
#endif

/*
 * capget(2)'s version-3 layout (Linux 2.6.26), without <linux/capability.h>,
 * which musl's compiler does not see.
 */
struct procdesc_cap_header {
	uint32_t	version;
	int		pid;
};
struct procdesc_cap_data {
	uint32_t	effective;
	uint32_t	permitted;
	uint32_t	inheritable;
};
#define	PROCDESC_CAP_VERSION_3	0x20080522
#define	PROCDESC_CAP_SYS_ADMIN	21

/* The version-0 layout (CLONE_ARGS_SIZE_VER0, 64 bytes): Linux 5.3. */
struct procdesc_clone_args {
	uint64_t	flags;
	uint64_t	pidfd;
	uint64_t	child_tid;
	uint64_t	parent_tid;
	uint64_t	exit_signal;
	uint64_t	stack;
	uint64_t	stack_size;
	uint64_t	tls;
};

/* waitid(P_PIDFD): Linux 5.4. */
#ifndef P_PIDFD
#define	P_PIDFD			3
#endif

/* pidfs, one inode per process: Linux 6.9. */
#ifndef PID_FS_MAGIC
#define	PID_FS_MAGIC		0x50494446
#endif

/* PIDFD_GET_INFO: Linux 6.13; PIDFD_INFO_EXIT: Linux 6.15. */
#ifndef PIDFD_GET_INFO
struct pidfd_info {
	uint64_t	mask;
	uint64_t	cgroupid;
	uint32_t	pid;
	uint32_t	tgid;
	uint32_t	ppid;
	uint32_t	ruid;
	uint32_t	rgid;
	uint32_t	euid;
	uint32_t	egid;
	uint32_t	suid;
	uint32_t	sgid;
	uint32_t	fsuid;
	uint32_t	fsgid;
	int32_t		exit_code;
};
#define	PIDFD_GET_INFO		_IOWR(0xFF, 11, struct pidfd_info)
#define	PIDFD_INFO_PID		(1UL << 0)
#endif
#ifndef PIDFD_INFO_EXIT
#define	PIDFD_INFO_EXIT		(1UL << 3)
#endif

/*
 * The kernel's struct sigaction for rt_sigaction(2) on x86-64, which
 * glibc's differs from (a 1024-bit mask): Linux 2.2.
 */
struct procdesc_ksigaction {
	union {
		void	(*ks_handler)(int);
		void	(*ks_sigaction)(int, siginfo_t *, void *);
	};
	unsigned long	ks_flags;
	void		(*ks_restorer)(void);
	uint64_t	ks_mask;
};
#ifndef SA_RESTORER
#define	SA_RESTORER		0x04000000
#endif

/* Syscall user dispatch: Linux 5.11. */
#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define	PR_SET_SYSCALL_USER_DISPATCH	59
#define	PR_SYS_DISPATCH_OFF	0
#define	PR_SYS_DISPATCH_ON	1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_ALLOW
#define	SYSCALL_DISPATCH_FILTER_ALLOW	0
#define	SYSCALL_DISPATCH_FILTER_BLOCK	1
#endif
#ifndef SYS_USER_DISPATCH
#define	SYS_USER_DISPATCH	2	/* si_code of the SIGSYS. */
#endif

#endif /* !_PROCDESC_LINUX_PIDFD_H_ */
