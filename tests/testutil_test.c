/*-
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Copyright (c) 2026 The libprocdesc authors.
 */

/*
 * The test utilities (testutil.c) themselves: the leak check that T_TC
 * puts around every case fails while a descriptor or a child is left,
 * and passes once they are gone.
 */

#include <sys/procdesc.h>

#include <atf-c.h>
#include <poll.h>
#include <unistd.h>

#include "testutil.h"

/* The leak check itself fails when a test leaks an fd or a child. */
ATF_TC_WITHOUT_HEAD(leakcheck__detects);
ATF_TC_BODY(leakcheck__detects, tc)
{
	struct t_leak l;
	int fd;

	(void)tc;
	t_init();
	t_leak_begin(&l);
	fd = dup(0);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK(t_leak_check(&l) != NULL);
	ATF_REQUIRE(close(fd) == 0);
	ATF_CHECK(t_leak_check(&l) == NULL);
	t_pdfork_pause(&fd, 0);
	ATF_CHECK(t_leak_check(&l) != NULL);
	ATF_REQUIRE(close(fd) == 0);	/* Kills the child. */
	while (t_nchildren() != 0)
		(void)poll(NULL, 0, 1);
	ATF_CHECK(t_leak_check(&l) == NULL);
}

ATF_TP_ADD_TCS(tp)
{

	ATF_TP_ADD_TC(tp, leakcheck__detects);
	return (atf_no_error());
}
