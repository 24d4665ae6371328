#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The house rules README's Layout states: no C file over 900 lines, the layers never call
# back up (no #include of a later layer), only record/ writes tracefs (cli/ calls no
# tracefs_* function), only dashboards/ includes curses.
T=layout
. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 1

big=$(find lib parsers timeline tuner analysis record dashboards cli tests/unit tests/tools corpus \
	-name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 900 { print $2 "(" $1 ")" }')
check "no C file over 900 lines${big:+ (over: $big)}" [ -z "$big" ]

calls=$(grep -n 'tracefs_[a-z_]*(' cli/*.c | grep -v '^[^:]*:[0-9]*:\s*\*' || true)
check "cli/ calls no tracefs_* function${calls:+ ($calls)}" [ -z "$calls" ]

curses=$(grep -ln '#include <n\?curses' lib parsers timeline tuner analysis record cli -r || true)
check "only dashboards/ includes curses${curses:+ ($curses)}" [ -z "$curses" ]

# each layer includes only itself and those below it
order="lib parsers timeline tuner analysis record dashboards cli"
up=""
for d in $order; do
	below=1
	for u in $order; do
		[ "$u" = "$d" ] && { below=0; continue; }
		[ $below = 1 ] && continue
		hits=$(grep -ln "#include \"\.\./$u/" "$d"/*.[ch] 2>/dev/null || true)
		[ -n "$hits" ] && up="$up $hits->$u"
	done
done
check "no layer includes one above it${up:+ (up:$up)}" [ -z "$up" ]

# cli/ is argv and renderers: what is fed the stream (a *_feed consumer) lives below it
feeds=$(grep -nE '^[a-z].*[a-z0-9]_feed\(' cli/*.c || true)
check "cli/ defines no *_feed consumer${feeds:+ ($feeds)}" [ -z "$feeds" ]
# ... and prices nothing: its renderers print what analysis/ and tuner/ finished
prices=$(grep -nE '(tuner_(cost|model_cost|point_cost|grid_point|point_counts|whatif_point|recommend|advise|windows|lazy_split)|sfence_whatif_svvptc)\(' cli/*.c || true)
check "cli/ calls none of the tuner's pricing functions${prices:+ ($prices)}" [ -z "$prices" ]

# no call circle between the files of a room: A calls B and B (through others) calls A.
# Read from the objects' symbols, for every room.
build=${TLBSCOPE_BUILD:-$top/build}
if ! command -v nm > /dev/null || ! command -v tsort > /dev/null; then
	skip "no call circle inside a room" "nm or tsort not installed"
elif ! ls "$build"/cli/*.o > /dev/null 2>&1; then
	skip "no call circle inside a room" "no objects in $build (make first)"
else
	circles=""
	for d in lib parsers timeline tuner analysis record dashboards cli; do
		for o in "$build/$d"/*.o; do
			nm --defined-only -g "$o" | awk -v o="${o##*/}" 'NF == 3 { print $3, o }'
		done > "$tmp/defs"
		for o in "$build/$d"/*.o; do
			nm -u "$o" | awk '{ print $2 }' | sort -u > "$tmp/und"
			awk -v o="${o##*/}" 'NR == FNR { u[$1] = 1; next } ($1 in u) && $2 != o { print o, $2 }' \
				"$tmp/und" "$tmp/defs" | sort -u
		done > "$tmp/edges"
		if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
			circles="$circles $d/:$(grep -v 'input contains' "$tmp/loop" | sed 's/^tsort: //' | sort -u | tr '\n' ',')"
		fi
	done
	check "no call circle inside lib/, parsers/, timeline/, tuner/, analysis/, record/, dashboards/, cli/${circles:+ (circles:$circles)}" \
		[ -z "$circles" ]
fi

# no two files of a folder include each other's headers, directly or through another
# header: two files that need each other are one concern cut in half (STYLE.md)
includes() {	# the headers of FILE's folder it includes, through headers too
	local f=$1 seen=" " h dir
	dir=$(dirname "$f")
	local todo=$f
	while [ -n "$todo" ]; do
		set -- $todo
		f=$1
		shift
		todo=$*
		for h in $(sed -n 's/^#include "\([^./][^"]*\.h\)"/\1/p' "$f"); do
			case $seen in *" $h "*) continue ;; esac
			seen="$seen$h "
			[ -f "$dir/$h" ] && todo="$todo $dir/$h"
		done
	done
	echo "$seen"
}
circles=""
for c in lib/*.c parsers/*.c timeline/*.c tuner/*.c analysis/*.c record/*.c dashboards/*.c cli/*.c; do
	[ -f "${c%.c}.h" ] || continue
	mine=$(includes "$c")
	for d in "$(dirname "$c")"/*.c; do
		[ "$d" != "$c" ] && [ -f "${d%.c}.h" ] || continue
		[[ "$d" > "$c" ]] || continue
		case $mine in *" $(basename "${d%.c}.h") "*) ;; *) continue ;; esac
		case $(includes "$d") in *" $(basename "${c%.c}.h") "*) circles="$circles $c<->$d" ;; esac
	done
done
check "no two files include each other's headers${circles:+ (both ways:$circles)}" [ -z "$circles" ]
echo "1..$n"
