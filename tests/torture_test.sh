#! /usr/bin/env atf-sh
# shellcheck shell=sh
#
# SPDX-License-Identifier: BSD-2-Clause
#
# Copyright (c) 2026 The libprocdesc authors.
#
# The torture test (tests/torture, built from tests/torture_src/) for
# 5 s, as part of the suite; CI runs it for a minute under each
# sanitizer.  Its output names the seed that replays a failure:
# ./tests/torture -S seed.

atf_test_case torture
torture_head()
{
	atf_set descr "Four threads mix every call of the library with fork," \
	    "vfork, posix_spawn, system and popen under a 2 ms timer for 5 s:" \
	    "every status right, no child, zombie or descriptor left"
}
torture_body()
{

	top=$(cd "$(atf_get_srcdir)/.." && pwd)
	[ -x "$top/tests/torture" ] || atf_fail "tests/torture missing: make tests"
	LIBPROCDESC_GUARDIAN=$top/obj/procdesc-guardian
	# Under TSan: the handler's pdfork calls malloc, on purpose.
	TSAN_OPTIONS="report_signal_unsafe=0${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
	export LIBPROCDESC_GUARDIAN TSAN_OPTIONS
	atf_check -s exit:0 -o match:'^torture: ok$' -e empty \
	    "$top/tests/torture" -s 5
}

atf_init_test_cases()
{

	atf_add_test_case torture
}
