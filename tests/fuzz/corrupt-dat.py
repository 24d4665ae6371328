#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write a copy of a trace.dat with one header field made wrong, the way the fuzzer found
libtracecmd crashing on them, for tests/real/bad-input.sh.
  usage: corrupt-dat.py IN.dat KIND OUT.dat
KIND (v6 input): cpus0 cpus-huge pagesize3 cpudata-past-end commit-huge commit-huge-late
  timestamp-size
KIND (v7 input): options-loop options-past-end buffer-cpus-huge chunk-inflate-huge chunk-garbage
  ftrace-count system-count format-size header-event-size kallsyms-size record-length
  header-page-byte no-header-info data-section-flags cpu-twice option-short printk-no-colon
  chunk-garbage-late (CPU 1's second chunk)
  cpus-reversed (not a corruption: the BUFFER option lists its CPUs last first, as a file may)
  cpu-unlisted (not a corruption: the BUFFER option leaves out its next-to-last CPU, as a file
  of a CPU never online does)
The section kinds edit a compressed section's inflated content and write it zstd-compressed
again at the end of the file, its option pointing there.
"""
import ctypes
import struct
import sys


def cstr_end(d, p):
    return d.index(b"\0", p) + 1


def v6_layout(d):
    """Offsets of the v6 fields: page size, cpu count, flyrecord table, header_page text."""
    p = cstr_end(d, 10)  # version
    page = p + 2
    p += 6
    p = cstr_end(d, p)  # "header_page"
    n = struct.unpack_from("<Q", d, p)[0]
    hp = (p + 8, n)
    p += 8 + n
    p = cstr_end(d, p)
    p += 8 + struct.unpack_from("<Q", d, p)[0]
    cnt = struct.unpack_from("<I", d, p)[0]
    p += 4
    for _ in range(cnt):
        p += 8 + struct.unpack_from("<Q", d, p)[0]
    cnt = struct.unpack_from("<I", d, p)[0]
    p += 4
    for _ in range(cnt):
        p = cstr_end(d, p)
        ev = struct.unpack_from("<I", d, p)[0]
        p += 4
        for _ in range(ev):
            p += 8 + struct.unpack_from("<Q", d, p)[0]
    p += 4 + struct.unpack_from("<I", d, p)[0]
    p += 4 + struct.unpack_from("<I", d, p)[0]
    p += 8 + struct.unpack_from("<Q", d, p)[0]
    cpus = p
    fly = d.index(b"flyrecord\0", p) + 10
    return page, cpus, fly, hp


def v7_options(d):
    """(first-options pointer offset, [(section offset, [(option id, data offset, size)])])"""
    p = cstr_end(d, 10) + 6
    p = cstr_end(d, cstr_end(d, p))
    ptr, nxt, secs = p, struct.unpack_from("<Q", d, p)[0], []
    while nxt:
        _, _, _, size = struct.unpack_from("<HHIQ", d, nxt)
        q, end, opts, sec, nxt = nxt + 16, nxt + 16 + size, [], nxt, 0
        while q < end:
            oid, osz = struct.unpack_from("<HI", d, q)
            opts.append((oid, q + 6, osz))
            if oid == 0:
                nxt = struct.unpack_from("<Q", d, q + 6)[0]
            q += 6 + osz
        secs.append((sec, opts))
    return ptr, secs


def v7_buffer_cpus(d, secs):
    """Offset of the BUFFER option's CPU count and its CPUs' (offset, size)."""
    for _, opts in secs:
        for oid, at, _ in opts:
            if oid == 3:
                p = cstr_end(d, cstr_end(d, at + 8)) + 4
                n = struct.unpack_from("<I", d, p)[0]
                return p, [struct.unpack_from("<QQ", d, p + 4 + 20 * i + 4) for i in range(n)]
    sys.exit("no BUFFER option")


def zstd(name, *args):
    """A libzstd function (the library tlbscope links) returning a size_t."""
    lib = ctypes.CDLL("libzstd.so.1")
    f = getattr(lib, name)
    f.restype = ctypes.c_size_t
    r = f(*args)
    if lib.ZSTD_isError(ctypes.c_size_t(r)):
        sys.exit(f"{name} failed")
    return r


def v7_section_edit(d, secs, sid, edit):
    """Call edit(content) on section sid's content (a bytearray, inflated if compressed)."""
    for _, opts in secs:
        for oid, at, _ in opts:
            if oid == sid:
                break
        else:
            continue
        break
    else:
        sys.exit(f"no option {sid}")
    off = struct.unpack_from("<Q", d, at)[0]
    _, flags, desc, size = struct.unpack_from("<HHIQ", d, off)
    if not flags & 1:
        c = d[off + 16:off + 16 + size]
        edit(c)
        if len(c) != size:
            sys.exit(f"section {sid} is not compressed: its edit must keep its size")
        d[off + 16:off + 16 + size] = c
        return
    zsize, usize = struct.unpack_from("<II", d, off + 16)
    out = ctypes.create_string_buffer(usize)
    zstd("ZSTD_decompress", out, ctypes.c_size_t(usize), bytes(d[off + 24:off + 24 + zsize]),
         ctypes.c_size_t(zsize))
    c = bytearray(out.raw)
    edit(c)
    cap = zstd("ZSTD_compressBound", ctypes.c_size_t(len(c)))
    z = ctypes.create_string_buffer(cap)
    n = zstd("ZSTD_compress", z, ctypes.c_size_t(cap), bytes(c), ctypes.c_size_t(len(c)), 3)
    struct.pack_into("<Q", d, at, len(d))
    d += struct.pack("<HHIQII", sid, flags, desc, 8 + n, n, len(c)) + z.raw[:n]


def system_count_at(c, name):
    """Offset of the format count of system name in an EVENT_FORMATS content."""
    p = 4
    for _ in range(struct.unpack_from("<I", c, 0)[0]):
        e = cstr_end(c, p)
        sysname, p = bytes(c[p:e - 1]), e
        if sysname == name:
            return p
        p += 4
        for _ in range(struct.unpack_from("<I", c, p - 4)[0]):
            p += 8 + struct.unpack_from("<Q", c, p)[0]
    sys.exit(f"no system {name}")


def main():
    d = bytearray(open(sys.argv[1], "rb").read())
    kind = sys.argv[2]
    if d[10:12] == b"6\0":
        page, cpus, fly, hp = v6_layout(d)
        if kind == "cpus0":
            struct.pack_into("<I", d, cpus, 0)
        elif kind == "cpus-huge":
            struct.pack_into("<I", d, cpus, 100000000)
        elif kind == "pagesize3":
            struct.pack_into("<I", d, page, 3)
        elif kind == "cpudata-past-end":
            struct.pack_into("<Q", d, fly + 8, len(d))
        elif kind == "commit-huge":
            off = struct.unpack_from("<Q", d, fly)[0]
            struct.pack_into("<Q", d, off + 8, 70000)
        elif kind == "commit-huge-late":
            # CPU 1's second sub-buffer: found as the reader comes to it
            off = struct.unpack_from("<Q", d, fly + 16)[0]
            struct.pack_into("<Q", d, off + struct.unpack_from("<I", d, page)[0] + 8, 70000)
        elif kind == "timestamp-size":
            i = d.index(b"size:8;", hp[0])
            d[i:i + 7] = b"size:4;"
        else:
            sys.exit(f"unknown v6 kind {kind}")
    else:
        ptr, secs = v7_options(d)
        if kind == "options-loop":
            last = secs[-1][1][-1]
            struct.pack_into("<Q", d, last[1], secs[0][0])
        elif kind == "options-past-end":
            struct.pack_into("<Q", d, ptr, len(d) + 4096)
        elif kind == "buffer-cpus-huge":
            p, _ = v7_buffer_cpus(d, secs)
            struct.pack_into("<I", d, p, 100000000)
        elif kind in ("chunk-inflate-huge", "chunk-garbage"):
            _, cpus = v7_buffer_cpus(d, secs)
            off = cpus[0][0]
            if kind == "chunk-inflate-huge":
                struct.pack_into("<I", d, off + 8, 0x7ffff000)
            else:
                for k in range(16):
                    d[off + 12 + 20 + k] ^= 0x5A
        elif kind == "chunk-garbage-late":
            _, cpus = v7_buffer_cpus(d, secs)
            off = cpus[1][0] + 4
            off += 8 + struct.unpack_from("<I", d, off)[0]
            for k in range(16):
                d[off + 8 + 20 + k] ^= 0x5A
        elif kind == "cpu-unlisted":
            p, cpus = v7_buffer_cpus(d, secs)
            n = len(cpus)
            struct.pack_into("<I", d, p, n - 1)
            d[p + 4 + 20 * (n - 2):p + 4 + 20 * (n - 1)] = d[p + 4 + 20 * (n - 1):p + 4 + 20 * n]
        elif kind == "cpus-reversed":
            p, cpus = v7_buffer_cpus(d, secs)
            n = len(cpus)
            entries = [bytes(d[p + 4 + 20 * i:p + 24 + 20 * i]) for i in range(n)]
            d[p + 4:p + 4 + 20 * n] = b"".join(reversed(entries))
        elif kind == "ftrace-count":
            v7_section_edit(d, secs, 17, lambda c: struct.pack_into("<I", c, 0, 1936287860))
        elif kind == "system-count":
            v7_section_edit(d, secs, 18, lambda c: struct.pack_into(
                "<I", c, system_count_at(c, b"sched"), 1936287860))
        elif kind == "format-size":
            # the size of 'ftrace' format 0: ASCII read as a number, as the fuzzer found it
            v7_section_edit(d, secs, 17, lambda c: struct.pack_into("<Q", c, 4, 0x17006465686373))
        elif kind == "header-event-size":
            def edit(c):
                p = 12 + 8 + struct.unpack_from("<Q", c, 12)[0]
                struct.pack_into("<Q", c, p + 13, 1 << 40)
            v7_section_edit(d, secs, 16, edit)
        elif kind == "kallsyms-size":
            v7_section_edit(d, secs, 19, lambda c: struct.pack_into("<I", c, 0, 0xfffffff0))
        elif kind == "header-page-byte":
            # a byte no type name has, where the kernel prints a space
            v7_section_edit(d, secs, 16, lambda c: c.__setitem__(
                c.index(b"\tfield: u64") + 7, 0xdf))
        elif kind == "no-header-info":
            for _, opts in secs:
                for oid, at, _ in opts:
                    if oid == 16:
                        struct.pack_into("<H", d, at - 6, 0x77)
        elif kind == "data-section-flags":
            # the compression flag of the buffer's data section
            for _, opts in secs:
                for oid, at, _ in opts:
                    if oid == 3:
                        d[struct.unpack_from("<Q", d, at)[0] + 2] ^= 1
        elif kind == "cpu-twice":
            p, _ = v7_buffer_cpus(d, secs)
            struct.pack_into("<I", d, p + 4, 1)
        elif kind == "option-short":
            for _, opts in secs:
                for oid, at, _ in opts:
                    if oid == 17:
                        struct.pack_into("<I", d, at - 4, 4)
        elif kind == "printk-no-colon":
            # the last line without its ':' (the seeds' PRINTK sections are empty)
            def edit(c):
                t = b'0xffffffff80394090 : "Start context switch"\n0xffffffff80394078 "End"'
                c[:] = struct.pack("<I", len(t)) + t
            v7_section_edit(d, secs, 20, edit)
        elif kind == "record-length":
            # CPU 0's first event (after a 64-bit kernel's 16-byte sub-buffer header): a
            # type_len 0 header, then a length word past any sub-buffer
            _, cpus = v7_buffer_cpus(d, secs)
            p = cstr_end(d, 10) + 6
            if d[p:cstr_end(d, p) - 1] != b"none":
                sys.exit("record-length needs uncompressed data")
            struct.pack_into("<II", d, cpus[0][0] + 16, 0, 0xff600000)
        else:
            sys.exit(f"unknown v7 kind {kind}")
    open(sys.argv[3], "wb").write(d)


if __name__ == "__main__":
    main()
