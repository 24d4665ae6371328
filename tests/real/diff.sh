#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tlbscope diff on the corpus's stock and lazy-kernel runs of one workload: the kernel's
# own IPI drop, values equal to report's, saved reports as inputs, and --fail-on as a CI
# gate (exit 1 on growth past the limit, 0 within it, 2 on bad input or an unknown key).
T=diff
. "$(dirname "$0")/../lib.sh"

c=$top/corpus/traces
stock=$c/hackbench-aia-4cpu/trace.dat
lazy=$c/hackbench-lazy-t6q32-aia-4cpu/trace.dat
row() { jq -r --arg k "$2" '.rows[] | select(.key == $k) | [.before, .after, .change_percent] | @tsv' "$1"; }

tls diff --json "$stock" "$lazy" > "$tmp/d.json"
same "stock -> lazy exits 0 without gates" 0 $?
b=$(tls report --json "$stock" | jq .totals.flush_ipis)
a=$(tls report --json "$lazy" | jq .totals.flush_ipis)
same "flush_ipis before/after are report's" "$b	$a" "$(row "$tmp/d.json" flush_ipis | cut -f1,2)"
pct=$(awk -v b="$b" -v a="$a" 'BEGIN { printf "%.3f", (a - b) * 100 / b }')
same "change_percent is (after - before) / before" "$pct" \
	"$(row "$tmp/d.json" flush_ipis | awk '{ printf "%.3f", $3 }')"
check "the lazy kernel's IPI drop is over 90 %" awk -v p="$pct" 'BEGIN { exit !(p < -90) }'
for k in flush_requests local_flushes mm_switches; do
	same "$k: report's totals" \
		"$(tls report --json "$stock" | jq .totals.$k)	$(tls report --json "$lazy" | jq .totals.$k)" \
		"$(row "$tmp/d.json" $k | cut -f1,2)"
done
n_cpu=$(jq '[.rows[] | select(.key | test("^cpu[0-9]+\\.flush_ipis_received$"))] | length' "$tmp/d.json")
same "a received-IPIs row per CPU" 4 "$n_cpu"

# the models: on the lazy kernel's trace, lazy(6, 32) predicts the kernel's own IPIs
same "the lazy model at the kernel's T, Q predicts its IPIs" "$a" "$(row "$tmp/d.json" model.lazy_t6q32.ipis | cut -f2)"
same "stock_asid predicts the stock kernel's IPIs" "$b" "$(row "$tmp/d.json" model.stock_asid.ipis | cut -f1)"

# the gate
tls diff --fail-on flush_ipis:10 "$stock" "$lazy" > /dev/null 2>&1
same "--fail-on flush_ipis:10, IPIs fell: exit 0" 0 $?
tls diff --fail-on flush_ipis:10 "$lazy" "$stock" > /dev/null 2> "$tmp/g.err"
same "--fail-on flush_ipis:10, IPIs grew: exit 1" 1 $?
check "... and says which key" grep -q "flush_ipis grew by more than 10 %" "$tmp/g.err"
tls diff --fail-on flush_ipis:0 "$stock" "$stock" > /dev/null 2>&1
same "a trace against itself passes a 0 % gate" 0 $?
same "... every change is 0 or none" "" "$(tls diff --json "$stock" "$stock" |
	jq -r '.rows[] | select(.change_percent != null and .change_percent != 0) | .key')"
tls diff --json --fail-on flush_ipis:10 --fail-on local_flushes:5 "$lazy" "$stock" > "$tmp/g.json"
same "gates in the JSON" "true true" "$(jq -r '[.gates[].failed] | join(" ")' "$tmp/g.json")"

# saved reports and stdin are inputs too
tls report --json "$stock" > "$tmp/stock.json"
same "a saved report gives what the trace gives" \
	"$(tls diff --json "$stock" "$lazy" | jq -c '[.rows[] | select(.key | startswith("model.") | not)]')" \
	"$(tls diff --json "$tmp/stock.json" "$lazy" | jq -c '[.rows[] | select(.key | startswith("model.") | not)]')"
same "a saved report has no model rows (null)" "null" \
	"$(tls diff --json "$tmp/stock.json" "$lazy" | jq '.rows[] | select(.key == "model.ideal.ipis") | .before')"
same "stdin as BEFORE" "$(tls diff --json "$stock" "$lazy" | jq -c .rows)" \
	"$(tls diff --json - "$lazy" < "$stock" | jq -c .rows)"
# named pipes on both sides: each copied aside and read whole (by path, a second read waited)
mkfifo "$tmp/p1" "$tmp/p2"
timeout 30 cat "$stock" > "$tmp/p1" &
timeout 30 cat "$lazy" > "$tmp/p2" &
same "named pipes as BEFORE and AFTER" "$(tls diff --json "$stock" "$lazy" | jq -c .rows)" \
	"$(timeout 60 ${TLBSCOPE_WRAP:-} "$prog" diff --json "$tmp/p1" "$tmp/p2" | jq -c .rows)"
