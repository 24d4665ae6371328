#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run alone: it traces this machine or drives a terminal (tests/run.sh runs it by itself)
# tlbscope top fits the screen it has: under tmux at 80x24, 100x30 and 200x50 every column
# of its tables is shown or named by the marker line above the table, no line is wider
# than the terminal, and the same after a resize; freeze holds the whole screen, header
# included.  Batch snapshots (-b) of several corpus traces have no line over 100 columns
# (COLUMNS narrower: over COLUMNS); unknown values read "-" or "n/a", never -1 or a 0.
T=top-width
. "$(dirname "$0")/../lib.sh"
traces="hackbench-aia-4cpu hackbench-aia-8cpu hackbench-lazy-t6q32-aia-4cpu mmapstress-aia-4cpu"
cpu_cols="CPU TASK PID PROC MM SW/S TX/S RX/S LOCAL/S LOADED QUEUED EVICT/S RX_HISTORY"
batch_cols="CPU TASK PID PROC MM SWITCHES SW/S IPI_TX TX/S IPI_RX RX/S LOCAL LOCAL/S LOADED QUEUED EVICT/S RX_HISTORY"
proc_cols="MM PID COMMAND REQUESTS STOCK_IPIS LAZY_IPIS DEFERRED OBSERVED"

# widest FILE: the widest line in characters (the sparkline's blocks are 3 bytes in UTF-8)
widest() { LC_ALL=C.UTF-8 wc -L < "$1"; }

# promised FILE HEADER_RE COLS...: each column is in the table's header line (the first
# line matching HEADER_RE) or named by the marker line just above it ("+N cols: A B ...
# (why)"), whose N counts the names; prints what is missing, nothing when all is kept
promised() {
	local f=$1 re=$2 hdr marker names c
	shift 2
	hdr=$(grep -m1 -n -E "$re" "$f")
	[ -n "$hdr" ] || { echo "no header line /$re/"; return; }
	marker=$(sed -n "$((${hdr%%:*} - 1))p" "$f" | sed -n 's/^ *\(+[0-9]* cols\{0,1\}: .*\) (.*)$/\1/p')
	names=" ${marker#*: } "
	if [ -n "$marker" ] &&
		[ "$(echo "${marker#*: }" | wc -w)" != "$(echo "$marker" | sed 's/^+\([0-9]*\).*/\1/')" ]; then
		echo "marker '$marker' does not count its names"
	fi
	for c in "$@"; do
		case " ${hdr#*:} " in *" $c "*) continue ;; esac
		[ -n "$marker" ] && case "$names" in *" $c "*) continue ;; esac
		echo "$c neither shown nor named"
	done
}

# ---- batch ----
for t in $traces; do
	f=$top/corpus/traces/$t/trace.dat
	[ -f "$f" ] || { skip "$t: -b fits 100 columns" "no such trace"; continue; }
	COLUMNS=300 tls top -b -d 0.5 --speed 40 --replay "$f" > "$tmp/b.txt" 2> "$tmp/b.err"
	same "$t: -b exits 0" 0 $?
	check "$t: -b, COLUMNS=300: no line over 100 columns (widest $(widest "$tmp/b.txt"))" \
		[ "$(widest "$tmp/b.txt")" -le 100 ]
	same "$t: -b: every CPU column shown or named" "" \
		"$(promised "$tmp/b.txt" '^ CPU TASK' $batch_cols)"
	same "$t: -b: every process column shown or named" "" \
		"$(promised "$tmp/b.txt" 'STOCK_IPIS' $proc_cols)"
	check "$t: -b: no -1 and no 'trace time 0.000 s'" sh -c \
		"! grep -E -e '(^| )-1( |$)' -e 'trace time 0\.000 s' '$tmp/b.txt'"
	COLUMNS=80 tls top -b --speed max --replay "$f" > "$tmp/b80.txt" 2> /dev/null
	check "$t: -b, COLUMNS=80: no line over 80 columns (widest $(widest "$tmp/b80.txt"))" \
		[ "$(widest "$tmp/b80.txt")" -le 80 ]
	same "$t: -b, COLUMNS=80: every CPU column shown or named" "" \
		"$(promised "$tmp/b80.txt" '^ CPU TASK' $batch_cols)"
