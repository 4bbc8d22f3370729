#!/bin/sh
# CI's package step, as root: build the Debian packages (make deb, which
# runs lintian), install them with apt-get, build programs against them
# with pkg-config alone and run them with no LIBPROCDESC_GUARDIAN (the
# library must find the packaged guardian), then purge the packages.
# Each step is one check; the last line is "N passed, N failed, N
# skipped".  Exit 1 if any check failed.
set -u

cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "deb-test: ok: $*"; }
bad() { fail=$((fail + 1)); echo "deb-test: FAILED: $*"; }
skipped() { skip=$((skip + 1)); echo "deb-test: skipped: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "deb-test: needs root (apt-get install)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
pkgs="libprocdesc0 libprocdesc-dev libprocdesc0-dbgsym"
tmp=$(mktemp -d)
# Whatever happens after the install (a failed check, an interrupt), no
# package of ours stays on the machine, installed or half-removed: one is
# easy to link by mistake, since pkg-config adds no rpath.
attempted=false
cleanup()
{
	rm -rf "$tmp"
	# Any state but "not installed" (ii, iU, iF, rc, ...).
	# shellcheck disable=SC2086 # A list of packages.
	if $attempted && dpkg -l $pkgs 2>/dev/null | grep -q '^[a-z][^n]'
	then
		# shellcheck disable=SC2086
		apt-get remove -y -q --purge $pkgs >/dev/null 2>&1 ||
		    echo "deb-test: could not purge $pkgs" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp tests/guardian_prog.c "$tmp/prog.c"

# Runs "$@" with no guardian override; it must print "42 killed".
run_prog()
{
	out=$(env -u LIBPROCDESC_GUARDIAN "$@" 2>&1)
	[ "$out" = "42 killed" ] || { echo "$out"; return 1; }
}

start=$(date +%s)
if make --no-print-directory deb; then
	ok "make deb (dpkg-buildpackage, lintian) in $(($(date +%s) - start)) s"
else
	bad "make deb"
fi

installed=false
if ! ls obj/deb/libprocdesc0_*.deb >/dev/null 2>&1; then
	skipped "apt-get install: no packages"
elif attempted=true &&
    apt-get install -y -q ./obj/deb/*.deb >"$tmp/apt.log" 2>&1; then
	ok "apt-get install ./obj/deb/*.deb"
	installed=true
else
	cat "$tmp/apt.log"
	bad "apt-get install ./obj/deb/*.deb"
fi

if $installed; then
	triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	guardian=/usr/lib/$triplet/libprocdesc0/procdesc-guardian
	if [ -x "$guardian" ] && dpkg -S "$guardian" >/dev/null 2>&1 &&
	    [ "$(pkg-config --variable=guardian libprocdesc)" = "$guardian" ]
	then
		ok "the guardian is $guardian, as libprocdesc.pc says"
	else
		bad "the guardian is not $guardian"
	fi

	# shellcheck disable=SC2046
	if cc -Wall -Werror -o "$tmp/prog" "$tmp/prog.c" \
	    $(pkg-config --cflags --libs libprocdesc) &&
	    ldd "$tmp/prog" | grep -q "libprocdesc\.so\.0 => /.*/$triplet/" &&
	    run_prog "$tmp/prog"; then
		ok "cc \$(pkg-config --cflags --libs libprocdesc), run"
	else
		bad "cc \$(pkg-config --cflags --libs libprocdesc), run"
	fi

	# FreeBSD 15 code that spawns with a descriptor, through the overlay.
	cat >"$tmp/spawn.c" <<-'EOF2'
	#include <sys/procdesc.h>
	#include <sys/wait.h>
	#include <err.h>
	#include <spawn.h>
	#include <string.h>
	#include <unistd.h>

	extern char **environ;

	int
	main(void)
	{
		posix_spawnattr_t attr;
		char *argv[] = { "sh", "-c", "exit 42", NULL };
		pid_t pid;
		int error, fd, status;

		posix_spawnattr_init(&attr);
		posix_spawnattr_setprocdescp_np(&attr, &fd, 0);
		if ((error = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv,
		    environ)) != 0)
			errx(1, "posix_spawn: %s", strerror(error));
		if (pdwait(fd, &status, WEXITED, NULL, NULL) == -1)
			err(1, "pdwait");
		return (WEXITSTATUS(status) == 42 ? 0 : 1);
	}
	EOF2
	# shellcheck disable=SC2046
	if cc -Wall -Werror -o "$tmp/spawn" "$tmp/spawn.c" \
	    $(pkg-config --cflags --libs libprocdesc-overlay) &&
	    env -u LIBPROCDESC_GUARDIAN "$tmp/spawn"; then
		ok "cc \$(pkg-config ... libprocdesc-overlay): posix_spawn, run"
	else
		bad "cc \$(pkg-config ... libprocdesc-overlay): posix_spawn, run"
	fi

	# The preload object, where the .pc says, loads into any program.
	preload=$(pkg-config --variable=preload libprocdesc)
	if [ -f "$preload" ] &&
	    [ -z "$(LD_PRELOAD=$preload /bin/true 2>&1)" ]; then
		ok "LD_PRELOAD=$preload /bin/true"
	else
		bad "LD_PRELOAD=$preload /bin/true"
	fi

	# The static library knows the packaged path only.
	# shellcheck disable=SC2046
	if cc -Wall -Werror -static -o "$tmp/sprog" "$tmp/prog.c" \
	    $(pkg-config --static --cflags --libs libprocdesc) \
	    2>"$tmp/static.log" && run_prog "$tmp/sprog"; then
		ok "cc -static \$(pkg-config --static ...), run"
	else
		cat "$tmp/static.log"
		bad "cc -static \$(pkg-config --static ...), run"
	fi

	# shellcheck disable=SC2086
	if apt-get remove -y -q --purge $pkgs >"$tmp/apt.log" 2>&1 &&
	    ! dpkg -s libprocdesc0 >/dev/null 2>&1 &&
	    ! dpkg -s libprocdesc-dev >/dev/null 2>&1 &&
	    [ ! -e "$guardian" ] && [ ! -e /usr/include/sys/procdesc.h ]; then
		ok "apt-get remove --purge $pkgs"
	else
		cat "$tmp/apt.log"
		bad "apt-get remove --purge $pkgs"
	fi
else
	skipped "guardian path: not installed"
	skipped "pkg-config program: not installed"
	skipped "overlay program: not installed"
	skipped "preload object: not installed"
	skipped "static program: not installed"
	skipped "apt-get remove: not installed"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$skip" -eq 0 ]
