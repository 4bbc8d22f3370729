#!/bin/sh
# Build the Debian packages (debian/) with dpkg-buildpackage -us -uc -b and
# check them with lintian: no error or warning may remain.  The build runs
# in a copy of the tree under obj/debuild, so that neither "debian/rules
# clean" (make clean) nor debhelper's files touch the tree, and
# dpkg-buildpackage writes nothing outside it.  The packages end up in
# OUT, obj/deb by default, as the only *.deb files there.
#
#   tools/deb.sh [OUT]          (make deb)
set -eu

cd "$(dirname "$0")/.."
top=$PWD
out=${1:-obj/deb}
case $out in
/*) ;;
*) out=$top/$out ;;
esac

# The Makefile's VERSION is the upstream part of debian/changelog's.
mkver=$(sed -n 's/^VERSION=[[:space:]]*//p' Makefile)
debver=$(dpkg-parsechangelog -S Version)
if [ "${debver%-*}" != "$mkver" ]; then
	echo "deb: debian/changelog says $debver, the Makefile $mkver" >&2
	exit 1
fi

work=$top/obj/debuild
src=$work/libprocdesc-$mkver
rm -rf "$work"
mkdir -p "$src"
tar -cf - --exclude=./.git --exclude=./obj --exclude=./tests/results . |
    tar -xf - -C "$src"

echo "deb: dpkg-buildpackage -us -uc -b in $src"
start=$(date +%s)
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
	tail -n 40 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log: $work/build.log" >&2
	exit 1
}
echo "deb: built in $(($(date +%s) - start)) s; log: $work/build.log"

rm -rf "$out"
mkdir -p "$out"
cp "$work"/*.deb "$out"/
rm -rf "$src"

if command -v lintian >/dev/null 2>&1; then
	echo "deb: lintian (failing on errors and warnings)"
	lintian --display-info --fail-on error,warning "$work"/*.changes || {
		echo "deb: lintian found errors or warnings" >&2
		exit 1
	}
else
	echo "deb: no lintian: the packages are not checked" >&2
fi
ls -l "$out"
