#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A trixie source package's upstream tarball from the registry, for a build workload in
# the guest: apt-get with a private deb-src list and private state under $CACHE/apt (the
# host's own sources untouched), `source --download-only`; the .orig tarball copied to DEST.
#   usage: fetch-source.sh PACKAGE DEST
set -e
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${CACHE:-$(cd "$here/../.." && pwd)/build/debian-riscv64}
[ $# = 2 ] || { echo "usage: fetch-source.sh PACKAGE DEST" >&2; exit 2; }
a=$CACHE/apt
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources.d" "$a/src"
sed 's/^Types: deb$/Types: deb-src/; /^Architectures:/d' "$here/trixie-riscv64.sources" \
	> "$a/sources.d/trixie-src.sources"
set -- "$1" "$2" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$a/sources.d" \
	-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o Debug::NoLocking=1
pkg=$1
dest=$2
shift 2
apt-get "$@" -qq update
# the registry may lack the .dsc and the Debian diff; the upstream tarball is what is built
(cd "$a/src" && apt-get "$@" -qq source --download-only "$pkg" 2>&1 | grep -v 404 || true)
orig=$(ls "$a/src/${pkg}"_*.orig.tar.* 2> /dev/null | tail -1)
[ -n "$orig" ] || { echo "debian guest: no upstream tarball of $pkg came" >&2; exit 1; }
cp "$orig" "$dest"
echo "debian guest: $(basename "$orig") -> $dest"
