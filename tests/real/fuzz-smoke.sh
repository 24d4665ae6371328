#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make check's fuzz smoke: each libFuzzer harness (tests/fuzz/) built with clang, ASan and
# UBSan and run FUZZ_SMOKE_SECONDS from the committed seeds alone (tests/fuzz/run.sh
# --smoke), so that a reader change that crashes, leaks or breaks the stream's invariants on
# inputs close to the seeds fails the check.  One line per harness; a finding names its
# input in build-fuzz/smoke/findings/.  Without clang and its libFuzzer runtime: skipped.
T=fuzz-smoke
. "$(dirname "$0")/../lib.sh"

secs=${FUZZ_SMOKE_SECONDS:-}
cc=${FUZZ_CC:-clang}
build="build-fuzz"
if [ -z "$secs" ]; then
	skip "libFuzzer harnesses" "only make check runs the fuzz smoke (FUZZ_SMOKE_SECONDS unset)"
	exit 0
fi
if [ "$secs" = 0 ]; then
	skip "libFuzzer harnesses" "FUZZ_SMOKE_SECONDS=0"
	exit 0
fi
if ! command -v "$cc" > /dev/null; then
	skip "libFuzzer harnesses" "$cc is not installed (scripts/deps.sh check installs clang" \
		"and libclang-rt-dev as root)"
	exit 0
fi
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' > "$tmp/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.c" 2> "$tmp/err"; then
	skip "libFuzzer harnesses" "$cc cannot link -fsanitize=fuzzer (libclang-rt-dev not" \
		"installed?): $(grep -m1 error "$tmp/err")"
	exit 0
fi

cd "$top" || exit 2
jobs=$(nproc 2> /dev/null || echo 1)
start=$(date +%s)
# a make of its own: not the jobserver of the make check that runs this
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -j"$jobs" \
	FUZZ_CC="$cc" fuzz-bins > "$tmp/build" 2>&1; then
	not_ok "build the harnesses with $cc"
	tail -20 "$tmp/build" | sed 's/^/#   /'
	exit 0
fi
ok "build the harnesses with $cc ($(($(date +%s) - start)) s)"

[ "$jobs" -gt 4 ] && jobs=4
timeout $((secs * 4 + 120)) tests/fuzz/run.sh --smoke "$build" "$secs" "$jobs" > "$tmp/sum" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	fuzz-*" 0 findings (exit 0)") ok "$line" ;;
	fuzz-*)
		h=${line%%:*}
		not_ok "$line"
		grep -a -m3 -E 'breaks an invariant|ERROR: |SUMMARY: |runtime error' \
			"$build/smoke/$h.log" | sed 's/^/#   /'
		for f in "$build/smoke/findings/${h#fuzz-}"/*; do
			[ -f "$f" ] && echo "#   reproduce: $build/$h $f"
		done
		;;
	esac
done < "$tmp/sum"
if [ $rc = 124 ]; then
	not_ok "tests/fuzz/run.sh --smoke did not end within $((secs * 4 + 120)) s"
elif ! grep -q '^fuzz-' "$tmp/sum"; then
	not_ok "tests/fuzz/run.sh --smoke printed no harness line (exit $rc)"
	tail -5 "$tmp/sum" | sed 's/^/#   /'
fi
