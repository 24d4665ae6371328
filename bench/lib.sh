# SPDX-License-Identifier: GPL-2.0-only
# Sourced by bench/run.sh and bench/large.sh: the tree, tlbscope and the floor
# (bench/floor.c, built here), and a work directory removed on exit.
top=$(cd "$(dirname "$0")/.." && pwd)
prog=$top/tlbscope
make -s -C "$top" bench
floor=$top/${BUILD:-build}/bench/floor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
