"""Solver benchmark: exact suggestions on fixed seeded sets of random reachable positions.

    python bench/solver_bench.py                       # default sets (about 8 minutes)
    python bench/solver_bench.py --empties 8,10 --count 50
    python bench/solver_bench.py --variants advanced --empties 14 --count 3 -v

Positions: pieces placed at random without ever completing a group, then a random
piece in hand that cannot win at once (engine.sampling.random_position). Each
position is solved from scratch (fresh table age) by ``engine.solver.suggest``:
exact value, optimal move, and plies to the end. Prints, per variant and number of
empty cells, the median and max seconds and nodes, and how many positions were
wins / draws / losses for the side to move. One core. Seconds are wall-clock; the
median CPU seconds of the process are printed too, since on a shared machine the
wall clock also counts time spent waiting for a core (note the load, ``uptime``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.rules import Variant  # noqa: E402
from engine.sampling import random_position  # noqa: E402
from engine.solver import DEFAULT_TT_BITS, suggest  # noqa: E402

DEFAULT_COUNTS = {8: 50, 10: 50, 12: 20, 14: 10}
TARGET_MEDIAN = {10: 0.020, 12: 1.0, 14: 30.0}


def positions(variant: Variant, empties: int, count: int, seed: int):
    rng = random.Random(f"{seed}-{variant}-{empties}")
    return [random_position(rng, empties, variant) for _ in range(count)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="classic,advanced", help="comma-separated, e.g. classic,advanced")
    ap.add_argument("--empties", default="8,10,12,14", help="comma-separated numbers of empty cells")
    ap.add_argument("--count", type=int, default=None, help="positions per set (default: 50/50/20/10 for 8/10/12/14)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--tt-bits", type=int, default=DEFAULT_TT_BITS, help="log2 of the table's slots")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per position")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    warm = random_position(random.Random(0), 6, Variant())
    suggest(warm, Variant(), tt_bits=args.tt_bits)
    print(f"warm-up (load or compile the search): {time.perf_counter() - t0:.2f} s")
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(f"{'variant':10} {'empties':>7} {'n':>3} {'median s':>9} {'max s':>9} {'med cpu s':>9} {'median nodes':>13} "
          f"{'max nodes':>12}  W/D/L   target (median)")
    for vt in args.variants.split(","):
        variant = Variant.parse(vt)
        for empties in (int(x) for x in args.empties.split(",")):
            count = args.count or DEFAULT_COUNTS.get(empties, 10)
            secs, cpus, nodes, values = [], [], [], []
            for pos in positions(variant, empties, count, args.seed):
                c0 = time.process_time()
                s = suggest(pos, variant, tt_bits=args.tt_bits)
                cpus.append(time.process_time() - c0)
                secs.append(s.seconds)
                nodes.append(s.nodes)
                values.append(s.value)
                if args.verbose:
                    print(f"    {pos}  {s.value:4} {s.plies:2} plies  {s.nodes:>11} nodes  {s.seconds:8.3f} s",
                          flush=True)
            wdl = "/".join(str(values.count(v)) for v in ("win", "draw", "loss"))
            med = statistics.median(secs)
            target = TARGET_MEDIAN.get(empties)
            verdict = "" if target is None else f"<= {target:g} s {'ok' if med <= target else 'MISSED'}"
            print(f"{vt:10} {empties:7} {count:3} {med:9.4f} {max(secs):9.3f} {statistics.median(cpus):9.4f} "
                  f"{statistics.median(nodes):13.0f} "
                  f"{max(nodes):12}  {wdl:7} {verdict}", flush=True)
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
