/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * Kernels older than the library needs, faked with a seccomp filter: one
 * without clone3 (before Linux 5.3), one without waitid(P_PIDFD) (5.3).
 * On both, every call of the library fails with ENOSYS, as
 * tests/nokernel_helper checks.
 */

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <atf-c.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

/*
 * Run tests/nokernel_helper (every call must fail with ENOSYS) on a kernel
 * made to look older by seccomp: waitid(P_PIDFD) fails with EINVAL as
 * before Linux 5.4, and without has_clone3 clone3 fails with ENOSYS as
 * before 5.3.
 */
static void
old_kernel(const atf_tc_t *tc, bool has_clone3)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, T_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, has_clone3 ? SECCOMP_RET_ALLOW :
		    SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_waitid, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, P_PIDFD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	char path[PATH_MAX];
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/nokernel_helper",
	    atf_tc_get_config_var(tc, "srcdir"));
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
			_exit(126);
		execl(path, "nokernel_helper", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) < 126,
	    "%s did not run: status %#x", path, status);
	ATF_CHECK_MSG(WEXITSTATUS(status) == 0,
	    "%d calls did not fail with ENOSYS (see stdout)",
	    WEXITSTATUS(status));
}

T_TC(kernel__enosys_without_clone3, "a kernel without clone3 (< 5.3): "
    "every call fails with ENOSYS")
{

	old_kernel(tc, false);
}

T_TC(kernel__enosys_without_waitid_pidfd, "a kernel without "
    "waitid(P_PIDFD) (5.3): every call fails with ENOSYS")
{

	old_kernel(tc, true);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, kernel__enosys_without_clone3);
	ATF_TP_ADD_TC(tp, kernel__enosys_without_waitid_pidfd);
	return (atf_no_error());
}
