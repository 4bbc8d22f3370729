#! /usr/bin/env atf-sh
# shellcheck shell=sh
#
# SPDX-License-Identifier: BSD-2-Clause
#
# Copyright (c) 2026 The libprocdesc authors.
#
# make install/uninstall into a DESTDIR or a PREFIX, programs built
# against the installed tree with nothing but pkg-config, the guardian
# found beside a staged or moved library, the configuration stamp, and
# the ABI of the built libraries.  Everything, make's objects too
# (O=./obj), is written into the case's work directory: the source tree's
# own build, of whatever configuration, is never touched.

# The source tree: atf-sh programs run from tests/.
t_top()
{

	(cd "$(atf_get_srcdir)/.." && pwd)
}

# Runs make on the source tree, building into ./obj, without an outer
# make's jobserver flags; its output goes to make.out.
t_make()
{

	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$(t_top)" \
	    --no-print-directory -j"$(nproc)" O="$PWD/obj" "$@" \
	    >make.out 2>&1 || {
		cat make.out >&2
		atf_fail "make $* failed"
	}
}

# These cases build their own plain copy of the library: under a
# sanitizer build of the tree (CI's ASan run) they would test nothing new.
t_no_sanitizer()
{

	if nm -D "$(t_top)/obj/libprocdesc.so" 2>/dev/null |
	    grep -q -e __asan_ -e __tsan_ -e __ubsan_; then
		atf_skip "library built with a sanitizer"
	fi
}

t_version()
{

	sed -n 's/^VERSION=[[:space:]]*//p' "$(t_top)/Makefile"
}

# Installs into ./root with PREFIX=/usr/local; sets ROOT.
t_install()
{

	ROOT=$PWD/root
	t_make install DESTDIR="$ROOT" PREFIX=/usr/local
}

# Points pkg-config, the dynamic linker and the library at ROOT.
t_stage_env()
{

	PKG_CONFIG_SYSROOT_DIR=$ROOT
	PKG_CONFIG_PATH=$ROOT/usr/local/lib/pkgconfig
	LD_LIBRARY_PATH=$ROOT/usr/local/lib
	LIBPROCDESC_GUARDIAN=$ROOT/usr/local/libexec/procdesc-guardian
	export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH LD_LIBRARY_PATH \
	    LIBPROCDESC_GUARDIAN
	atf_check -s exit:0 -o inline:"$PKG_CONFIG_PATH\n" \
	    pkg-config --variable=pcfiledir libprocdesc
}

# A user's program: fork a child, sandbox (a no-op here), collect it.
t_write_prog()
{

	cat >prog.c <<'EOF'
#include <sys/procdesc.h>
#include <sys/wait.h>
#include <capsicum_helpers.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	int fd, status;
	pid_t pid;

	if ((pid = pdfork(&fd, 0)) == 0)
		_exit(42);
	if (pid == -1 || caph_enter() == -1 ||
	    pdwait(fd, &status, WEXITED, NULL, NULL) == -1)
		return (1);
	printf("%d\n", WEXITSTATUS(status));
	return (0);
}
EOF
}

# Build NAME.c into NAME with pkg-config's flags for libprocdesc; with
# --static as the second argument, linked -static (glibc's static link
# warns on stderr, which is let pass then).
t_cc_pkg()
{
	flags=$(pkg-config ${2:+"$2"} --cflags --libs libprocdesc) ||
	    atf_fail "pkg-config $* libprocdesc failed"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e "$([ -n "${2:-}" ] && echo ignore ||
	    echo empty)" cc -Wall -Werror ${2:+-static} -o "$1" "$1.c" $flags
}

