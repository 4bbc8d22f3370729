/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Tests for the Capsicum compatibility headers in compat/include: every
 * capability system call fails with ENOSYS as on a FreeBSD kernel without
 * capability mode, cap_sandboxed() never claims a sandbox, the caph_*
 * helpers turn ENOSYS into success, and the rights-set functions compute
 * FreeBSD's values in both words of a cap_rights_t.  The headers are the
 * whole implementation, so this program links nothing but atf-c.
 */

#define	_POSIX_C_SOURCE	200809L

/* <sys/caprights.h> first: alone, it gives the rights type. */
#include <sys/caprights.h>
#include <sys/capsicum.h>

#include <atf-c.h>
#include <capsicum_helpers.h>
#include <errno.h>
#include <limits.h>
#include <nl_types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Any errno value that the calls under test never set themselves. */
#define	T_ERRNO		EDOM

/* A descriptor number that is never open. */
#define	T_BADFD		(-1)

static const char *t_catopen_name;
static int t_catopen_flag = -1;

/*
 * Takes the place of libc's catopen() for the whole program, so that the
 * caph_cache_catpages case can see what the header asks for.  Nothing
 * else here opens a catalogue.
 */
nl_catd
catopen(const char *name, int flag)
{

	t_catopen_name = name;
	t_catopen_flag = flag;
	errno = ENOENT;
	return ((nl_catd)-1);
}

static void
t_require_words(const cap_rights_t *rights, uint64_t w0, uint64_t w1)
{

	ATF_REQUIRE_MSG(rights->cr_rights[0] == w0,
	    "word 0 is %#jx, want %#jx", (uintmax_t)rights->cr_rights[0],
	    (uintmax_t)w0);
	ATF_REQUIRE_MSG(rights->cr_rights[1] == w1,
	    "word 1 is %#jx, want %#jx", (uintmax_t)rights->cr_rights[1],
	    (uintmax_t)w1);
}

