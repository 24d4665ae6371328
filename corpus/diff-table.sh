#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The stock-vs-lazy table of docs/corpus-lazy.md, made with `tlbscope diff --json`: for every
# workload with a stock trace and lazy-kernel traces, flush IPIs, flush requests and IPIs
# per request of each, with the change against the stock kernel.  The runs of one
# workload differ in length (docs/corpus-lazy.md says which), so IPIs per request is the
# column to compare.
#   usage: corpus/diff-table.sh [TLBSCOPE]   (prints markdown on stdout)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tls=${1:-$top/tlbscope}
t=$top/corpus/traces
echo "| workload | kernel | flush requests | flush IPIs | IPIs per request | change of IPIs per request |"
echo "|---|---|---|---|---|---|"
for stock in "$t"/*-aia-4cpu; do
	w=$(basename "$stock")
	case $w in *-lazy-*|nmidrop-*) continue ;; esac
	base=${w%-aia-4cpu}
	first=1
	for lazy in "$t/$base"-lazy-*-aia-4cpu; do
		[ -d "$lazy" ] || continue
		j=$("$tls" diff --json "$stock/trace.dat" "$lazy/trace.dat")
		# a value the trace cannot show is null: n/a
		row() { jq -r --arg k "$1" ".rows[] | select(.key == \$k) | .$2 // \"n/a\"" <<< "$j"; }
		num() { case $1 in n/a) echo n/a ;; *) printf "$2" "$1" ;; esac; }
		if [ $first = 1 ]; then
			printf '| %s | stock | %s | %s | %s | |\n' "$base" "$(row flush_requests before)" \
				"$(row flush_ipis before)" "$(num "$(row flush_ipis_per_request before)" %.3f)"
			first=0
		fi
		k=${lazy#"$t/$base"-lazy-}
		k=${k%-aia-4cpu}
		printf '| | lazy %s | %s | %s | %s | %s |\n' "$k" "$(row flush_requests after)" \
			"$(row flush_ipis after)" "$(num "$(row flush_ipis_per_request after)" %.3f)" \
			"$(num "$(row flush_ipis_per_request change_percent)" '%+.1f %%')"
	done
done
