#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The examples of README.md and docs/*.md are run: in every fenced block, a line "$ COMMAND"
# is executed from the top of the tree and what it prints must be the lines that follow it,
# so the worked examples never drift from what tlbscope does.
T=readme
. "$(dirname "$0")/../lib.sh"
command -v jq > /dev/null || { skip "all" "jq not installed"; exit 0; }

n=0
for doc in "$top/README.md" "$top"/docs/*.md; do
	n=$(awk -v dir="$tmp" -v n="$n" -v doc="${doc#$top/}" '
		/^```/ { if (inblock && cmd != "") close(out); inblock = !inblock; cmd = ""; next }
		inblock && /^\$ / { if (cmd != "") close(out); n++; cmd = substr($0, 3)
			out = dir "/expect." n; print cmd > (dir "/cmd." n); close(dir "/cmd." n)
			print doc > (dir "/doc." n); close(dir "/doc." n)
			printf "" > out; next }
		inblock && cmd != "" { print >> out }
		END { print n }
	' "$doc")
done
for c in "$tmp"/cmd.*; do
	[ -e "$c" ] || { not_ok "no example found in README.md or docs/"; exit 0; }
	i=${c##*.}
	cmd=$(cat "$c")
	case "$cmd" in
	*"./tlbscope "*|*"| ./tlbscope"*) ;;
	*) continue ;;	# only tlbscope's own examples are checked
	esac
	(cd "$top" && PATH="$(dirname "$prog"):$PATH" bash -c "${cmd//.\/tlbscope/$prog}") \
		> "$tmp/actual.$i" 2>&1
	if diff -u "$tmp/expect.$i" "$tmp/actual.$i" > "$tmp/diff.$i"; then
		ok "$(cat "$tmp/doc.$i"): \$ ${cmd:0:70}"
	else
		not_ok "$(cat "$tmp/doc.$i"): \$ ${cmd:0:70}"
		head -20 "$tmp/diff.$i" | sed 's/^/#   /'
	fi
done