/* The CAP_* constants have FreeBSD's values: an index bit, then the right. */
ATF_TC_WITHOUT_HEAD(constants__encoding);
ATF_TC_BODY(constants__encoding, tc)
{

	ATF_CHECK_EQ(CAP_RIGHTS_VERSION, 0);
	ATF_CHECK_EQ(sizeof(cap_rights_t), 2 * sizeof(uint64_t));
	ATF_CHECK_EQ(CAPRIGHT(0, 0ULL), 0x0200000000000000ULL);
	ATF_CHECK_EQ(CAPRIGHT(1, 0ULL), 0x0400000000000000ULL);
	ATF_CHECK_EQ(CAP_READ, 0x0200000000000001ULL);
	ATF_CHECK_EQ(CAP_WRITE, 0x0200000000000002ULL);
	ATF_CHECK_EQ(CAP_SEEK_TELL, 0x0200000000000004ULL);
	ATF_CHECK_EQ(CAP_SEEK, 0x020000000000000cULL);
	ATF_CHECK_EQ(CAP_PREAD, 0x020000000000000dULL);
	ATF_CHECK_EQ(CAP_PWRITE, 0x020000000000000eULL);
	ATF_CHECK_EQ(CAP_MMAP_RWX, 0x020000000000003fULL);
	ATF_CHECK_EQ(CAP_CREATE, 0x0200000000000040ULL);
	ATF_CHECK_EQ(CAP_FEXECVE, 0x0200000000000080ULL);
	ATF_CHECK_EQ(CAP_FSYNC, 0x0200000000000100ULL);
	ATF_CHECK_EQ(CAP_FTRUNCATE, 0x0200000000000200ULL);
	ATF_CHECK_EQ(CAP_LOOKUP, 0x0200000000000400ULL);
	ATF_CHECK_EQ(CAP_FCHMOD, 0x0200000000002000ULL);
	ATF_CHECK_EQ(CAP_FCHOWN, 0x0200000000004000ULL);
	ATF_CHECK_EQ(CAP_FCNTL, 0x0200000000008000ULL);
	ATF_CHECK_EQ(CAP_FLOCK, 0x0200000000010000ULL);
	ATF_CHECK_EQ(CAP_FSTAT, 0x0200000000080000ULL);
	ATF_CHECK_EQ(CAP_FSTATFS, 0x0200000000100000ULL);
	ATF_CHECK_EQ(CAP_FUTIMES, 0x0200000000200000ULL);
	ATF_CHECK_EQ(CAP_LINKAT_TARGET, 0x0200000000400400ULL);
	ATF_CHECK_EQ(CAP_MKDIRAT, 0x0200000000800400ULL);
	ATF_CHECK_EQ(CAP_RENAMEAT_SOURCE, 0x0200000004000400ULL);
	ATF_CHECK_EQ(CAP_SYMLINKAT, 0x0200000008000400ULL);
	ATF_CHECK_EQ(CAP_UNLINKAT, 0x0200000010000400ULL);
	ATF_CHECK_EQ(CAP_ACCEPT, 0x0200000020000000ULL);
	ATF_CHECK_EQ(CAP_BIND, 0x0200000040000000ULL);
	ATF_CHECK_EQ(CAP_CONNECT, 0x0200000080000000ULL);
	ATF_CHECK_EQ(CAP_GETPEERNAME, 0x0200000100000000ULL);
	ATF_CHECK_EQ(CAP_GETSOCKNAME, 0x0200000200000000ULL);
	ATF_CHECK_EQ(CAP_GETSOCKOPT, 0x0200000400000000ULL);
	ATF_CHECK_EQ(CAP_LISTEN, 0x0200000800000000ULL);
	ATF_CHECK_EQ(CAP_SETSOCKOPT, 0x0200002000000000ULL);
	ATF_CHECK_EQ(CAP_SHUTDOWN, 0x0200004000000000ULL);
	ATF_CHECK_EQ(CAP_RECV, CAP_READ);
	ATF_CHECK_EQ(CAP_SEND, CAP_WRITE);
	ATF_CHECK_EQ(CAP_LINKAT_SOURCE, 0x0200020000000400ULL);
	ATF_CHECK_EQ(CAP_RENAMEAT_TARGET, 0x0200040000000400ULL);
	ATF_CHECK_EQ(CAP_ALL0, 0x020007ffffffffffULL);
	ATF_CHECK_EQ(CAP_EVENT, 0x0400000000000020ULL);
	ATF_CHECK_EQ(CAP_IOCTL, 0x0400000000000080ULL);
	ATF_CHECK_EQ(CAP_PDGETPID, 0x0400000000000200ULL);
	ATF_CHECK_EQ(CAP_PDWAIT, 0x0400000000000400ULL);
	ATF_CHECK_EQ(CAP_PDKILL, 0x0400000000000800ULL);
	ATF_CHECK_EQ(CAP_KQUEUE, 0x0400000000100040ULL);
	ATF_CHECK_EQ(CAP_ALL1, 0x04000000007fffffULL);
}

/* cap_enter fails with ENOSYS: there is no capability mode to enter. */
ATF_TC_WITHOUT_HEAD(cap_enter__enosys);
ATF_TC_BODY(cap_enter__enosys, tc)
{

	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS, cap_enter() == -1);
}

/* cap_getmode fails with ENOSYS and leaves *modep as it was. */
ATF_TC_WITHOUT_HEAD(cap_getmode__enosys);
ATF_TC_BODY(cap_getmode__enosys, tc)
{
	unsigned int mode;

	mode = 42;
	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS, cap_getmode(&mode) == -1);
	ATF_CHECK_EQ(mode, 42U);
}

/* cap_sandboxed is false, even after cap_enter, and leaves errno alone. */
ATF_TC_WITHOUT_HEAD(cap_sandboxed__false);
ATF_TC_BODY(cap_sandboxed__false, tc)
{

	errno = T_ERRNO;
	ATF_CHECK(!cap_sandboxed());
	ATF_CHECK_EQ(errno, T_ERRNO);
	ATF_REQUIRE_ERRNO(ENOSYS, cap_enter() == -1);
	ATF_CHECK(!cap_sandboxed());
}

