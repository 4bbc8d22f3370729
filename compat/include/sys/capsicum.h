/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD's <sys/capsicum.h> (with <sys/caprights.h> folded in) for ported
 * code, behaving as FreeBSD does on a kernel built without "options
 * CAPABILITY_MODE" and "options CAPABILITIES": every capability system
 * call fails with ENOSYS, cap_sandboxed() is false, and nothing is ever
 * limited.  Linux has no capability mode, so no call here may claim one.
 *
 * The rights-set functions are real: they work on a cap_rights_t value
 * with FreeBSD's encoding, so code that builds, merges and compares rights
 * gets FreeBSD's answers.  The encoding of one 64-bit word:
 *
 *	bits 63-62	version (CAP_RIGHTS_VERSION_00, in word 0 only)
 *	bits 61-57	index bit: 1 << (57 + i) marks word i
 *	bits 56-0	the rights themselves
 *
 * The library exports none of this: everything is a macro or a static
 * inline function, so "-I compat/include" is all a program needs.
 *
 * Invariants: every function reads and writes only cr_rights[0] and
 * cr_rights[1], whatever version bits a value carries.  FreeBSD's libc
 * assert()s on a malformed right (bad version or index bits); here such a
 * right is ignored by set and clear and is never "set", so that no bad
 * value can write outside the array.
 *
 * The values come from memory of FreeBSD's sys/sys/capsicum.h and
 * sys/kern/subr_capability.c, not from a copy of them; each spot marked
 * XXX is one the authors could not check against the source.
 */

#ifndef _SYS_CAPSICUM_H_
#define	_SYS_CAPSICUM_H_

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/*
 * Capsicum's errno values.  FreeBSD's (93 and 94) are Linux's
 * EPROTONOSUPPORT and ESOCKTNOSUPPORT, so these are FreeBSD's plus 1000:
 * above every Linux errno on every architecture (MIPS's EDQUOT, 1133, is
 * the one larger), so that a test of errno never takes one for another.
 * Nothing here returns them (nothing is ever limited); ported code that
 * tests for them builds, and strerror(3) calls them "Unknown error 1093"
 * and "Unknown error 1094".
 */
#ifndef ENOTCAPABLE
#define	ENOTCAPABLE	1093	/* Capabilities insufficient. */
#endif
#ifndef ECAPMODE
#define	ECAPMODE	1094	/* Not permitted in capability mode. */
#endif

/* <sys/caprights.h>: the rights set type. */
#define	CAP_RIGHTS_VERSION_00	0
#define	CAP_RIGHTS_VERSION	CAP_RIGHTS_VERSION_00

struct cap_rights {
	uint64_t	cr_rights[CAP_RIGHTS_VERSION + 2];
};

#ifndef _CAP_RIGHTS_T_DECLARED
#define	_CAP_RIGHTS_T_DECLARED
typedef	struct cap_rights	cap_rights_t;
#endif

#ifndef _CAP_IOCTL_T_DECLARED
#define	_CAP_IOCTL_T_DECLARED
typedef	unsigned long		cap_ioctl_t;
#endif

/* The word's layout (above) by name: version, index, then the rights. */
#define	__CAP_VERSION_SHIFT	62
#define	__CAP_INDEX_SHIFT	57
#define	__CAP_INDEX_MASK	0x1F
#define	__CAP_RIGHTS_MASK	((1ULL << __CAP_INDEX_SHIFT) - 1)

#define	CAPRIGHT(idx, bit)	((1ULL << (__CAP_INDEX_SHIFT + (idx))) | (bit))

