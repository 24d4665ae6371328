#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A run of guest-workloads.sh into the corpus: $CACHE/share/runs/NAME to traces/NAME/, record's
# trace.dat converted to version 7 with zstd (trace-cmd convert; a tenth of the size), perf
# record's events as `perf script` text (perf.txt.xz, which tlbscope reads from stdin), the
# run's own texts; then report and tune of both run here, their output and exit status kept
# (report-*.txt, tune-*.txt, status.txt).  usage: import-run.sh NAME   (TLBSCOPE=binary)
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-$top/build/debian-riscv64}
ts=${TLBSCOPE:-$top/tlbscope}
[ $# = 1 ] || { echo "usage: import-run.sh NAME" >&2; exit 2; }
src=$CACHE/share/runs/$1
dst=$here/traces/$1
[ -s "$src/trace.dat" ] || { echo "debian guest: no $src/trace.dat" >&2; exit 2; }
mkdir -p "$dst"
trace-cmd convert -i "$src/trace.dat" --file-version 7 --compression any -o "$dst/trace.dat" \
	> /dev/null 2>&1
for f in command.txt record.txt workload.txt perf.txt.xz report-perf-guest.txt; do
	[ -e "$src/$f" ] && cp "$src/$f" "$dst/$f"
done
cd "$dst"
: > status.txt
# one: NAME OUT CMD...: CMD's output in OUT, its exit status in status.txt
one() {
	out=$1
	shift
	set +e
	"$@" > "$out" 2>&1
	echo "$out: exit $?" >> status.txt
	set -e
}
one report.txt "$ts" report trace.dat
one tune.txt "$ts" tune trace.dat
if [ -e perf.txt.xz ]; then
	one report-perf.txt sh -c "xz -dc perf.txt.xz | '$ts' report -"
	one tune-perf.txt sh -c "xz -dc perf.txt.xz | '$ts' tune --verify -"
fi
cat status.txt
du -sh "$dst"
