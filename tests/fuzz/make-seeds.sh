#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Make the fuzzing seeds of tests/fuzz/seeds/ from the test fixtures and the corpus: small
# trace.dat files (version 6 shrunk by shrink-dat.py, and version 7 plain and zstd made from
# them by trace-cmd convert), the heads of the text fixtures, tlbscope's own JSON lines, and
# the heads of perf script text (the fixtures, and perf.data as tlbscope has perf print it).
# The seeds are committed; run this again only to change them.  Needs trace-cmd, python3
# and perf.
#   usage: tests/fuzz/make-seeds.sh [TLBSCOPE]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=${1:-$top/tlbscope}
out=$top/tests/fuzz/seeds
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out/trace.dat" "$out/ftrace-text" "$out/jsonl" "$out/perf-text"

n=0
for dat in corpus/traces/hackbench-aia-4cpu corpus/traces/hackbench-lazy-t6q32-aia-4cpu \
	   corpus/traces/hackbench-sbi-4cpu corpus/traces/nmidrop-aia-4cpu; do
	[ -d "$top/$dat" ] && dat=$dat/trace.dat
	name=$(basename "${dat%/trace.dat}" .dat)
	(cd "$tmp" && trace-cmd convert --file-version 6 --compression none -i "$top/$dat" \
		-o v6.dat > /dev/null 2>&1)
	python3 "$top/tests/fuzz/shrink-dat.py" "$tmp/v6.dat" "$out/trace.dat/$name-v6.dat" 2
	n=$((n + 1))
	# the first two also as version 7, once uncompressed and once with zstd sections
	[ $n -le 2 ] || continue
	for c in none zstd; do
		(cd "$tmp" && trace-cmd convert --file-version 7 --compression $c \
			-i "$out/trace.dat/$name-v6.dat" -o "$out/trace.dat/$name-v7-$c.dat" \
			> /dev/null 2>&1)
	done
done

for f in "$top"/tests/fixtures/text/*.txt "$top"/tests/fixtures/hand/identity.txt; do
	head -c 6000 "$f" | sed '$d' > "$out/ftrace-text/$(basename "$f")"
done
xz -dc "$top/tests/fixtures/x86-lost.txt.xz" | head -60 > "$out/ftrace-text/x86-lost.txt"

for f in "$out"/trace.dat/*-v6.dat "$top"/tests/fixtures/hand/identity.txt; do
	"$prog" events "$f" 2> /dev/null | head -120 > "$out/jsonl/$(basename "${f%.*}").jsonl"
done
# perf script text: default fields, call chains, [FAILED TO PARSE], and what perf prints
# with the options parsers/perf.c gives it for a perf.data (the capture lost no events)
for f in "$top"/tests/fixtures/perf/*.txt; do
	head -c 6000 "$f" | sed '$d' > "$out/perf-text/$(basename "$f")"
done
xz -dc "$top/tests/fixtures/perf/x86-hackbench.script.xz" | head -c 6000 | sed '$d' \
	> "$out/perf-text/x86-hackbench-default.txt"
xz -dc "$top/tests/fixtures/perf/x86-hackbench.data.xz" > "$tmp/perf.data"
perf script -i "$tmp/perf.data" -F comm,tid,pid,cpu,time,event,trace --ns --header \
	--show-lost-events 2> /dev/null | grep -v '^# event :' | head -c 6000 | sed '$d' \
	> "$out/perf-text/x86-hackbench-fields.txt"
ls -l "$out"/*
