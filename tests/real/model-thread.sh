#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# report's and tune's model on a thread of its own (cli/model-thread.c): the reader's thread
# hands the events over in batches while that is faster.  Whichever thread feeds the model,
# the output must be the same to the byte, stdout, stderr and status: fed by the thread
# throughout (TLBSCOPE_MODEL_THREAD=always), by turns every 1021 events (alternate: each
# turn waits for the other side's last batch) and by the reader alone (never), on every
# corpus trace, Debian run and fixture, as trace.dat, text and JSON lines; a corrupt record
# fails the same way; -j counts the thread (strace).
T=model-thread
. "$(dirname "$0")/../lib.sh"

# out MODE CMD...: CMD's stdout, stderr and status in one text, its stdout as a checksum
out() {
	local mode=$1
	shift
	TLBSCOPE_MODEL_THREAD=$mode tls "$@" 2> "$tmp/err" | md5sum
	echo "status ${PIPESTATUS[0]}"
	cat "$tmp/err"
}
# alike DESC CMD...: the same output fed by the reader, by the thread and by turns
alike() {
	local desc=$1 never always alternate
	shift
	never=$(out never "$@")
	always=$(out always "$@")
	alternate=$(out alternate "$@")
	if [ "$never" = "$always" ] && [ "$never" = "$alternate" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diff <(echo "$never") <(echo "$always") | head -10 | sed 's/^/#   always: /'
		diff <(echo "$never") <(echo "$alternate") | head -10 | sed 's/^/#   alternate: /'
	fi
}

for f in "$top"/corpus/traces/*/trace.dat "$top"/corpus/debian/traces/*/*.dat "$fx"/*.dat; do
	[ -f "$f" ] || continue
	alike "${f#"$top"/}: report --json alike, fed by either thread" report --json "$f"
done
# text and JSON lines take the same road: the model's feeding is the format's own
for x in x86-hackbench x86-lost x86-threads-tgid; do
	xz -dc "$fx/$x.txt.xz" > "$tmp/$x.txt"
	alike "$x.txt: report alike" report "$tmp/$x.txt"
	tls events "$fx/$x.dat" > "$tmp/$x.jsonl" 2> /dev/null
	alike "$x.jsonl (JSON lines): report --json alike" report --json "$tmp/$x.jsonl"
done
# tune replays the lazy model on that thread: its grid and advice on a trace of each shape
for f in corpus/traces/mmapstress-aia-4cpu/trace.dat corpus/traces/hackbench-aia-8cpu/trace.dat \
	 corpus/traces/hackbench-lazy-t6q32-aia-4cpu/trace.dat corpus/traces/hackbench-sbi-4cpu/trace.dat \
	 tests/fixtures/x86-lost.dat; do
	[ -f "$top/$f" ] || continue
	alike "$f: tune --json alike" tune --json "$top/$f"
done
four=$top/corpus/traces/hackbench-aia-4cpu/trace.dat
alike "report --from/--to -C: alike" report --json --from +0.2 --to +0.6 -C 1-2 "$four"

# a record whose length runs past its sub-buffer, read after the thread took over
if command -v trace-cmd > /dev/null; then
	trace-cmd convert -i "$four" --file-version 6 -o "$tmp/v6.dat" > /dev/null 2>&1
	cp "$tmp/v6.dat" "$tmp/bad.dat"
	off=$(( ($(stat -c %s "$tmp/v6.dat") / 4096 - 40) * 4096 + 16 ))
	printf '\377\377\377\377' | dd of="$tmp/bad.dat" bs=1 seek=$off conv=notrunc status=none
	alike "a corrupt record mid-file: the same message and status" report "$tmp/bad.dat"
	check "... exit 2" grep -q "^status 2$" <(out always report "$tmp/bad.dat")
else
	skip "a corrupt record mid-file" "trace-cmd is not installed (its convert makes the file)"
fi

# threads: the model's one with -j 2 or more (the readers one fewer), none with -j 1 or
# "never"; events keeps its readers (its output is written as the events come)
why=$(threads_why)
if [ -n "$why" ]; then
	skip "threads started" "$why"
else
	base=$(clones "$prog" --help)
	export TLBSCOPE_MODEL_THREAD=always
	same "report -j 2: the model's thread, no reader" $((base + 1)) \
		"$(clones "$prog" report -j 2 "$four")"
	same "report -j 3 on a 4-CPU trace: the model's thread and a reader" $((base + 2)) \
		"$(clones "$prog" report -j 3 "$four")"
	same "report -j 1: no thread" "$base" "$(clones "$prog" report -j 1 "$four")"
	same "tune -j 2: the model's thread" $((base + 1)) \
		"$(clones "$prog" tune -j 2 "$four")"
	# timed: the first 32 Ki events are the reader's, the model's tables warming up
	same "report -j 2, timed, 1000 events: no thread made" "$base" \
		"$(TLBSCOPE_MODEL_THREAD= clones "$prog" report -j 2 "$tmp/x86-hackbench.txt")"
	same "report, TLBSCOPE_MODEL_THREAD=never: no model thread" "$base" \
		"$(TLBSCOPE_MODEL_THREAD=never clones "$prog" report -j 2 "$four")"
	same "events -j 2: one reader, no model thread" $((base + 1)) \
		"$(clones "$prog" events -j 2 "$four")"
fi
echo "1..$n"
