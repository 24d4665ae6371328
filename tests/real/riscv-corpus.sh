#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The real RISC-V corpus (corpus/README.md: Linux 6.12 under QEMU, with the kprobes of
# tlbscope-probes(7)): tlbscope's counts against trace-cmd's on every trace, the kernel's
# own evidence (remote targets in the __flush_tlb_range masks = csd flush IPIs; with SBI,
# requests with remote targets = fences), computed independently from trace-cmd report
# text by corpus/consistency.awk, mm identity by pointer with reuse handled, the same
# answers from trace-cmd report text and from tlbscope's JSON lines, and the NMI drop.
T=riscv-corpus
. "$(dirname "$0")/../lib.sh"

corpus=$top/corpus/traces
if ! command -v trace-cmd > /dev/null || ! command -v jq > /dev/null; then
	skip "all" "trace-cmd or jq not installed (make check installs them as root)"
	exit 0
fi
if [ ! -d "$corpus" ]; then
	skip "all" "no corpus/traces in this tree"
	exit 0
fi

# trace-cmd report: "comm-pid [cpu] ts: event: ..."; count by event and by cpu
tc_counts() {
	awk '/^cpus=/ { next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		  # trace-cmd 3.3 puts the latency flags ("d.h..") before the timestamp
		  t = $(i + 1) ~ /:$/ ? i + 1 : i + 2
		  ev = $(t + 1); sub(/:$/, "", ev); if (ev == "") next
		  n[ev]++
		  if (ev == "sched_switch") { c = $i; gsub(/[\[\]]/, "", c); sw[c + 0]++ } }
		END { for (e in n) printf "%s %d\n", e, n[e]
		      for (c in sw) printf "cpu%d %d\n", c, sw[c] }' "$1" | sort
}
tls_counts() {
	jq -r '(.events | to_entries[] | "\(.key) \(.value)"),
		(.cpus[] | select(.switches > 0) | "cpu\(.cpu) \(.switches)")' "$1" | sort
}
# "| what | N |" lines of consistency.awk -> N
awk_num() { sed -n "s/^| $1.* | \([0-9]*\) |$/\1/p" "$2"; }
# processes the trace creates (task_newtask without CLONE_VM) and execs
new_mms() {
	local n=0 f
	for f in $(sed -n 's/.* task_newtask: .*clone_flags=\([0-9a-f]*\) .*/\1/p' "$1"); do
		(( (0x$f & 0x100) == 0 )) && n=$((n + 1))
	done
	echo $((n + $(grep -c ' sched_process_exec: ' "$1")))
}

