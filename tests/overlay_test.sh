#! /usr/bin/env atf-sh
# shellcheck shell=sh
#
# SPDX-License-Identifier: BSD-2-Clause
#
# Copyright (c) 2026 The libprocdesc authors.
#
# The <spawn.h> overlay (include/procdesc-overlay): unchanged FreeBSD
# source that spawns with posix_spawnattr_setprocdescp_np(3) compiles
# through it with each compiler and language mode and runs; so does the
# man page's example; the header alone is warning-free in every standard,
# C++ included; the installed overlay works through pkg-config; and
# without the overlay <spawn.h> stays the system's.  Everything is
# written into the case's work directory.

t_top()
{

	(cd "$(atf_get_srcdir)/.." && pwd)
}

# Flags a program needs to link the tree's library: a sanitizer's if the
# library was built with one (then gcc only, whose run time it is).
t_san()
{

	if nm -D "$(t_top)/obj/libprocdesc.so" | grep -q __asan_; then
		echo "-fsanitize=address,undefined"
	elif nm -D "$(t_top)/obj/libprocdesc.so" | grep -q __tsan_; then
		echo "-fsanitize=thread"
	fi
}

# The FreeBSD program: as FreeBSD code spawns a helper (rcd(8) and
# diff(1) do so), with nothing for Linux.  It spawns sh through PATH in
# "/" with its fd 3 on a pipe, waits for it by its descriptor, then fails
# to spawn a missing program.
t_write_freebsd_prog()
{

	cat >prog.c <<'EOF'
#include <sys/types.h>
#include <sys/procdesc.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int
start(const char *prog, int in, int out, int *pdp)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t mask, def;
	char *argv[] = { "sh", "-c", "pwd; exec cat <&3", NULL };
	pid_t pid;
	int error;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 3);
	posix_spawn_file_actions_addclose(&fa, out);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	posix_spawn_file_actions_addclosefrom_np(&fa, 4);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setprocdescp_np(&attr, pdp, PD_CLOEXEC);
	sigemptyset(&mask);
	posix_spawnattr_setsigmask(&attr, &mask);
	sigfillset(&def);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr,
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	error = posix_spawnp(&pid, prog, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return (error);
}

