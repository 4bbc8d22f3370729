/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The library loaded and unloaded by a plugin (NOTES 2.17): a host not
 * linked with it, tests/dlopen_helper, dlopens tests/dlopen_plugin.so and
 * dlcloses it 1,000 times, with children alive across the cycles, and
 * neither crashes nor leaks; the library stays mapped (-z nodelete).
 * And the same host's own waits follow FreeBSD's rules once
 * libprocdesc-preload.so is preloaded into it (NOTES 2.18), and the C
 * library's without.
 */

#include <sys/wait.h>

#include <atf-c.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/*
 * Run tests/dlopen_helper with arg, libprocdesc-preload.so preloaded or
 * not; its exit status.
 */
static int
dl_helper(const atf_tc_t *tc, const char *arg, bool preload)
{
	char helper[PATH_MAX], plugin[PATH_MAX], obj[PATH_MAX], so[PATH_MAX];
	char asan[1024];
	const char *dir, *old;
	pid_t pid;
	int status;

	dir = atf_tc_get_config_var(tc, "srcdir");
	snprintf(helper, sizeof(helper), "%s/dlopen_helper", dir);
	snprintf(plugin, sizeof(plugin), "%s/dlopen_plugin.so", dir);
	snprintf(obj, sizeof(obj), "%s", T_GUARDIAN);
	snprintf(so, sizeof(so), "%s/libprocdesc-preload.so", dirname(obj));
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		if (preload) {
			/* The build tree's library is in no search path. */
			(void)setenv("LD_LIBRARY_PATH", obj, 1);
			(void)setenv("LD_PRELOAD", so, 1);
			/* ASan wants its run time first; it may come second. */
			old = getenv("ASAN_OPTIONS");
			snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0",
			    old != NULL ? old : "", old != NULL ? ":" : "");
			(void)setenv("ASAN_OPTIONS", asan, 1);
		}
		execl(helper, "dlopen_helper", plugin, arg, (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(!WIFEXITED(status) || WEXITSTATUS(status) != 127,
	    "%s did not run", helper);
	ATF_REQUIRE_MSG(WIFEXITED(status), "the host: status %#x, killed by "
	    "a signal", status);
	return (WEXITSTATUS(status));
}

T_TC(dlopen__cycles, "1,000 dlopen and dlclose of a plugin that pdforks, "
    "children alive across them: no crash, no leak")
{

	ATF_CHECK_EQ_MSG(dl_helper(tc, "1000", false), 0,
	    "the host failed (see stderr)");
}

T_TC(dlopen__waits_preload, "with libprocdesc-preload.so preloaded, a "
    "host not linked with the library never reaps a pdfork child in "
    "waitpid(-1)")
{

#ifndef __GLIBC__
	atf_tc_skip("libprocdesc-preload.so is for glibc's versioned "
	    "symbols; musl has none, and the preload would reach the "
	    "system's glibc programs the helper runs (NOTES 2.18)");
#endif
	ATF_CHECK_EQ_MSG(dl_helper(tc, "waits", true), 0,
	    "the host's own wait took its plugin's pdfork child, or failed "
	    "(see stdout and stderr)");
}

/* The control: the preload is what makes the difference. */
T_TC(dlopen__waits_without_preload, "without it, the C library's "
    "waitpid(-1) in such a host reaps an exec'd pdfork child")
{

	ATF_CHECK_EQ_MSG(dl_helper(tc, "waits", false), 2,
	    "the host's wait did not take the child (see stdout)");
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, dlopen__cycles);
	ATF_TP_ADD_TC(tp, dlopen__waits_preload);
	ATF_TP_ADD_TC(tp, dlopen__waits_without_preload);
	return (atf_no_error());
}