/* INDEX 0: general file I/O. */
#define	CAP_READ		CAPRIGHT(0, 0x0000000000000001ULL)
#define	CAP_WRITE		CAPRIGHT(0, 0x0000000000000002ULL)
#define	CAP_SEEK_TELL		CAPRIGHT(0, 0x0000000000000004ULL)
#define	CAP_SEEK		(CAP_SEEK_TELL | 0x0000000000000008ULL)
#define	CAP_PREAD		(CAP_SEEK | CAP_READ)
#define	CAP_PWRITE		(CAP_SEEK | CAP_WRITE)
#define	CAP_MMAP		CAPRIGHT(0, 0x0000000000000010ULL)
#define	CAP_MMAP_R		(CAP_MMAP | CAP_SEEK | CAP_READ)
#define	CAP_MMAP_W		(CAP_MMAP | CAP_SEEK | CAP_WRITE)
#define	CAP_MMAP_X		(CAP_MMAP | CAP_SEEK | 0x0000000000000020ULL)
#define	CAP_MMAP_RW		(CAP_MMAP_R | CAP_MMAP_W)
#define	CAP_MMAP_RX		(CAP_MMAP_R | CAP_MMAP_X)
#define	CAP_MMAP_WX		(CAP_MMAP_W | CAP_MMAP_X)
#define	CAP_MMAP_RWX		(CAP_MMAP_R | CAP_MMAP_W | CAP_MMAP_X)
#define	CAP_CREATE		CAPRIGHT(0, 0x0000000000000040ULL)
#define	CAP_FEXECVE		CAPRIGHT(0, 0x0000000000000080ULL)
#define	CAP_FSYNC		CAPRIGHT(0, 0x0000000000000100ULL)
#define	CAP_FTRUNCATE		CAPRIGHT(0, 0x0000000000000200ULL)

/* Lookups: constrain the *at() calls. */
#define	CAP_LOOKUP		CAPRIGHT(0, 0x0000000000000400ULL)

/* VFS methods. */
#define	CAP_FCHDIR		CAPRIGHT(0, 0x0000000000000800ULL)
#define	CAP_FCHFLAGS		CAPRIGHT(0, 0x0000000000001000ULL)
#define	CAP_CHFLAGSAT		(CAP_FCHFLAGS | CAP_LOOKUP)
#define	CAP_FCHMOD		CAPRIGHT(0, 0x0000000000002000ULL)
#define	CAP_FCHMODAT		(CAP_FCHMOD | CAP_LOOKUP)
#define	CAP_FCHOWN		CAPRIGHT(0, 0x0000000000004000ULL)
#define	CAP_FCHOWNAT		(CAP_FCHOWN | CAP_LOOKUP)
#define	CAP_FCNTL		CAPRIGHT(0, 0x0000000000008000ULL)
#define	CAP_FLOCK		CAPRIGHT(0, 0x0000000000010000ULL)
#define	CAP_FPATHCONF		CAPRIGHT(0, 0x0000000000020000ULL)
#define	CAP_FSCK		CAPRIGHT(0, 0x0000000000040000ULL)
#define	CAP_FSTAT		CAPRIGHT(0, 0x0000000000080000ULL)
#define	CAP_FSTATAT		(CAP_FSTAT | CAP_LOOKUP)
#define	CAP_FSTATFS		CAPRIGHT(0, 0x0000000000100000ULL)
#define	CAP_FUTIMES		CAPRIGHT(0, 0x0000000000200000ULL)
#define	CAP_FUTIMESAT		(CAP_FUTIMES | CAP_LOOKUP)
#define	CAP_LINKAT_TARGET	(CAP_LOOKUP | 0x0000000000400000ULL)
#define	CAP_MKDIRAT		(CAP_LOOKUP | 0x0000000000800000ULL)
#define	CAP_MKFIFOAT		(CAP_LOOKUP | 0x0000000001000000ULL)
#define	CAP_MKNODAT		(CAP_LOOKUP | 0x0000000002000000ULL)
#define	CAP_RENAMEAT_SOURCE	(CAP_LOOKUP | 0x0000000004000000ULL)
#define	CAP_SYMLINKAT		(CAP_LOOKUP | 0x0000000008000000ULL)
#define	CAP_UNLINKAT		(CAP_LOOKUP | 0x0000000010000000ULL)