# A FreeBSD 15 program, unchanged: it waits for and signals its pdfork
# children by pid, as code written before pdwait does (a C++ process
# library's launcher does exactly this), and expects wait(2) to see none
# of them.  Prints "42".
t_write_freebsd15_prog()
{

	cat >fbsd15.c <<'EOF'
#include <sys/types.h>
#include <sys/procdesc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	struct rusage ru;
	int fd, fd2, status;
	pid_t pid;

	if ((pid = pdfork(&fd, PD_DAEMON | PD_CLOEXEC)) == 0) {
		execlp("sleep", "sleep", "100", (char *)NULL);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &status, WNOHANG) != 0 ||
	    kill(pid, SIGTERM) != 0)
		return (1);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGTERM)
		return (2);
	if ((pid = pdfork(&fd2, PD_CLOEXEC)) == 0)
		_exit(42);
	if (pid == -1 || wait(&status) != -1 || errno != ECHILD)
		return (3);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status))
		return (4);
	printf("%d\n", WEXITSTATUS(status));
	close(fd);
	close(fd2);
	return (0);
}
EOF
}

# A user's program that needs its guardian for all it does
# (tests/guardian_prog.c), into the case's directory.  Prints "42 killed".
t_write_guardian_prog()
{

	cp "$(t_top)/tests/guardian_prog.c" prog.c
}

# Runs a program through env(1) with the arguments given, but never with
# LIBPROCDESC_GUARDIAN: the library has to find its guardian itself.
t_run_noenv()
{

	atf_check -s exit:0 -o inline:"42 killed\n" -e empty \
	    env -u LIBPROCDESC_GUARDIAN "$@"
}

# The files install writes, with "-> target" for symbolic links.
t_expected_layout()
{

	v=$(t_version)
	cat <<EOF
usr/local/include/capsicum_helpers.h
usr/local/include/procdesc-overlay/spawn.h
usr/local/include/sys/caprights.h
usr/local/include/sys/capsicum.h
usr/local/include/sys/procdesc.h
usr/local/lib/libprocdesc.a
usr/local/lib/libprocdesc.so -> libprocdesc.so.0
usr/local/lib/libprocdesc.so.0 -> libprocdesc.so.$v
usr/local/lib/libprocdesc.so.$v
usr/local/lib/pkgconfig/libprocdesc-overlay.pc
usr/local/lib/pkgconfig/libprocdesc.pc
usr/local/libexec/libprocdesc-preload.so
usr/local/libexec/procdesc-guardian
usr/local/share/man/man3/pddupfd.3 -> pdfork.3
usr/local/share/man/man3/pdfork.3
usr/local/share/man/man3/pdgetpid.3 -> pdfork.3
usr/local/share/man/man3/pdkill.3 -> pdfork.3
usr/local/share/man/man3/pdopenpid.3 -> pdfork.3
usr/local/share/man/man3/pdrfork.3 -> pdfork.3
usr/local/share/man/man3/pdwait.3 -> pdfork.3
usr/local/share/man/man3/posix_spawnattr_getprocdescp_np.3 -> posix_spawnattr_setprocdescp_np.3
usr/local/share/man/man3/posix_spawnattr_setprocdescp_np.3
usr/local/share/man/man7/libprocdesc.7
EOF
}

t_actual_layout()
{

	(cd "$ROOT" && find . -type f -o -type l) | sed 's|^\./||' | sort |
	while read -r f; do
		if [ -L "$ROOT/$f" ]; then
			echo "$f -> $(readlink "$ROOT/$f")"
		else
			echo "$f"
		fi
	done
}

