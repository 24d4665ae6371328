#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One command-line convention (cli/options.c): every spelling of an option gives the same
# output as its plain "--opt value" form, and bad usage is exit 2 with the option named.
T=options
. "$(dirname "$0")/../lib.sh"

h=$fx/hand/identity.txt
rv=$top/corpus/traces/hackbench-aia-4cpu/trace.dat

# out ARGS...: output and exit status of a run (top's wall-clock line left out)
out() { tls "$@" 2>&1 | grep -v '^elapsed '; echo "exit ${PIPESTATUS[0]}"; }
# spellings "what" BASE -- OTHER...: each OTHER prints exactly what BASE prints
spellings() {
	local what=$1 base=("${@:2}") i
	for ((i = 2; i <= $#; i++)); do [ "${!i}" = "--" ] && break; done
	base=("${@:2:i-2}")
	local want got
	want=$(out "${base[@]}")
	got=$(out "${@:i+1}")
	case $want in *"exit 0") ;; *) not_ok "$what: the base form failed: $want"; return ;; esac
	same "$what" "$want" "$got"
}

spellings "--top=3 is --top 3" report --top 3 "$h" -- report --top=3 "$h"
spellings "-C1 is --cpu 1" report --cpu 1 "$h" -- report -C1 "$h"
spellings "--cpu=1 is --cpu 1" report --cpu 1 "$h" -- report --cpu=1 "$h"
spellings "options after the trace" report --json --cpu 1 "$h" -- report "$h" --json -C 1
spellings "'--' ends the options" report "$h" -- report -- "$h"
spellings "a unique prefix of a long option" report --json "$h" -- report --js "$h"
spellings "--from=+T / --to=+T" events --from +0.001 --to +0.5 "$h" -- \
	events --from=+0.001 --to=+0.5 "$h"
spellings "tune --threshold=/--queue=/--direct=" \
	tune --threshold 2,6 --queue 1,32 --direct 6,32 --json "$rv" -- \
	tune --threshold=2,6 --queue=1,32 --direct=6,32 --json "$rv"
spellings "top -bn1 is -b -n 1" top -b -n 1 --replay "$h" --speed max -- \
	top -bn1 --replay="$h" --speed=max

for c in report info events tune record top; do
	a=$(tls "$c" -h 2>&1; echo "exit $?")
	b=$(tls "$c" --help 2>&1; echo "exit $?")
	case $a in usage:*"exit 0") same "$c -h is --help, exit 0" "$b" "$a" ;;
	*) not_ok "$c -h: $a" ;; esac
done
same "tlbscope -V is --version" "$(tls --version)" "$(tls -V)"

# bad usage: exit 2 and a message naming the command and the option as typed
bad() {
	local what=$1 want=$2 got
	shift 2
	got=$(tls "$@" 2>&1 >/dev/null)
	if [ $? = 2 ] && [[ $got == *"$want"* ]]; then ok "$what"; else not_ok "$what: got '$got'"; fi
}
bad "unknown long option" "report: unknown option '--frob'" report --frob=1 "$h"
bad "unknown short option in a cluster" "top: unknown option '-x'" top -bx
bad "a flag given a value" "report: option '--json' takes no value" report --json=yes "$h"
bad "an ambiguous prefix" "tune: option '--d' is ambiguous" tune --d 1 "$h"
bad "a value missing at the end" "report: option '--top' needs a value" report "$h" --top
bad "a short value missing" "events: option '-C' needs a value" events "$h" -C
bad "two traces" "report: one trace at a time" report "$h" -- "$h"
bad "top takes no trace without --replay" "top: unexpected argument" top -b "$h"

# record's older spellings still mean what they did (checked on their values; no root needed)
bad "record -D is the duration" "record: --duration: '0'" record -D 0
bad "record -d, the older spelling of -D" "record: --duration: 'x'" record -d x
bad "record -m is the buffer size" "record: --buffer-kb: '3'" record -m 3
bad "record -b, the older spelling of -m" "record: --buffer-kb: '3'" record -b3
bad "record '--' needs a command" "record: '--' needs a command after it" record -o x.dat --
echo "1..$n"
