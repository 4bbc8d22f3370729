#! /usr/bin/env atf-sh
# shellcheck shell=sh
#
# SPDX-License-Identifier: BSD-2-Clause
#
# Copyright (c) 2026 The libprocdesc authors.
#
# The programs of examples/ against their references: pdiff3 against GNU
# diff3 -E/-e, pdpager against pr, pdtimeout against GNU timeout.  Inputs
# are made in the case's work directory; the programs are built by
# "make examples" (a prerequisite of "make tests").

# Sets T_EX to the examples directory and points the library at the
# tree's guardian.
t_setup()
{

	top=$(cd "$(atf_get_srcdir)/.." && pwd)
	T_EX=$top/examples
	for p in pdiff3 pdpager pdtimeout; do
		[ -x "$T_EX/$p" ] || atf_fail "$T_EX/$p missing: make examples"
	done
	LIBPROCDESC_GUARDIAN=$top/obj/procdesc-guardian
	export LIBPROCDESC_GUARDIAN
}

# t_same_diff3 flag mine older yours: identical output and exit status.
t_same_diff3()
{

	diff3 "$@" >ref.out 2>ref.err
	ref=$?
	"$T_EX/pdiff3" "$@" >out 2>err
	got=$?
	atf_check_equal "$ref" "$got"
	atf_check -s exit:0 -o empty diff -u ref.out out
	if [ "$ref" -eq 2 ]; then
		atf_check -s exit:0 -o not-empty cat err
	else
		atf_check -s exit:0 -o empty cat err
	fi
}

t_lines()
{

	printf '%s\n' "$@"
}

atf_test_case pdiff3_conflict
pdiff3_conflict_head()
{
	atf_set descr "pdiff3 -E brackets adjacent changes as diff3 -E does" \
	    "and exits 1"
}
pdiff3_conflict_body()
{

	t_setup
	t_lines a b c d e >older
	t_lines a B c d e >mine
	t_lines a b C d e >yours
	t_same_diff3 -E mine older yours
	atf_check_equal 1 "$got"
	t_same_diff3 -e mine older yours
}

atf_test_case pdiff3_merge
pdiff3_merge_head()
{
	atf_set descr "pdiff3 -E and -e print diff3's ed script for changes," \
	    "insertions, deletions, same changes on both sides, dot lines"
}
pdiff3_merge_body()
{

	t_setup
	t_lines 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 >older
	# mine: change 2, delete 6, insert after 10, same change as yours
	# at 15, conflicting change at 18-19.
	t_lines 1 two 3 4 5 7 8 9 10 ten-and-a-half 11 12 13 14 fifteen \
	    16 17 eighteen nineteen 20 >mine
	# yours: change 4, insert dot lines after 12, delete 13-14, same
	# change at 15, conflict at 18, append at the end.
	t_lines 1 2 3 four 5 6 7 8 9 10 11 12 .dot . 15 16 17 EIGHTEEN \
	    19 20 twenty-one >yours
	sed -i 's/^15$/fifteen/' yours
	t_same_diff3 -E mine older yours
	t_same_diff3 -e mine older yours
	# The other way round, and with older as one side.
	t_same_diff3 -E yours older mine
	t_same_diff3 -E older older yours
	t_same_diff3 -E mine older older
	t_same_diff3 -E mine yours older
}

atf_test_case pdiff3_identical
pdiff3_identical_head()
{
	atf_set descr "pdiff3 prints nothing and exits 0 for identical files," \
	    "as diff3 does"
}
pdiff3_identical_body()
{

	t_setup
	t_lines a b c >older
	cp older mine
	cp older yours
	t_same_diff3 -E mine older yours
	atf_check_equal 0 "$got"
	: >empty
	t_same_diff3 -E empty empty empty
}

atf_test_case pdiff3_missing
pdiff3_missing_head()
{
	atf_set descr "pdiff3 exits 2 with a message for a missing file," \
	    "as diff3 does"
}
pdiff3_missing_body()
{

	t_setup
	t_lines a >older
	t_lines b >mine
	t_same_diff3 -E mine older missing
	atf_check_equal 2 "$got"
	t_same_diff3 -E missing older mine
}

# Replaces pr's date and time (first field pair of a header) with DATE.
t_nodate()
{

	sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}/DATE/' "$1"
}

atf_test_case pdpager_files
pdpager_files_head()
{
	atf_set descr "pdpager -t f1 f2 prints what cat f1 f2 | pr -t prints"
}
pdpager_files_body()
{

	t_setup
	seq 1 150 >f1
	t_lines alpha beta gamma >f2
	cat f1 f2 | pr -t >ref
	atf_check -s exit:0 -o file:ref -e empty "$T_EX/pdpager" -t f1 f2
	pr -t <f2 >ref2
	atf_check -s exit:0 -o file:ref2 -e empty "$T_EX/pdpager" -t <f2
}

