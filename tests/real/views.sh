#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The text views fit a person: report's and tune's first screens (-q) take at most 24 lines
# of an 80-column terminal on every corpus trace and this machine's x86 fixtures; no line of
# report, tune, info, probes or diff is over 100 columns; on a terminal the text goes through
# the pager and is coloured, in a pipe neither, and --no-pager, --color and NO_COLOR do what
# they say; a pager quit early is no error.
T=views
. "$(dirname "$0")/../lib.sh"

# screen_lines FILE: rows the file takes on an 80-column terminal (a longer line wraps)
screen_lines() { LC_ALL=C.UTF-8 awk '{ n += length($0) > 80 ? int((length($0) + 79) / 80) : 1 } END { print n + 0 }' "$1"; }
widest() { LC_ALL=C.UTF-8 wc -L < "$1"; }

inputs=""
# named from the tree's top, as a user in it would: the text's width is the tool's, not
# that of where the tree was checked out (a name wider than the screen cannot be wrapped)
cd "$top" || exit 1
for d in corpus/traces/*/; do inputs="$inputs ${d}trace.dat"; done
inputs="$inputs tests/fixtures/x86-hackbench.dat tests/fixtures/x86-lost.dat"
inputs="$inputs tests/fixtures/x86-threads-tgid.dat corpus/debian/traces/*/trace.dat"
tall="" wide="" summary=""
for f in $inputs; do
	name=${f#$top/}
	tls report -q "$f" > "$tmp/r" 2> /dev/null
	tls tune -q "$f" > "$tmp/t" 2> /dev/null
	[ "$(screen_lines "$tmp/r")" -le 24 ] || tall="$tall report:$name($(screen_lines "$tmp/r"))"
	# the summary itself is 80 columns (the header names the file, as long as it is)
	w=$(sed -n '/^Summary/,$p' "$tmp/r" | LC_ALL=C.UTF-8 wc -L)
	[ "$w" -le 80 ] || summary="$summary $name($w)"
	[ "$(screen_lines "$tmp/t")" -le 24 ] || tall="$tall tune:$name($(screen_lines "$tmp/t"))"
	for cmd in "report" "report --top 0" "tune" "tune -v" "info" "probes"; do
		# shellcheck disable=SC2086 # the command's words
		tls $cmd "$f" > "$tmp/o" 2> /dev/null
		[ "$(widest "$tmp/o")" -le 100 ] || wide="$wide $cmd:$name($(widest "$tmp/o"))"
	done
done
check "report -q and tune -q fit 24 rows of 80 columns on every input${tall:+ (not:$tall)}" \
	[ -z "$tall" ]
check "report's summary: no line over 80 columns${summary:+ (over:$summary)}" [ -z "$summary" ]
check "report, tune (-v), info and probes: no line over 100 columns${wide:+ (over:$wide)}" \
	[ -z "$wide" ]

c=corpus/traces
tls diff "$c/hackbench-aia-4cpu/trace.dat" "$c/hackbench-sbi-4cpu/trace.dat" > "$tmp/d" 2> /dev/null
check "diff: no line over 100 columns ($(widest "$tmp/d"))" [ "$(widest "$tmp/d")" -le 100 ]
check "diff marks the IPI rows of AIA against SBI as unlike" \
	grep -q '^  flush_ipis .* !$' "$tmp/d"
check "diff leaves the switches of AIA against SBI unmarked" \
	grep -q '^  switches .*%  $' "$tmp/d"

# on a terminal: script(1) gives tlbscope one; the pager marks every line it shows
dat=$c/hackbench-aia-4cpu/trace.dat
if ! command -v script > /dev/null; then
	skip "pager and colour on a terminal" "script (util-linux) not installed"
else
	on_tty() { TERM=xterm script -qec "$1" /dev/null | tr -d '\r'; }
	on_tty "TLBSCOPE_PAGER='sed s/^/PAGED:/' '$prog' report -q '$dat'" > "$tmp/p"
	check "on a terminal the report goes through \$TLBSCOPE_PAGER" \
		[ "$(grep -c '^PAGED:' "$tmp/p")" -ge 10 ]
	check "on a terminal the section titles are bold" \
		grep -q $'^PAGED:\e\\[1mSummary' "$tmp/p"
	on_tty "PAGER='sed s/^/PAGED:/' '$prog' tune -q '$dat'" > "$tmp/p"
	check "tune goes through \$PAGER" [ "$(grep -c '^PAGED:' "$tmp/p")" -ge 10 ]
	on_tty "TLBSCOPE_PAGER='sed s/^/PAGED:/' '$prog' report -q --no-pager '$dat'" > "$tmp/p"
	check "--no-pager: not paged" [ "$(grep -c '^PAGED:' "$tmp/p")" = 0 ]
	on_tty "TLBSCOPE_PAGER=cat NO_COLOR=1 '$prog' report -q '$dat'" > "$tmp/p"
	check "NO_COLOR: no escape sequence" [ "$(grep -c $'\e' "$tmp/p")" = 0 ]
	on_tty "TLBSCOPE_PAGER=cat '$prog' report -q --color never '$dat'" > "$tmp/p"
	check "--color never: no escape sequence" [ "$(grep -c $'\e' "$tmp/p")" = 0 ]
	on_tty "TLBSCOPE_PAGER='head -1' '$prog' report --top 0 '$dat'; echo status \$?" \
		> "$tmp/p" 2>&1
	check "a pager quit after one line: exit 0, no write error" \
		sh -c "grep -q '^status 0$' '$tmp/p' && ! grep -q 'write error' '$tmp/p'"
fi
TLBSCOPE_PAGER='sed s/^/PAGED:/' tls report -q "$dat" > "$tmp/p"
check "in a pipe: not paged, no escape sequence" \
	[ "$(grep -c -e '^PAGED:' -e $'\e' "$tmp/p")" = 0 ]
tls report -q --color always "$dat" > "$tmp/p"
check "--color always: coloured in a pipe" grep -q $'^\e\\[1mSummary' "$tmp/p"
echo "1..$n"