/* Socket operations. */
#define	CAP_ACCEPT		CAPRIGHT(0, 0x0000000020000000ULL)
#define	CAP_BIND		CAPRIGHT(0, 0x0000000040000000ULL)
#define	CAP_CONNECT		CAPRIGHT(0, 0x0000000080000000ULL)
#define	CAP_GETPEERNAME		CAPRIGHT(0, 0x0000000100000000ULL)
#define	CAP_GETSOCKNAME		CAPRIGHT(0, 0x0000000200000000ULL)
#define	CAP_GETSOCKOPT		CAPRIGHT(0, 0x0000000400000000ULL)
#define	CAP_LISTEN		CAPRIGHT(0, 0x0000000800000000ULL)
#define	CAP_PEELOFF		CAPRIGHT(0, 0x0000001000000000ULL)
#define	CAP_RECV		CAP_READ
#define	CAP_SEND		CAP_WRITE
#define	CAP_SETSOCKOPT		CAPRIGHT(0, 0x0000002000000000ULL)
#define	CAP_SHUTDOWN		CAPRIGHT(0, 0x0000004000000000ULL)
#define	CAP_BINDAT		(CAP_LOOKUP | 0x0000008000000000ULL)
#define	CAP_CONNECTAT		(CAP_LOOKUP | 0x0000010000000000ULL)
#define	CAP_LINKAT_SOURCE	(CAP_LOOKUP | 0x0000020000000000ULL)
#define	CAP_RENAMEAT_TARGET	(CAP_LOOKUP | 0x0000040000000000ULL)

#define	CAP_SOCK_CLIENT							\
	(CAP_CONNECT | CAP_GETPEERNAME | CAP_GETSOCKNAME | CAP_GETSOCKOPT | \
	 CAP_PEELOFF | CAP_RECV | CAP_SEND | CAP_SETSOCKOPT | CAP_SHUTDOWN)
#define	CAP_SOCK_SERVER							\
	(CAP_ACCEPT | CAP_BIND | CAP_GETPEERNAME | CAP_GETSOCKNAME |	\
	 CAP_GETSOCKOPT | CAP_LISTEN | CAP_PEELOFF | CAP_RECV | CAP_SEND | \
	 CAP_SETSOCKOPT | CAP_SHUTDOWN)

/* All used bits for index 0.  FreeBSD also names the unused ones. */
#define	CAP_ALL0		CAPRIGHT(0, 0x000007FFFFFFFFFFULL)

/* INDEX 1: Mandatory Access Control. */
#define	CAP_MAC_GET		CAPRIGHT(1, 0x0000000000000001ULL)
#define	CAP_MAC_SET		CAPRIGHT(1, 0x0000000000000002ULL)

/* Methods on semaphores. */
#define	CAP_SEM_GETVALUE	CAPRIGHT(1, 0x0000000000000004ULL)
#define	CAP_SEM_POST		CAPRIGHT(1, 0x0000000000000008ULL)
#define	CAP_SEM_WAIT		CAPRIGHT(1, 0x0000000000000010ULL)

/* select(2), poll(2) and kevent(2). */
#define	CAP_EVENT		CAPRIGHT(1, 0x0000000000000020ULL)
#define	CAP_KQUEUE_EVENT	CAPRIGHT(1, 0x0000000000000040ULL)

/* Strange and powerful rights that should not be given lightly. */
#define	CAP_IOCTL		CAPRIGHT(1, 0x0000000000000080ULL)
#define	CAP_TTYHOOK		CAPRIGHT(1, 0x0000000000000100ULL)

/* Process management via process descriptors. */
#define	CAP_PDGETPID		CAPRIGHT(1, 0x0000000000000200ULL)
#define	CAP_PDWAIT		CAPRIGHT(1, 0x0000000000000400ULL)
#define	CAP_PDKILL		CAPRIGHT(1, 0x0000000000000800ULL)