atf_test_case pdpager_header
pdpager_header_head()
{
	atf_set descr "pdpager -h -l prints pr's pages, headers included"
}
pdpager_header_body()
{

	t_setup
	seq 1 100 >f1
	pr -h title -l 30 <f1 >ref
	"$T_EX/pdpager" -h title -l 30 f1 >out 2>err
	atf_check_equal 0 $?
	atf_check -s exit:0 -o empty cat err
	t_nodate ref >ref.n
	t_nodate out >out.n
	atf_check -s exit:0 -o empty diff -u ref.n out.n
	atf_check -s exit:0 -o match:'Page 4' cat out
}

atf_test_case pdpager_status
pdpager_status_head()
{
	atf_set descr "pdpager reports a filter's exit status or signal and" \
	    "exits with it"
}
pdpager_status_body()
{

	t_setup
	seq 1 100000 >big
	printf '#! /bin/sh\ncat >/dev/null\nexit 3\n' >fail3
	printf '#! /bin/sh\nkill -TERM $$\n' >term
	chmod +x fail3 term
	atf_check -s exit:3 -o empty -e match:'fail3: exited with status 3' \
	    "$T_EX/pdpager" -P ./fail3 big
	# The filter dies before reading: pdpager must not die of SIGPIPE.
	atf_check -s exit:143 -o empty \
	    -e match:'term: killed by signal 15 \(Terminated\)' \
	    "$T_EX/pdpager" -P ./term big
	atf_check -s exit:127 -o empty -e match:'nonexistent' \
	    "$T_EX/pdpager" -P ./nonexistent big
}

# t_same_status args...: pdtimeout and timeout exit alike; sets ref/got.
t_same_status()
{

	timeout "$@" >ref.out 2>ref.err </dev/null
	ref=$?
	"$T_EX/pdtimeout" "$@" >out 2>err </dev/null
	got=$?
	atf_check_equal "$ref" "$got"
	atf_check -s exit:0 -o empty diff -u ref.out out
}

atf_test_case pdtimeout_status
pdtimeout_status_head()
{
	atf_set descr "pdtimeout exits with the command's status, or 125," \
	    "126, 127 for its own errors, as timeout does"
}
pdtimeout_status_body()
{

	t_setup
	printf 'not a program\n' >noexec
	chmod -x noexec
	t_same_status 5 true
	atf_check_equal 0 "$got"
	t_same_status 5 false
	t_same_status 5 sh -c 'echo out; exit 7'
	atf_check_equal 7 "$got"
	t_same_status 5 ./nonexistent
	atf_check_equal 127 "$got"
	t_same_status 5 ./noexec
	atf_check_equal 126 "$got"
	t_same_status abc true
	atf_check_equal 125 "$got"
	t_same_status 5
	atf_check_equal 125 "$got"
	t_same_status 0 sh -c 'exit 4'
	t_same_status 1m true
}

atf_test_case pdtimeout_expire
pdtimeout_expire_head()
{
	atf_set descr "pdtimeout kills a command that outlives the limit with" \
	    "SIGTERM and exits 124, as timeout does"
}
pdtimeout_expire_body()
{

	t_setup
	start=$(date +%s)
	t_same_status 0.5 sh -c 'exec sleep 60'
	atf_check_equal 124 "$got"
	[ $(($(date +%s) - start)) -lt 20 ] || atf_fail "took too long"
	# The command is gone when pdtimeout returns.
	"$T_EX/pdtimeout" 0.5 sh -c 'echo $$ >pid; exec sleep 60'
	atf_check_equal 124 $?
	atf_check -s not-exit:0 -e ignore kill -0 "$(cat pid)"
	# A command that handles SIGTERM and goes on exiting 0: still 124.
	t_same_status 0.5 sh -c \
	    'trap "exit 0" TERM; while :; do sleep 0.1; done'
	atf_check_equal 124 "$got"
}

atf_test_case pdtimeout_signal
pdtimeout_signal_head()
{
	atf_set descr "pdtimeout dies of the signal that killed the command," \
	    "as timeout does"
}
pdtimeout_signal_body()
{

	t_setup
	t_same_status 5 sh -c 'kill -TERM $$'
	atf_check_equal 143 "$got"
	t_same_status 5 sh -c 'kill -INT $$'
	atf_check_equal 130 "$got"
}

atf_test_case pdtimeout_io
pdtimeout_io_head()
{
	atf_set descr "pdtimeout leaves the command's standard input and" \
	    "output alone"
}
pdtimeout_io_body()
{

	t_setup
	seq 1 5000 >in
	atf_check -s exit:0 -o file:in -e empty "$T_EX/pdtimeout" 10 cat <in
}

atf_init_test_cases()
{

	atf_add_test_case pdiff3_conflict
	atf_add_test_case pdiff3_merge
	atf_add_test_case pdiff3_identical
	atf_add_test_case pdiff3_missing
	atf_add_test_case pdpager_files
	atf_add_test_case pdpager_header
	atf_add_test_case pdpager_status
	atf_add_test_case pdtimeout_status
	atf_add_test_case pdtimeout_expire
	atf_add_test_case pdtimeout_signal
	atf_add_test_case pdtimeout_io
}
