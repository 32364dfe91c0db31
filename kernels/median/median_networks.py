#!/usr/bin/env python3
"""kernels/median/median_networks.py: writes kernels/median/median_networks.h, the pruned sorting networks of
the median filter's `fast` variant for the small windows (k = 3, 5, 7, 9).

Each network computes a TX x TY tile of medians from the (TY + k - 1) x (TX + k - 1) inputs they
share, with work shared between neighbouring outputs (after Adams, "Fast median filters using
separable sorting networks", 2021). It is planned as a graph of sorted lists (nodes), each a single
input, a merge of two nodes, or a slice of one; two plans (PLANS):
  separable: 1. columns: each input column is sorted once per output row: the rows common to all
     TY windows once, then, splitting the windows in halves, the rows each half adds merged in (a
     tree of merges down to single windows);
     2. rows: each window's sorted columns are merged the same way (the columns common to all TX
     windows once, then what each half adds), and the median's rank is taken.
  2d: step 1, then at each rank the row of the sorted columns, sorted the same way. In a window the
     value i-th in its column and j-th in its row has at least (i+1)(j+1)-1 values below it and
     (k-i)(k-j)-1 above, so only a band around the anti-diagonal can be the median: the band's
     pieces of rows are merged, and the median's rank less the values discarded below is taken.
Only the ranks some consumer needs are built. A merge asked for ranks [lo, hi] of lists A and B
(lengths a, b) needs A only from rank lo - b to hi (below, a value of A has fewer than lo values
under it; above, more than hi): these windows go from the medians down through the graph (a node
used twice keeps the hull of both), and each merge takes only its windows of its inputs, as a
Batcher odd-even merge of any lengths or, for few ranks, as a min of maxima of the splits (the
cheaper once pruned). Last, every comparator whose outputs no median depends on is dropped, and one
with a single live output becomes a single min or max.
Run `python3 kernels/median/median_networks.py` to regenerate (`--out PATH` writes elsewhere, `--survey`
prints the cost of both plans on the tiles tried). Each network is checked before anything is
written: on random 0/1 inputs, bit-parallel (a min/max network that gives the median of every 0/1
input gives it of every input), on random values with many ties and on all-equal inputs.
tests/cpu/test_median_ref.c runs the same header on the CPU against the reference.
"""
import argparse
import os
import random
import sys

# k -> (TX, TY, plan): outputs per call and how they are computed (see PLANS). Chosen (--survey)
# for fewest min/max per output with the values a thread keeps live at once in reach of the
# register file (two 32-bit registers per pixel, at most 255 registers). The 2d plan wins only at
# k = 3: at 5 and 7 its row sorts and the merge of the band (which cannot use the columns' order)
# cost more than the values it discards save. The tiles are those that ran fastest in the bench
# (docs/perf/median.md): k = 5 on 8x1, since median_fast.cu runs it one 32-bit word at a time,
# which halves the values live; k = 7 on 4x1, as 8x1 needs more registers than a thread has
# without spilling.
TILES = {3: (2, 2, "2d"), 5: (8, 1, "separable"), 7: (4, 1, "separable"), 9: (4, 1, "separable")}


class Network:
    def __init__(self):
        self.ops = []  # (lo, hi, a, b): wires lo = min(a, b), hi = max(a, b)
        self.n_wires = 0

    def wire(self):
        self.n_wires += 1
        return self.n_wires - 1

    def cas(self, a, b):
        lo, hi = self.wire(), self.wire()
        self.ops.append((lo, hi, a, b))
        return lo, hi


def odd_even_merge(net, a, b):
    """Batcher's odd-even merge of sorted lists of any lengths: merge the even-indexed and the
    odd-indexed elements separately, then one row of comparators between neighbours."""
    if not a or not b:
        return list(a or b)
    if len(a) == 1 and len(b) == 1:
        return list(net.cas(a[0], b[0]))
    even, odd = odd_even_merge(net, a[0::2], b[0::2]), odd_even_merge(net, a[1::2], b[1::2])
    rest = []  # odd[0], even[1], odd[1], even[2], ...: pairs (odd[t], even[t + 1]) are compared
    for t in range(max(len(even) - 1, len(odd))):
        rest += odd[t : t + 1] + even[t + 1 : t + 2]
    out = [even[0]]
    for t in range(0, len(rest) - 1, 2):
        out += net.cas(rest[t], rest[t + 1])
    return out + rest[len(rest) - len(rest) % 2 :]