done
f=$fx/x86-hackbench.dat
tls top -b --speed max --replay "$f" > "$tmp/x86.txt" 2> /dev/null
check "x86-hackbench.dat: -b: no line over 100 columns" [ "$(widest "$tmp/x86.txt")" -le 100 ]
check "x86-hackbench.dat: -b: the totals stay (SWITCHES, IPI_TX, IPI_RX, LOCAL, LOADED)" \
	grep -q '^ CPU TASK *SWITCHES .*IPI_TX .*IPI_RX .*LOCAL .*LOADED' "$tmp/x86.txt"

# a CPU with no event at all (CPU 1 of 3): '-' for what is unknown of it, never -1
cat > "$tmp/gap.txt" << 'EOF'
# tracer: nop
#
# entries-in-buffer/entries-written: 3/3   #P:3
#
          <idle>-0       [000] d..2.     1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=100 next_prio=120
          <idle>-0       [002] d..2.     1.000100: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=101 next_prio=120
              sh-100     [000] d..2.     1.000200: sched_switch: prev_comm=sh prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
EOF
tls top -b --speed max --replay "$tmp/gap.txt" > "$tmp/gap.out" 2> "$tmp/gap.err"
same "a CPU without events: -b exits 0" 0 $?
check "a CPU without events: its row reads '1 -' (task unknown)" \
	grep -qE '^ +1 +- ' "$tmp/gap.out"
check "a CPU without events: no -1 anywhere" sh -c "! grep -qE '(^| )-1( |$)' '$tmp/gap.out'"

# ---- the screen, under tmux ----
if ! command -v tmux > /dev/null; then
	skip "the screen at 80x24, 100x30, 200x50" "tmux not installed"
	exit 0
fi
# a server of our own: other runs on this machine come and go on the default one
sock=tlbscope-width-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2> /dev/null; rm -rf "$tmp"' EXIT
if ! tm new-session -d -s probe -x 80 -y 24 "sleep 1" 2> "$tmp/tmux.err"; then
	skip "the screen at 80x24, 100x30, 200x50" "tmux cannot start a terminal: $(head -1 "$tmp/tmux.err")"
	exit 0
