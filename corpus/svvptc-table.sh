#!/bin/bash
# The seeds' tables, ours beside theirs, from the committed traces with `tlbscope diff --json`
# (docs/corpus-svvptc.md, "The seeds' tables"): sfence.vma baseline vs Svvptc per workload, with
# the what-if tlbscope draws from the baseline trace alone and the kernel's own count
# (counts.json); then flush IPIs stock vs lazy (T=6, Q=32).
#   usage: svvptc-table.sh [TLBSCOPE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tls=${1:-$top/tlbscope}
t=$top/corpus/traces

# the seeds' numbers (shared/seeds/*: the Svvptc merge message, the lazy flush cover letter)
seed_sfence() {
	case $1 in
	mmapstress01) echo "~45k → ~6.3k" ;;
	latpagefault) echo "~665k → 832" ;;
	latmmap) echo "~546k → 718" ;;
	boot) echo "~630k → ~200k" ;;
	esac
}
seed_ipis() {
	case $1 in
	mmapstress01) echo "~108k → ~17k" ;;
	hackbench) echo "~385k → ~2k" ;;
	esac
}
row() { jq -r --arg k "$1" ".rows[] | select(.key == \$k) | .$2 // \"n/a\"" <<< "$j"; }
pct() { case $1 in n/a|null) echo n/a ;; *) printf '%+.1f %%' "$1" ;; esac; }

echo "| workload | seed: before → after | baseline | Svvptc | change | what-if from the baseline trace | kernel's count (baseline → Svvptc) |"
echo "|---|---|---|---|---|---|---|"
for w in boot mmapstress01 latpagefault latmmap; do
	base=$t/$w-aia-4cpu
	sv=$t/$w-svvptc-aia-4cpu
	[ -f "$base/trace.dat" ] && [ -f "$sv/trace.dat" ] || continue
	j=$("$tls" diff --json "$base/trace.dat" "$sv/trace.dat")
	printf '| %s | %s | %s | %s | %s | %s | %s → %s |\n' "$w" "$(seed_sfence "$w")" \
		"$(row sfence.total before)" "$(row sfence.total after)" \
		"$(pct "$(row sfence.total change_percent)")" "$(row whatif.svvptc.sfence before)" \
		"$(jq .sfence_vma "$base/counts.json")" "$(jq .sfence_vma "$sv/counts.json")"
done
echo
echo "| workload | seed: stock → lazy | stock flush IPIs | lazy (T=6, Q=32) flush IPIs | change | IPIs per request, stock → lazy |"
echo "|---|---|---|---|---|---|"
for w in mmapstress01 hackbench; do
	stock=$t/$w-aia-4cpu
	lazy=$t/$w-lazy-t6q32-aia-4cpu
	[ -f "$stock/trace.dat" ] && [ -f "$lazy/trace.dat" ] || continue
	j=$("$tls" diff --json "$stock/trace.dat" "$lazy/trace.dat")
	printf '| %s | %s | %s | %s | %s | %.3f → %.3f |\n' "$w" "$(seed_ipis "$w")" \
		"$(row flush_ipis before)" "$(row flush_ipis after)" \
		"$(pct "$(row flush_ipis change_percent)")" \
		"$(row flush_ipis_per_request before)" "$(row flush_ipis_per_request after)"
done
