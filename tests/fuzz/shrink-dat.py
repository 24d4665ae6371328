#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Shrink a version-6 uncompressed trace.dat into a small fuzzing seed.

Keeps the header page/event formats, the ftrace formats, the event systems tlbscope reads
(and any with kprobe events), the kallsyms lines of TLB and IPI functions, the saved command lines, the options that do
not point into the file, and the first PAGES pages of each CPU.  Everything else is dropped,
so the result stays a valid trace.dat (trace-cmd report reads it) of a few tens of KiB.
  usage: shrink-dat.py IN.dat OUT.dat [PAGES]
"""
import re
import struct
import sys

KEEP_SYSTEMS = {b"sched", b"ipi", b"csd", b"tlb", b"task", b"kprobes"}
KEEP_SYMS = re.compile(rb"tlb|flush|ipi|csd|sbi_remote|switch_mm")
KEEP_OPTIONS = {2, 4, 5, 8, 9}  # cpustat, trace clock, uname, cpu count, version


def main():
    src, dst = sys.argv[1], sys.argv[2]
    pages = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    d = open(src, "rb").read()
    pos = 0

    def take(n):
        nonlocal pos
        b = d[pos:pos + n]
        if len(b) != n:
            sys.exit(f"{src}: truncated at offset {pos}")
        pos += n
        return b

    def u(fmt):
        return struct.unpack("<" + fmt, take(struct.calcsize(fmt)))[0]

    def cstr():
        nonlocal pos
        end = d.index(b"\0", pos)
        s = d[pos:end]
        pos = end + 1
        return s

    out = bytearray()
    if take(10) != b"\x17\x08\x44tracing" or cstr() != b"6":
        sys.exit(f"{src}: not a version-6 trace.dat (trace-cmd convert --file-version 6)")
    endian, lsize, psize = take(1), take(1), u("I")
    if endian != b"\0":
        sys.exit(f"{src}: big-endian files are not handled")
    out += b"\x17\x08\x44tracing" + b"6\0" + endian + lsize + struct.pack("<I", psize)
    for name in (b"header_page", b"header_event"):
        if cstr() != name:
            sys.exit(f"{src}: no {name.decode()} at offset {pos}")
        n = u("Q")
        out += name + b"\0" + struct.pack("<Q", n) + take(n)
    count = u("I")
    out += struct.pack("<I", count)
    for _ in range(count):
        n = u("Q")
        out += struct.pack("<Q", n) + take(n)
    systems = []
    for _ in range(u("I")):
        name = cstr()
        evs = [take(u("Q")) for _ in range(u("I"))]
        if name in KEEP_SYSTEMS or any(b"__probe_ip" in e for e in evs):
            systems.append((name, evs))
    out += struct.pack("<I", len(systems))
    for name, evs in systems:
        out += name + b"\0" + struct.pack("<I", len(evs))
        for e in evs:
            out += struct.pack("<Q", len(e)) + e
    syms = take(u("I"))
    # a kept symbol and the one after it, so that addresses past its end stay unnamed
    lines = sorted((l for l in syms.split(b"\n") if l), key=lambda l: int(l.split()[0], 16))
    keep = [i for i, l in enumerate(lines) if KEEP_SYMS.search(l)]
    keep = sorted(set(keep) | {i + 1 for i in keep if i + 1 < len(lines)})
    syms = b"".join(lines[i] + b"\n" for i in keep if lines[i])
    out += struct.pack("<I", len(syms)) + syms
    take(u("I"))  # trace_printk formats: none kept
    out += struct.pack("<I", 0)
    n = u("Q")
    out += struct.pack("<Q", n) + take(n)
    cpus = u("I")
    out += struct.pack("<I", cpus)
    section = take(10)
    if section == b"options  \0":
        out += section
        while True:
            oid = u("H")
            if oid == 0:
                break
            data = take(u("I"))
            if oid in KEEP_OPTIONS:
                out += struct.pack("<HI", oid, len(data)) + data
        out += struct.pack("<H", 0)
        section = take(10)
    if section != b"flyrecord\0":
        sys.exit(f"{src}: no flyrecord section at offset {pos - 10}")
    out += section
    cpu = [(u("Q"), u("Q")) for _ in range(cpus)]
    table = len(out)
    out += bytes(16 * cpus)
    for i, (off, size) in enumerate(cpu):
        keep = min(size, pages * psize)
        out += bytes(-len(out) % psize)
        struct.pack_into("<QQ", out, table + 16 * i, len(out), keep)
        out += d[off:off + keep]
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main()