/* cap_rights_limit fails with ENOSYS, on an open descriptor or a bad one. */
ATF_TC_WITHOUT_HEAD(cap_rights_limit__enosys);
ATF_TC_BODY(cap_rights_limit__enosys, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_READ);
	errno = 0;
	ATF_CHECK_ERRNO(ENOSYS, cap_rights_limit(STDIN_FILENO, &rights) == -1);
	errno = 0;
	ATF_CHECK_ERRNO(ENOSYS, cap_rights_limit(T_BADFD, &rights) == -1);
}

/* cap_rights_get fails with ENOSYS and does not write the rights. */
ATF_TC_WITHOUT_HEAD(cap_rights_get__enosys);
ATF_TC_BODY(cap_rights_get__enosys, tc)
{
	cap_rights_t rights;

	memset(&rights, 0xa5, sizeof(rights));
	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS, cap_rights_get(STDIN_FILENO, &rights) == -1);
	t_require_words(&rights, 0xa5a5a5a5a5a5a5a5ULL, 0xa5a5a5a5a5a5a5a5ULL);
}

/* cap_ioctls_limit fails with ENOSYS. */
ATF_TC_WITHOUT_HEAD(cap_ioctls_limit__enosys);
ATF_TC_BODY(cap_ioctls_limit__enosys, tc)
{
	const cap_ioctl_t cmds[] = { TIOCGWINSZ };

	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS,
	    cap_ioctls_limit(STDIN_FILENO, cmds, 1) == -1);
}

/* cap_ioctls_get fails with ENOSYS. */
ATF_TC_WITHOUT_HEAD(cap_ioctls_get__enosys);
ATF_TC_BODY(cap_ioctls_get__enosys, tc)
{
	cap_ioctl_t cmds[1];

	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS, cap_ioctls_get(STDIN_FILENO, cmds, 1) == -1);
}

/* cap_fcntls_limit fails with ENOSYS. */
ATF_TC_WITHOUT_HEAD(cap_fcntls_limit__enosys);
ATF_TC_BODY(cap_fcntls_limit__enosys, tc)
{

	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS,
	    cap_fcntls_limit(STDIN_FILENO, CAP_FCNTL_GETFL) == -1);
}

/* cap_fcntls_get fails with ENOSYS. */
ATF_TC_WITHOUT_HEAD(cap_fcntls_get__enosys);
ATF_TC_BODY(cap_fcntls_get__enosys, tc)
{
	uint32_t fcntls;

	errno = 0;
	ATF_REQUIRE_ERRNO(ENOSYS, cap_fcntls_get(STDIN_FILENO, &fcntls) == -1);
}

/* caph_enter returns 0 when cap_enter fails with ENOSYS, errno kept. */
ATF_TC_WITHOUT_HEAD(caph_enter__zero);
ATF_TC_BODY(caph_enter__zero, tc)
{

	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_enter(), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
	ATF_CHECK(!cap_sandboxed());
}

/* caph_enter_casper returns 0: without Casper it is FreeBSD's no-op. */
ATF_TC_WITHOUT_HEAD(caph_enter_casper__zero);
ATF_TC_BODY(caph_enter_casper__zero, tc)
{

	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_enter_casper(), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
}

/* caph_rights_limit returns 0 on ENOSYS, errno kept, even for a bad fd. */
ATF_TC_WITHOUT_HEAD(caph_rights_limit__zero);
ATF_TC_BODY(caph_rights_limit__zero, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_READ, CAP_EVENT);
	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_rights_limit(STDIN_FILENO, &rights), 0);
	ATF_CHECK_EQ(caph_rights_limit(T_BADFD, &rights), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
}