atf_test_case layout
layout_head()
{
	atf_set descr "make install writes exactly the intended files," \
	    "links and modes under DESTDIR"
}
layout_body()
{
	t_no_sanitizer

	t_install
	t_expected_layout >expected
	t_actual_layout >actual
	atf_check -s exit:0 -o empty diff -u expected actual
	for f in usr/local/lib/libprocdesc.so.$(t_version) \
	    usr/local/libexec/procdesc-guardian; do
		atf_check -o inline:"755\n" stat -c %a "$ROOT/$f"
	done
	for f in usr/local/include/sys/procdesc.h \
	    usr/local/include/sys/capsicum.h \
	    usr/local/include/sys/caprights.h \
	    usr/local/include/capsicum_helpers.h \
	    usr/local/lib/libprocdesc.a \
	    usr/local/lib/pkgconfig/libprocdesc.pc \
	    usr/local/libexec/libprocdesc-preload.so \
	    usr/local/include/procdesc-overlay/spawn.h \
	    usr/local/lib/pkgconfig/libprocdesc-overlay.pc \
	    usr/local/share/man/man3/posix_spawnattr_setprocdescp_np.3 \
	    usr/local/share/man/man3/pdfork.3 \
	    usr/local/share/man/man7/libprocdesc.7; do
		atf_check -o inline:"644\n" stat -c %a "$ROOT/$f"
	done
	# The installed files are the tree's own.
	atf_check cmp "$(t_top)/man/pdfork.3" \
	    "$ROOT/usr/local/share/man/man3/pdfork.3"
	atf_check cmp "$(t_top)/compat/include/sys/capsicum.h" \
	    "$ROOT/usr/local/include/sys/capsicum.h"
	atf_check -o inline:"/usr/local\n" env \
	    PKG_CONFIG_PATH="$ROOT/usr/local/lib/pkgconfig" \
	    pkg-config --variable=prefix libprocdesc
}

atf_test_case shared
shared_head()
{
	atf_set descr "A program built with pkg-config --cflags --libs" \
	    "libprocdesc against the staged install runs"
}
shared_body()
{
	t_no_sanitizer

	t_install
	t_stage_env
	t_write_prog
	t_cc_pkg prog
	atf_check -s exit:0 -o match:"libprocdesc\.so\.0 => $ROOT/" ldd ./prog
	atf_check -s exit:0 -o inline:"42\n" -e empty ./prog
}

atf_test_case static
static_head()
{
	atf_set descr "A program linked -static with pkg-config --static" \
	    "runs without any libprocdesc.so"
}
static_body()
{
	t_no_sanitizer

	t_install
	t_stage_env
	t_write_prog
	t_cc_pkg prog --static
	atf_check -s exit:0 -o not-match:NEEDED -e ignore readelf -d ./prog
	atf_check -s exit:0 -o match:'[Tt] pdfork$' nm ./prog
	atf_check -s exit:0 -o inline:"42\n" -e empty env -u LD_LIBRARY_PATH \
	    ./prog
}

atf_test_case freebsd15
freebsd15_head()
{
	atf_set descr "A FreeBSD 15 program that waits and kills by pid works" \
	    "unchanged, linked shared and static with pkg-config"
}
freebsd15_body()
{
	t_no_sanitizer

	t_install
	t_stage_env
	t_write_freebsd15_prog
	t_cc_pkg fbsd15
	atf_check -s exit:0 -o inline:"42\n" -e empty ./fbsd15
	t_cc_pkg fbsd15 --static
	atf_check -s exit:0 -o inline:"42\n" -e empty env -u LD_LIBRARY_PATH \
	    ./fbsd15
}

atf_test_case overlay
overlay_head()
{
	atf_set descr "A program built with libprocdesc and libbsd-overlay" \
	    "from pkg-config runs and sees both"
}
overlay_body()
{
	t_no_sanitizer

	pkg-config --exists libbsd-overlay || atf_skip "libbsd-overlay missing"
	t_install
	# libbsd is not under DESTDIR: pkg-config would prefix its
	# -isystem and -L with the sysroot, so ask for it without one.
	bsd=$(env -u PKG_CONFIG_SYSROOT_DIR \
	    pkg-config --cflags --libs libbsd-overlay) ||
	    atf_fail "pkg-config libbsd-overlay failed"
	t_stage_env
	flags=$(pkg-config --cflags --libs libprocdesc) ||
	    atf_fail "pkg-config libprocdesc failed"
	cat >prog.c <<'EOF'
#include <sys/cdefs.h>
#include <sys/procdesc.h>
#include <sys/wait.h>
#include <capsicum_helpers.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	char name[64];
	int fd, status;
	pid_t pid;

	if ((pid = pdfork(&fd, PD_CLOEXEC)) == -1)
		err(1, "pdfork");
	if (pid == 0)
		_exit(42);
	if (caph_enter() == -1)
		err(1, "caph_enter");
	if (pdwait(fd, &status, WEXITED, NULL, NULL) == -1)
		err(1, "pdwait");
	(void)strlcpy(name, getprogname(), sizeof(name));
	printf("%s %d\n", name, WEXITSTATUS(status));
	return (0);
}
EOF
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty cc -Wall -Werror -o prog \
	    prog.c $flags $bsd
	atf_check -s exit:0 -o inline:"prog 42\n" -e empty ./prog
}

