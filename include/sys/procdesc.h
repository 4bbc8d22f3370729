/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD process descriptors for Linux.  The shape follows FreeBSD's
 * <sys/procdesc.h>: flags, an allowed-flags mask and the calls, with
 * '_'-prefixed parameter names so that no application macro can clash.
 * Profile: FreeBSD 16, its waiting rules included (see pdfork(3)).
 */

#ifndef _SYS_PROCDESC_H_
#define	_SYS_PROCDESC_H_

#include <sys/types.h>
#include <sys/resource.h>
#include <signal.h>

/*
 * Strict ISO C modes (-std=c99 without _POSIX_C_SOURCE) hide siginfo_t in
 * <signal.h>; glibc keeps the type in a header of its own.
 */
#if defined(__GLIBC__) && !defined(__USE_POSIX199309)
#include <bits/types/siginfo_t.h>
#endif

/* Flags for pdfork(), pdrfork() and pdopenpid(). */
#define	PD_DAEMON	0x00000001	/* Last close does not kill. */
#define	PD_CLOEXEC	0x00000002	/* Descriptor is close-on-exec. */
#define	PD_NOWAITPID	0x00000004	/* No wait by pid sees it. */

#define	PD_ALLOWED_AT_FORK	(PD_DAEMON | PD_CLOEXEC | PD_NOWAITPID)

/* Flags for pdrfork(), with FreeBSD's values. */
#ifndef RFFDG
#define	RFFDG		(1 << 2)	/* Copy the fd table. */
#endif
#ifndef RFPROC
#define	RFPROC		(1 << 4)	/* Create a new process. */
#endif
#ifndef RFCFDG
#define	RFCFDG		(1 << 12)	/* Zero the fd table. */
#endif
#ifndef RFSTOPPED
#define	RFSTOPPED	(1 << 17)	/* Leave the child stopped. */
#endif
#ifndef RFHIGHPID
#define	RFHIGHPID	(1 << 18)	/* Use a pid above 10. */
#endif
#ifndef RFPROCDESC
#define	RFPROCDESC	(1 << 28)	/* Return a process descriptor. */
#endif
#ifndef RFSPAWN
#define	RFSPAWN		(1U << 31)	/* vfork-like, for exec. */
#endif

#ifndef _WRUSAGE_DECLARED
#define	_WRUSAGE_DECLARED
/* FreeBSD's wait6() resource usage pair; Linux has none. */
struct __wrusage {
	struct rusage	wru_self;	/* The process itself. */
	struct rusage	wru_children;	/* Its reaped descendants. */
};
#endif

#ifdef __cplusplus
extern "C" {
#endif

pid_t	pdfork(int *_fdp, int _pdflags);
pid_t	pdrfork(int *_fdp, int _pdflags, int _rfflags);
int	pdgetpid(int _fd, pid_t *_pidp);
int	pdkill(int _fd, int _signum);
int	pdwait(int _fd, int *_status, int _options,
	    struct __wrusage *_wrusage, siginfo_t *_info);
int	pdopenpid(pid_t _pid, int _pdflags);
int	pddupfd(int _fd, int _remotefd, int _flags);

#ifdef __cplusplus
}
#endif

#endif /* !_SYS_PROCDESC_H_ */
