"""Significance tests for comparing two benchmark runs: exact McNemar, a paired bootstrap, mean and SE.

Pure Python (no numpy), so the figures are exact where they can be (McNemar sums binomial coefficients as
fractions) and reproducible everywhere (the bootstrap draws from ``random.Random(seed)``).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

# A resampled mean difference within this distance of 0 counts as 0 (it is counted on both sides of 0 in
# the bootstrap p-value): per-task differences such as 2/3 - 1/3 are not exact in binary floating point.
ZERO_TOLERANCE = 1e-12


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value of the discordant pairs: ``b`` pass->fail flips, ``c`` fail->pass.

    Under the null hypothesis each flip goes either way with probability 1/2, so the smaller count is
    binomial(n = b + c, 1/2): p = min(1, 2 * P(X <= min(b, c))). 1.0 when there are no flips.
    """
    if b < 0 or c < 0:
        raise ValueError(f"flip counts cannot be negative (b={b}, c={c})")
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, k) for k in range(min(b, c) + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


@dataclass(frozen=True)
class BootstrapResult:
    """A paired bootstrap of mean(new) - mean(base). Every figure is None when there was no data."""

    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    resamples: int


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolating linearly between order statistics (numpy's default)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def paired_bootstrap(base: Sequence[float], new: Sequence[float], *, resamples: int = 10000, seed: int = 0,
                     alpha: float = 0.05) -> BootstrapResult:
    """Paired bootstrap of the difference of means between two runs over the same tasks.

    ``base[i]`` and ``new[i]`` belong to task i. Each resample draws task indices with replacement (the pair
    stays together) and takes the mean of the per-task differences new[i] - base[i]. The confidence
    interval is the percentile interval at level 1 - alpha. The p-value is the two-sided percentile
    convention p = min(1, 2 * min(share of resampled differences <= 0, share >= 0)); a resampled difference
    within ``ZERO_TOLERANCE`` of 0 counts in both shares, so identical inputs give p = 1.0. A p-value of 0.0
    means no resample fell on the other side of 0, i.e. p < 1 / resamples.
    """
    if len(base) != len(new):
        raise ValueError(f"paired samples differ in length ({len(base)} base, {len(new)} new)")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    n = len(base)
    if n == 0:
        return BootstrapResult(None, None, None, None, resamples)
    diff = math.fsum(new) / n - math.fsum(base) / n
    deltas = [float(after) - float(before) for before, after in zip(base, new)]
    if max(deltas) - min(deltas) <= ZERO_TOLERANCE:
        means = [math.fsum(deltas) / n] * resamples  # every resample has the same mean: skip the draws
    else:
        rng = random.Random(seed)
        means = sorted(math.fsum(rng.choices(deltas, k=n)) / n for _ in range(resamples))
    at_most = sum(1 for m in means if m <= ZERO_TOLERANCE) / resamples
    at_least = sum(1 for m in means if m >= -ZERO_TOLERANCE) / resamples
    return BootstrapResult(diff=diff, ci_low=_quantile(means, alpha / 2), ci_high=_quantile(means, 1 - alpha / 2),
                           p_value=min(1.0, 2 * min(at_most, at_least)), resamples=resamples)


def mean_se(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The mean and its standard error (sample standard deviation / sqrt(n)); SE is None when n < 2."""
    if not values:
        return None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    return mean, statistics.stdev(values) / math.sqrt(len(values))


# the exact sign-flip distribution is kept while it has at most this many distinct sums; past it, Monte Carlo
SIGN_FLIP_MAX_SUMS = 100_000
_MAX_DENOMINATOR = 720  # differences of success rates over up to 6 trials (lcm 1..6 = 60) and more are exact


def sign_flip_test(differences: Sequence[float], *, resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided p-value of the paired sign-flip (randomization) test of "no difference": with no difference,
    each task's difference ``new - base`` is as likely to be negative as positive, so
    p = P(|sum of the differences with random signs| >= |observed sum|).

    Exact when the differences are multiples of 1/q for a small q, as per-task success rates over trials are
    (the distribution of signed sums is counted over integers); else estimated from ``resamples`` seeded
    draws, as (hits + 1) / (resamples + 1). With one trial per task (differences -1, 0, 1) it is the exact
    McNemar test on the flips. Zero differences carry no information and are left out."""
    nonzero = [float(d) for d in differences if abs(d) > ZERO_TOLERANCE]
    if not nonzero:
        return 1.0
    units = _as_units(nonzero)
    if units is not None:
        exact = _sign_flip_exact(units)
        if exact is not None:
            return exact
    observed = abs(math.fsum(nonzero)) - ZERO_TOLERANCE
    rng = random.Random(seed)
    hits = sum(1 for _ in range(resamples)
               if abs(math.fsum(d if rng.random() < 0.5 else -d for d in nonzero)) >= observed)
    return (hits + 1) / (resamples + 1)


def _as_units(values: Sequence[float]) -> list[int] | None:
    """``values`` as whole multiples of a common 1/q (q at most _MAX_DENOMINATOR), or None."""
    fractions = [Fraction(v).limit_denominator(_MAX_DENOMINATOR) for v in values]
    if any(abs(float(f) - v) > 1e-9 for f, v in zip(fractions, values)):
        return None
    q = 1
    for f in fractions:
        q = q * f.denominator // math.gcd(q, f.denominator)
        if q > _MAX_DENOMINATOR:
            return None
    return [int(f * q) for f in fractions]


def _sign_flip_exact(units: Sequence[int]) -> float | None:
    """P(|sum of +-u_i| >= |sum u_i|) over the 2^n equally likely sign choices, counted exactly."""
    counts: dict[int, int] = {0: 1}
    for u in units:
        step: dict[int, int] = {}
        for total, ways in counts.items():
            step[total + u] = step.get(total + u, 0) + ways
            step[total - u] = step.get(total - u, 0) + ways
        counts = step
        if len(counts) > SIGN_FLIP_MAX_SUMS:
            return None
    observed = abs(sum(units))
    extreme = sum(ways for total, ways in counts.items() if abs(total) >= observed)
    return min(1.0, float(Fraction(extreme, 2 ** len(units))))