atf_test_case config_stamp
config_stamp_head()
{
	atf_set descr "A changed PREFIX, LIBEXECDIR or CFLAGS rebuilds every" \
	    "object; the same configuration again rebuilds nothing"
}
config_stamp_body()
{

	t_make all
	n=$(find obj -name '*.o' | wc -l)
	atf_check -o inline:"$n\n" grep -c -e ' -c -o ' make.out
	t_make all PREFIX=/x
	atf_check -o match:'configuration changed' cat make.out
	atf_check -o inline:"$n\n" grep -c -e ' -c -o ' make.out
	atf_check -o match:'^PREFIX=/x$' cat obj/config.mk
	atf_check -o match:'/x/libexec/procdesc-guardian' \
	    strings obj/libprocdesc.so obj/libprocdesc.a
	atf_check -o match:'^prefix=/x$' cat obj/libprocdesc.pc
	t_make all PREFIX=/x
	atf_check -s exit:1 -o inline:"0\n" grep -c -e ' -c -o ' make.out
	atf_check -s exit:1 grep -q 'configuration changed' make.out
	t_make all PREFIX=/x CFLAGS=-O1
	atf_check -o inline:"$n\n" grep -c -e ' -c -o ' make.out
	t_make all PREFIX=/x CFLAGS=-O1 LIBEXECDIR=/y
	atf_check -o inline:"$n\n" grep -c -e ' -c -o ' make.out
	t_make all PREFIX=/x CFLAGS=-O1 LIBEXECDIR=/y
	atf_check -s exit:1 -o inline:"0\n" grep -c -e ' -c -o ' make.out
}

atf_test_case prefix
prefix_head()
{
	atf_set descr "make install PREFIX=dir after a default build: a" \
	    "program built with pkg-config finds the guardian without" \
	    "LIBPROCDESC_GUARDIAN"
}
prefix_body()
{
	t_no_sanitizer

	opt=$PWD/opt
	t_make all
	t_make install PREFIX="$opt" DESTDIR=
	atf_check -o match:'configuration changed' cat make.out
	atf_check -o match:"^$opt/libexec/procdesc-guardian\$" \
	    strings "$opt/lib/libprocdesc.so.$(t_version)"
	t_write_guardian_prog
	flags=$(PKG_CONFIG_PATH=$opt/lib/pkgconfig \
	    pkg-config --cflags --libs libprocdesc) ||
	    atf_fail "pkg-config libprocdesc failed"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty cc -Wall -Werror -o prog \
	    prog.c $flags -Wl,-rpath,"$opt/lib"
	atf_check -s exit:0 -o match:"libprocdesc\.so\.0 => $opt/lib/" \
	    ldd ./prog
	t_run_noenv ./prog
}