/* caph_ioctls_limit returns 0 on ENOSYS, errno kept. */
ATF_TC_WITHOUT_HEAD(caph_ioctls_limit__zero);
ATF_TC_BODY(caph_ioctls_limit__zero, tc)
{
	const unsigned long cmds[] = { TIOCGWINSZ };

	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_ioctls_limit(STDIN_FILENO, cmds, 1), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
}

/* caph_fcntls_limit returns 0 on ENOSYS, errno kept. */
ATF_TC_WITHOUT_HEAD(caph_fcntls_limit__zero);
ATF_TC_BODY(caph_fcntls_limit__zero, tc)
{

	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_fcntls_limit(STDIN_FILENO, CAP_FCNTL_ALL), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
}

/* caph_limit_stream returns 0 for every flag set, open fd or not. */
ATF_TC_WITHOUT_HEAD(caph_limit_stream__zero);
ATF_TC_BODY(caph_limit_stream__zero, tc)
{
	int fds[2], flags;

	ATF_REQUIRE_MSG(pipe(fds) == 0, "pipe: %s", strerror(errno));
	for (flags = 0; flags <= (CAPH_IGNORE_EBADF | CAPH_READ | CAPH_WRITE |
	    CAPH_LOOKUP); flags++) {
		errno = T_ERRNO;
		ATF_CHECK_EQ_MSG(caph_limit_stream(fds[0], flags), 0,
		    "flags %#x", flags);
		ATF_CHECK_EQ_MSG(caph_limit_stream(T_BADFD, flags), 0,
		    "flags %#x on a bad fd", flags);
		ATF_CHECK_EQ_MSG(errno, T_ERRNO, "flags %#x", flags);
	}
	ATF_REQUIRE(close(fds[0]) == 0);
	ATF_REQUIRE(close(fds[1]) == 0);
}

/* caph_limit_stdin, _stdout, _stderr and _stdio return 0, errno kept. */
ATF_TC_WITHOUT_HEAD(caph_limit_stdio__zero);
ATF_TC_BODY(caph_limit_stdio__zero, tc)
{

	errno = T_ERRNO;
	ATF_CHECK_EQ(caph_limit_stdin(), 0);
	ATF_CHECK_EQ(caph_limit_stdout(), 0);
	ATF_CHECK_EQ(caph_limit_stderr(), 0);
	ATF_CHECK_EQ(caph_limit_stdio(), 0);
	ATF_CHECK_EQ(errno, T_ERRNO);
}

/* caph_cache_tzdata loads the time zone named by TZ, as tzset does. */
ATF_TC_WITHOUT_HEAD(caph_cache_tzdata__tzset);
ATF_TC_BODY(caph_cache_tzdata__tzset, tc)
{

	ATF_REQUIRE(setenv("TZ", "XYZ-5", 1) == 0);
	caph_cache_tzdata();
	ATF_CHECK_STREQ(tzname[0], "XYZ");
}

/* caph_cache_catpages opens the "libc" catalogue with NL_CAT_LOCALE. */
ATF_TC_WITHOUT_HEAD(caph_cache_catpages__catopen);
ATF_TC_BODY(caph_cache_catpages__catopen, tc)
{

	caph_cache_catpages();
	ATF_REQUIRE(t_catopen_name != NULL);
	ATF_CHECK_STREQ(t_catopen_name, "libc");
	ATF_CHECK_EQ(t_catopen_flag, NL_CAT_LOCALE);
}

/*
 * ENOTCAPABLE and ECAPMODE: two values, neither one the C library knows,
 * so neither a Linux errno on this architecture.
 */
ATF_TC_WITHOUT_HEAD(errno__capsicum_values);
ATF_TC_BODY(errno__capsicum_values, tc)
{
	static const int v[] = { ENOTCAPABLE, ECAPMODE };
	char unknown[32];
	size_t i;

	ATF_CHECK(ENOTCAPABLE != ECAPMODE);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
#ifdef __GLIBC__
		snprintf(unknown, sizeof(unknown), "Unknown error %d", v[i]);
#else
		/* musl: one text for every errno it does not know. */
		snprintf(unknown, sizeof(unknown), "%s", strerror(INT_MAX));
#endif
		ATF_CHECK_STREQ_MSG(strerror(v[i]), unknown,
		    "%d is an errno of the C library's", v[i]);
	}
}