wait
# messages name such an input as given, not as its copy (/proc/self/fd/N)
head -c 20000 "$stock" > "$tmp/cut.dat"
tls diff "$stock" - < "$tmp/cut.dat" > /dev/null 2> "$tmp/cut.err"
same "a cut trace through stdin: exit 2" 2 $?
check "... its messages name <stdin>" grep -q "^tlbscope: <stdin>: .*past the end" "$tmp/cut.err"
check "... and diff's own too" grep -q "^tlbscope: diff: <stdin>: not analyzed" "$tmp/cut.err"
same "... never the copy" "" "$(grep /proc/self/fd "$tmp/cut.err")"
lost=$fx/x86-lost.dat
tls diff "$stock" - < "$lost" > /dev/null 2> "$tmp/lost.err"
check "warnings on stdin's trace name <stdin>" grep -q "^tlbscope: warning: <stdin>: .*events lost" \
	"$tmp/lost.err"
same "... never the copy" "" "$(grep /proc/self/fd "$tmp/lost.err")"

# unknown stays unknown: a trace with no IPI evidence
nolat=$fx/text/tracefs-latency-format.txt
same "no IPI evidence: flush_ipis is null, change null" "null	null" \
	"$(tls diff --json "$nolat" "$nolat" | jq -r '.rows[] | select(.key == "flush_ipis") | [.before, .change_percent] | map(tostring) | @tsv')"
tls diff --fail-on flush_ipis:10 "$nolat" "$stock" > /dev/null 2> "$tmp/u.err"
same "a gate on an unknown value: exit 2" 2 $?
check "... saying it cannot be judged" grep -q "cannot be judged" "$tmp/u.err"

# docs/corpus-lazy.md's stock-vs-lazy table is what corpus/diff-table.sh makes with diff
got=$("$top/corpus/diff-table.sh" "$prog")
want=$(awk '/^## The same, made with `tlbscope diff`/ { on = 1 } on && /^\| workload/ { t = 1 }
	t && !/^\|/ { exit } t { print }' "$top/docs/corpus-lazy.md")
same "docs/corpus-lazy.md's table = corpus/diff-table.sh" "$want" "$got"

# a value that grows from 0 is a known change with no percentage: "from 0", not n/a
a=$top/corpus/debian/traces/stress-tlb-debian-stock-aia-4cpu/trace.dat
b=$top/corpus/debian/traces/stress-tlb-debian-lazy-t6q32-aia-4cpu/trace.dat
if [ -f "$a" ] && [ -f "$b" ]; then
	tls diff "$a" "$b" > "$tmp/from0.txt"
	check "diff of the Debian stress-tlb runs: flush_all 0 -> 12 is 'from 0'" \
		grep -Eq '^  sfence\.flush_all +0 +12 +from 0$' "$tmp/from0.txt"
	same "... and its JSON change is null, not a number" null "$(tls diff --json "$a" "$b" |
		jq '[.rows[] | select(.key == "sfence.flush_all")][0].change_percent')"
else
	skip "diff: a change from 0" "corpus/debian/traces not in this tree"
fi

# bad usage, bad input
bad() { tls diff "$@" > /dev/null 2>&1; echo $?; }
same "an unknown --fail-on key: exit 2" 2 "$(bad --fail-on no_such:1 "$stock" "$lazy")"
same "--fail-on without a percentage: exit 2" 2 "$(bad --fail-on flush_ipis "$stock" "$lazy")"
same "one input: exit 2" 2 "$(bad "$stock")"
same "three inputs: exit 2" 2 "$(bad "$stock" "$lazy" "$stock")"
same "a missing file: exit 2" 2 "$(bad "$stock" "$tmp/none.dat")"
head -c 100000 "$stock" > "$tmp/cut.dat"
tls diff "$stock" "$tmp/cut.dat" > /dev/null 2> "$tmp/cut.err"
same "a truncated trace: exit 2" 2 $?
check "... the message names it" grep -q "cut.dat" "$tmp/cut.err"
# diff analyzes both traces in its own process, with report's and tune's own code
if command -v strace > /dev/null; then
	# (an ASan build's leak check clones a thread at exit: not a child of diff's)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=execve,clone,clone3,fork,vfork -o "$tmp/st.txt" \
		"$prog" diff "$stock" "$lazy" > /dev/null 2>&1
	# (-j's reading threads are clones of CLONE_THREAD: not processes)
	same "diff runs no child process (one execve, no clone of a process)" 1 \
		"$(grep -E 'execve\(|clone\(|clone3\(|fork\(' "$tmp/st.txt" | grep -vc CLONE_THREAD)"
else
	skip "diff in one process" "strace not installed (Debian package strace)"
fi
echo "1..$n"
