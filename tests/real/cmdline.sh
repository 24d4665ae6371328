#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# The traced kernel's command line: `record` writes it into the trace ("tlbscope-cmdline:"
# marker, tlbscope-record(1)) and `info` shows it; on a lazy-flush kernel tune and top
# --replay take its lazytlb.* boot parameters as the base (a parameter not given is the
# kernel's default), where the trace alone can only bound T from below.  Most lazy corpus
# runs were recorded before the marker: their text (trace-cmd report) gets the marker line
# with the run's own kernel command line, as its README records the QEMU -append.  The
# guest's /init writes it since (corpus/guest/init.c): forkexec-lazy-t12q64-aia-4cpu-r2
# carries its own.
T=cmdline
. "$(dirname "$0")/../lib.sh"
command -v jq > /dev/null || { skip "all" "jq not installed"; exit 0; }
command -v trace-cmd > /dev/null || { skip "all" "trace-cmd not installed"; exit 0; }

# with_cmdline RUN OUT [CMDLINE]: RUN's text with a marker line of CMDLINE (default: the
# run's own -append) at its first event's time
with_cmdline() {
	local dir=$top/corpus/traces/$1 cl=${3-}
	[ $# -ge 3 ] || cl=$(grep -o -- '-append .*' "$dir/README.md" | head -1 | sed 's/^-append //; s/ *$//')
	trace-cmd report "$dir/trace.dat" 2> /dev/null > "$tmp/plain.txt"
	# after the "cpus=" line, before the first event, with that event's task, CPU, latency
	# flags (trace-cmd 3.3 prints them by default: "[000] d.h..  1.047822:") and time
	awk -v cl="$cl" 'NR == 2 && match($0, /\] +([^ ]+ +)?[0-9.]+:/) {
		print substr($0, 1, RSTART + RLENGTH - 1) " print:                tracing_mark_write: tlbscope-cmdline: " cl }
		{ print }' "$tmp/plain.txt" > "$2"
}

for run in forkexec-lazy-t12q64-aia-4cpu mmap-lazy-t2q4-aia-4cpu; do
	[ -f "$top/corpus/traces/$run/trace.dat" ] || { skip "$run" "not in the corpus"; continue; }
	T_run=$(echo "$run" | sed 's/.*-t\([0-9]*\)q.*/\1/')
	Q_run=$(echo "$run" | sed 's/.*q\([0-9]*\)-.*/\1/')
	with_cmdline "$run" "$tmp/$run.txt"
	check "$run: info shows the kernel's command line" \
		sh -c "'$prog' info --json '$tmp/$run.txt' 2> /dev/null | jq -r .cmdline | grep -q 'lazytlb.max_loaded_mm=$T_run '"
	tls tune --json "$tmp/$run.txt" > "$tmp/$run.json" 2> /dev/null
	same "$run: tune's base is the command line's T=$T_run Q=$Q_run" \
		"$T_run $Q_run the kernel's command line" \
		"$(jq -r '.recommendation.base | "\(.threshold) \(.queue) \(.threshold_source)"' "$tmp/$run.json")"
	# the same text without the marker: the base is what the trace shows, not the setting
	tls tune --json "$tmp/plain.txt" > "$tmp/$run.plain.json" 2> /dev/null
	check "$run: without the command line the base is not said to come from it" \
		sh -c "jq -r .recommendation.base.threshold_source '$tmp/$run.plain.json' | grep -vq 'command line'"
	want=$(jq -r '.recommendation | if .threshold then "T=\(.threshold) Q=\(.queue) \(.verdict)" else .verdict end' "$tmp/$run.json")
	got=$(tls top --replay "$tmp/$run.txt" --speed max -b 2> /dev/null | top_recommendation)
	same "$run: top --replay ends on tune's answer with the same base ($want)" "$want" "$got"
	# through JSON lines (events): the header carries the command line, the base stays
	tls events "$tmp/$run.txt" > "$tmp/$run.jsonl" 2> /dev/null
	same "$run: events writes the command line into its header" "true" \
		"$(head -1 "$tmp/$run.jsonl" | jq '.cmdline | test("lazytlb.max_loaded_mm='$T_run' ")')"
	same "$run: tune of those JSON lines: the same base, from the command line" \
		"$T_run $Q_run the kernel's command line" \
		"$(tls tune --json "$tmp/$run.jsonl" 2> /dev/null |
			jq -r '.recommendation.base | "\(.threshold) \(.queue) \(.threshold_source)"')"
done

# a run whose guest wrote the marker itself: its trace.dat says T and Q, nothing injected
run=forkexec-lazy-t12q64-aia-4cpu-r2
f=$top/corpus/traces/$run/trace.dat
if [ -f "$f" ]; then
	same "$run: the trace.dat carries its kernel command line (the README's -append)" \
		"$(grep -o -- '-append .*' "$top/corpus/traces/$run/README.md" | head -1 |
			sed 's/^-append //; s/ *$//')" \
		"$(tls info --json "$f" 2> /dev/null | jq -r .cmdline)"
	same "$run: tune's base is T=12 Q=64 from the trace itself" \
		"12 64 the kernel's command line the kernel's command line" \
		"$(tls tune --json "$f" 2> /dev/null | jq -r '.recommendation.base |
			"\(.threshold) \(.queue) \(.threshold_source) \(.queue_source)"')"
	check "$run: tune's text says base T=12 and Q=64 from the kernel's command line" \
		sh -c "'$prog' tune '$f' 2> /dev/null | tr -s ' \n' '  ' |
			grep -q 'base T=12 from the kernel.s command line, Q=64 from the kernel.s command line'"
	# the run it repeats, recorded before the marker: the trace alone bounds T from below
	same "forkexec-lazy-t12q64-aia-4cpu (no marker): the base is not from a command line" \
		"null" "$(tls info --json "$top/corpus/traces/forkexec-lazy-t12q64-aia-4cpu/trace.dat" \
			2> /dev/null | jq -r .cmdline)"
else
	skip "$run" "not in the corpus"
fi

# a lazy kernel booted without lazytlb.*: it runs the series' defaults, and tune says so
run=forkexec-lazy-t12q64-aia-4cpu
if [ -f "$top/corpus/traces/$run/trace.dat" ]; then
	with_cmdline "$run" "$tmp/none.txt" "console=ttyS0 earlycon=sbi"
	same "a command line without lazytlb.*: the kernel's defaults 6, 32" \
		"6 32 the kernel's default (its command line sets none)" \
		"$(tls tune --json "$tmp/none.txt" 2> /dev/null | jq -r '.recommendation.base | "\(.threshold) \(.queue) \(.threshold_source)"')"
fi

# record writes this machine's command line into the trace
if [ "$(id -u)" != 0 ]; then
	skip "record writes the command line" "not root: cannot use tracefs"
else
	[ -d $tr/instances ] || mount -t tracefs nodev $tr 2> /dev/null
	if [ ! -d $tr/instances ]; then
		skip "record writes the command line" "tracefs is not available at $tr"
	elif tls record -o "$tmp/rec.dat" -- true > /dev/null 2> "$tmp/rec.err"; then
		same "record: the trace carries /proc/cmdline (info --json .cmdline)" \
			"$(sed 's/ *$//' /proc/cmdline)" \
			"$(tls info --json "$tmp/rec.dat" 2> /dev/null | jq -r .cmdline)"
	else
		not_ok "record -- true failed: $(head -3 "$tmp/rec.err")"
	fi
fi
echo "1..$n"
