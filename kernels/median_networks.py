#!/usr/bin/env python3
"""kernels/median_networks.py: writes kernels/median_networks.h, the pruned sorting networks of
the median filter's `fast` variant for the small windows (k = 3, 5, 7).

Each network computes a TX x TY tile of medians from the (TY + k - 1) x (TX + k - 1) inputs they
share, with work shared between neighbouring outputs (after Adams, "Fast median filters using
separable sorting networks", 2021):
  1. columns: each input column is sorted once per output row, the rows common to all TY
     windows sorted once and merged with the few rows each window adds;
  2. rows: the sorted columns common to all TX windows are merged once (a balanced tree of
     Batcher odd-even merges), then merged with the columns each window adds;
  3. only the median of each window is kept: every comparator whose outputs no median depends on
     is dropped, and a comparator with one live output becomes a single min or max.
Run `python3 kernels/median_networks.py` to regenerate; it checks each network on random input
against sorting before it writes anything. tests/test_median_ref.c runs the same header on the
CPU against the reference.
"""
import os
import random
import sys

INF = "inf"  # padding for merges of lists whose length is not a power of two

# k -> (TX, TY): outputs per call. Chosen for fewest min/max per output with the values a thread
# keeps live at once in reach of the register file (two 32-bit registers per pixel).
TILES = {3: (2, 2), 5: (2, 2), 7: (4, 1)}


class Network:
    def __init__(self):
        self.ops = []  # (lo, hi, a, b): wires lo = min(a, b), hi = max(a, b)
        self.n_wires = 0

    def wire(self):
        self.n_wires += 1
        return self.n_wires - 1

    def cas(self, a, b):
        if b == INF:
            return a, b
        if a == INF:
            return b, a
        lo, hi = self.wire(), self.wire()
        self.ops.append((lo, hi, a, b))
        return lo, hi


def merge_pow2(net, x):
    """Batcher's odd-even merge of the two sorted halves of x (len a power of two)."""
    n = len(x)
    if n == 2:
        return list(net.cas(x[0], x[1]))
    even, odd = merge_pow2(net, x[0::2]), merge_pow2(net, x[1::2])
    inter = [w for pair in zip(even, odd) for w in pair]
    out = [inter[0]]
    for i in range(1, n - 1, 2):
        out += net.cas(inter[i], inter[i + 1])
    return out + [inter[-1]]


def merge(net, a, b):
    if not a or not b:
        return list(a or b)
    n = 1
    while n < max(len(a), len(b)):
        n *= 2
    out = merge_pow2(net, a + [INF] * (n - len(a)) + b + [INF] * (n - len(b)))
    return out[: len(a) + len(b)]


def sort(net, x):
    if len(x) <= 1:
        return list(x)
    h = len(x) // 2
    return merge(net, sort(net, x[:h]), sort(net, x[h:]))


def merge_all(net, lists):
    lists = [l for l in lists if l]
    while len(lists) > 1:
        nxt = [merge(net, lists[t], lists[t + 1]) for t in range(0, len(lists) - 1, 2)]
        if len(lists) % 2:
            nxt.append(lists[-1])
        lists = nxt
    return lists[0] if lists else []


