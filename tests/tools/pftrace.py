#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Decode the Perfetto protobuf trace of `tlbscope export --format perfetto` on its own (the
wire format and the few messages export writes, field numbers as Perfetto's protos give
them) and print what it holds as "key value" lines, for tests/real/export.sh to compare
with report and the Chrome JSON.  Checks as it goes, each failure a "bad ..." line: every
interned id defined on the sequence before use (the first packet clears the state), every
event on a described track, slices begun and ended in turn on each track, flows begun
once and ended once.  A packet of compressed_packets is inflated and read in its place.
  usage: pftrace.py TRACE.pftrace [--bytes]   (--bytes: bytes by kind of event too)"""
import struct
import sys
import zlib
from collections import Counter, defaultdict

TYPES = {1: "begin", 2: "end", 3: "instant", 4: "counter"}


def varint(b, i):
    c = b[i]
    if c < 0x80:            # most are one byte: the decoder's hot path
        return c, i + 1
    v, s, i = c & 0x7f, 7, i + 1
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value) of a message: ints for varint/fixed64, bytes for len."""
    i, n = 0, len(b)
    while i < n:
        key = b[i]
        if key < 0x80:
            i += 1
        else:
            key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v = b[i]
            if v < 0x80:
                i += 1
            else:
                v, i = varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
            if i > n:
                raise ValueError("a length past the end of its message")
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def packets(data, out, bad):
    """The Trace's packets, those of compressed_packets inflated in their place."""
    for f, wt, pkt in fields(data):
        if f != 1 or wt != 2:
            bad.append("a Trace field other than packet: %d" % f)
            continue
        inner = [v for pf, _, v in fields(pkt) if pf == 50]
        if not inner:
            yield pkt
            continue
        out["compressed_packets"] += 1
        if len(pkt) >= 512 * 1024:
            bad.append("a compressed packet of 512 KiB or more")
        for blob in inner:
            yield from packets(zlib.decompress(blob), out, bad)


def main():
    data = open(sys.argv[1], "rb").read()
    by_bytes = "--bytes" in sys.argv
    out = Counter()
    size = Counter()
    bad = []
    tables = {}            # interned field -> {iid: str}
    cleared = False
    tracks = {}            # uuid -> name
    open_slice = {}        # uuid -> open?
    flows_begun, flows_ended = set(), set()
    slices = Counter()     # per track name
    sums = Counter()       # counter values per track
    first = None           # ns: the earliest slice begin
    description = None     # of the track that has one (the root)
    for pkt in packets(data, out, bad):
        p = defaultdict(list)
        for pf, _, v in fields(pkt):
            p[pf].append(v)
        out["packets"] += 1
        if p.get(10) != [1]:
            bad.append("a packet off sequence 1")
        flags = p.get(13, [0])[0]
        if flags & 1:
            tables = {}
            cleared = True
            out["state_cleared"] += 1
        if (flags & 2) and not cleared:
            bad.append("a packet needs incremental state before any was cleared")
        for interned in p.get(12, []):
            for kind, _, e in fields(interned):
                ent = dict((ef, ev) for ef, _, ev in fields(e))
                tables.setdefault(kind, {})[ent[1]] = ent[2].decode()
        for td in p.get(60, []):
            d = dict((tf, tv) for tf, _, tv in fields(td))
            tracks[d[1]] = d[2].decode()
            out["tracks"] += 1
            if 14 in d:
                description = d[14].decode()
        for te in p.get(11, []):
            ev = defaultdict(list)
            for ef, _, v in fields(te):
                ev[ef].append(v)
            kind = TYPES.get(ev.get(9, [0])[0], "?")
            uuid = ev.get(11, [None])[0]
            if uuid not in tracks:
                bad.append("an event on an undescribed track %s" % uuid)
                continue
            track = tracks[uuid]

            def lookup(kind_field, iid):
                s = tables.get(kind_field, {}).get(iid)
                if s is None:
                    bad.append("iid %d of interned field %d undefined" % (iid, kind_field))
                return s
            name = lookup(2, ev[10][0]) if 10 in ev else None
            cat = lookup(1, ev[3][0]) if 3 in ev else None
            args = {}
            for a in ev.get(4, []):
                ad = dict((af, av) for af, _, av in fields(a))
                key = lookup(3, ad[1])
                if 17 in ad:
                    args[key] = lookup(29, ad[17])
                elif 6 in ad:
                    args[key] = ad[6].decode()
                else:
                    args[key] = ad.get(4)
            if kind == "begin":
                if open_slice.get(uuid):
                    bad.append("a slice begun on %s inside another" % track)
                open_slice[uuid] = True
                ts = p.get(8, [None])[0]
                if ts is None:
                    bad.append("a slice begin without a timestamp")
                elif first is None or ts < first:
                    first = ts
                slices[track] += 1
                out["slices"] += 1
                out["slices_" + (cat or "?")] += 1
                if cat == "sched" and not {"pid", "tgid", "mm"} <= set(args):
                    bad.append("a task slice without pid, tgid and mm")
            elif kind == "end":
                if not open_slice.get(uuid):
                    bad.append("a slice ended on %s with none begun" % track)
                open_slice[uuid] = False
            elif kind == "instant":
                out["instant " + str(name)] += 1
            elif kind == "counter":
                out["counter " + track] += 1
                if 44 not in ev:
                    bad.append("a counter without its value")
                else:
                    sums[track] += struct.unpack("<d", ev[44][0].to_bytes(8, "little"))[0]
            for fid in ev.get(47, []):
                if fid in flows_begun:
                    bad.append("flow %d begun twice" % fid)
                flows_begun.add(fid)
            for fid in ev.get(48, []):
                if fid not in flows_begun or fid in flows_ended:
                    bad.append("flow %d ended before its begin, or twice" % fid)
                flows_ended.add(fid)
            if by_bytes:
                size[kind + " " + (cat or track if kind != "end" else "")] += len(pkt)
    if any(open_slice.values()):
        bad.append("slices left open")
    out["flows_begun"] = len(flows_begun)
    out["flows_ended"] = len(flows_ended)
    for k in sorted(out):
        print("%s\t%d" % (k, out[k]))
    if first is not None:
        print("first_slice_ns\t%d" % first)
    if description is not None:
        print("description\t%s" % description)
    for t in sorted(sums):
        print("sum of %s\t%.0f" % (t, sums[t]))
    for t in sorted(slices):
        print("slices on %s\t%d" % (t, slices[t]))
    for k in sorted(size):
        print("bytes %s\t%d" % (k, size[k]))
    for b in sorted(set(bad)):
        print("bad %s" % b)


if __name__ == "__main__":
    main()
