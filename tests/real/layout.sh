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
echo "1..$n"