atf_test_case moved
moved_head()
{
	atf_set descr "An installed tree moved elsewhere, or reached" \
	    "through a symbolic link to its library, still finds its" \
	    "guardian; without the guardian pdfork fails with ENOENT"
}
moved_body()
{
	t_no_sanitizer

	t_make install PREFIX="$PWD/opt" DESTDIR=
	t_write_guardian_prog
	# A relocatable program: flags from the tree's own place, and a
	# run path relative to the program.
	flags=$(PKG_CONFIG_PATH=$PWD/opt/lib/pkgconfig \
	    pkg-config --define-prefix --cflags --libs libprocdesc) ||
	    atf_fail "pkg-config libprocdesc failed"
	mkdir opt/bin
	# shellcheck disable=SC2016,SC2086
	atf_check -s exit:0 -o empty -e empty cc -Wall -Werror \
	    -o opt/bin/prog prog.c $flags -Wl,-rpath,'$ORIGIN/../lib'
	t_run_noenv opt/bin/prog

	# The path built in is gone: only the tree's own guardian is left.
	mv opt moved
	atf_check -s exit:0 -o match:"libprocdesc\.so\.0 => $PWD/moved/" \
	    ldd moved/bin/prog
	t_run_noenv moved/bin/prog
	atf_check -s exit:0 \
	    -o inline:"-I$PWD/moved/include -L$PWD/moved/lib -lprocdesc \n" \
	    env PKG_CONFIG_PATH="$PWD/moved/lib/pkgconfig" \
	    pkg-config --define-prefix --cflags --libs libprocdesc

	# A link to the library elsewhere: the real file's tree counts.
	mkdir elsewhere
	ln -s "$PWD/moved/lib/libprocdesc.so.0" elsewhere/
	atf_check -s exit:0 -o match:"libprocdesc\.so\.0 => $PWD/elsewhere/" \
	    env LD_LIBRARY_PATH="$PWD/elsewhere" ldd moved/bin/prog
	t_run_noenv LD_LIBRARY_PATH="$PWD/elsewhere" moved/bin/prog

	# pdfork(3): ENOENT when the guardian is not where it should be.
	mv moved/libexec/procdesc-guardian moved/libexec/away
	atf_check -s exit:1 -o empty \
	    -e inline:"prog: pdfork: No such file or directory\n" \
	    env -u LIBPROCDESC_GUARDIAN moved/bin/prog
}

atf_test_case destdir
destdir_head()
{
	atf_set descr "A tree staged with DESTDIR in Debian's layout" \
	    "(LIBEXECDIR under LIBDIR) runs where it was staged"
}
destdir_body()
{
	t_no_sanitizer

	# The configured paths must not exist: only the staged tree can help.
	p=/nonexistent/libprocdesc
	[ ! -e "$p" ] || atf_skip "$p exists"
	lib=$p/lib/triplet
	ROOT=$PWD/root
	t_make install DESTDIR="$ROOT" PREFIX="$p" LIBDIR="$lib" \
	    LIBEXECDIR="$lib/libprocdesc0"
	atf_check -s exit:0 test -x "$ROOT$lib/libprocdesc0/procdesc-guardian"
	atf_check -s exit:0 -o match:'^libdir=\$\{prefix\}/lib/triplet$' \
	    -o match:'^libexecdir=\$\{prefix\}/lib/triplet/libprocdesc0$' \
	    cat "$ROOT$lib/pkgconfig/libprocdesc.pc"
	atf_check -o match:'^libprocdesc0/procdesc-guardian$' \
	    strings "$ROOT$lib/libprocdesc.so.$(t_version)"
	t_write_guardian_prog
	flags=$(PKG_CONFIG_SYSROOT_DIR=$ROOT \
	    PKG_CONFIG_PATH=$ROOT$lib/pkgconfig \
	    pkg-config --cflags --libs libprocdesc) ||
	    atf_fail "pkg-config libprocdesc failed"
	# shellcheck disable=SC2086
	atf_check -s exit:0 -o empty -e empty cc -Wall -Werror -o prog \
	    prog.c $flags
	t_run_noenv LD_LIBRARY_PATH="$ROOT$lib" ./prog
}

atf_test_case uninstall
uninstall_head()
{
	atf_set descr "make uninstall with the same DESTDIR removes every" \
	    "file and link that make install wrote"
}
uninstall_body()
{

	t_install
	t_actual_layout >installed
	atf_check -s exit:0 -o not-empty cat installed
	t_make uninstall DESTDIR="$ROOT" PREFIX=/usr/local
	atf_check -s exit:0 -o empty find "$ROOT" -type f -o -type l
}

