#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prediction checked against real runs (docs/prediction.md): every lazy-kernel run of the
# corpus predicts its own setting exactly (flush IPIs, evictions, deferrals, overflows as
# trace-cmd report counts them), and the published table is what the script prints.
T=lazy-predict
. "$(dirname "$0")/../lib.sh"
command -v jq > /dev/null || { skip "all" "jq not installed"; exit 0; }
command -v trace-cmd > /dev/null || { skip "all" "trace-cmd not installed (Debian package trace-cmd)"; exit 0; }
ls "$top"/corpus/traces/*-lazy-t2q4-aia-4cpu/trace.dat > /dev/null 2>&1 ||
	{ skip "all" "the corpus's lazy-kernel runs are missing"; exit 0; }

"$top/corpus/lazy-predict.sh" "$prog" > "$tmp/table.md"
rows=$(awk -F'|' '$3 ~ /T=/ && $3 == $4' "$tmp/table.md" | wc -l)
check "every run predicts its own setting ($rows rows)" [ "$rows" -ge 12 ]
bad=$(awk -F'|' '$3 ~ /T=/ && $3 == $4 && ($5 !~ /exact/ || $6 !~ /exact/ || $7 !~ /exact/ || $8 !~ /exact/)' \
	"$tmp/table.md")
check "... exactly, every count of every row" [ -z "$bad" ]
check "docs/prediction.md holds the table the script prints" \
	cmp -s "$tmp/table.md" <(sed -n '/^| workload /,$p' "$top/docs/prediction.md")
