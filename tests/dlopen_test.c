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
 */

#include <sys/wait.h>

#include <atf-c.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

T_TC(dlopen__cycles, "1,000 dlopen and dlclose of a plugin that pdforks, "
    "children alive across them: no crash, no leak")
{
	char helper[PATH_MAX], plugin[PATH_MAX];
	const char *dir;
	pid_t pid;
	int status;

	dir = atf_tc_get_config_var(tc, "srcdir");
	snprintf(helper, sizeof(helper), "%s/dlopen_helper", dir);
	snprintf(plugin, sizeof(plugin), "%s/dlopen_plugin.so", dir);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		execl(helper, "dlopen_helper", plugin, "1000", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(!WIFEXITED(status) || WEXITSTATUS(status) != 127,
	    "%s did not run", helper);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the host: status %#x%s (see stderr)", status,
	    WIFSIGNALED(status) ? ", killed by a signal" : "");
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, dlopen__cycles);
	return (atf_no_error());
}