def select_rank(net, a, b, t):
    """The element of rank t of the merge of sorted a and b, without merging: the t + 1 smallest
    are a's first i and b's first t + 1 - i for some split i, and every split's largest is at
    least the wanted one, so it is the min over the splits of max(a[i - 1], b[t - i]). Dually it is
    the max over the splits of min(a[i], b[t - i]); the form with fewer splits is built."""
    def fold(fn, xs):
        x = xs[0]
        for y in xs[1:]:
            lo, hi = net.cas(x, y)
            x = lo if fn == "min" else hi
        return x

    def min_of_max(a, b, t):
        terms = []
        for i in range(max(0, t + 1 - len(b)), min(len(a), t + 1) + 1):
            j = t + 1 - i  # a[:i] and b[:j]: the largest of either or both
            terms.append(fold("max", (a[i - 1 : i] if i else []) + (b[j - 1 : j] if j else [])))
        return fold("min", terms)

    def max_of_min(a, b, t):
        # the same on the lists reversed: the largest len(a) + len(b) - t are split the same way
        r = len(a) + len(b) - 1 - t
        terms = []
        for i in range(max(0, r + 1 - len(b)), min(len(a), r + 1) + 1):
            j = r + 1 - i  # a[-i:] and b[-j:]: the smallest of either or both
            terms.append(fold("min", (a[len(a) - i : len(a) - i + 1] if i else []) + (b[len(b) - j : len(b) - j + 1] if j else [])))
        return fold("max", terms)

    n_min_max = min(len(a), t + 1) + 1 - max(0, t + 1 - len(b))
    r = len(a) + len(b) - 1 - t
    n_max_min = min(len(a), r + 1) + 1 - max(0, r + 1 - len(b))
    return min_of_max(a, b, t) if n_min_max <= n_max_min else max_of_min(a, b, t)


MERGES = {
    "odd-even": lambda net, a, b, p, q: odd_even_merge(net, a, b)[p : q + 1],
    "select": lambda net, a, b, p, q: [select_rank(net, a, b, t) for t in range(p, q + 1)],
}
_merge_choice = {}


def merge_ranks(net, a, b, p, q):
    """Ranks p..q of the merge of sorted a and b, by the merge that costs fewest min/max once
    pruned to those ranks (measured on a network of its own, once per shape)."""
    key = (len(a), len(b), p, q)
    if key not in _merge_choice:
        costs = []
        for name, fn in MERGES.items():
            trial = Network()
            xa = [trial.wire() for _ in a]
            xb = [trial.wire() for _ in b]
            costs.append((count_min_max(prune(trial, fn(trial, xa, xb, p, q))), name))
        _merge_choice[key] = min(costs)[1]
    return MERGES[_merge_choice[key]](net, a, b, p, q)


class Node:
    """A sorted list of `length` values: an input ("leaf"), a merge of two nodes or a slice of a
    node. lo..hi is the window of ranks its consumers want (None: none); `wires` holds those ranks
    once built."""

    def __init__(self, kind, length, args):
        self.kind, self.length, self.args = kind, length, args
        self.lo = self.hi = None
        self.wires = None

    def want(self, lo, hi):
        assert 0 <= lo <= hi < self.length
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)