# every run but the repeats (-rN: the same run again, checked against the kernel's own
# decisions by lazy-kernel.sh; trace-cmd report over them was a fifth of this script)
for d in "$corpus"/*/; do
	run=$(basename "$d")
	dat=$d/trace.dat
	[ -f "$dat" ] || continue
	case $run in *-r[0-9]) continue ;; esac
	trace-cmd report "$dat" > "$tmp/$run.txt" 2> /dev/null
	tls report --json "$dat" > "$tmp/$run.json"
	j=$tmp/$run.json
	same "$run: events by name and sched_switch per CPU = trace-cmd report" \
		"$(tc_counts "$tmp/$run.txt")" "$(tls_counts "$j")"

	if [ "$run" = nmidrop-aia-4cpu ]; then
		check "$run: the NMI drop is detected (--json)" \
			[ "$(jq .evidence.kprobe_nmi_drop "$j")" = true ]
		# the text view continues long lines on the next: read it as one line
		tls report "$dat" | tr '\n' ' ' | tr -s ' ' > "$tmp/$run.out"
		check "$run: the report says why no kprobe event was recorded" \
			grep -q "kprobe events for .*switch_mm.* are defined but none were recorded: on riscv 6.12 kprobe events are dropped in NMI context (ARCH_HAVE_NMI_SAFE_CMPXCHG missing); see tlbscope-probes(7)" "$tmp/$run.out"
		check "$run: 11 kprobe events defined" \
			[ "$(jq '.evidence.kprobes_defined | length' "$j")" = 11 ]
		continue
	fi
	check "$run: no NMI drop claimed where kprobe events were recorded" \
		[ "$(jq .evidence.kprobe_nmi_drop "$j")" = false ]

	# the kernel's own evidence, from trace-cmd's text by awk, and tlbscope's (the text under
	# the canonical names for the run whose probes were named by hand)
	case $run in
	*-renamed-*) sed -i -f "$top/corpus/probes-canonical.sed" "$tmp/$run.txt" ;;
	esac
	awk -f "$top/corpus/consistency.awk" "$tmp/$run.txt" > "$tmp/$run.cons"
	remote=$(awk_num "remote targets" "$tmp/$run.cons")
	queued=$(awk_num "flush IPIs queued" "$tmp/$run.cons")
	reqs=$(awk_num "flush requests with remote" "$tmp/$run.cons")
	fences=$(awk_num "SBI remote fences" "$tmp/$run.cons")
	kc=$(jq -r '.evidence.kernel_check | "\(.kernel_remote_targets) \(.csd_flush_ipis_queued) \(.requests_with_remote_targets) \(.sbi_remote_fences)"' "$j")
	same "$run: kernel check (remote targets, csd flush IPIs, remote requests, fences) = awk over trace-cmd report" \
		"$remote $queued $reqs $fences" "$kc"
	ftr=__flush_tlb_range
	case $run in *-renamed-*) ftr=tlbscope_ftr_evnt ;; esac
	same "$run: one request per $ftr (callers are evidence)" \
		"$(jq --arg e "$ftr" '.events[$e]' "$j")" "$(jq '.totals.flush_requests' "$j")"
	case $run in
	*-sbi-*)
		same "$run: requests with remote targets = SBI remote fences" "$reqs" "$fences"
		same "$run: flush IPIs counted from the SBI fences = remote targets in the masks" \
			"$remote" "$(jq .totals.flush_ipis "$j")"
		check "$run: report prints the SBI kernel check as equal" \
			sh -c "${TLBSCOPE_WRAP:-} '$prog' report '$dat' | grep -q 'requests with remote targets = SBI remote fences: $fences = $fences (equal)'"
		;;
	*)
		if [ "$(jq .evidence.kernel_check.lazy_flush_kernel "$j")" = true ]; then
			# lazy flush: a target not running the mm gets its flush queued, no IPI
			check "$run: lazy kernel: csd flush IPIs ($queued) <= remote targets ($remote)" \
				[ "$queued" -le "$remote" ]
			check "$run: the report explains the difference" sh -c \
				"${TLBSCOPE_WRAP:-} '$prog' report '$dat' | grep -q 'a lazy-flush kernel'"
		else
			same "$run: remote targets in the __flush_tlb_range cpumask = csd flush IPIs" \
				"$remote" "$queued"
			same "$run: flush IPIs = kernel-reported flush targets" \
				"$(jq .totals.kernel_flush_targets "$j")" "$(jq .totals.flush_ipis "$j")"
			check "$run: report prints the kernel check as equal" sh -c \
				"${TLBSCOPE_WRAP:-} '$prog' report '$dat' | tr '\\n' ' ' | tr -s ' ' | grep -q 'flush IPIs queued in csd events: $queued = $queued (equal)'"
		fi
		;;
	esac

	# identity by pointer: every mm from a pointer, no guess, no owner change; each new
	# binding is a first address or the reuse of an ended mm's
	read -r mms ptr distinct reuses owners guessed < <(jq -r '"\(.totals.mms)
		\(.evidence.mms_identified.pointer) \(.evidence.mm_pointers.distinct)
		\(.evidence.mm_pointers.reuses) \(.evidence.mm_pointers.owner_changes)
		\(.evidence.mms_guessed)"' "$j" | tr '\n' ' ')
	init=1
	case $run in
	boot-*)
		# boot: the trace starts before PID 1 execs /init, while it is kernel_init with no
		# user mm; tlbscope guesses a process for it (pid as process) when it sends flush
		# IPIs then (the base kernel's vmalloc flushes), and that is the only guess
		pid1=$(jq '[.processes[] | select(.identified == "guess-pid")] |
			if length == 0 then 0 elif all(.pid == 1 and .flush_requests == 0) then length
			else -1 end' "$j")
		check "$run: the only guessed address space is kernel_init's, before PID 1's exec ($pid1)" \
			[ "$ptr" = "$((mms - pid1))" -a "$guessed" = "$pid1" -a "$pid1" -ge 0 ]
		init=$pid1
		;;
	*)
		check "$run: every address space identified by pointer, none guessed ($ptr of $mms)" \
			[ "$ptr" = "$mms" -a "$guessed" = 0 ]
		;;
	esac
	same "$run: mms by pointer = distinct pointers + reuses + owner changes" \
		"$ptr" "$((distinct + reuses + owners))"
	check "$run: no owner changes (every reuse seen as an end)" [ "$owners" = 0 ]
	same "$run: address spaces = init + processes created + execs (trace-cmd)" \
		"$mms" "$((init + $(new_mms "$tmp/$run.txt")))"
	check "$run: switch_mm events all resolved" [ "$(jq '.evidence.mm_pointers |
		.resolved_at_switch + .resolved_at_exec == .switch_mm_events' "$j")" = true ]
	# an mm switch is a switch_mm call with prev != next (the pointers compared as text);
	# each CPU's first switch may differ, the state before the trace being unknown
	kern=$(sed -n 's/.* switch_mm: .*prev=\([^ ]*\) next=\([^ ]*\) .*/p\1 p\2/p' "$tmp/$run.txt" |
		awk '$1 != $2 { n++ } END { print n + 0 }')
	ours=$(jq .totals.mm_switches "$j")
	ncpu=$(jq '.cpus | length' "$j")
	check "$run: mm switches ($ours) = switch_mm calls that changed the mm ($kern), within one per CPU" \
		[ "$ours" -ge "$kern" -a "$ours" -le $((kern + ncpu)) ]
