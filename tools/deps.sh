#!/bin/sh
# Install the Debian packages that "make demo" (build), "make check"
# (check), "make deb" (deb), CI's shellcheck step (lint), "make
# cross-aarch64" (cross), "make check-kernels ARCH=arm64" (cross-kernels)
# or "make check-musl" (musl) needs, when they are missing.  Says what it
# installs.
set -eu

need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }

command -v cc >/dev/null 2>&1 || need="$need build-essential"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
if [ "${1:-build}" = check ]; then
	command -v kyua >/dev/null 2>&1 || need="$need kyua"
	command -v atf-sh >/dev/null 2>&1 || need="$need atf-sh"
	have_pc atf-c || need="$need libatf-dev"
	have_pc libbsd-overlay || need="$need libbsd-dev"
	command -v mandoc >/dev/null 2>&1 || need="$need mandoc"
fi
if [ "${1:-build}" = deb ]; then
	# dpkg-buildpackage checks for the package, not for a compiler.
	dpkg-query -W -f='${Status}\n' build-essential 2>/dev/null |
	    grep -q ' installed$' || need="$need build-essential"
	command -v dpkg-buildpackage >/dev/null 2>&1 || need="$need dpkg-dev"
	command -v dh >/dev/null 2>&1 || need="$need debhelper"
	command -v lintian >/dev/null 2>&1 || need="$need lintian"
fi
if [ "${1:-build}" = lint ]; then
	command -v shellcheck >/dev/null 2>&1 || need="$need shellcheck"
fi
case ${1:-build} in cross|cross-kernels)
	command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
	    need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
esac
# The arm64 guests: QEMU, busybox (its cpio writes the initramfs), and
# dpkg's arm64 architecture, for apt-get download to fetch the guests'
# kyua, busybox and ATF-C (tests/kernels/run extracts them, installs
# nothing).
foreign=""
if [ "${1:-build}" = cross-kernels ]; then
	command -v qemu-system-aarch64 >/dev/null 2>&1 ||
	    need="$need qemu-system-arm"
	[ -x /bin/busybox ] || need="$need busybox-static"
	dpkg --print-foreign-architectures | grep -qx arm64 || foreign=arm64
fi
if [ "${1:-build}" = musl ]; then
	command -v musl-gcc >/dev/null 2>&1 || need="$need musl-tools"
	command -v dpkg-source >/dev/null 2>&1 || need="$need dpkg-dev"
fi
[ -z "$need$foreign" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	[ -z "$foreign" ] ||
	    echo "deps: not root; run: sudo dpkg --add-architecture $foreign" >&2
	[ -z "$need" ] ||
	    echo "deps: not root; run: sudo apt-get install -y$need" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$foreign" ]; then
	echo "deps: adding dpkg architecture $foreign"
	dpkg --add-architecture "$foreign"
fi
[ -z "$need" ] || echo "deps: installing missing Debian packages:$need"
apt-get update -qq >/dev/null
[ -z "$need" ] && exit 0
# shellcheck disable=SC2086
apt-get install -y -qq $need >/dev/null
echo "deps: installed$need"