/* Extended attributes. */
#define	CAP_EXTATTR_DELETE	CAPRIGHT(1, 0x0000000000001000ULL)
#define	CAP_EXTATTR_GET		CAPRIGHT(1, 0x0000000000002000ULL)
#define	CAP_EXTATTR_LIST	CAPRIGHT(1, 0x0000000000004000ULL)
#define	CAP_EXTATTR_SET		CAPRIGHT(1, 0x0000000000008000ULL)

/* Access Control Lists. */
#define	CAP_ACL_CHECK		CAPRIGHT(1, 0x0000000000010000ULL)
#define	CAP_ACL_DELETE		CAPRIGHT(1, 0x0000000000020000ULL)
#define	CAP_ACL_GET		CAPRIGHT(1, 0x0000000000040000ULL)
#define	CAP_ACL_SET		CAPRIGHT(1, 0x0000000000080000ULL)

#define	CAP_KQUEUE_CHANGE	CAPRIGHT(1, 0x0000000000100000ULL)
#define	CAP_KQUEUE		(CAP_KQUEUE_EVENT | CAP_KQUEUE_CHANGE)

/*
 * inotify(2), FreeBSD 15.0.  XXX: these two values and the CAP_ALL1 that
 * covers them are from memory; before them CAP_ALL1 was 0x1FFFFF.
 */
#define	CAP_INOTIFY_ADD		CAPRIGHT(1, 0x0000000000200000ULL)
#define	CAP_INOTIFY_RM		CAPRIGHT(1, 0x0000000000400000ULL)

/* All used bits for index 1. */
#define	CAP_ALL1		CAPRIGHT(1, 0x00000000007FFFFFULL)

/* Backward compatibility. */
#define	CAP_POLL_EVENT		CAP_EVENT

#define	CAP_ALL(rights)		do {					\
	(rights)->cr_rights[0] =					\
	    ((uint64_t)CAP_RIGHTS_VERSION << __CAP_VERSION_SHIFT) |	\
	    CAP_ALL0;							\
	(rights)->cr_rights[1] = CAP_ALL1;				\
} while (0)

#define	CAP_NONE(rights)	do {					\
	(rights)->cr_rights[0] =					\
	    ((uint64_t)CAP_RIGHTS_VERSION << __CAP_VERSION_SHIFT) |	\
	    CAPRIGHT(0, 0ULL);						\
	(rights)->cr_rights[1] = CAPRIGHT(1, 0ULL);			\
} while (0)

#define	CAPRVER(right)		((int)((right) >> __CAP_VERSION_SHIFT))
#define	CAPVER(rights)		CAPRVER((rights)->cr_rights[0])
#define	CAPARSIZE(rights)	(CAPVER(rights) + 2)
#define	CAPIDXBIT(right)						\
	((int)(((right) >> __CAP_INDEX_SHIFT) & __CAP_INDEX_MASK))

/*
 * Allowed fcntl(2) commands, as (1 << F_*) with FreeBSD's command numbers
 * (F_GETFL 3, F_SETFL 4, F_GETOWN 5, F_SETOWN 6).  Linux numbers F_GETOWN
 * and F_SETOWN 9 and 8, but no kernel here ever reads the mask.
 */
#define	CAP_FCNTL_GETFL		(1 << 3)
#define	CAP_FCNTL_SETFL		(1 << 4)
#define	CAP_FCNTL_GETOWN	(1 << 5)
#define	CAP_FCNTL_SETOWN	(1 << 6)
#define	CAP_FCNTL_ALL		(CAP_FCNTL_GETFL | CAP_FCNTL_SETFL |	\
				 CAP_FCNTL_GETOWN | CAP_FCNTL_SETOWN)

/* FreeBSD says SSIZE_MAX, which strict ISO C modes hide in <limits.h>. */
#define	CAP_IOCTLS_ALL		((ssize_t)(SIZE_MAX >> 1))

#define	cap_rights_init(...)						\
	__cap_rights_init(CAP_RIGHTS_VERSION, __VA_ARGS__, 0ULL)
