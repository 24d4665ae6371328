#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Kprobes under their users' names: corpus traces whose probe events and
# arguments were renamed as a user who defined tlbscope-probes(7) by hand would have named
# them (tests/fixtures/probe-rename.py) give the same totals and kernel check as the
# canonical names - the trace.dat by the symbol of each probe address, the trace-cmd report
# text by event name (kprobe_events' p_FUNC_OFFSET) and a --probe-map for the rest.  A probe
# without its cpumask gives null, not 0, and never stops the reading.
T=probe-names
. "$(dirname "$0")/../lib.sh"

corpus=$top/corpus/traces
for c in trace-cmd jq python3; do
	command -v $c > /dev/null || { skip "all" "$c not installed (make check installs it as root)"; exit 0; }
done
[ -d "$corpus" ] || { skip "all" "no corpus/traces in this tree"; exit 0; }

# what must not change with the names: totals, per-CPU counts, the kernel check, the
# probes' counts (a renamed probe with no event cannot be told by its symbol: left out)
key() {
	jq -S '{totals, cpus: [.cpus[] | del(.kthread_ns, .idle_ns)], check: .evidence.kernel_check,
		probes: (.evidence.kprobes | with_entries(select((.value // 0) > 0))),
		ipis_from: .evidence.flush_ipi_source}' "$1"
}

for run in hackbench-sbi-4cpu hackbench-aia-4cpu hackbench-lazy-t6q32-aia-4cpu; do
	dat=$corpus/$run/trace.dat
	[ -f "$dat" ] || { skip "$run" "not in this tree"; continue; }
	# renaming keeps every name's length, in an uncompressed version 6 file
	if ! trace-cmd convert -i "$dat" --file-version 6 --compression none \
		-o "$tmp/$run-6.dat" > /dev/null 2>&1; then
		skip "$run: renamed trace.dat" "trace-cmd convert failed"
		continue
	fi
	"$fx/probe-rename.py" dat "$tmp/$run-6.dat" "$tmp/$run-renamed.dat"
	check "$run: the renamed trace.dat has no canonical probe name left" \
		sh -c "! trace-cmd report '$tmp/$run-renamed.dat' 2>/dev/null | grep -q ' switch_mm:'"
	tls report --json "$dat" > "$tmp/$run.json"
	tls report --json "$tmp/$run-renamed.dat" > "$tmp/$run-renamed.json"
	st=$?
	check "$run: renamed trace.dat is read (exit $st)" [ "$st" = 0 ]
	same "$run: renamed trace.dat gives the canonical totals and kernel check" \
		"$(key "$tmp/$run.json")" "$(key "$tmp/$run-renamed.json")"
	tls probes --json "$tmp/$run-renamed.dat" > "$tmp/$run-probes.json"
	same "$run: switch_mm found by its symbol, its arguments by position" \
		"symbol position position position" \
		"$(jq -r '.probes[] | select(.event == "sw_mm_hit") |
			[.function_found_by, (.arguments[] | .found_by)] | join(" ")' \
			"$tmp/$run-probes.json")"
	same "$run: __flush_tlb_range's cpus is its mask, by alias" "cpus alias" \
		"$(jq -r '.probes[] | select(.function == "__flush_tlb_range") | .arguments[] |
			select(.argument == "mask") | "\(.field) \(.found_by)"' "$tmp/$run-probes.json")"

	# trace-cmd report text: the address has no symbol; p_FUNC_8 names, one name of its own
	trace-cmd report "$dat" 2> /dev/null > "$tmp/$run.txt"
	"$fx/probe-rename.py" text < "$tmp/$run.txt" > "$tmp/$run-renamed.txt"
	tls report --json "$tmp/$run.txt" > "$tmp/$run-text.json"
	tls report --json --probe-map "$fx/probes/renamed-sbi.map" "$tmp/$run-renamed.txt" \
		> "$tmp/$run-text-renamed.json"
	same "$run: renamed text with --probe-map gives the canonical text's totals and check" \
		"$(key "$tmp/$run-text.json")" "$(key "$tmp/$run-text-renamed.json")"

	# the user fetched no cpumask: unknown, not 0, and the rest unchanged
	sed -E 's/^(.*__flush_tlb_range: .*) mask=0x[0-9a-f]+/\1/
		s/^(.*(flush_tlb_mm|flush_tlb_page|arch_tlbbatch_flush): .*) mask=0x[0-9a-f]+/\1/' \
		"$tmp/$run.txt" > "$tmp/$run-nomask.txt"
	tls report --json "$tmp/$run-nomask.txt" > "$tmp/$run-nomask.json" 2> "$tmp/err"
	st=$?
	check "$run: without masks the report still runs (exit $st)" [ "$st" = 0 ]
	same "$run: without masks kernel_flush_targets is null" "null null" \
		"$(jq -c '[.totals.kernel_flush_targets, .evidence.kernel_check.kernel_remote_targets] |
			map(tostring) | join(" ")' -r "$tmp/$run-nomask.json")"
	same "$run: without masks switches, requests and IPIs are unchanged" \
		"$(jq -c '.totals | [.switches, .mm_switches, .flush_requests, .flush_ipis]' \
			"$tmp/$run-text.json")" \
		"$(jq -c '.totals | [.switches, .mm_switches, .flush_requests, .flush_ipis]' \
			"$tmp/$run-nomask.json")"
	check "$run: the text report says n/a and why, once per probe" \
		sh -c "tls() { ${TLBSCOPE_WRAP:-} '$prog' \"\$@\"; }
			out=\$(tls report '$tmp/$run-nomask.txt')
			echo \"\$out\" | grep -q 'kernel flush targets *n/a  (probe __flush_tlb_range' &&
			[ \$(echo \"\$out\" | grep -c \"probe __flush_tlb_range (__flush_tlb_range): no argument 'mask'\") = 1 ]"
done

# A real run whose probes were defined by hand under other event and argument names
# (corpus/probes-renamed.sed, on the QEMU kernel): read as the same trace under the canonical
# names (trace-cmd's text of it with the names put back) - totals and the kernel check.
r=$top/corpus/traces/hackbench-renamed-aia-4cpu/trace.dat
if [ -f "$r" ] && command -v trace-cmd > /dev/null; then
	trace-cmd report "$r" 2> /dev/null | sed -f "$top/corpus/probes-canonical.sed" \
		> "$tmp/canon.txt"
	check "hackbench-renamed: the canonical text has the canonical names" \
		grep -q ' switch_mm: .* prev=' "$tmp/canon.txt"
	tls report --json "$r" > "$tmp/ren.json"
	tls report --json "$tmp/canon.txt" > "$tmp/canon.json"
	same "hackbench-renamed: totals = under the canonical names" \
		"$(jq -cS .totals "$tmp/canon.json")" "$(jq -cS .totals "$tmp/ren.json")"
	same "hackbench-renamed: the kernel check = under the canonical names" \
		"$(jq -cS .evidence.kernel_check "$tmp/canon.json")" \
		"$(jq -cS .evidence.kernel_check "$tmp/ren.json")"
	check "hackbench-renamed: the kernel check holds (remote targets = csd flush IPIs)" \
		jq -e '.evidence.kernel_check | .kernel_remote_targets == .csd_flush_ipis_queued and
			.kernel_remote_targets > 0' "$tmp/ren.json" > /dev/null
	tls probes --json "$r" > "$tmp/ren-probes.json"
	same "hackbench-renamed: every renamed probe's function found by its symbol" \
		"sw_mm_hit=switch_mm/symbol tlbscope_ftr_evnt=__flush_tlb_range/symbol mm_whole_fls=flush_tlb_mm/symbol cow_page_flush=flush_tlb_page/symbol ipi_flush_on_target_cpu_xx=__ipi_flush_tlb_range_asid/symbol" \
		"$(for e in sw_mm_hit tlbscope_ftr_evnt mm_whole_fls cow_page_flush ipi_flush_on_target_cpu_xx; do
			jq -r --arg e "$e" '.probes[] | select(.event == $e) | "\(.event)=\(.function)/\(.function_found_by)"' "$tmp/ren-probes.json"
		done | tr '\n' ' ' | sed 's/ $//')"
	same "hackbench-renamed: the masks found by alias and position, none unavailable" \
		"sw_mm_hit.next_mask=cpus_next tlbscope_ftr_evnt.mask=cpus mm_whole_fls.mask=cpus cow_page_flush.mask=cpus" \
		"$(for e in sw_mm_hit tlbscope_ftr_evnt mm_whole_fls cow_page_flush; do
			jq -r --arg e "$e" '.probes[] | select(.event == $e) | .arguments[] |
				select(.argument == "mask" or .argument == "next_mask") | "\($e).\(.argument)=\(.field)"' "$tmp/ren-probes.json"
		done | tr '\n' ' ' | sed 's/ $//')"
else
	skip "hackbench-renamed" "corpus/traces/hackbench-renamed-aia-4cpu or trace-cmd missing (make -C corpus hackbench-renamed-aia-4cpu)"
fi