/* cap_rights_init gives version 0, both index bits and the listed rights. */
ATF_TC_WITHOUT_HEAD(cap_rights_init__words);
ATF_TC_BODY(cap_rights_init__words, tc)
{
	cap_rights_t rights;

	memset(&rights, 0xff, sizeof(rights));
	ATF_REQUIRE(cap_rights_init(&rights) == &rights);
	t_require_words(&rights, 0x0200000000000000ULL, 0x0400000000000000ULL);
	cap_rights_init(&rights, CAP_PREAD, CAP_FSTAT, CAP_EVENT, CAP_PDKILL);
	t_require_words(&rights, 0x020000000008000dULL, 0x0400000000000820ULL);
}

/* cap_rights_set adds rights to either word and keeps what was there. */
ATF_TC_WITHOUT_HEAD(cap_rights_set__both_words);
ATF_TC_BODY(cap_rights_set__both_words, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_READ);
	ATF_REQUIRE(cap_rights_set(&rights, CAP_WRITE, CAP_PDGETPID,
	    CAP_KQUEUE) == &rights);
	t_require_words(&rights, 0x0200000000000003ULL, 0x0400000000100240ULL);
	cap_rights_set(&rights, CAP_WRITE);
	t_require_words(&rights, 0x0200000000000003ULL, 0x0400000000100240ULL);
}

/* cap_rights_clear removes exactly the named rights and keeps index bits. */
ATF_TC_WITHOUT_HEAD(cap_rights_clear__both_words);
ATF_TC_BODY(cap_rights_clear__both_words, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_PREAD, CAP_WRITE, CAP_EVENT, CAP_PDKILL,
	    CAP_PDWAIT);
	ATF_REQUIRE(cap_rights_clear(&rights, CAP_SEEK, CAP_PDKILL) ==
	    &rights);
	t_require_words(&rights, 0x0200000000000003ULL, 0x0400000000000420ULL);
	cap_rights_clear(&rights, CAP_READ, CAP_WRITE, CAP_EVENT, CAP_PDWAIT);
	t_require_words(&rights, 0x0200000000000000ULL, 0x0400000000000000ULL);
	ATF_CHECK(cap_rights_is_valid(&rights));
}

/* cap_rights_is_set is true only if every bit of every listed right is set. */
ATF_TC_WITHOUT_HEAD(cap_rights_is_set__all_bits);
ATF_TC_BODY(cap_rights_is_set__all_bits, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_READ, CAP_MMAP, CAP_EVENT, CAP_IOCTL);
	ATF_CHECK(cap_rights_is_set(&rights, CAP_READ));
	ATF_CHECK(cap_rights_is_set(&rights, CAP_EVENT));
	ATF_CHECK(cap_rights_is_set(&rights, CAP_READ, CAP_MMAP, CAP_EVENT,
	    CAP_IOCTL));
	ATF_CHECK(!cap_rights_is_set(&rights, CAP_WRITE));
	ATF_CHECK(!cap_rights_is_set(&rights, CAP_PDKILL));
	ATF_CHECK(!cap_rights_is_set(&rights, CAP_READ, CAP_PDKILL));
	/* CAP_MMAP_R is CAP_MMAP | CAP_SEEK | CAP_READ; CAP_SEEK is missing. */
	ATF_CHECK(!cap_rights_is_set(&rights, CAP_MMAP_R));
	ATF_CHECK(cap_rights_is_set(&rights));
}

/* cap_rights_is_empty is true only for a value with no right in either word. */
ATF_TC_WITHOUT_HEAD(cap_rights_is_empty__none);
ATF_TC_BODY(cap_rights_is_empty__none, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights);
	ATF_CHECK(cap_rights_is_empty(&rights));
	cap_rights_set(&rights, CAP_PDWAIT);
	ATF_CHECK(!cap_rights_is_empty(&rights));
	cap_rights_init(&rights, CAP_LOOKUP);
	ATF_CHECK(!cap_rights_is_empty(&rights));
	cap_rights_clear(&rights, CAP_LOOKUP);
	ATF_CHECK(cap_rights_is_empty(&rights));
}

