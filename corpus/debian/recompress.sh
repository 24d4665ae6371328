#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A corpus trace.dat recompressed in place: `trace-cmd convert` to version 7 with zstd at
# level 19 (zstd-level.so, an LD_PRELOAD shim: trace-cmd has no option for the level; its
# own level leaves a Debian kernel's 20 MB kallsyms at 2.2 MB, 19 at 1.4 MB).  The file is
# replaced only when tlbscope's report, report --json, tune, tune --json and tune --verify -v
# of the new one, read under the same name, are byte-identical to the old one's; else it is
# kept and the exit status is 1.   usage: recompress.sh TRACE.dat...   (TLBSCOPE=binary, ZSTD_LEVEL)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ts=${TLBSCOPE:-$top/tlbscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -shared -fPIC -o "$tmp/zstd-level.so" "$here/zstd-level.c" -ldl -lzstd || exit 2
# outputs DIR FILE: tlbscope's outputs of FILE (read as ./trace.dat from its directory) in DIR
outputs() {
	mkdir -p "$1"
	(cd "$(dirname "$2")" &&
		"$ts" report trace.dat > "$1/report.txt" 2>&1; echo "$?" >> "$1/report.txt"
		"$ts" report --json trace.dat > "$1/report.json" 2>&1; echo "$?" >> "$1/report.json"
		"$ts" tune trace.dat > "$1/tune.txt" 2>&1; echo "$?" >> "$1/tune.txt"
		"$ts" tune --json trace.dat > "$1/tune.json" 2>&1; echo "$?" >> "$1/tune.json"
		"$ts" tune --verify -v trace.dat > "$1/verify.txt" 2>&1; echo "$?" >> "$1/verify.txt")
}
bad=0
for f in "$@"; do
	d=$(cd "$(dirname "$f")" && pwd)
	old=$(wc -c < "$f")
	outputs "$tmp/before" "$d/trace.dat"
	LD_PRELOAD=$tmp/zstd-level.so ZSTD_LEVEL=${ZSTD_LEVEL:-19} trace-cmd convert -i "$f" \
		--file-version 7 --compression zstd -o "$tmp/new.dat" > /dev/null 2>&1 ||
		{ echo "$f: trace-cmd convert failed; kept"; bad=1; continue; }
	cp "$f" "$tmp/old.dat"
	cp "$tmp/new.dat" "$d/trace.dat"
	outputs "$tmp/after" "$d/trace.dat"
	if diff -r "$tmp/before" "$tmp/after" > "$tmp/diff"; then
		echo "$f: $old -> $(wc -c < "$d/trace.dat") bytes; report, tune (text, JSON), tune --verify -v identical"
	else
		cp "$tmp/old.dat" "$d/trace.dat"
		echo "$f: outputs differ; kept:"
		head -20 "$tmp/diff"
		bad=1
	fi
	rm -rf "$tmp/before" "$tmp/after"
done
exit $bad
