#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Prediction checked against real runs: each lazy-kernel corpus run, replayed at the
# (T, Q) of the other runs of the same workload (tune --direct), against those runs' own
# kernel counts, read with trace-cmd report alone: flush IPIs (csd_queue_cpu of a flush
# callback), evictions (local_flush_tlb_mm), deferrals (lazy_tlb_defer decisions 1-4),
# overflows (decision 3) and flush requests (__flush_tlb_range; the replayed run's own,
# which no T or Q changes, against the real run's: how alike the two runs are).
# A run predicting its own setting is the exactness check.  The noise floor is measured
# directly: where a workload has two or more repeats of its run at one setting (NAME-r2,
# NAME-r3, ...: NAME's line of runs-lazy.list again, recorded together, later than NAME),
# the run-to-run spread of each count over the repeats, NAME's own counts set against their
# range, and each prediction's error against that spread: "within noise" when
# |pred - real| <= the spread scaled to the real count (real * (hi - lo) / lo; hi - lo
# itself when lo or real is 0).  The repeats are replayed too (rows "T=.. Q=.. rN"), each at
# its own setting and at the settings that have no repeats.  Then, per workload, how many
# cells across settings are exact, within noise and outside it.
#   usage: corpus/lazy-predict.sh [TLBSCOPE]   (prints two markdown tables)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=${1:-$top/tlbscope}
points="2,4 6,32 12,64"
workloads="forkexec hackbench mmap mmapstress pagefault"
traces=$top/corpus/traces

kernel_counts() {	# trace.dat -> "IPIS EVICTIONS DEFERRALS OVERFLOWS REQUESTS"
	trace-cmd report "$1" 2>/dev/null | awk '
		/ csd_queue_cpu: / && /func=__ipi_flush_tlb/ { ipi++ }
		/ local_flush_tlb_mm: / { ev++ }
		/ lazy_tlb_defer: / { d = $NF; sub(/decision=/, "", d); if (d != 0) df++; if (d == 3) ov++ }
		/ __flush_tlb_range: / { rq++ }
		END { printf "%d %d %d %d %d\n", ipi, ev, df, ov, rq }'
}

run_name() { echo "$1-lazy-t${2%,*}q${2#*,}-aia-4cpu"; }	# workload point -> run
label() { echo "T=${1%,*} Q=${1#*,}"; }				# point -> "T=6 Q=32"

# the repeats of run NAME present: "-r2 -r3 ..." in numeric order
repeats() {
	local d
	for d in "$traces/$1"-r*/; do
		[ -f "$d/trace.dat" ] || continue
		echo "${d%/}" | sed 's/.*-r\([0-9]*\)$/\1/'
	done | sort -n | sed 's/^/-r/'
}

# cell PRED REAL LO HI: "pred / real (error)" and, when the spread is known (LO != -), the
# verdict against it
cell() {
	awk -v p="$1" -v r="$2" -v lo="$3" -v hi="$4" 'BEGIN {
		s = p " / " r " ("
		if (p == r) { print s "exact)"; exit }
		e = r == 0 ? 0 : 100 * (p - r) / r
		s = s (r == 0 ? "n/a (0 real)" : sprintf(e > -0.1 && e < 0.1 ? "%+.2f %%" : "%+.1f %%", e))
		if (lo != "-") {
			tol = (lo > 0 && r > 0) ? r * (hi - lo) / lo : hi - lo
			d = p > r ? p - r : r - p
			s = s (d <= tol + 1e-9 ? ", within noise" : ", outside noise")
		}
		print s ")" }'
}

# spread "V1 V2 ...": the values and their spread: hi - lo, and in percent of lo
spread() {
	tr ' ' '\n' <<< "$1" | awk 'NF { v = v (n++ ? " " : "") $1
			if (n == 1 || $1 < lo) lo = $1; if (n == 1 || $1 > hi) hi = $1 }
		END { printf "%s (spread %d", v, hi - lo
			if (lo > 0) printf " = %.1f %%", 100 * (hi - lo) / lo
			printf ")\n" }'
}

# lo and hi of "V1 V2 ...", or "- -" for none
lohi() {
	tr ' ' '\n' <<< "$1" | awk 'NF { if (!n++) lo = hi = $1; if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { if (n > 1) print lo, hi; else print "- -" }'
}

declare -A kc	# run -> kernel counts, read once: counts_of RUN; then ${kc[RUN]}
counts_of() { [ -n "${kc[$1]:-}" ] || kc[$1]=$(kernel_counts "$traces/$1/trace.dat"); }