class Plan:
    def __init__(self):
        self.nodes = []  # in order of creation: every node after its inputs

    def add(self, kind, length, args):
        self.nodes.append(Node(kind, length, args))
        return self.nodes[-1]

    def leaf(self, wire):
        return self.add("leaf", 1, wire)

    def merge(self, x, y):
        if x is None or y is None:
            return x or y
        return self.add("merge", x.length + y.length, (x, y))

    def slice(self, x, s, e):
        return self.add("slice", e - s, (x, s))

    def build(self, net):
        # windows top-down: each consumer asks its inputs for the ranks it can need
        for n in reversed(self.nodes):
            if n.lo is None:
                continue
            if n.kind == "merge":
                x, y = n.args
                x.want(max(0, n.lo - y.length), min(x.length - 1, n.hi))
                y.want(max(0, n.lo - x.length), min(y.length - 1, n.hi))
            elif n.kind == "slice":
                n.args[0].want(n.lo + n.args[1], n.hi + n.args[1])
        # then bottom-up, each node from its inputs' windows only
        for n in self.nodes:
            if n.lo is None:
                continue
            if n.kind == "leaf":
                n.wires = [n.args]
            elif n.kind == "merge":
                x, y = n.args
                xlo, xhi = max(0, n.lo - y.length), min(x.length - 1, n.hi)
                ylo, yhi = max(0, n.lo - x.length), min(y.length - 1, n.hi)
                a = x.wires[xlo - x.lo : xhi - x.lo + 1]
                b = y.wires[ylo - y.lo : yhi - y.lo + 1]
                n.wires = merge_ranks(net, a, b, n.lo - xlo - ylo, n.hi - xlo - ylo)
            else:
                x, s = n.args
                n.wires = x.wires[n.lo + s - x.lo : n.hi + s - x.lo + 1]


def merge_lists(plan, lists):
    """One sorted node of several: the two shortest merged first (few values in every merge)."""
    lists = [l for l in lists if l is not None]
    while len(lists) > 1:
        i = min(range(len(lists) - 1), key=lambda t: lists[t].length + lists[t + 1].length)
        lists[i : i + 2] = [plan.merge(lists[i], lists[i + 1])]
    return lists[0] if lists else None


def sort_windows(plan, k, n_windows, item):
    """Sorted nodes of n_windows windows of k consecutive items (window w: items w..w+k-1),
    sharing work: the items common to all windows are sorted once, then the windows are split in
    halves and the items each half has in common added to the parent's node, down to single
    windows."""
    out = [None] * n_windows

    def rec(w0, w1, parent, have):
        common = set(range(w1 - 1, w0 + k))
        node = plan.merge(parent, merge_lists(plan, [item(i) for i in sorted(common - have)]))
        if w1 - w0 == 1:
            out[w0] = node
            return
        mid = (w0 + w1) // 2
        rec(w0, mid, node, common)
        rec(mid, w1, node, common)

    rec(0, n_windows, None, set())
    return out