#define	cap_rights_set(...)						\
	__cap_rights_set(__VA_ARGS__, 0ULL)
#define	cap_rights_clear(...)						\
	__cap_rights_clear(__VA_ARGS__, 0ULL)
#define	cap_rights_is_set(...)						\
	__cap_rights_is_set(__VA_ARGS__, 0ULL)
#define	cap_rights_get(fd, rights)					\
	__cap_rights_get(CAP_RIGHTS_VERSION, (fd), (rights))

/*
 * The word a right belongs in, or -1 if the right is malformed: version
 * bits set, or not exactly one index bit, or an index past the array.
 */
static inline int
__cap_right_to_index(uint64_t _right)
{

	if (CAPRVER(_right) != 0)
		return (-1);
	switch (CAPIDXBIT(_right)) {
	case 1:
		return (0);
	case 2:
		return (1);
	default:
		return (-1);
	}
}

static inline void
__cap_rights_vset(cap_rights_t *_rights, va_list _ap)
{
	uint64_t right;
	int i;

	while ((right = (uint64_t)va_arg(_ap, unsigned long long)) != 0) {
		i = __cap_right_to_index(right);
		if (i >= 0)
			_rights->cr_rights[i] |= right;
	}
}

static inline void
__cap_rights_vclear(cap_rights_t *_rights, va_list _ap)
{
	uint64_t right;
	int i;

	while ((right = (uint64_t)va_arg(_ap, unsigned long long)) != 0) {
		i = __cap_right_to_index(right);
		if (i >= 0)
			_rights->cr_rights[i] &= ~(right & __CAP_RIGHTS_MASK);
	}
}

static inline bool
__cap_rights_is_vset(const cap_rights_t *_rights, va_list _ap)
{
	uint64_t right;
	int i;

	while ((right = (uint64_t)va_arg(_ap, unsigned long long)) != 0) {
		i = __cap_right_to_index(right);
		if (i < 0 || (_rights->cr_rights[i] & right) != right)
			return (false);
	}
	return (true);
}

/*
 * Only version 0 exists, so _version is not read: FreeBSD asserts that it
 * is CAP_RIGHTS_VERSION_00.
 */
static inline cap_rights_t *
__cap_rights_init(int _version, cap_rights_t *_rights, ...)
{
	va_list ap;

	(void)_version;
	CAP_NONE(_rights);
	va_start(ap, _rights);
	__cap_rights_vset(_rights, ap);
	va_end(ap);
	return (_rights);
}

static inline cap_rights_t *
__cap_rights_set(cap_rights_t *_rights, ...)
{
	va_list ap;

	va_start(ap, _rights);
	__cap_rights_vset(_rights, ap);
	va_end(ap);
	return (_rights);
}

static inline cap_rights_t *
__cap_rights_clear(cap_rights_t *_rights, ...)
{
	va_list ap;

	va_start(ap, _rights);
	__cap_rights_vclear(_rights, ap);
	va_end(ap);
	return (_rights);
}

static inline bool
__cap_rights_is_set(const cap_rights_t *_rights, ...)
{
	va_list ap;
	bool ret;

	va_start(ap, _rights);
	ret = __cap_rights_is_vset(_rights, ap);
	va_end(ap);
	return (ret);
}

static inline bool
cap_rights_is_empty(const cap_rights_t *_rights)
{
	cap_rights_t none;
	size_t i;

	CAP_NONE(&none);
	for (i = 0; i < CAP_RIGHTS_VERSION + 2; i++)
		if (_rights->cr_rights[i] != none.cr_rights[i])
			return (false);
	return (true);
}

static inline bool
cap_rights_contains(const cap_rights_t *_big, const cap_rights_t *_little)
{
	size_t i;

	for (i = 0; i < CAP_RIGHTS_VERSION + 2; i++)
		if ((_big->cr_rights[i] & _little->cr_rights[i]) !=
		    _little->cr_rights[i])
			return (false);
	return (true);
}

