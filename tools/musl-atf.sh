#!/bin/sh
# The ATF-C suite against the musl build of the library (make
# check-musl-atf).  Debian ships ATF for glibc only, so its libatf-c is
# built here with musl-gcc from Debian's own source package of this
# release, which apt fetches through a configuration of our own and
# verifies with Debian's archive keyring (the signed Release, then the
# Sources index's hash of each file); the host's apt sources and lists are
# never touched.  The test programs are then built as make builds them,
# with CC=musl-gcc, into O/tests, and kyua runs them.  The last line is
# "N passed, N failed, N skipped"; exit 1 if anything failed.
#
#   musl-atf.sh O        O: the musl build's directory (obj/musl)
set -eu

cd "$(dirname "$0")/.." || exit 1
o=$1
case $o in
/*)	a=$o/atf ;;
*)	a=$(pwd)/$o/atf ;;
esac
say() { echo "musl-atf: $*"; }

# 1. atf's source, as apt fetches and checks it.
fetch()
{
	# shellcheck disable=SC1091
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mkdir -p "$a/apt/lists/partial" "$a/apt/cache/archives/partial" \
	    "$a/src"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	    "http://deb.debian.org/debian $codename main" >"$a/apt/sources.list"
	set -- -o Dir::Etc::SourceList="$a/apt/sources.list" \
	    -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$a/apt/lists" \
	    -o Dir::Cache="$a/apt/cache" -o Dir::State::status=/dev/null \
	    -o APT::Sandbox::User=root
	apt-get "$@" update -qq >/dev/null
	rm -rf "$a/src"/*
	(cd "$a/src" && apt-get "$@" source --download-only -qq atf >/dev/null &&
	    dpkg-source -x ./atf_*.dsc atf >/dev/null 2>&1)
	say "$(cd "$a/src" && ls atf_*.dsc), verified by apt"
}

# 2. libatf-c.a: the C library alone (no configure, which wants C++), with
#    the config.h that configure writes for musl.
build_atf()
{
	s=$a/src/atf
	rm -rf "${a:?}/obj" "${a:?}/include" "${a:?}/lib"
	mkdir -p "$a/obj" "$a/include/atf-c" "$a/lib"
	cat >"$a/obj/config.h" <<-'EOF'
	#define HAVE_GETCWD_DYN 1
	#define HAVE_GNU_GETOPT 1
	#define HAVE_OPTRESET 1
	#define HAVE_PUTENV 1
	#define HAVE_SETENV 1
	#define HAVE_UNSETENV 1
	#define PACKAGE_BUGREPORT "atf-discuss@googlegroups.com"
	#define PACKAGE_NAME "Automated Testing Framework"
	#define PACKAGE_STRING "Automated Testing Framework"
	#define PACKAGE_VERSION ""
	EOF
	sed -e 's/@ATTRIBUTE_FORMAT_PRINTF@/__attribute__((__format__(__printf__, a, b)))/' \
	    -e 's/@ATTRIBUTE_NORETURN@/__attribute__((__noreturn__))/' \
	    -e 's/@ATTRIBUTE_UNUSED@/__attribute__((__unused__))/' \
	    "$s/atf-c/defs.h.in" >"$a/include/atf-c/defs.h"
	cp "$s/atf-c.h" "$a/include/"
	for f in build check error error_fwd macros tc tp utils; do
		cp "$s/atf-c/$f.h" "$a/include/atf-c/"
	done
	objs=
	for f in build check error tc tp utils detail/dynstr detail/env \
	    detail/fs detail/list detail/map detail/process detail/sanity \
	    detail/text detail/tp_main detail/user; do
		musl-gcc -O2 -DNDEBUG -DHAVE_CONFIG_H -I"$a/obj" -I"$a/include" \
		    -I"$s" -DATF_BUILD_CC='"musl-gcc"' -DATF_BUILD_CFLAGS='""' \
		    -DATF_BUILD_CPP='"musl-gcc -E"' -DATF_BUILD_CPPFLAGS='""' \
		    -DATF_BUILD_CXX='"false"' -DATF_BUILD_CXXFLAGS='""' \
		    -c -o "$a/obj/$(echo "$f" | tr / _).o" "$s/atf-c/$f.c"
		objs="$objs $a/obj/$(echo "$f" | tr / _).o"
	done
	# shellcheck disable=SC2086
	ar rcs "$a/lib/libatf-c.a" $objs
}

# 3. The kernel's UAPI headers, which musl's include path lacks, searched
#    after musl's own (-idirafter), so that musl's always win.
kernel_headers()
{
	rm -rf "$a/kinc"
	mkdir -p "$a/kinc"
	ln -s /usr/include/linux /usr/include/asm-generic "$a/kinc/"
	ln -s "/usr/include/$(gcc -dumpmachine)/asm" "$a/kinc/asm"
}

# 4. The programs.  spawn_test compares the <spawn.h> overlay with the C
#    library's own posix_spawn actions, two of which musl 1.2.3 lacks
#    (NOTES 9.3); the shell programs test the glibc build's tree.
progs()
{
	sed -n 's/^atf_test_program{name="\([a-z_]*\)".*/\1/p' tests/Kyuafile |
	    while read -r p; do
		[ -f "tests/$p.c" ] && [ "$p" != spawn_test ] && echo "$p"
	    done
}

fetch
build_atf
kernel_headers
list=$(progs)
# shellcheck disable=SC2046
make --no-print-directory CC=musl-gcc O="$o" TESTS_O="$o/tests" \
    WERROR="${WERROR:-}" TEST_CFLAGS="-I$a/include -idirafter $a/kinc" \
    TEST_LIBS="$a/lib/libatf-c.a" \
    $(for p in $list; do echo "$o/tests/$p"; done) \
    "$o/tests/nokernel_helper" "$o/tests/dlopen_helper" \
    "$o/tests/dlopen_plugin.so"
{
	printf 'syntax(2)\n\ntest_suite("libprocdesc")\n\n'
	for p in $list; do
		grep "^atf_test_program{name=\"$p\"" tests/Kyuafile
	done
} >"$o/tests/Kyuafile"
say "$(echo "$list" | wc -l) programs, linked with musl's libc"
RESULTS_DIR="$o/results" sh tools/kyua-check.sh --kyuafile="$o/tests/Kyuafile"