/*
 * cap_rights_is_valid accepts version 0 with each word's own index bit and
 * rights within CAP_ALL, and rejects anything else.
 */
ATF_TC_WITHOUT_HEAD(cap_rights_is_valid__encoding);
ATF_TC_BODY(cap_rights_is_valid__encoding, tc)
{
	cap_rights_t rights;
	uint64_t w;

	cap_rights_init(&rights, CAP_READ, CAP_EVENT);
	ATF_CHECK(cap_rights_is_valid(&rights));
	CAP_ALL(&rights);
	ATF_CHECK(cap_rights_is_valid(&rights));
	CAP_NONE(&rights);
	ATF_CHECK(cap_rights_is_valid(&rights));

	memset(&rights, 0, sizeof(rights));
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_READ, CAP_EVENT);
	w = rights.cr_rights[0];
	rights.cr_rights[0] = rights.cr_rights[1];
	rights.cr_rights[1] = w;
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_READ);
	rights.cr_rights[0] |= 1ULL << 62;
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_READ);
	rights.cr_rights[1] |= 1ULL << 62;
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_READ);
	rights.cr_rights[0] |= 1ULL << 58;
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_READ);
	rights.cr_rights[0] |= 1ULL << 43;
	ATF_CHECK(!cap_rights_is_valid(&rights));

	cap_rights_init(&rights, CAP_EVENT);
	rights.cr_rights[1] |= 1ULL << 23;
	ATF_CHECK(!cap_rights_is_valid(&rights));
}

/* cap_rights_merge adds every right of src to dst, in both words. */
ATF_TC_WITHOUT_HEAD(cap_rights_merge__union);
ATF_TC_BODY(cap_rights_merge__union, tc)
{
	cap_rights_t dst, src;

	cap_rights_init(&dst, CAP_READ, CAP_EVENT);
	cap_rights_init(&src, CAP_WRITE, CAP_FSTAT, CAP_PDGETPID);
	ATF_REQUIRE(cap_rights_merge(&dst, &src) == &dst);
	t_require_words(&dst, 0x0200000000080003ULL, 0x0400000000000220ULL);
	t_require_words(&src, 0x0200000000080002ULL, 0x0400000000000200ULL);
	ATF_CHECK(cap_rights_is_valid(&dst));
}

/* cap_rights_remove takes src's rights out of dst and keeps dst valid. */
ATF_TC_WITHOUT_HEAD(cap_rights_remove__difference);
ATF_TC_BODY(cap_rights_remove__difference, tc)
{
	cap_rights_t dst, src;

	cap_rights_init(&dst, CAP_PREAD, CAP_FSTAT, CAP_EVENT, CAP_PDKILL);
	cap_rights_init(&src, CAP_SEEK, CAP_WRITE, CAP_PDKILL);
	ATF_REQUIRE(cap_rights_remove(&dst, &src) == &dst);
	t_require_words(&dst, 0x0200000000080001ULL, 0x0400000000000020ULL);
	ATF_CHECK(cap_rights_is_valid(&dst));
	cap_rights_remove(&dst, &dst);
	ATF_CHECK(cap_rights_is_empty(&dst));
	ATF_CHECK(cap_rights_is_valid(&dst));
}

