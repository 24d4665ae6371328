#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# start first: it runs long (tests/run.sh starts it before the others)
# One random byte flipped in a v7 trace.dat, 200 times over (a zstd-compressed corpus
# trace, then the plain copy of the fuzz seeds): report never crashes, hangs or trips a
# sanitizer, exits 0 or 2, and every exit 2 names the place in the file.  The flips come
# from a seeded generator (FLIPS_SEED, printed; FLIPS_N per file) so that a failure
# reproduces.
T=flips
. "$(dirname "$0")/../lib.sh"

seed=${FLIPS_SEED:-20261202}
count=${FLIPS_N:-200}
# a place: a file offset, a section, a CPU's data or record, a line
place='offset [0-9]+|section [0-9]+|cpu [0-9]+|line [0-9]+'
echo "# seed $seed, $count flips per file (FLIPS_SEED=$seed FLIPS_N=$count to repeat)"

for base in "$top/corpus/traces/boot-svvptc-aia-4cpu/trace.dat" \
	    "$top/tests/fuzz/seeds/trace.dat/hackbench-aia-4cpu-v7-none.dat"; do
	name=${base#"$top"/}
	size=$(stat -c %s "$base")
	bad=0 exit0=0 exit2=0
	# "OFFSET XOR" per flip: the same for a seed, whatever the file's neighbours
	python3 -c 'import random, sys
r = random.Random(sys.argv[1] + sys.argv[3])
for _ in range(int(sys.argv[2])):
    print(r.randrange(int(sys.argv[4])), r.randrange(1, 256))' \
		"$seed" "$count" "$name" "$size" > "$tmp/flips"
	while read -r off xor; do
		cp "$base" "$tmp/f.dat"
		byte=$(od -An -tu1 -j "$off" -N1 "$base")
		printf "$(printf '\\%03o' $((byte ^ xor)))" |
			dd of="$tmp/f.dat" bs=1 seek="$off" conv=notrunc 2> /dev/null
		timeout 60 ${TLBSCOPE_WRAP:-} "$prog" report "$tmp/f.dat" > /dev/null 2> "$tmp/err"
		rc=$?
		why=
		case $rc in
		0) exit0=$((exit0 + 1)) ;;
		2) exit2=$((exit2 + 1))
		   grep -qE "^tlbscope: $tmp/f.dat: .*($place)" "$tmp/err" ||
			why="exit 2 without a place" ;;
		124) why="hangs (killed after 60 s)" ;;
		*) why="exit status $rc" ;;
		esac
		grep -qE 'runtime error|Sanitizer|AddressSanitizer' "$tmp/err" && why="sanitizer report"
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			not_ok "$name, byte $off xor $xor: $why"
			head -3 "$tmp/err" | sed 's/^/#   /'
		fi
	done < "$tmp/flips"
	echo "# $name: $count flips, $exit0 exit 0, $exit2 exit 2 with a place, $bad bad"
	[ $bad -eq 0 ] && ok "$name: $count one-byte flips: exit 0 ($exit0) or 2 naming a place ($exit2)"
done
echo "1..$n"