def build(k, tx, ty):
    net = Network()
    rows, cols = ty + k - 1, tx + k - 1
    inputs = [[net.wire() for _ in range(cols)] for _ in range(rows)]
    column = {}
    for c in range(cols):
        common = sort(net, [inputs[r][c] for r in range(ty - 1, k)])
        for i in range(ty):
            extra = [r for r in range(i, i + k) if not ty - 1 <= r < k]
            column[i, c] = merge(net, common, sort(net, [inputs[r][c] for r in extra]))
    medians = []
    for i in range(ty):
        shared = [c for c in range(tx - 1, k)]
        common = merge_all(net, [column[i, c] for c in shared])
        for j in range(tx):
            extra = merge_all(net, [column[i, c] for c in range(j, j + k) if c not in shared])
            medians.append(merge(net, common, extra)[(k * k - 1) // 2])
    return net, inputs, medians


def prune(net, outputs):
    live, kept = set(outputs), []
    for lo, hi, a, b in reversed(net.ops):
        keep_lo, keep_hi = lo in live, hi in live
        if keep_lo or keep_hi:
            kept.append((lo if keep_lo else None, hi if keep_hi else None, a, b))
            live.update((a, b))
    return kept[::-1]


def check(k, tx, ty, inputs, medians, ops, trials=2000):
    rng = random.Random(k)
    for _ in range(trials):
        value = {}
        for r, row in enumerate(inputs):
            for c, w in enumerate(row):
                value[w] = rng.randrange(4 if rng.random() < 0.3 else 256)  # many ties too
        for lo, hi, a, b in ops:
            if lo is not None:
                value[lo] = min(value[a], value[b])
            if hi is not None:
                value[hi] = max(value[a], value[b])
        for i in range(ty):
            for j in range(tx):
                window = sorted(value[inputs[r][c]] for r in range(i, i + k) for c in range(j, j + k))
                if value[medians[i * tx + j]] != window[(k * k - 1) // 2]:
                    sys.exit(f"network k={k}: wrong median at output ({j}, {i})")


def emit(k, tx, ty):
    net, inputs, medians = build(k, tx, ty)
    ops = prune(net, medians)
    check(k, tx, ty, inputs, medians, ops)
    where = {w: (r, c) for r, row in enumerate(inputs) for c, w in enumerate(row)}
    names, loaded, body, n_minmax = {}, set(), [], 0

    def name(w):
        if w in where and w not in loaded:
            loaded.add(w)
            r, c = where[w]
            names[w] = f"in{r}_{c}"
            body.append(f"    const MEDIAN_NET_T in{r}_{c} = MEDIAN_NET_LOAD({r}, {c});")
        return names[w]

    # A comparator with both outputs live may take its max as a + b - min (MEDIAN_NET_HI), which
    # the includer can compute off the min/max pipe. Share of comparators that do: where the time
    # spent on min/max (2 slots each) equals the issue slots of all (single ones 1, pairs 2 + share).
    n_pair = sum(lo is not None and hi is not None for lo, hi, a, b in ops)
    n_single = len(ops) - n_pair
    share = min(1.0, (n_single + 2 * n_pair) / (3 * n_pair)) if n_pair else 0.0
    pair = 0
    for lo, hi, a, b in ops:
        na, nb = name(a), name(b)
        for w, fn in ((lo, "MIN"), (hi, "MAX")):
            if w is not None:
                names[w] = f"t{len(names)}"
                if fn == "MAX" and lo is not None and int((pair + 1) * share) > int(pair * share):
                    body.append(f"    const MEDIAN_NET_T {names[w]} = MEDIAN_NET_HI({na}, {nb}, {names[lo]});")
                else:
                    body.append(f"    const MEDIAN_NET_T {names[w]} = MEDIAN_NET_{fn}({na}, {nb});")
                n_minmax += 1
        if lo is not None and hi is not None:
            pair += 1
    for o, w in enumerate(medians):
        body.append(f"    out[{o}] = {names[w]};")
    head = [
        f"/* k = {k}: a {tx} x {ty} tile of medians from {ty + k - 1} x {tx + k - 1} inputs, "
        f"{n_minmax} min/max ({n_minmax / (tx * ty):.1f} per output) */",
        f"#define MEDIAN_NET{k}_TX {tx}",
        f"#define MEDIAN_NET{k}_TY {ty}",
        f"MEDIAN_NET_FN void median_net{k}(MEDIAN_NET_ARGS, MEDIAN_NET_T out[{tx * ty}])",
        "{",
    ]
    return "\n".join(head + body + ["}", ""]), n_minmax / (tx * ty)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parts, costs = [], []
    for k, (tx, ty) in sorted(TILES.items()):
        text, cost = emit(k, tx, ty)
        parts.append(text)
        costs.append(f" *   k = {k}: {tx} x {ty} outputs per call, {cost:.1f} min/max per output")
    header = "\n".join([
        "/* ------------------------------------------------------------------------------------------------",
        " * kernels/median_networks.h: GENERATED by kernels/median_networks.py (edit that, then run it).",
        " *",
        " * Pruned sorting networks for the median filter's `fast` variant, small windows:",
        *costs,
        " * Outputs are row-major, TX per row. The includer defines MEDIAN_NET_T (the value type),",
        " * MEDIAN_NET_MIN and MEDIAN_NET_MAX (elementwise), MEDIAN_NET_FN (the function's qualifiers),",
        " * MEDIAN_NET_ARGS (the parameters MEDIAN_NET_LOAD needs) and MEDIAN_NET_LOAD(r, c), the input",
        " * at row r and column c of the tile's (TY + k - 1) x (TX + k - 1) window. Each input is loaded",
        " * just before its first use, so few are live at once. MEDIAN_NET_HI(a, b, lo), the max of a",
        " * comparator whose min lo is also needed, defaults to MEDIAN_NET_MAX(a, b); an includer may",
        " * define it as a + b - lo computed on another pipe than min and max.",
        " * ------------------------------------------------------------------------------------------------ */",
        "#ifndef MEDIAN_NET_HI",
        "#define MEDIAN_NET_HI(a, b, lo) MEDIAN_NET_MAX(a, b)",
        "#endif",
        "",
    ])
    with open(os.path.join(here, "median_networks.h"), "w") as f:
        f.write(header + "\n".join(parts))


if __name__ == "__main__":
    main()
