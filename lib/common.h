/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * What every file of the library, and the guardian program, shares:
 * attributes, the monotonic clock and its units.  No state, no calls
 * into any other file (liburing's lib.h: utilities only).
 */

#ifndef _PROCDESC_COMMON_H_
#define	_PROCDESC_COMMON_H_

#include <stdint.h>
#include <time.h>

#define	PROCDESC_HIDDEN	__attribute__((visibility("hidden")))
/*
 * Thread-local, without a call to find it (signal handlers read it, and
 * glibc's __tls_get_addr may allocate).  musl refuses to dlopen an object
 * with initial-exec TLS, and allocates dynamic TLS up front (at dlopen and
 * at thread creation), so its lookup is async-signal-safe already.
 */
#ifdef __GLIBC__
#define	PROCDESC_TLS	__thread __attribute__((tls_model("initial-exec")))
#else
#define	PROCDESC_TLS	__thread
#endif

/*
 * Code that runs inside the C library's fork(), where a thread sanitizer
 * holds its own locks (its fork handler): not instrumented, and calling
 * nothing a sanitizer intercepts (no memset or memcpy; compat/syscall.h's
 * raw wrappers only).
 */
#if __has_attribute(disable_sanitizer_instrumentation)
#define	PROCDESC_NOSAN	__attribute__((disable_sanitizer_instrumentation))
#else
#define	PROCDESC_NOSAN	__attribute__((no_sanitize("thread")))
#endif

/* Built with a thread or an address sanitizer (GCC and clang say it apart). */
#if defined(__SANITIZE_THREAD__)
#define	PROCDESC_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define	PROCDESC_TSAN	1
#endif
#endif
#ifndef PROCDESC_TSAN
#define	PROCDESC_TSAN	0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define	PROCDESC_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define	PROCDESC_ASAN	1
#endif
#endif
#ifndef PROCDESC_ASAN
#define	PROCDESC_ASAN	0
#endif

/* Units of the CLOCK_MONOTONIC nanoseconds the library counts in. */
#define	PROCDESC_NS_PER_S	1000000000LL
#define	PROCDESC_NS_PER_MS	1000000LL

/* The exit status of a child whose exec failed: the shell's, glibc's. */
#define	PROCDESC_EXIT_NOEXEC	127

/* CLOCK_MONOTONIC in nanoseconds: no change of the date moves it. */
static inline int64_t
procdesc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * PROCDESC_NS_PER_S + ts.tv_nsec);
}

/* The CLOCK_MONOTONIC time ns from now, as a timespec. */
static inline void
procdesc_deadline(struct timespec *ts, int64_t ns)
{
	int64_t t;

	t = procdesc_now() + ns;
	ts->tv_sec = (time_t)(t / PROCDESC_NS_PER_S);
	ts->tv_nsec = (long)(t % PROCDESC_NS_PER_S);
}

#endif /* !_PROCDESC_COMMON_H_ */