fi
s=tlbscope-width
cap() { tm capture-pane -p -t "$s" > "$tmp/pane.txt"; }
# wait_for ERE: up to 10 s for the pane to show it (in $tmp/pane.txt)
wait_for() {
	for _ in $(seq 100); do cap; grep -qE -- "$1" "$tmp/pane.txt" && return 0; sleep 0.1; done
	return 1
}
# the screen at W x H obeys its promise; $1 names the case
screen_ok() {
	local what=$1 w=$2 ncpu=$3
	check "$what: no line wider than $w (widest $(widest "$tmp/pane.txt"))" \
		[ "$(widest "$tmp/pane.txt")" -le "$w" ]
	same "$what: every CPU column shown or named by the marker" "" \
		"$(promised "$tmp/pane.txt" '^ CPU TASK' $cpu_cols)"
	same "$what: every process column shown or named by the marker" "" \
		"$(promised "$tmp/pane.txt" 'STOCK_IPIS' $proc_cols)"
	same "$what: a row per CPU ($ncpu)" "$ncpu" \
		"$(grep -cE '^ +[0-9]+ .* [0-9]+/6 ' "$tmp/pane.txt")"
	check "$what: no -1 shown" sh -c "! grep -qE '(^| )-1( |$)' '$tmp/pane.txt'"
}
rv8=$top/corpus/traces/hackbench-aia-8cpu/trace.dat
for size in 80x24 100x30 200x50; do
	w=${size%x*} h=${size#*x}
	tm new-session -d -s "$s" -x "$w" -y "$h" \
		"sh -c '$prog top --replay $rv8 --speed 2 -d 0.3; echo DONE; sleep 60'"
	if ! wait_for ' CPU TASK'; then
		not_ok "$size: the screen came up"
		sed 's/^/#   /' "$tmp/pane.txt"
		tm kill-session -t "$s" 2> /dev/null
		continue
	fi
	# the rows after a first interval, with rates (LOCAL/S before LOADED)
	wait_for '^ +7 .*[0-9] +[0-9]+/6 ' > /dev/null
	sleep 0.5
	cap
	screen_ok "$size" "$w" 8
	[ "$size" = 80x24 ] && cp "$tmp/pane.txt" "$tmp/80x24.txt"
	if [ "$size" = 80x24 ]; then
		# freeze: the header stops with the body; FROZEN says so
		tm send-keys -t "$s" p
		wait_for 'FROZEN' > /dev/null
		head -2 "$tmp/pane.txt" > "$tmp/frozen1.txt"
		sleep 1.5
		tm send-keys -t "$s" s
		sleep 0.4
		cap
		head -2 "$tmp/pane.txt" | sed 's/sort SW\/S/sort CPU/' > "$tmp/frozen2.txt"
		check "p: the header says FROZEN" grep -q 'FROZEN' "$tmp/frozen1.txt"
		check "p: frozen before the end of the replay (else the next check proves nothing)" \
			sh -c "! grep -q 'END OF TRACE' '$tmp/frozen1.txt'"
		# when the header's fields do not fit the least needed goes first: the longer
		# sort name, with more digits in the rate (as under load), leaves out the
		# elapsed time
		same "p: the header (position, trace time, events) holds still for 1.5 s" \
			"$(sed 's/sort [A-Z/]*//; s/elapsed [0-9.]* s  //' "$tmp/frozen1.txt")" \
			"$(sed 's/sort [A-Z/]*//; s/elapsed [0-9.]* s  //' "$tmp/frozen2.txt")"
		tm send-keys -t "$s" p
		check "p again: resumed, FROZEN gone" sh -c \
			"sleep 0.5; ! tmux -L $sock capture-pane -p -t $s | grep -q FROZEN"
		tm send-keys -t "$s" h
		wait_for 'any key leaves it' > /dev/null
		check "h at 80 columns: the help fits (widest $(widest "$tmp/pane.txt"))" \
			[ "$(widest "$tmp/pane.txt")" -le 80 ]
		tm send-keys -t "$s" x
		# a resize to 200x50 and back: laid out again each time (KEY_RESIZE)
		tm resize-window -t "$s" -x 200 -y 50
		sleep 0.8
		cap
		screen_ok "80x24 resized to 200x50" 200 8
		check "200x50 after a resize: nothing hidden" sh -c \
			"! grep -q 'cols\{0,1\}: .*(wider terminal)' '$tmp/pane.txt'"
		tm resize-window -t "$s" -x 80 -y 24
		sleep 0.8
		cap
		screen_ok "resized back to 80x24" 80 8
	fi
	tm send-keys -t "$s" q
	check "$size: q quits" wait_for '^DONE'
	tm kill-session -t "$s" 2> /dev/null
done
if [ -f "$tmp/80x24.txt" ]; then
	echo "# the screen at 80x24:"
	sed 's/^/#   /' "$tmp/80x24.txt"
fi

# ---- live: the trace time is the span of the events read, or n/a ----
need_tracefs "live -b trace time"
tls top -b -d 0.5 -n 2 > "$tmp/live.txt" 2> "$tmp/live.err"
same "live: top -b -n 2 exits 0" 0 $?
bad=$(sed -n 's/^elapsed .*, trace time \(.*\), \([0-9]*\) events .*/\2 \1/p' "$tmp/live.txt" |
	grep -vE '^0 n/a \(no events yet\)$|^[1-9][0-9]* [0-9]+\.[0-9]{3} s$')
same "live: trace time n/a with no event read, else a span (never a made-up 0)" "" "$bad"
check "live: the second snapshot's trace time is not 0.000 s" sh -c \
	"sed -n 's/^elapsed .*, trace time \\([^,]*\\),.*/\\1/p' '$tmp/live.txt' | tail -1 |
	 grep -qvx '0.000 s'"
check "live: no line over 100 columns" [ "$(widest "$tmp/live.txt")" -le 100 ]
