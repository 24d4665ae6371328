#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every test: cmocka unit tests, CLI cases (tests/cli/*/), real-trace scripts
# (tests/real/*.sh).  Each reports TAP lines; this script prints them and ends with
# "N passed, N failed, N skipped".
#   usage: tests/run.sh BUILD_DIR PROGRAM
# TLBSCOPE_WRAP (e.g. "valgrind -q --error-exitcode=99") prefixes every tlbscope run.
# TESTS_REAL="record*.sh top.sh": only those real-trace scripts run; each other one is
# reported skipped with TESTS_REAL_WHY (or "not selected") as its reason.
# TESTS_OUT=DIR: each real-trace script's output is kept there as it ends, with its
# seconds in DIR/times (progress of a long run, e.g. the guest's under QEMU).
set -u
build=${1:-build}
prog=${2:-./tlbscope}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export TLBSCOPE_SRCDIR=$top
export TLBSCOPE="$top/${prog#./}"
export TLBSCOPE_WRAP=${TLBSCOPE_WRAP:-}
export TLBSCOPE_BUILD=$top/$build
pass=0 fail=0 skip=0
failed_names=()

tally() {	# read TAP lines on stdin, print them, count them
	local line failing=
	while IFS= read -r line; do
		case "$line" in
		"not ok"*) fail=$((fail + 1)); failed_names+=("$line"); echo "$line"; failing=1 ;;
		ok*"# SKIP"*|ok*"# skip"*) skip=$((skip + 1)); echo "$line"; failing= ;;
		ok*) pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "$line"; failing= ;;
		# a failure's diagnostics (what was expected and got) are printed with it
		"#"*) [ -n "${VERBOSE:-}$failing" ] && echo "$line" ;;
		*) failing=; [ -n "${VERBOSE:-}" ] && echo "$line" ;;
		esac
	done
}

echo "== unit tests"
for t in "$build"/tests/test-*; do
	[ -x "$t" ] || continue
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP $TLBSCOPE_WRAP "$t" 2>&1)
	rc=$?
	# each line named by its program; cmocka 1.1's skip() prints "not ok N # SKIP NAME",
	# which is a skip, its reason the "# skip reason: ..." line the test printed before it
	tally < <(printf '%s\n' "$out" | awk -v t="$(basename "$t")" '
		/^# skip reason: / { why = substr($0, 16); next }
		/^not ok [0-9]+ # SKIP/ {
			name = $0; sub(/^not ok [0-9]+ # SKIP ?/, "", name)
			printf "ok %s %s: %s # SKIP %s\n", $3, t, name, why != "" ? why : "no reason given"
			why = ""; next
		}
		/^(not )?ok / { sub(/^(not )?ok [0-9]*/, "& " t ":"); print; why = "" }')
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		echo "not ok - $(basename "$t") exited with $rc"
		printf '%s\n' "$out" | tail -20
		fail=$((fail + 1))
	fi
done

echo "== CLI cases"
tally < <(tests/cli-run.sh)

# Scripts that trace this machine or drive a terminal ("# run alone" in their heading) run
# one after another with nothing beside them; the others TEST_JOBS at a time (default: the
# CPUs), the longest ("# start first" in their heading) started first, so that none is
# left running alone at the end.  Each script's output is kept and printed in the
# scripts' order.
jobs=${TEST_JOBS:-$(nproc 2> /dev/null || echo 1)}
echo "== real traces ($jobs at a time; those that trace this machine alone)"
if [ -n "${TESTS_OUT:-}" ]; then
	outs=$TESTS_OUT
	mkdir -p "$outs" && : > "$outs/times" || exit 2
else
	outs=$(mktemp -d "${TMPDIR:-/tmp}/tlbscope-run.XXXXXX") || exit 2
	trap 'rm -rf "$outs"' EXIT
fi
run1() {	# script $1, its output into $outs, its seconds appended to $outs/times
	local t0=$SECONDS
	"$1" > "$outs/${1##*/}.part" 2>&1
	mv "$outs/${1##*/}.part" "$outs/${1##*/}"
	echo "${1##*/} $((SECONDS - t0))" >> "$outs/times"
}
export outs
export -f run1
first=() shared=() alone=()
selected() {	# is script $1 among TESTS_REAL's patterns (all when unset)?
	local p pats
	[ -z "${TESTS_REAL:-}" ] && return 0
	read -ra pats <<< "$TESTS_REAL"	# patterns, not globbed here
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053
		[[ ${1##*/} == $p ]] && return 0
	done
	return 1
}
for s in tests/real/*.sh; do
	if ! selected "$s"; then
		echo "ok - ${s##*/} # SKIP ${TESTS_REAL_WHY:-not selected (TESTS_REAL)}" \
			> "$outs/${s##*/}"
	elif [ ! -x "$s" ]; then	# a script that is not run must not pass in silence
		echo "not ok - $s is not executable (chmod +x), so it did not run" > "$outs/${s##*/}"
	elif grep -q '^# run alone' "$s"; then
		alone+=("$s")
	elif grep -q '^# start first' "$s"; then
		first+=("$s")
	else
		shared+=("$s")
	fi
done
shared=("${first[@]}" "${shared[@]}")
if [ ${#shared[@]} -gt 0 ]; then
	printf '%s\n' "${shared[@]}" |
		xargs -P "$jobs" -I{} bash -c 'run1 "$1"' _ {}
fi
for s in "${alone[@]}"; do
	run1 "$s"
done
for s in tests/real/*.sh; do
	tally < "$outs/${s##*/}"
done

echo
if [ $fail -ne 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
