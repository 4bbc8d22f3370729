/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * pdfork under a program that builds fork() on pdfork(), as Capsicum
 * sandbox shims do, and pdfork called from its own pthread_atfork
 * handlers: it neither calls itself nor deadlocks.  A program of its own:
 * the fork() below replaces libc's for every case here, so no case uses
 * testutil's kernel probe (it forks); the leak check runs as everywhere.
 */

#include <sys/procdesc.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int shim_fd = -1;	/* The descriptor of the shim's last child. */
static int shim_calls;

/* A sandbox shim's fork(): a child with a descriptor, as on FreeBSD. */
pid_t
fork(void)
{
	pid_t pid;
	int fd;

	shim_calls++;
	if ((pid = pdfork(&fd, PD_CLOEXEC)) > 0)
		shim_fd = fd;
	return (pid);
}

/*
 * Under a sanitizer pdfork calls fork() through the sanitizer's
 * interceptor (lib/fork.c), which this program's fork() replaces: nothing
 * here can run.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define	I_SKIP_UNDER_SAN()	atf_tc_skip("this program's fork() replaces " \
	"the sanitizer's, which pdfork calls under a sanitizer")
#else
#define	I_SKIP_UNDER_SAN()	((void)0)
#endif

/* A case with the leak check, without t_init()'s probe (it forks). */
#define	I_TC(name, descr)						\
	static void name##_body(void);					\
	ATF_TC(name);							\
	ATF_TC_HEAD(name, tc)						\
	{								\
		atf_tc_set_md_var(tc, "descr", descr);			\
	}								\
	ATF_TC_BODY(name, tc)						\
	{								\
		struct t_leak l;					\
									\
		(void)tc;						\
		I_SKIP_UNDER_SAN();					\
		t_start_guardian();					\
		t_leak_begin(&l);					\
		name##_body();						\
		t_leak_end(&l);						\
	}								\
	static void name##_body(void)

/*
 * A program whose fork() calls pdfork(): the program's fork works, once,
 * and pdfork reaches libc's fork, not the program's.
 */
I_TC(interpose__fork_on_pdfork, "a fork() built on pdfork() works")
{
	int status;
	pid_t pid;

	shim_calls = 0;
	pid = fork();
	if (pid == 0)
		_exit(7);
	ATF_REQUIRE_MSG(pid > 0, "fork: %s", strerror(errno));
	ATF_CHECK_EQ(shim_calls, 1);
	ATF_REQUIRE(pdwait(shim_fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	ATF_REQUIRE(close(shim_fd) == 0);
	shim_fd = -1;
}

static bool atfork_armed;
static int atfork_ret, atfork_errno;

static void
atfork_prepare(void)
{
	int fd;

	if (!atfork_armed)
		return;
	atfork_armed = false;
	atfork_ret = (int)pdfork(&fd, 0);
	atfork_errno = errno;
	if (atfork_ret == 0)
		_exit(0);
}

/*
 * pdfork from a pthread_atfork handler of pdfork's own fork fails with
 * EDEADLK at once; the outer pdfork goes on.
 */
I_TC(interpose__atfork_reentry, "pdfork in an atfork handler: EDEADLK")
{
	int fd, status;
	pid_t pid;

	ATF_REQUIRE(pthread_atfork(atfork_prepare, NULL, NULL) == 0);
	atfork_armed = true;
	pid = pdfork(&fd, 0);
	if (pid == 0)
		_exit(3);
	ATF_REQUIRE_MSG(pid > 0, "pdfork: %s", strerror(errno));
	ATF_CHECK_EQ(atfork_ret, -1);
	ATF_CHECK_EQ(atfork_errno, EDEADLK);
	ATF_REQUIRE(pdwait(fd, &status, WEXITED, NULL, NULL) == 0);
	ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	ATF_REQUIRE(close(fd) == 0);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, interpose__fork_on_pdfork);
	ATF_TP_ADD_TC(tp, interpose__atfork_reentry);
	return (atf_no_error());
}