/*
 * Valid: version 0, no right outside CAP_ALL, and each word carrying the
 * index bit of its own position and no version bits.
 */
static inline bool
cap_rights_is_valid(const cap_rights_t *_rights)
{
	cap_rights_t all;
	size_t i;

	if (CAPVER(_rights) != CAP_RIGHTS_VERSION_00)
		return (false);
	CAP_ALL(&all);
	if (!cap_rights_contains(&all, _rights))
		return (false);
	for (i = 0; i < CAP_RIGHTS_VERSION + 2; i++) {
		if (i > 0 && CAPRVER(_rights->cr_rights[i]) != 0)
			return (false);
		if (__cap_right_to_index(_rights->cr_rights[i]) != (int)i)
			return (false);
	}
	return (true);
}

static inline cap_rights_t *
cap_rights_merge(cap_rights_t *_dst, const cap_rights_t *_src)
{
	size_t i;

	for (i = 0; i < CAP_RIGHTS_VERSION + 2; i++)
		_dst->cr_rights[i] |= _src->cr_rights[i];
	return (_dst);
}

static inline cap_rights_t *
cap_rights_remove(cap_rights_t *_dst, const cap_rights_t *_src)
{
	size_t i;

	for (i = 0; i < CAP_RIGHTS_VERSION + 2; i++)
		_dst->cr_rights[i] &= ~(_src->cr_rights[i] & __CAP_RIGHTS_MASK);
	return (_dst);
}

/*
 * The system calls.  FreeBSD's kernel without CAPABILITY_MODE and
 * CAPABILITIES keeps them as stubs that return ENOSYS before looking at
 * any argument, so a bad descriptor gives ENOSYS too, not EBADF.
 */
static inline int
__cap_enosys(void)
{

	errno = ENOSYS;
	return (-1);
}

/* cap_enter(2): cannot enter capability mode; nothing is sandboxed. */
static inline int
cap_enter(void)
{

	return (__cap_enosys());
}

/* cap_getmode(2): leaves *_modep untouched, as FreeBSD's stub does. */
static inline int
cap_getmode(unsigned int *_modep)
{

	(void)_modep;
	return (__cap_enosys());
}

/*
 * cap_sandboxed(3): false when cap_getmode() fails with ENOSYS, as in
 * FreeBSD's libc.  Unlike FreeBSD's, it leaves errno as it found it.
 */
static inline bool
cap_sandboxed(void)
{
	unsigned int mode;
	int saved;

	saved = errno;
	if (cap_getmode(&mode) != 0) {
		errno = saved;
		return (false);
	}
	return (mode == 1);
}

static inline int
cap_rights_limit(int _fd, const cap_rights_t *_rights)
{

	(void)_fd;
	(void)_rights;
	return (__cap_enosys());
}

static inline int
__cap_rights_get(int _version, int _fd, cap_rights_t *_rights)
{

	(void)_version;
	(void)_fd;
	(void)_rights;
	return (__cap_enosys());
}

static inline int
cap_ioctls_limit(int _fd, const cap_ioctl_t *_cmds, size_t _ncmds)
{

	(void)_fd;
	(void)_cmds;
	(void)_ncmds;
	return (__cap_enosys());
}

static inline ssize_t
cap_ioctls_get(int _fd, cap_ioctl_t *_cmds, size_t _maxcmds)
{

	(void)_fd;
	(void)_cmds;
	(void)_maxcmds;
	return (__cap_enosys());
}

static inline int
cap_fcntls_limit(int _fd, uint32_t _fcntlrights)
{

	(void)_fd;
	(void)_fcntlrights;
	return (__cap_enosys());
}

static inline int
cap_fcntls_get(int _fd, uint32_t *_fcntlrightsp)
{

	(void)_fd;
	(void)_fcntlrightsp;
	return (__cap_enosys());
}

#endif /* !_SYS_CAPSICUM_H_ */