atf_test_case abi
abi_head()
{
	atf_set descr "libprocdesc.so exports exactly the names of" \
	    "lib/libprocdesc.map, each at its version node; libprocdesc.a" \
	    "adds only procdesc_ names and the waits;" \
	    "debian/libprocdesc0.symbols lists them"
}
abi_body()
{
	t_no_sanitizer

	top=$(t_top)
	map=$top/lib/libprocdesc.map
	t_make all
	if nm -D obj/libprocdesc.so | grep -q procdesc_debug_entries
	then
		atf_skip "a debug build (make DEBUG=1) exports the tests'" \
		    "registry count too"
	fi
	# Every name at its node; a version node itself shows up as an
	# absolute symbol.
	awk '/^[A-Za-z0-9_.]+[[:space:]]*{/ { node = $1; print "A " node }
	    /global:/ { g = 1; next }
	    /local:|^}/ { g = 0 }
	    g && /^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;/ {
		sub(/^[[:space:]]*/, ""); sub(/;.*/, "")
		print "T " $0 "@@" node }' "$map" | sort >expected
	atf_check -o inline:"LIBPROCDESC_1.0\nLIBPROCDESC_1.1\nLIBPROCDESC_1.2\n" \
	    sed -n 's/^A //p' expected
	atf_check -o inline:"7\n" grep -c '^T pd[a-z]*@@LIBPROCDESC_1\.0$' \
	    expected
	atf_check -o inline:"27\n" grep -c \
	    '^T procdesc_posix_spawn[a-z0-9_]*@@LIBPROCDESC_1\.1$' expected
	atf_check -o inline:"5\n" grep -c '^T wait[a-z0-9]*@@LIBPROCDESC_1\.2$' \
	    expected
	atf_check -o inline:"42\n" sh -c 'wc -l <expected'
	sed -n 's/^T \(.*\)@@.*/\1/p' expected | sort >names
	nm -D --defined-only obj/libprocdesc.so >nm.out ||
	    atf_fail "nm -D failed"
	awk 'NF == 3 { print $2, $3 }' nm.out | sort >actual
	atf_check -s exit:0 -o empty diff -u expected actual

	nm -g --defined-only obj/libprocdesc.a >nm.a ||
	    atf_fail "nm libprocdesc.a failed"
	awk 'NF == 3 { print $3 }' nm.a | sort -u >global
	atf_check -s exit:0 -o empty comm -23 names global
	atf_check -s exit:1 -o empty sh -c \
	    'comm -13 names global | grep -v "^procdesc_"'

	# The Debian symbols file lists the same names at the same nodes.
	sed -e 's/^A \(.*\)/\1@\1/' -e 's/^T \(.*\)@@/\1@/' expected |
	    sort >expected.symbols
	sed -n 's/^ \([^ ]*\) .*/\1/p' "$top/debian/libprocdesc0.symbols" |
	    sort >actual.symbols
	atf_check -s exit:0 -o empty diff -u expected.symbols actual.symbols
}

atf_test_case soname
soname_head()
{
	atf_set descr "The shared library's soname is libprocdesc.so.0"
}
soname_body()
{

	t_make all
	atf_check -s exit:0 -o match:'Library soname: \[libprocdesc\.so\.0\]$' \
	    readelf -d obj/libprocdesc.so
	atf_check -s exit:0 -o inline:"libprocdesc.so.$(t_version)\n" \
	    readlink obj/libprocdesc.so.0
}

atf_init_test_cases()
{

	atf_add_test_case layout
	atf_add_test_case shared
	atf_add_test_case static
	atf_add_test_case freebsd15
	atf_add_test_case overlay
	atf_add_test_case config_stamp
	atf_add_test_case prefix
	atf_add_test_case moved
	atf_add_test_case destdir
	atf_add_test_case uninstall
	atf_add_test_case abi
	atf_add_test_case soname
}
