#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Docs stay true: every subcommand has a man page, every option its --help shows is in it,
# and the README's two commands are there.
T=docs
. "$(dirname "$0")/../lib.sh"

cmds=$("$prog" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
check "tlbscope --help lists commands" [ -n "$cmds" ]
check "man/tlbscope.1 exists" [ -f "$top/man/tlbscope.1" ]
for c in $cmds; do
	page=$top/man/tlbscope-$c.1
	if [ ! -f "$page" ]; then
		not_ok "$c: no man page $page"
		continue
	fi
	opts=$("$prog" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
	opts="$opts $("$prog" "$c" --help | grep -oE -- '(^ +|, )-[A-Za-z]\b' | grep -o -- '-[A-Za-z]' | sort -u)"
	missing=""
	for o in $opts; do
		case $o in
		--*) grep -qF -- "\\-\\-${o#--}" "$page" || missing="$missing $o" ;;
		*) grep -qF -- "\\$o" "$page" || missing="$missing $o" ;;
		esac
	done
	check "$c: every option of --help is in tlbscope-$c.1${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
	check "tlbscope.1 names $c" grep -q "^\.B $c" "$top/man/tlbscope.1"
done
check "README shows 'make run'" grep -q 'make run' "$top/README.md"
check "README shows 'make check'" grep -q 'make check' "$top/README.md"
# the product refers to nothing outside its repository: no design document, seed or issue
# number a reader of the tree cannot open
outside=$(cd "$top" && grep -rlE '\.\./shared|DESIGN\.md|issue [0-9]+' README.md man docs cli tuner \
	timeline parsers record dashboards lib tests/unit tests/real tests/cli-run.sh tests/run.sh \
	tests/lib.sh corpus/*.sh corpus/README.md 2>/dev/null)
check "no reference outside the repository in README, man/, docs/ or the sources${outside:+ ($outside)}" \
	[ -z "$outside" ]
check "docs/design.md, which man pages and comments cite, is in the tree" [ -f "$top/docs/design.md" ]
# a newcomer's first screen: README short, their own trace within its first 60 lines
check "README is at most 200 lines ($(wc -l < "$top/README.md"))" [ "$(wc -l < "$top/README.md")" -le 200 ]
check "README reaches 'your own trace' within its first 60 lines" \
	sh -c "head -60 '$top/README.md' | grep -q '^## Your own trace'"
# README's Layout names the room of every source file
unnamed=""
for f in "$top"/lib/*.c "$top"/parsers/*.c "$top"/timeline/*.c "$top"/tuner/*.c "$top"/analysis/*.c "$top"/record/*.c \
	 "$top"/dashboards/*.c "$top"/cli/*.c; do
	[ -e "$f" ] || continue
	grep -qF "\`$(basename "$f")\`" "$top/README.md" || unnamed="$unnamed ${f#$top/}"
done
check "README's Layout names every source file${unnamed:+ (not:$unnamed)}" [ -z "$unnamed" ]
