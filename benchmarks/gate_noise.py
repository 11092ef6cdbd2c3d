"""How the paired gate behaves on noisy agents, against the old threshold gate (success rate dropped at all).

Simulates an agent as a per-task pass probability (drawn once per task from a Beta distribution, so some tasks
are easy, some hard, some coin flips, as a model at temperature 1 is). Each simulated release runs every task
K times; ``pytest_cua.results.compare.compare`` judges the new run against the base run. Prints, over N simulated
pairs each:

- false alarms: the new release is the same agent; the share of pairs the gate fails;
- detection: the new release passes each task with 10 (or 5) points less; the share of pairs it fails.

The threshold gate is "fail when the success rate dropped by more than --cua-max-drop (0)", the rule before.

    python benchmarks/gate_noise.py [--tasks 300] [--pairs 200] [--trials 1 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from pytest_cua.results.compare import compare


def release(probabilities: list[float], trials: int, rng: random.Random, drop: float = 0.0) -> dict[str, Any]:
    tasks = []
    for i, p in enumerate(probabilities):
        for t in range(1, trials + 1):
            passed = rng.random() < max(0.0, p - drop)
            tasks.append({"id": f"t{i:03d}", "suite": "sim", "template": f"tpl{i % 60}", "trial": t,
                          "outcome": "passed" if passed else "failed", "score": 1.0 if passed else 0.0,
                          "milestones": [], "steps": 1, "cost_usd": 0.0})
    return {"run": {"id": "sim"}, "tasks": tasks}


def threshold_fails(base: dict[str, Any], new: dict[str, Any]) -> bool:
    def rate(run: dict[str, Any]) -> float:
        return sum(r["outcome"] == "passed" for r in run["tasks"]) / len(run["tasks"])
    return rate(new) < rate(base) - 1e-12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--trials", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--drops", type=float, nargs="+", default=[0.0, 0.05, 0.10])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{args.tasks} tasks, pass probabilities ~ Beta(0.6, 0.4) (mean 0.6), {args.pairs} simulated pairs per "
          f"row, alpha 0.05, {args.resamples} bootstrap resamples")
    print(f"{'trials':>6} {'true drop':>9} {'paired gate fails':>18} {'threshold gate fails':>21} {'s/compare':>10}")
    for trials in args.trials:
        for drop in args.drops:
            paired = threshold = 0
            started = time.perf_counter()
            for _ in range(args.pairs):
                agent = [rng.betavariate(0.6, 0.4) for _ in range(args.tasks)]
                base = release(agent, trials, rng)
                new = release(agent, trials, rng, drop)
                paired += not compare(base, new, resamples=args.resamples, seed=rng.randrange(1 << 30)).gate.ok
                threshold += threshold_fails(base, new)
            per = (time.perf_counter() - started) / args.pairs
            print(f"{trials:>6} {drop:>9.2f} {paired / args.pairs:>17.1%} {threshold / args.pairs:>20.1%} "
                  f"{per:>10.2f}")


if __name__ == "__main__":
    main()