done

# reuse is real: hackbench's 800 processes got fewer addresses than address spaces
hb=$tmp/hackbench-aia-4cpu.json
if [ -f "$hb" ]; then
	check "hackbench-aia-4cpu: pointer reuse handled ($(jq .evidence.mm_pointers.distinct "$hb") addresses, $(jq .totals.mms "$hb") mms)" \
		[ "$(jq '.totals.mms > .evidence.mm_pointers.distinct and .evidence.mm_pointers.reuses > 0' "$hb")" = true ]
	# the same trace as trace-cmd report text: the kprobes by event name, same answers
	norm() {
		jq -S 'del(.input, .span, .evidence.kprobes_defined, .evidence.kprobes,
			.evidence.timestamps_as_printed)
			| .cpus[] |= del(.kthread_ns, .idle_ns)' "$1"
	}
	tls report --json "$tmp/hackbench-aia-4cpu.txt" > "$tmp/hb-text.json"
	same "hackbench-aia-4cpu: trace-cmd report text gives the trace.dat's report" \
		"$(norm "$hb")" "$(norm "$tmp/hb-text.json")"
	# JSON lines round trip (identity statistics are the derivation's, not the stream's)
	rt() {
		jq -S 'del(.input, .evidence.kthreads_by_name, .evidence.requests_mm_from_task,
			.evidence.requests_without_mm, .evidence.mm_pointers,
			.evidence.tgid_markers_malformed, .evidence.tgid_markers_corrected)' "$1"
	}
	tls events "$corpus/hackbench-aia-4cpu/trace.dat" > "$tmp/hb.jsonl"
	tls report --json "$tmp/hb.jsonl" > "$tmp/hb-rt.json"
	same "hackbench-aia-4cpu: report of 'events' output = report of the trace" \
		"$(rt "$hb")" "$(rt "$tmp/hb-rt.json")"
	check "hackbench-aia-4cpu: events are in time order" \
		sh -c "jq -r 'select(.ts) | .ts' '$tmp/hb.jsonl' | sort -c -n"
fi
for run in forkexec-aia-4cpu hackbench-sbi-4cpu; do
	[ -f "$tmp/$run.json" ] || continue
	tls events "$corpus/$run/trace.dat" | tls report --json - > "$tmp/$run-rt.json"
	same "$run: report of 'events' output = report of the trace" \
		"$(rt "$tmp/$run.json")" "$(rt "$tmp/$run-rt.json")"
done