int
main(void)
{
	int error, p[2], pd, status;

	if (pipe(p) == -1)
		err(1, "pipe");
	fflush(stdout);
	if ((error = start("sh", p[0], p[1], &pd)) != 0)
		errx(1, "sh: %s", strerror(error));
	close(p[0]);
	if (write(p[1], "through fd 3\n", 13) != 13)
		err(1, "write");
	close(p[1]);
	if (pdwait(pd, &status, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	close(pd);
	printf("status %d\n", WEXITSTATUS(status));
	pd = -1;
	error = start("t-no-such-program", 0, 1, &pd);
	printf("%s, pd %d\n", strerror(error), pd);
	return (0);
}
EOF
	printf '/\nthrough fd 3\nstatus 0\nNo such file or directory, pd -1\n' \
	    >expected
}

# t_freebsd compiler std: build prog.c as pkg-config would, run it.
t_freebsd()
{
	cc=$1 std=$2

	command -v "$cc" >/dev/null || atf_skip "$cc is not installed"
	san=$(t_san)
	[ -n "$san" ] && [ "$cc" != gcc ] && atf_skip "the library was" \
	    "built with a sanitizer: gcc only"
	top=$(t_top)
	t_write_freebsd_prog
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty "$cc" "-std=$std" -Wall \
	    -Wextra -Werror $san -isystem "$top/include/procdesc-overlay" \
	    -I"$top/include" -o prog prog.c -L"$top/obj" \
	    -Wl,-rpath,"$top/obj" -lprocdesc
	atf_check -s exit:0 -o file:expected -e empty env \
	    LIBPROCDESC_GUARDIAN="$top/obj/procdesc-guardian" ./prog
}

T_CASES=
for c in gcc clang; do
	for s in gnu99 gnu11 gnu17; do
		T_CASES="$T_CASES freebsd_${c}_$s"
		eval "atf_test_case freebsd_${c}_$s
freebsd_${c}_${s}_head()
{
	atf_set descr \"FreeBSD source spawning with a descriptor builds\" \\
	    \"with $c -std=$s through the overlay and runs\"
}
freebsd_${c}_${s}_body()
{
	t_freebsd $c $s
}"
	done
done

atf_test_case man_example
man_example_head()
{
	atf_set descr "The example of posix_spawnattr_setprocdescp_np(3)" \
	    "builds through the overlay and runs"
}
man_example_body()
{

	command -v pr >/dev/null || atf_skip "pr(1) is not installed"
	top=$(t_top)
	san=$(t_san)
	# The literal display of EXAMPLES, with mdoc's \e as a backslash.
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /{/^\.Bd -literal/,/^\.Ed/p}' \
	    "$top/man/posix_spawnattr_setprocdescp_np.3" |
	    sed -e '/^\.Bd/d' -e '/^\.Ed/d' -e 's/\\e/\\/g' >example.c
	atf_check -s exit:0 -o match:pdwait cat example.c
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty gcc -std=gnu11 -Wall -Werror \
	    -Wno-unused-result $san \
	    -isystem "$top/include/procdesc-overlay" -I"$top/include" \
	    -o example example.c -L"$top/obj" -Wl,-rpath,"$top/obj" \
	    -lprocdesc
	atf_check -s exit:0 -o match:hello -e empty env \
	    LIBPROCDESC_GUARDIAN="$top/obj/procdesc-guardian" ./example
}

# Every declaration with its type; a changed one is an error or a warning.
t_header_body()
{

	cat <<'EOF'
#include <sys/procdesc.h>
#include <spawn.h>

int (*t_set)(const posix_spawnattr_t *, int *, int) =
    posix_spawnattr_setprocdescp_np;
int (*t_get)(const posix_spawnattr_t *, int **, int *) =
    posix_spawnattr_getprocdescp_np;
int (*t_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const [], char *const []) = posix_spawn;
int (*t_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const [], char *const []) = posix_spawnp;
int (*t_init)(posix_spawnattr_t *) = posix_spawnattr_init;
int (*t_destroy)(posix_spawnattr_t *) = posix_spawnattr_destroy;
int (*t_getflags)(const posix_spawnattr_t *, short *) =
    posix_spawnattr_getflags;
int (*t_setflags)(posix_spawnattr_t *, short) = posix_spawnattr_setflags;
int (*t_getpgroup)(const posix_spawnattr_t *, pid_t *) =
    posix_spawnattr_getpgroup;
int (*t_setpgroup)(posix_spawnattr_t *, pid_t) = posix_spawnattr_setpgroup;
int (*t_getsp)(const posix_spawnattr_t *, struct sched_param *) =
    posix_spawnattr_getschedparam;
int (*t_setsp)(posix_spawnattr_t *, const struct sched_param *) =
    posix_spawnattr_setschedparam;
int (*t_getpol)(const posix_spawnattr_t *, int *) =
    posix_spawnattr_getschedpolicy;
int (*t_setpol)(posix_spawnattr_t *, int) = posix_spawnattr_setschedpolicy;
int (*t_getdef)(const posix_spawnattr_t *, sigset_t *) =
    posix_spawnattr_getsigdefault;
int (*t_setdef)(posix_spawnattr_t *, const sigset_t *) =
    posix_spawnattr_setsigdefault;
int (*t_getmask)(const posix_spawnattr_t *, sigset_t *) =
    posix_spawnattr_getsigmask;
int (*t_setmask)(posix_spawnattr_t *, const sigset_t *) =
    posix_spawnattr_setsigmask;
int (*t_fainit)(posix_spawn_file_actions_t *) = posix_spawn_file_actions_init;
int (*t_fadestroy)(posix_spawn_file_actions_t *) =
    posix_spawn_file_actions_destroy;
int (*t_open)(posix_spawn_file_actions_t *, int, const char *, int, mode_t) =
    posix_spawn_file_actions_addopen;
int (*t_close)(posix_spawn_file_actions_t *, int) =
    posix_spawn_file_actions_addclose;
int (*t_dup2)(posix_spawn_file_actions_t *, int, int) =
    posix_spawn_file_actions_adddup2;
int (*t_chdir)(posix_spawn_file_actions_t *, const char *) =
    posix_spawn_file_actions_addchdir_np;
int (*t_chdir24)(posix_spawn_file_actions_t *, const char *) =
    posix_spawn_file_actions_addchdir;
int (*t_fchdir)(posix_spawn_file_actions_t *, int) =
    posix_spawn_file_actions_addfchdir_np;
int (*t_fchdir24)(posix_spawn_file_actions_t *, int) =
    posix_spawn_file_actions_addfchdir;
int (*t_closefrom)(posix_spawn_file_actions_t *, int) =
    posix_spawn_file_actions_addclosefrom_np;
int (*t_tcsetpgrp)(posix_spawn_file_actions_t *, int) =
    posix_spawn_file_actions_addtcsetpgrp_np;
short t_flags = POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP |
    POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
    POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER;
EOF
}

# t_header compiler std: the header alone, strict, -Werror.
t_header()
{
	cc=$1 std=$2 ext=$3

	command -v "$cc" >/dev/null || atf_skip "$cc is not installed"
	top=$(t_top)
	t_header_body >"t.$ext"
	atf_check -s exit:0 -o empty -e empty "$cc" "-std=$std" -Wall \
	    -Wextra -Wpedantic -Werror -isystem "$top/include/procdesc-overlay" \
	    -I"$top/include" -c -o t.o "t.$ext"
	# C linkage in C++ too: the library's names, unmangled.
	atf_check -s exit:0 -o match:' U procdesc_posix_spawnattr_setprocdescp_np$' \
	    nm t.o
}

for combo in gcc:c99:c gcc:c17:c clang:c11:c g++:c++17:cc clang++:c++17:cc; do
	IFS=: read -r c s e <<EOF
$combo
EOF
	n=$(echo "header_${c}_$s" | sed 's/+/x/g')
	T_CASES="$T_CASES $n"
	eval "atf_test_case $n
${n}_head()
{
	atf_set descr \"The overlay's <spawn.h> declares every call with its\" \\
	    \"type, warning-free under $c -std=$s -Wpedantic\"
}
${n}_body()
{
	t_header $c $s $e
}"
done

atf_test_case installed
installed_head()
{
	atf_set descr "make install's overlay through pkg-config --cflags" \
	    "--libs libprocdesc-overlay builds FreeBSD source that runs"
}
installed_body()
{

	top=$(t_top)
	[ -n "$(t_san)" ] && atf_skip "library built with a sanitizer"
	root=$PWD/root
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" \
	    --no-print-directory install DESTDIR="$root" PREFIX=/usr/local \
	    >make.out 2>&1 || {
		cat make.out >&2
		atf_fail "make install failed"
	}
	export PKG_CONFIG_SYSROOT_DIR="$root"
	export PKG_CONFIG_PATH="$root/usr/local/lib/pkgconfig"
	export LD_LIBRARY_PATH="$root/usr/local/lib"
	export LIBPROCDESC_GUARDIAN="$root/usr/local/libexec/procdesc-guardian"
	flags=$(pkg-config --cflags --libs libprocdesc-overlay) ||
	    atf_fail "pkg-config libprocdesc-overlay failed"
	atf_check -s exit:0 -o match:"procdesc-overlay" echo "$flags"
	t_write_freebsd_prog
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty cc -Wall -Wextra -Werror \
	    -o prog prog.c $flags
	atf_check -s exit:0 -o file:expected -e empty ./prog
}

atf_test_case no_overlay
no_overlay_head()
{
	atf_set descr "Without the overlay <spawn.h> is the system's: no" \
	    "posix_spawnattr_setprocdescp_np, posix_spawn is glibc's"
}
no_overlay_body()
{

	top=$(t_top)
	cat >t.c <<'EOF'
#include <spawn.h>

int
main(void)
{
	posix_spawnattr_t sa;
	int fd;

	posix_spawnattr_init(&sa);
	return (posix_spawnattr_setprocdescp_np(&sa, &fd, 0));
}
EOF
	atf_check -s not-exit:0 -o ignore -e match:setprocdescp_np \
	    cc -Werror -I"$top/include" -c -o t.o t.c
	printf '#include <spawn.h>\nposix_spawnattr_t t_sa;\n' >u.c
	atf_check -s exit:0 -o ignore -e empty cc -E -I"$top/include" \
	    -o u.i u.c
	atf_check -s exit:1 -o empty grep procdesc u.i
}

atf_init_test_cases()
{

	for c in $T_CASES; do
		atf_add_test_case "$c"
	done
	atf_add_test_case man_example
	atf_add_test_case installed
	atf_add_test_case no_overlay
}
