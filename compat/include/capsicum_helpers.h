/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * FreeBSD's <capsicum_helpers.h> (lib/libcapsicum) for ported code.  The
 * caph_* helpers treat ENOSYS as success, exactly as FreeBSD's do, so a
 * program that sandboxes itself keeps running where the kernel has no
 * capability mode; any other error is returned as -1 with errno set.
 * With <sys/capsicum.h> from this tree every cap_* call fails with ENOSYS,
 * so these helpers succeed without limiting anything: they never make a
 * sandbox, they only let code written for one run without it.
 *
 * Invariants: every helper is static inline, so nothing needs linking;
 * a helper that returns 0 leaves errno as it found it (FreeBSD's leave the
 * ENOSYS behind; no caller can tell, since errno means nothing on success).
 */

#ifndef __CAPSICUM_HELPERS_H__
#define	__CAPSICUM_HELPERS_H__

#include <sys/capsicum.h>
#include <sys/ioctl.h>

#include <errno.h>
#include <nl_types.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/*
 * Strict ISO C modes hide tzset() in glibc's <time.h>; declare it as
 * POSIX does.
 */
#if !defined(__cplusplus) && defined(__GLIBC__) && !defined(__USE_POSIX)
extern void tzset(void);
#endif

#define	CAPH_IGNORE_EBADF	0x0001
#define	CAPH_READ		0x0002
#define	CAPH_WRITE		0x0004
#define	CAPH_LOOKUP		0x0008

/*
 * Returns 0 if the cap_* call that returned _ret succeeded or failed with
 * ENOSYS, restoring errno to _saved in that case; -1 otherwise.
 */
static inline int
__caph_result(int _ret, int _saved)
{

	if (_ret < 0 && errno != ENOSYS)
		return (-1);
	errno = _saved;
	return (0);
}

static inline void
caph_stream_rights(cap_rights_t *_rights, int _flags)
{

	cap_rights_init(_rights, CAP_EVENT, CAP_FCNTL, CAP_FSTAT,
	    CAP_IOCTL, CAP_SEEK);
	if ((_flags & CAPH_READ) != 0)
		cap_rights_set(_rights, CAP_READ);
	if ((_flags & CAPH_WRITE) != 0)
		cap_rights_set(_rights, CAP_WRITE);
	if ((_flags & CAPH_LOOKUP) != 0)
		cap_rights_set(_rights, CAP_LOOKUP);
}

/*
 * Limits a stdio stream's descriptor to what stdio needs.  FreeBSD allows
 * TIOCGETA, TIOCGWINSZ and FIODTYPE; TCGETS is Linux's TIOCGETA, and
 * Linux has no FIODTYPE.
 */
static inline int
caph_limit_stream(int _fd, int _flags)
{
	const cap_ioctl_t cmds[] = {
#if defined(TIOCGETA)
		TIOCGETA,
#elif defined(TCGETS)
		TCGETS,
#endif
		TIOCGWINSZ,
#ifdef FIODTYPE
		FIODTYPE,
#endif
	};
	cap_rights_t rights;
	int saved;

	saved = errno;
	caph_stream_rights(&rights, _flags);
	if (cap_rights_limit(_fd, &rights) < 0 && errno != ENOSYS) {
		if (errno == EBADF && (_flags & CAPH_IGNORE_EBADF) != 0) {
			errno = saved;
			return (0);
		}
		return (-1);
	}
	if (__caph_result(cap_ioctls_limit(_fd, cmds,
	    sizeof(cmds) / sizeof(cmds[0])), saved) != 0)
		return (-1);
	return (__caph_result(cap_fcntls_limit(_fd, CAP_FCNTL_GETFL), saved));
}

static inline int
caph_limit_stdin(void)
{

	return (caph_limit_stream(STDIN_FILENO, CAPH_READ));
}

static inline int
caph_limit_stderr(void)
{

	return (caph_limit_stream(STDERR_FILENO, CAPH_WRITE));
}

static inline int
caph_limit_stdout(void)
{

	return (caph_limit_stream(STDOUT_FILENO, CAPH_WRITE));
}

static inline int
caph_limit_stdio(void)
{
	const int iebadf = CAPH_IGNORE_EBADF;

	if (caph_limit_stream(STDIN_FILENO, CAPH_READ | iebadf) == -1 ||
	    caph_limit_stream(STDOUT_FILENO, CAPH_WRITE | iebadf) == -1 ||
	    caph_limit_stream(STDERR_FILENO, CAPH_WRITE | iebadf) == -1)
		return (-1);
	return (0);
}

/* Loads the time zone data before a sandbox would hide /usr/share. */
static inline void
caph_cache_tzdata(void)
{

	tzset();
}

/* Opens libc's message catalogue, as FreeBSD does, and keeps it open. */
static inline void
caph_cache_catpages(void)
{

	(void)catopen("libc", NL_CAT_LOCALE);
}

static inline int
caph_enter(void)
{
	int saved;

	saved = errno;
	return (__caph_result(cap_enter(), saved));
}

/*
 * There is no Casper here, so this is FreeBSD built WITHOUT_CASPER
 * (CASPER_SUPPORT 0): success without entering capability mode.
 */
static inline int
caph_enter_casper(void)
{

	return (0);
}

static inline int
caph_rights_limit(int _fd, const cap_rights_t *_rights)
{
	int saved;

	saved = errno;
	return (__caph_result(cap_rights_limit(_fd, _rights), saved));
}

static inline int
caph_ioctls_limit(int _fd, const cap_ioctl_t *_cmds, size_t _ncmds)
{
	int saved;

	saved = errno;
	return (__caph_result(cap_ioctls_limit(_fd, _cmds, _ncmds), saved));
}

static inline int
caph_fcntls_limit(int _fd, uint32_t _fcntlrights)
{
	int saved;

	saved = errno;
	return (__caph_result(cap_fcntls_limit(_fd, _fcntlrights), saved));
}

#endif /* !__CAPSICUM_HELPERS_H__ */