/* cap_rights_contains is true when little's rights are a subset of big's. */
ATF_TC_WITHOUT_HEAD(cap_rights_contains__subset);
ATF_TC_BODY(cap_rights_contains__subset, tc)
{
	cap_rights_t all, big, little, none;

	CAP_ALL(&all);
	cap_rights_init(&none);
	cap_rights_init(&big, CAP_READ, CAP_WRITE, CAP_EVENT, CAP_PDWAIT);
	cap_rights_init(&little, CAP_READ, CAP_PDWAIT);
	ATF_CHECK(cap_rights_contains(&big, &little));
	ATF_CHECK(!cap_rights_contains(&little, &big));
	ATF_CHECK(cap_rights_contains(&big, &big));
	ATF_CHECK(cap_rights_contains(&big, &none));
	ATF_CHECK(!cap_rights_contains(&none, &big));
	ATF_CHECK(cap_rights_contains(&all, &big));
	cap_rights_set(&little, CAP_PDKILL);
	ATF_CHECK(!cap_rights_contains(&big, &little));
}

/*
 * A malformed right (no valid single index bit) changes nothing and is
 * never set; FreeBSD's libc would assert instead.
 */
ATF_TC_WITHOUT_HEAD(cap_rights_set__malformed_ignored);
ATF_TC_BODY(cap_rights_set__malformed_ignored, tc)
{
	cap_rights_t rights;

	cap_rights_init(&rights, CAP_READ);
	cap_rights_set(&rights, CAP_WRITE | CAP_EVENT, 0x4ULL,
	    CAPRIGHT(2, 0x1ULL));
	t_require_words(&rights, 0x0200000000000001ULL, 0x0400000000000000ULL);
	cap_rights_clear(&rights, CAP_READ | CAP_EVENT);
	t_require_words(&rights, 0x0200000000000001ULL, 0x0400000000000000ULL);
	ATF_CHECK(!cap_rights_is_set(&rights, 0x1ULL));
	ATF_CHECK(!cap_rights_is_set(&rights, CAP_READ | CAP_EVENT));
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, constants__encoding);
	ATF_TP_ADD_TC(tp, errno__capsicum_values);
	ATF_TP_ADD_TC(tp, cap_enter__enosys);
	ATF_TP_ADD_TC(tp, cap_getmode__enosys);
	ATF_TP_ADD_TC(tp, cap_sandboxed__false);
	ATF_TP_ADD_TC(tp, cap_rights_limit__enosys);
	ATF_TP_ADD_TC(tp, cap_rights_get__enosys);
	ATF_TP_ADD_TC(tp, cap_ioctls_limit__enosys);
	ATF_TP_ADD_TC(tp, cap_ioctls_get__enosys);
	ATF_TP_ADD_TC(tp, cap_fcntls_limit__enosys);
	ATF_TP_ADD_TC(tp, cap_fcntls_get__enosys);
	ATF_TP_ADD_TC(tp, caph_enter__zero);
	ATF_TP_ADD_TC(tp, caph_enter_casper__zero);
	ATF_TP_ADD_TC(tp, caph_rights_limit__zero);
	ATF_TP_ADD_TC(tp, caph_ioctls_limit__zero);
	ATF_TP_ADD_TC(tp, caph_fcntls_limit__zero);
	ATF_TP_ADD_TC(tp, caph_limit_stream__zero);
	ATF_TP_ADD_TC(tp, caph_limit_stdio__zero);
	ATF_TP_ADD_TC(tp, caph_cache_tzdata__tzset);
	ATF_TP_ADD_TC(tp, caph_cache_catpages__catopen);
	ATF_TP_ADD_TC(tp, cap_rights_init__words);
	ATF_TP_ADD_TC(tp, cap_rights_set__both_words);
	ATF_TP_ADD_TC(tp, cap_rights_clear__both_words);
	ATF_TP_ADD_TC(tp, cap_rights_is_set__all_bits);
	ATF_TP_ADD_TC(tp, cap_rights_is_empty__none);
	ATF_TP_ADD_TC(tp, cap_rights_is_valid__encoding);
	ATF_TP_ADD_TC(tp, cap_rights_merge__union);
	ATF_TP_ADD_TC(tp, cap_rights_remove__difference);
	ATF_TP_ADD_TC(tp, cap_rights_contains__subset);
	ATF_TP_ADD_TC(tp, cap_rights_set__malformed_ignored);

	return (atf_no_error());
}