def plan_separable(plan, k, tx, ty, inputs):
    """Sorted columns, then each window's columns merged into one sorted list of k * k."""
    leaves = [[plan.leaf(w) for w in row] for row in inputs]
    column = [sort_windows(plan, k, ty, lambda r: leaves[r][c]) for c in range(tx + k - 1)]
    medians = []
    for i in range(ty):
        for node in sort_windows(plan, k, tx, lambda c: column[c][i]):
            node.want((k * k - 1) // 2, (k * k - 1) // 2)
            medians.append(node)
    return medians


def plan_2d(plan, k, tx, ty, inputs):
    """Sorted columns, then at each rank the row of sorted columns, then the band of candidates
    around the anti-diagonal merged (as pieces of rows) to the median's rank among them."""
    m = (k * k - 1) // 2
    leaves = [[plan.leaf(w) for w in row] for row in inputs]
    column = [sort_windows(plan, k, ty, lambda r: leaves[r][c]) for c in range(tx + k - 1)]
    medians = []
    for i in range(ty):
        rows = [sort_windows(plan, k, tx, lambda c: plan.slice(column[c][i], r, r + 1)) for r in range(k)]
        for j in range(tx):
            pieces, below = [], 0
            for r in range(k):
                # row r's values that can be the median: at most m sure to be below, m above
                band = [c for c in range(k) if (r + 1) * (c + 1) - 1 <= m and (k - r) * (k - c) - 1 <= m]
                below += sum((k - r) * (k - c) - 1 > m for c in range(k))
                pieces.append(plan.slice(rows[r][j], band[0], band[-1] + 1))
            node = merge_lists(plan, pieces)
            node.want(m - below, m - below)
            medians.append(node)
    return medians


PLANS = {"separable": plan_separable, "2d": plan_2d}


def build(k, tx, ty, plan_name):
    """The network of a tile: inputs[r][c] are the wires of the inputs, medians[i * tx + j] the
    wire of output (j, i). A plan for tx < ty is built on the transposed tile (its columns are
    then the rows: the longer side shares the second step)."""
    net, plan = Network(), Plan()
    transpose = tx < ty
    w, h = (ty, tx) if transpose else (tx, ty)
    inputs = [[net.wire() for _ in range(w + k - 1)] for _ in range(h + k - 1)]
    nodes = PLANS[plan_name](plan, k, w, h, inputs)
    plan.build(net)
    medians = [node.wires[0] for node in nodes]
    if transpose:
        inputs = [list(col) for col in zip(*inputs)]
        medians = [medians[j * w + i] for i in range(ty) for j in range(tx)]
    return net, inputs, medians


def prune(net, outputs):
    live, kept = set(outputs), []
    for lo, hi, a, b in reversed(net.ops):
        keep_lo, keep_hi = lo in live, hi in live
        if keep_lo or keep_hi:
            kept.append((lo if keep_lo else None, hi if keep_hi else None, a, b))
            live.update((a, b))
    return kept[::-1]


def count_min_max(ops):
    return sum((lo is not None) + (hi is not None) for lo, hi, a, b in ops)


def peak_live(inputs, medians, ops):
    """Most values live at once, in the order the header computes them: an input from its load
    (just before its first use) to its last use, a result from its op to its last use (a median
    to the end)."""
    is_input = {w for row in inputs for w in row}
    last = {}
    for t, (lo, hi, a, b) in enumerate(ops):
        last[a] = last[b] = t
    for w in medians:
        last[w] = len(ops)
    live, peak, born = 0, 0, set()
    for t, (lo, hi, a, b) in enumerate(ops):
        for w in (a, b):
            if w in is_input and w not in born:
                born.add(w)
                live += 1
        live += (lo is not None) + (hi is not None)
        peak = max(peak, live)
        live -= sum(1 for w in {a, b} if last[w] == t)
        live -= sum(1 for w in (lo, hi) if w is not None and w not in last)
    return peak


def run(ops, value, fn_min, fn_max):
    for lo, hi, a, b in ops:
        if lo is not None:
            value[lo] = fn_min(value[a], value[b])
        if hi is not None:
            value[hi] = fn_max(value[a], value[b])
    return value


def check(k, tx, ty, inputs, medians, ops, trials=2000, lanes=1 << 16):
    """Exits unless the network gives every window's median on: random 0/1 inputs, 'lanes' of
    them at once as the bits of integers (min = and, max = or; densities from 1/16 to 15/16, so
    that some windows' counts of ones lie near the median in every lane block); random values
    with many ties; all-equal inputs."""
    rng = random.Random(k)
    m = (k * k - 1) // 2
    cells = [(r, c) for r in range(len(inputs)) for c in range(len(inputs[0]))]

    def fail(i, j, what):
        sys.exit(f"network k={k} {tx}x{ty}: wrong median at output ({j}, {i}) on {what}")

    # 0/1: each input a random word whose bits are 1 with a density chosen per block of lanes
    block = 1 << 12
    value = {}
    for r, c in cells:
        word = 0
        for start in range(0, lanes, block):
            num = 1 + (start // block) % 15  # density num / 16 in this block
            bits = 0
            for level in range(4):  # bit `level` of num: one more halving step, or'ed or and'ed
                x = rng.getrandbits(block)
                bits = (bits | x) if num >> level & 1 else (bits & x)
            word |= bits << start
        value[inputs[r][c]] = word
    run(ops, value, lambda a, b: a & b, lambda a, b: a | b)
    for i in range(ty):
        for j in range(tx):
            window = [value[inputs[r][c]] for r in range(i, i + k) for c in range(j, j + k)]
            # the median bit is 1 where more than m of the window's bits are 1: count per lane
            # with a bit-sliced adder
            count = []
            for w in window:
                carry = w
                for p in range(len(count)):
                    count[p], carry = count[p] ^ carry, count[p] & carry
                if carry:
                    count.append(carry)
            want = ge_const(count, m + 1, lanes)
            if value[medians[i * tx + j]] != want:
                fail(i, j, "0/1 inputs")
    # values with ties, and all equal
    for trial in range(trials + 1):
        value = {}
        for r, c in cells:
            value[inputs[r][c]] = 7 if trial == trials else rng.randrange(4 if rng.random() < 0.3 else 256)
        run(ops, value, min, max)
        for i in range(ty):
            for j in range(tx):
                window = sorted(value[inputs[r][c]] for r in range(i, i + k) for c in range(j, j + k))
                if value[medians[i * tx + j]] != window[m]:
                    fail(i, j, "all-equal inputs" if trial == trials else "random values")


def ge_const(count, n, lanes):
    """Lanes whose bit-sliced count (count[p]: bit p of each lane's count) is >= n."""
    full = (1 << lanes) - 1
    ge, eq = 0, full  # over the bits seen so far, from the top: count > n's bits, == n's bits
    for p in reversed(range(max(len(count), n.bit_length()))):
        c = count[p] if p < len(count) else 0
        if n >> p & 1:
            eq &= c
        else:
            ge |= eq & c
            eq &= ~c & full
    return ge | eq


def emit(k, tx, ty, plan_name):
    net, inputs, medians = build(k, tx, ty, plan_name)
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
    peak = peak_live(inputs, medians, ops)
    head = [
        f"/* k = {k}: a {tx} x {ty} tile of medians from {ty + k - 1} x {tx + k - 1} inputs, "
        f"{n_minmax} min/max ({n_minmax / (tx * ty):.1f} per output), at most {peak} values live */",
        f"#define MEDIAN_NET{k}_TX {tx}",
        f"#define MEDIAN_NET{k}_TY {ty}",
        f"MEDIAN_NET_FN void median_net{k}(MEDIAN_NET_ARGS, MEDIAN_NET_T out[{tx * ty}])",
        "{",
    ]
    return "\n".join(head + body + ["}", ""]), n_minmax / (tx * ty), peak


def survey():
    """Cost of each plan on each tile tried, each network checked (with fewer random values)."""
    for k in (3, 5, 7):
        for tx, ty in ((1, 1), (2, 1), (2, 2), (4, 1), (1, 4), (4, 2), (2, 4), (8, 1)):
            for plan_name in PLANS:
                net, inputs, medians = build(k, tx, ty, plan_name)
                ops = prune(net, medians)
                check(k, tx, ty, inputs, medians, ops, trials=200)
                print(f"k={k} {tx}x{ty} {plan_name:9s} {count_min_max(ops) / (tx * ty):6.1f} min/max per output, "
                      f"{peak_live(inputs, medians, ops)} values live at most")


def main():
    parser = argparse.ArgumentParser(description="Writes the pruned median networks of the fast variant (k = 3, 5, 7, 9).")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "median_networks.h"), help="the header to write")
    parser.add_argument("--survey", action="store_true", help="print the cost of every plan and tile, write nothing")
    args = parser.parse_args()
    if args.survey:
        survey()
        return
    parts, costs = [], []
    for k, (tx, ty, plan_name) in sorted(TILES.items()):
        text, cost, peak = emit(k, tx, ty, plan_name)
        parts.append(text)
        costs.append(f" *   k = {k}: {tx} x {ty} outputs per call, {cost:.1f} min/max per output, {peak} values live")
    header = "\n".join([
        "/* ------------------------------------------------------------------------------------------------",
        " * kernels/median/median_networks.h: GENERATED by kernels/median/median_networks.py (edit that, then run it).",
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
    with open(args.out, "w") as f:
        f.write(header + "\n".join(parts))


if __name__ == "__main__":
    main()
