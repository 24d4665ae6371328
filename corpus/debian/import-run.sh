#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A run of guest-workloads.sh into the corpus: $CACHE/share/runs/NAME to traces/NAME/, record's
# trace.dat converted to version 7 with zstd (trace-cmd convert; a tenth of the size; then
# recompress.sh, zstd level 19), perf record's events as `perf script` text (perf.txt.xz,
# which tlbscope reads from stdin), the run's own texts; then report and tune of both run
# here, their output and exit status kept (report-*.txt, tune-*.txt, status.txt).
# A run of guest-kernel-workloads.sh (the project's kernels, kernel.txt): its trace.dat alone
# has the evidence; tune --verify of it, and on a lazy kernel lazy-compare.sh at the kernel's
# own T and Q (lazy-compare.txt).  usage: import-run.sh NAME   (TLBSCOPE=binary)
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
"$here/recompress.sh" "$dst/trace.dat"
for f in command.txt record.txt workload.txt perf.txt.xz report-perf-guest.txt kernel.txt \
	qemu.line report-guest.txt; do
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
if [ -e kernel.txt ]; then
	one tune.txt "$ts" tune --verify trace.dat
	tq=$(echo "$1" | sed -n 's/.*-lazy-t\([0-9]*\)q\([0-9]*\)-.*/\1 \2/p')
	# shellcheck disable=SC2086
	[ -n "$tq" ] && one lazy-compare.txt env TLBSCOPE="$ts" bash "$top/corpus/lazy-compare.sh" \
		trace.dat $tq
else
	one tune.txt "$ts" tune trace.dat
fi
if [ -e perf.txt.xz ]; then
	one report-perf.txt sh -c "xz -dc perf.txt.xz | '$ts' report -"
	one tune-perf.txt sh -c "xz -dc perf.txt.xz | '$ts' tune --verify -"
fi
# the facts of README.md (what the run shows is added by hand below them)
if [ ! -e README.md ] && [ -e kernel.txt ]; then
	pkgs=$(grep -E "^(stress-ng|rt-tests|trace-cmd|libtracefs1|libtraceevent1)[[:space:]]" \
		"$here/versions.txt" | awk '{ printf "%s%s %s", n++ ? ", " : "", $1, $2 }')
	{
		echo "# Debian run \`$1\`"
		echo
		echo "\`$(cat command.txt)\` recorded by \`tlbscope record\` (ftrace alone) inside the Debian 13"
		echo "riscv64 guest (\`corpus/debian\`, \`guest-kernel-workloads.sh\`), on the project's own kernel:"
		echo
		echo "- Kernel: \`$(sed -n 1p kernel.txt | cut -d' ' -f1-4)\` (\`$(sed -n 1p kernel.txt | cut -d' ' -f3)\`):"
		echo "  Debian's linux-source-6.12 with \`../../../patches\` $(case $1 in *-lazy-*) echo "and \`../../../patches-lazy\`" ;; esac),"
		echo "  config \`../../../kernel.config\` $(case $1 in *-lazy-*) echo "+ \`kernel-lazy.config\`" ;; esac) + \`../../kernel-guest.config\`"
		echo "  (\`make -C corpus/debian workloads KERNEL=...\`)."
		echo "- Its command line: \`$(sed -n 's/^cmdline: //p' kernel.txt)\`."
		echo "- $(sed -n 3,4p kernel.txt | tr '\n' ' ')"
		echo "- QEMU 7.2 (Debian 12): \`$(cat qemu.line)\`"
		echo "- Packages (\`../../versions.txt\`): $pkgs."
		echo "- Recorded by tlbscope cross-built at $(cat "$CACHE/share/tlbscope.rev" 2> /dev/null || echo '?') (\`cross-build.sh\`); imported, and"
		echo "  report and tune run, at $(git -C "$top" rev-parse --short HEAD) (\`import-run.sh\`)."
		echo "- Files: \`trace.dat\`, record's file (tracepoints and kprobes: this kernel keeps kprobe"
		echo "  events), converted to version 7 with zstd (level 19, \`recompress.sh\`); \`record.txt\`,"
		echo "  \`workload.txt\`: record's stderr and the workload's output; \`report*.txt\`, \`tune.txt\`"
		echo "  (\`tune --verify\`), \`lazy-compare.txt\` (lazy kernel), \`status.txt\`: run here."
		echo
	} > README.md
fi
if [ ! -e README.md ]; then
	kver=$(cat "$CACHE/kernel.version" 2> /dev/null || echo unknown)
	pkgs=$(grep -E "^(stress-ng|rt-tests|redis-server|redis-tools|linux-perf|trace-cmd|libtracefs1|gcc-14|make)[[:space:]]" \
		"$here/versions.txt" | awk '{ printf "%s%s %s", n++ ? ", " : "", $1, $2 }')
	{
		echo "# Debian run \`$1\`"
		echo
		echo "\`$(cat command.txt)\` recorded by \`tlbscope record --kprobes-via perf\` inside the Debian 13"
		echo "riscv64 guest (\`corpus/debian\`, \`guest-workloads.sh\`), on Debian's own kernel $kver."
		echo
		echo "- QEMU 7.2 (Debian 12), \`-M virt -smp 4 -m 4G\`, OpenSBI (\`fw_dynamic.bin\`), the QEMU line of"
		echo "  \`../../README.md\`; plain \`virt\`: remote TLB flushes are SBI remote fences."
		echo "- Packages (\`../../versions.txt\`): $pkgs."
		echo "- Recorded by tlbscope cross-built at $(cat "$CACHE/share/tlbscope.rev" 2> /dev/null || echo '?') (\`cross-build.sh\`); imported, and"
		echo "  report and tune run, at $(git -C "$top" rev-parse --short HEAD) (\`import-run.sh\`)."
		echo "- Files: \`trace.dat\`, record's file (the tracepoints; the kernel dropped every kprobe event"
		echo "  from the ring buffer), converted to version 7 with zstd; \`perf.txt.xz\`, perf record's events"
		echo "  (the tracepoints and the kprobes) as \`perf script -F comm,tid,pid,cpu,time,event,trace --ns"
		echo "  --header --show-lost-events\` text, read by \`xz -dc perf.txt.xz | tlbscope report -\` (Debian 12's"
		echo "  perf 6.1 cannot read perf 6.12's perf.data); \`record.txt\`, \`workload.txt\`: their stderr and"
		echo "  the workload's output; \`report*.txt\`, \`tune*.txt\`, \`status.txt\`: report and tune of both here."
		echo
	} > README.md
fi
cat status.txt
du -sh "$dst"
