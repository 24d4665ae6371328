#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# The flow arrows of a `tlbscope export` file: prints "FLOWS LATER UNBOUND": how many 'f'
# ends there are, how many lie after their 's' (at the target's handler entry, not at the
# send), and how many are bound to no slice ('X') on their track, which a viewer cannot
# draw.  usage: flow-ends.py EXPORT.json
import json,bisect,sys
d=json.load(open(sys.argv[1]))
ev=d['traceEvents']
sl={}
for e in ev:
    if e['ph']=='X': sl.setdefault(e['tid'],[]).append((e['ts'],e['ts']+e['dur']))
for k in sl: sl[k].sort()
s={e['id']:e for e in ev if e['ph']=='s'}
f=[e for e in ev if e['ph']=='f']
later=sum(1 for e in f if e['ts']>s[e['id']]['ts'])
unbound=0
for e in f:
    L=sl.get(e['tid'],[])
    i=bisect.bisect_right(L,(e['ts'],float('inf')))-1
    if i<0 or not (L[i][0]<=e['ts']<=L[i][1]): unbound+=1
print(len(f),later,unbound)
