#! /usr/bin/env atf-sh
# shellcheck shell=sh
#
# SPDX-License-Identifier: BSD-2-Clause
#
# Copyright (c) 2026 The libprocdesc authors.
#
# <sys/procdesc.h> compiles without a warning (-Wall -Wextra -Wpedantic
# -Werror) in every language standard, with and without _GNU_SOURCE, in
# each include mode:
#	alone	the header on its own
#	after	after <sys/wait.h> and <signal.h>
#	overlay	under pkg-config --cflags libbsd-overlay, once before and
#		once after libbsd's overlay headers (<sys/cdefs.h> ...)
# One case per compiler, standard, _GNU_SOURCE setting and mode, named
# <compiler>_<std>_<plain|gnu>_<mode>; "xx" stands for "++".

# compiler:standard
T_COMBOS="gcc:c99 gcc:c11 gcc:c17 gcc:c2x clang:c99 clang:c11 clang:c17
clang:c2x g++:c++17 clang++:c++17"
T_MODES="alone after overlay"
T_CASES=

# Declarations with their exact FreeBSD types, every flag and the
# struct: a missing or changed declaration is an error or a warning.
t_body()
{

	cat <<'EOF'
pid_t (*t_pdfork)(int *, int) = pdfork;
pid_t (*t_pdrfork)(int *, int, int) = pdrfork;
int (*t_pdgetpid)(int, pid_t *) = pdgetpid;
int (*t_pdkill)(int, int) = pdkill;
int (*t_pdwait)(int, int *, int, struct __wrusage *, siginfo_t *) = pdwait;
int (*t_pdopenpid)(pid_t, int) = pdopenpid;
int (*t_pddupfd)(int, int, int) = pddupfd;

int t_use(void);

int
t_use(void)
{
	struct __wrusage wru;
	siginfo_t si;
	unsigned long rf;

	rf = RFFDG | RFPROC | RFCFDG | RFSTOPPED | RFHIGHPID | RFPROCDESC |
	    RFSPAWN;
	wru.wru_self.ru_utime.tv_sec = 1;
	wru.wru_children = wru.wru_self;
	si.si_pid = 2;
	return ((int)(rf >> 31) + PD_DAEMON + PD_CLOEXEC + PD_NOWAITPID +
	    PD_ALLOWED_AT_FORK + (int)wru.wru_children.ru_utime.tv_sec +
	    (int)si.si_pid);
}
EOF
}

# t_check compiler std plain|gnu mode
t_check()
{
	cc=$1 std=$2 gnu=$3 mode=$4

	command -v "$cc" >/dev/null || atf_skip "$cc is not installed"
	top=$(cd "$(atf_get_srcdir)/.." && pwd)
	set -- "-std=$std" -Wall -Wextra -Wpedantic -Werror -I"$top/include"
	[ "$gnu" = gnu ] && set -- "$@" -D_GNU_SOURCE
	case $cc in
	*++)	ext=cc ;;
	*)	ext=c ;;
	esac
	case $mode in
	alone)
		{
			echo '#include <sys/procdesc.h>'
			t_body
		} >"t.$ext"
		;;
	after)
		{
			echo '#include <sys/wait.h>'
			echo '#include <signal.h>'
			echo '#include <sys/procdesc.h>'
			t_body
		} >"t.$ext"
		;;
	overlay)
		pkg-config --exists libbsd-overlay ||
		    atf_skip "libbsd-overlay is not installed"
		# shellcheck disable=SC2046
		set -- "$@" $(pkg-config --cflags libbsd-overlay)
		{
			echo '#include <sys/procdesc.h>'
			echo '#include <sys/cdefs.h>'
			echo '#include <sys/param.h>'
			echo '#include <sys/wait.h>'
			echo '#include <stdlib.h>'
			echo '#include <string.h>'
			t_body
		} >"first.$ext"
		atf_check -s exit:0 -o empty -e empty \
		    "$cc" "$@" -c -o first.o "first.$ext"
		{
			echo '#include <sys/cdefs.h>'
			echo '#include <sys/types.h>'
			echo '#include <sys/param.h>'
			echo '#include <sys/wait.h>'
			echo '#include <signal.h>'
			echo '#include <stdlib.h>'
			echo '#include <string.h>'
			echo '#include <sys/procdesc.h>'
			t_body
		} >"t.$ext"
		;;
	esac
	atf_check -s exit:0 -o empty -e empty "$cc" "$@" -c -o t.o "t.$ext"
}

for t_combo in $T_COMBOS; do
	t_cc=${t_combo%%:*}
	t_std=${t_combo#*:}
	for t_gnu in plain gnu; do
		for t_mode in $T_MODES; do
			t_name=$(echo "${t_cc}_${t_std}_${t_gnu}_${t_mode}" |
			    sed 's/+/x/g')
			T_CASES="$T_CASES $t_name"
			atf_test_case "$t_name"
			eval "${t_name}_head() {
				atf_set descr '<sys/procdesc.h> compiles' \
				    'warning-free with $t_cc -std=$t_std,' \
				    '$t_gnu, $t_mode'
			}
			${t_name}_body() {
				t_check '$t_cc' '$t_std' '$t_gnu' '$t_mode'
			}"
		done
	done
done

atf_init_test_cases()
{

	for t_name in $T_CASES; do
		atf_add_test_case "$t_name"
	done
}
