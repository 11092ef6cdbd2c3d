"""The significance tests of pytest_cua.results.stats against hand-computed values."""

from __future__ import annotations

import math

import pytest

from pytest_cua.results.stats import BootstrapResult, mcnemar_exact, mean_se, paired_bootstrap


@pytest.mark.parametrize(("b", "c", "expected"), [
    (0, 0, 1.0),  # no flips: nothing to test
    (1, 0, 1.0),  # n=1: 2 * P(X <= 0) = 2 * 1/2 = 1
    (5, 0, 2 * (1 / 32)),  # n=5: 2 * C(5,0)/2^5 = 0.0625
    (10, 2, 2 * (1 + 12 + 66) / 4096),  # n=12: 2 * (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 2 * 79/4096
    (3, 3, 1.0),  # n=6: 2 * (1 + 6 + 15 + 20)/64 = 84/64, capped at 1
    (7, 1, 2 * (1 + 8) / 256),  # n=8: 2 * (C(8,0) + C(8,1)) / 2^8 = 0.0703125
])
def test_mcnemar_exact_hand_values(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-15)
    assert mcnemar_exact(c, b) == mcnemar_exact(b, c)  # symmetric


def test_mcnemar_exact_specific_figures():
    assert mcnemar_exact(5, 0) == 0.0625
    assert mcnemar_exact(10, 2) == pytest.approx(0.0385742, abs=1e-7)


def test_mcnemar_exact_large_counts_stay_exact():
    # n = 2000: the tail is far below any float sum of approximations, yet positive and finite
    p = mcnemar_exact(1000, 900)
    assert 0 < p < 0.05
    assert mcnemar_exact(1000, 1000) == 1.0


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError, match="negative"):
        mcnemar_exact(-1, 2)


def test_bootstrap_interval_covers_a_known_difference():
    n = 200
    base = [(i % 10) / 10 for i in range(n)]
    noise = [((i * 7) % 5 - 2) / 20 for i in range(n)]  # -0.1, -0.05, 0, 0.05, 0.1 in turn: mean 0
    new = [b + 0.3 + e for b, e in zip(base, noise)]
    assert math.fsum(noise) == pytest.approx(0.0, abs=1e-12)
    result = paired_bootstrap(base, new, resamples=2000, seed=1)
    assert result.diff == pytest.approx(0.3)
    assert result.ci_low < 0.3 < result.ci_high
    assert result.ci_high - result.ci_low < 0.05  # the pairing removes the between-task variation
    assert result.p_value < 0.01
    assert result.resamples == 2000


def test_bootstrap_without_a_difference_is_not_significant():
    base = [1.0, 0.0] * 20
    new = [0.0, 1.0] * 20  # as many tasks gained as lost
    result = paired_bootstrap(base, new, resamples=2000)
    assert result.diff == 0.0
    assert result.ci_low < 0 < result.ci_high
    assert result.p_value > 0.5


def test_bootstrap_of_identical_inputs():
    values = [0.2, 0.5, 1.0, 0.0]
    result = paired_bootstrap(values, values)
    assert result == BootstrapResult(diff=0.0, ci_low=0.0, ci_high=0.0, p_value=1.0, resamples=10000)


def test_bootstrap_counts_float_noise_as_zero():
    # 0.2 - 0.1 and 0.2 - 0.3 are not exact opposites in binary floating point (their sum is 2.8e-17, not 0), yet a
    # resample that draws each task once has a mean difference of 0 and counts on both sides of 0:
    # share <= 0 is about 3/4 (both draws task 1, or one of each), share >= 0 too, so p = min(1, 1.5) = 1
    assert (0.2 - 0.1) + (0.2 - 0.3) != 0
    result = paired_bootstrap([0.1, 0.3], [0.2, 0.2], resamples=500)
    assert result.p_value == 1.0


def test_bootstrap_is_reproducible_with_a_seed():
    base = [0.0, 1.0, 1.0, 0.0, 1.0, 0.5]
    new = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    first = paired_bootstrap(base, new, resamples=3000, seed=7)
    assert paired_bootstrap(base, new, resamples=3000, seed=7) == first
    assert paired_bootstrap(base, new, resamples=3000, seed=8).ci_low is not None


def test_bootstrap_percentile_interval_level():
    base = [0.0] * 10
    new = [float(i % 2) for i in range(10)]
    wide = paired_bootstrap(base, new, resamples=4000, alpha=0.01)
    narrow = paired_bootstrap(base, new, resamples=4000, alpha=0.2)
    assert wide.ci_low <= narrow.ci_low <= 0.5 <= narrow.ci_high <= wide.ci_high


def test_bootstrap_of_nothing():
    assert paired_bootstrap([], []) == BootstrapResult(None, None, None, None, 10000)


def test_bootstrap_rejects_unpaired_input():
    with pytest.raises(ValueError, match="length"):
        paired_bootstrap([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="alpha"):
        paired_bootstrap([1.0], [1.0], alpha=1.5)


def test_mean_se_hand_values():
    # [1, 2, 3, 4]: mean 2.5; sample variance (1.5^2 + 0.5^2 + 0.5^2 + 1.5^2) / 3 = 5/3; SE = sqrt(5/3) / 2
    mean, se = mean_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert se == pytest.approx(math.sqrt(5 / 3) / 2)
    # [0, 1]: mean 0.5; variance 0.5; SE = sqrt(0.5) / sqrt(2) = 0.5
    assert mean_se([0.0, 1.0]) == pytest.approx((0.5, 0.5))
    assert mean_se([5.0]) == (5.0, None)
    assert mean_se([]) == (None, None)


@pytest.mark.parametrize("b, c", [(0, 0), (1, 0), (5, 0), (10, 2), (7, 7), (12, 5)])
def test_sign_flip_with_one_trial_is_mcnemar(b, c):
    from pytest_cua.results.stats import sign_flip_test

    differences = [-1.0] * b + [1.0] * c + [0.0] * 20  # ties carry no information
    assert sign_flip_test(differences) == pytest.approx(mcnemar_exact(b, c), abs=1e-15)


def test_sign_flip_hand_values():
    from pytest_cua.results.stats import sign_flip_test

    # one task 3/3 -> 2/3: signs -1/3 or +1/3, |sum| >= 1/3 always: p = 1
    assert sign_flip_test([-1 / 3]) == 1.0
    # -1, -1/3: sums over the 4 sign choices -4/3, -2/3, 2/3, 4/3; |sum| >= 4/3 in 2 of 4: p = 0.5
    assert sign_flip_test([-1.0, -1 / 3]) == 0.5
    # -1, -1, +1/3: sums -7/3, -5/3, 5/3, 7/3, -1/3, 1/3 ... |s| >= 5/3 in 4 of 8: p = 0.5
    assert sign_flip_test([-1.0, -1.0, 1 / 3]) == 0.5


def test_sign_flip_without_small_denominators_is_monte_carlo_and_seeded():
    from pytest_cua.results.stats import sign_flip_test

    differences = [-(2 ** 0.5) / 10 * (i % 3 + 1) for i in range(12)]  # not multiples of a small 1/q
    p = sign_flip_test(differences, resamples=4000, seed=1)
    assert p == sign_flip_test(differences, resamples=4000, seed=1)
    # all 12 negative: the exact value would be 2 / 4096; the estimate (hits + 1) / (resamples + 1) is near it
    assert 0 < p < 0.005