summary=""
echo "| workload | replayed run | predicted at | flush IPIs (pred / real) | evictions | deferrals | overflows | flush requests (replayed / real) |"
echo "|---|---|---|---|---|---|---|---|"
for w in $workloads; do
	# the repeated setting: the first with repeats; its runs' counts, column by column
	rpt="" rsfx="" rruns=""
	for a in $points; do
		r=$(repeats "$(run_name "$w" "$a")")
		[ "$(wc -w <<< "$r")" -ge 2 ] || continue
		rpt=$a rsfx=$r
		rruns=$(for s in $r; do echo "$(run_name "$w" "$a")$s"; done)
		break
	done
	declare -a vals=("" "" "" "" "") lims=("- -" "- -" "- -" "- -" "- -")
	if [ -n "$rpt" ]; then
		for run in $rruns; do
			counts_of "$run"
			read -r -a c <<< "${kc[$run]}"
			for i in 0 1 2 3 4; do vals[i]="${vals[i]} ${c[i]}"; done
		done
		for i in 0 1 2 3 4; do lims[i]=$(lohi "${vals[i]}"); done
		counts_of "$(run_name "$w" "$rpt")"
		read -r -a oc <<< "${kc[$(run_name "$w" "$rpt")]}"
	fi
	reqs="" stock=""
	n_cells=0 n_exact=0 n_within=0 n_outside=0
	for a in $points; do
		A0=$(run_name "$w" "$a")
		[ -f "$traces/$A0/trace.dat" ] || continue
		j=$("$prog" tune --json "$traces/$A0/trace.dat")
		reqs="$reqs $(jq .input.requests <<< "$j")"
		stock="$stock $(jq .models.stock_asid.ipis <<< "$j")"
		sfxs=""
		[ "$a" = "$rpt" ] && sfxs=$rsfx
		for sfx in "" $sfxs; do
			A=$A0$sfx
			counts_of "$A"
			read -r -a ac <<< "${kc[$A]}"
			for b in $points; do
				B=$(run_name "$w" "$b")
				[ -f "$traces/$B/trace.dat" ] || continue
				# a repeat is its own setting's real run; at another repeated setting none
				if [ -n "$sfx" ]; then
					if [ "$b" = "$a" ]; then B=$A; elif [ "$b" = "$rpt" ]; then continue; fi
				fi
				read -r pi pe pd po <<< "$("$prog" tune --json --direct "$b" "$traces/$A/trace.dat" |
					jq -r '.direct | "\(.ipis) \(.evictions) \(.deferred) \(.overflows)"')"
				counts_of "$B"
				read -r -a bc <<< "${kc[$B]}"
				p=("$pi" "$pe" "$pd" "$po" "${ac[4]}")
				at=$(label "$b")
				[ "$B" != "$A" ] || at="$at${sfx:+ ${sfx#-}}"
				row="| $w | $(label "$a")${sfx:+ ${sfx#-}} | $at |"
				for i in 0 1 2 3 4; do
					v=$(cell "${p[i]}" "${bc[i]}" ${lims[i]})
					row="$row $v |"
					[ "$A" = "$B" ] && continue
					n_cells=$((n_cells + 1))
					case $v in
					*exact*) n_exact=$((n_exact + 1));;
					*within*) n_within=$((n_within + 1));;
					*outside*) n_outside=$((n_outside + 1));;
					esac
				done
				echo "$row"
			done
		done
	done
	echo "| $w | spread across settings | (no T, Q changes these) | stock IPIs: $(spread "$stock") | | | | flush requests: $(spread "$reqs") |"
	if [ -n "$rpt" ]; then
		nr=$(wc -w <<< "$rruns")
		row="| $w | noise: $nr repeats at $(label "$rpt") | run-to-run spread |"
		for i in 0 1 2 3 4; do row="$row $(spread "${vals[i]}") |"; done
		echo "$row"
		# the run they repeat, recorded earlier: where it falls against their range
		row="| $w | $(label "$rpt") (the run repeated) | against the repeats' range |"
		for i in 0 1 2 3 4; do
			row="$row $(awk -v v="${oc[i]}" -v lo="${lims[i]% *}" -v hi="${lims[i]#* }" 'BEGIN {
				if (v < lo) print v " (" lo - v " below)"
				else if (v > hi) print v " (" v - hi " above)"; else print v " (inside)" }') |"
		done
		echo "$row"
		summary="$summary| $w | $nr repeats at $(label "$rpt") | $n_cells | $n_exact | $n_within | $n_outside |"$'\n'
	else
		summary="$summary| $w | none | $n_cells | $n_exact | n/a | n/a |"$'\n'
	fi
done
echo
echo "| workload | repeated setting | cross-setting cells | exact | within noise | outside noise |"
echo "|---|---|---|---|---|---|"
printf '%s' "$summary"
