#!/usr/bin/env python3
"""Checks that core/'s folders include each other without cycles (docs/ARCHITECTURE.md).

Every folder of core/ is a node; formats/<name>/ folders are nodes of their own (a format may
use another format's helpers, never the reverse and never the list of readers in formats/).
An edge A -> B means a file in A includes "B/...". Prints the graph with --print; exits 1 and
names the cycle when there is one."""
import os
import re
import sys

core = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'core')
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def node_of_dir(rel_dir):
    parts = rel_dir.split('/')
    if parts[0] == 'formats' and len(parts) > 1:
        return 'formats/' + parts[1]
    return parts[0]


def node_of_include(path, including_dir):
    parts = path.split('/')
    if len(parts) == 1:  # "x.h": a file of the including folder
        return node_of_dir(including_dir)
    if parts[0] == 'formats' and len(parts) > 2:
        return 'formats/' + parts[1]
    if parts[0] in ('formats',) and len(parts) == 2:
        return 'formats'
    return parts[0]


edges = {}
for root, _, files in os.walk(core):
    rel = os.path.relpath(root, core)
    if rel == '.':
        continue
    src = node_of_dir(rel)
    edges.setdefault(src, set())
    for f in files:
        if not f.endswith(('.h', '.cpp')):
            continue
        text = open(os.path.join(root, f), encoding='utf-8').read()
        for inc in include.findall(text):
            if inc.endswith('.pb.h'):  # generated from this folder's own .proto
                continue
            local = os.path.normpath(os.path.join(rel, inc))
            if os.path.exists(os.path.join(core, local)):  # relative to the including file
                dst = node_of_dir(os.path.dirname(local)) if '/' in local else local
            else:
                dst = node_of_include(inc, rel)
            if not os.path.isdir(os.path.join(core, dst)):
                continue
            if dst != src:
                edges[src].add(dst)

if '--print' in sys.argv:
    for n in sorted(edges):
        print(f'{n:20} -> {", ".join(sorted(edges[n])) or "-"}')

# Depth-first search for a cycle.
state, stack = {}, []


def visit(n):
    state[n] = 1
    stack.append(n)
    for m in sorted(edges.get(n, ())):
        if state.get(m) == 1:
            cycle = stack[stack.index(m):] + [m]
            print('include cycle in core/: ' + ' -> '.join(cycle))
            sys.exit(1)
        if state.get(m) is None:
            visit(m)
    stack.pop()
    state[n] = 2


for n in sorted(edges):
    if state.get(n) is None:
        visit(n)
print(f'include graph ok: {len(edges)} folders of core/, {sum(len(v) for v in edges.values())} arrows, no cycle')
