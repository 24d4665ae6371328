#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# JSON lines have three readers (parsers/jsonl-view.c): an exact one for lines as tlbscope
# writes them (keys in the order of parsers/jsonl-keys.c), a general scanner for flat
# objects in any order and spacing, and jansson for anything else.  The same events written
# so that every line takes another path (escapes, keys in another order, spacing) must give
# the same report, and lines jansson refuses are refused by all.
T=jsonl-paths
. "$(dirname "$0")/../lib.sh"

for run in hackbench-aia-4cpu mmapstress-lazy-t6q32-aia-4cpu; do
	dat=$top/corpus/traces/$run/trace.dat
	tls events "$dat" > "$tmp/e.jsonl"
	want=$(tls report --json "$tmp/e.jsonl" | jq -S 'del(.input)')
	# every comm and name with an escape: jansson reads them all
	sed 's/"comm":"\([a-z]\)/"comm":"\\u00\1/; s/"event":"s/"event":"\\u0073/' "$tmp/e.jsonl" |
		sed 's/\\u00i/\\u0069/; s/\\u00r/\\u0072/; s/\\u00k/\\u006b/; s/\\u00s/\\u0073/' \
		> "$tmp/esc.jsonl"
	n_esc=$(grep -c '\\u00' "$tmp/esc.jsonl")
	check "$run: most lines now need jansson ($n_esc)" [ "$n_esc" -gt 1000 ]
	same "$run: escaped lines give the same report" "$want" \
		"$(tls report --json "$tmp/esc.jsonl" | jq -S 'del(.input)')"
	# keys sorted and spaced: the general scanner's, still the same
	jq -c -S . "$tmp/e.jsonl" | sed 's/,"/, "/g; s/":/" : /g' > "$tmp/sorted.jsonl"
	same "$run: sorted, spaced keys give the same report" "$want" \
		"$(tls report --json "$tmp/sorted.jsonl" | jq -S 'del(.input)')"
done

# lines jansson refuses are refused by the scanner too, and skipped with a located message
h=$fx/hand/identity.txt
tls events "$h" > "$tmp/h.jsonl"
line=$(grep '"kind":"switch"' "$tmp/h.jsonl" | head -1)
for bad in "${line%\}},\"cpu\":1}" "${line/\"ts\":/\"ts\":1.5,\"x\":}" \
	"${line/\"ts\":/\"ts\":99999999999999999999999,\"x\":}" "${line/\"ts\":/\"ts\":012,\"x\":}" \
	"$line junk" "${line/\"comm\"/\"comm\":\"a\",\"comm\"}"; do
	{ cat "$tmp/h.jsonl"; echo "$bad"; } > "$tmp/bad.jsonl"
	out=$(tls report "$tmp/bad.jsonl" 2>&1)
	case $out in
	*"malformed records skipped: 1 "*) ok "refused: ${bad:0:60}..." ;;
	*) not_ok "not refused: $bad"; echo "$out" | grep -i malformed | sed 's/^/#   /' ;;
	esac
done
# what a report says of how the requests got their mm survives the JSON lines ("mm_from"),
# as does the text's timestamp precision (the header's "format"); which kernel threads
# were known by name is decided before the lines are written: n/a, not 0
for t in "$(unxz_fx x86-hackbench.txt.xz)" "$fx/text/report-instance.txt"; do
	name=$(basename "$t")
	tls events "$t" > "$tmp/t.jsonl"
	ev() { tls report --json "$1" 2> /dev/null |
		jq -c '.evidence | [.requests_mm_from_task, .requests_without_mm, .timestamps_as_printed]'; }
	want=$(ev "$t")
	check "$name: requests attributed to their task ($want)" \
		sh -c "echo '$want' | jq -e '.[0] > 0' > /dev/null"
	same "$name: its JSON lines give the same attribution and precision" "$want" "$(ev "$tmp/t.jsonl")"
	same "$name: its JSON lines: kernel threads by name n/a" null \
		"$(tls report --json "$tmp/t.jsonl" 2> /dev/null | jq .evidence.kthreads_by_name)"
done
# the task table's rows survive the lines; which were malformed or corrected a guess does not
tls events "$fx/hand/sbi-tracepoints.txt" > "$tmp/s.jsonl"
tg() { tls report --json "$1" 2> /dev/null |
	jq -c '.evidence | [.tgid_markers, .tgid_markers_malformed, .tgid_markers_corrected]'; }
same "sbi-tracepoints.txt: its JSON lines: the task table's rows, the rest n/a" \
	"$(tg "$fx/hand/sbi-tracepoints.txt" | jq -c '[.[0], null, null]')" "$(tg "$tmp/s.jsonl")"
echo "1..$n"
