"""Milestone arithmetic, weight checks, evaluator crashes and answer scoring."""

from __future__ import annotations

import pytest

from pytest_cua.tasks.scoring import (EvaluatorCrash, ScoreCard, WeightError, active_card, check_weights, milestone,
                                score_answer, token_f1)


def test_partial_score_is_the_sum_of_weights_that_held():
    card = ScoreCard(task_id="t", template="tpl")
    with active_card(card):
        with milestone("queue exists", 0.3):
            assert True
        with milestone("members", 0.5):
            assert 1 == 2, "members are ['Ann'], expected ['Ann', 'Bo']"
        with milestone("email", 0.2):
            pass
    assert card.score == pytest.approx(0.5)
    assert not card.success
    card.check_complete()
    failed = [r for r in card.results if not r.passed]
    assert [r.name for r in failed] == ["members"]
    assert failed[0].detail.splitlines()[0] == "members are ['Ann'], expected ['Ann', 'Bo']"
    table = card.table()
    assert "members" in table and "NO" in table and "score 0.50 of 1.00" in table


def test_all_milestones_hold_is_success():
    card = ScoreCard()
    with active_card(card):
        for name, w in (("a", 0.25), ("b", 0.25), ("c", 0.5)):
            with milestone(name, w):
                pass
    assert card.score == 1.0 and card.success


def test_bare_assert_detail_shows_what_failed():
    card = ScoreCard()
    with card.milestone("x", 1.0):
        value = 3
        assert value == 4
    assert card.results[0].detail == "assert 3 == 4"  # pytest's assertion rewriting explains it


def test_weights_must_sum_to_one():
    assert check_weights({"a": 0.5, "b": 0.5}) is None
    assert check_weights({"a": 0.3, "b": 0.3}) == "milestone weights sum to 0.6, not 1 (a=0.3, b=0.3)"
    assert "weight must be a number in (0, 1]" in check_weights({"a": 1.5})
    card = ScoreCard()
    with card.milestone("a", 0.4):
        pass
    with pytest.raises(WeightError, match="sum to 0.4, not 1"):
        card.check_complete()
    with pytest.raises(WeightError, match="recorded no milestone"):
        ScoreCard().check_complete()


def test_duplicate_milestone_and_bad_weight_are_rejected():
    card = ScoreCard()
    with card.milestone("a", 0.5):
        pass
    with pytest.raises(WeightError, match="recorded twice"):
        with card.milestone("a", 0.5):
            pass
    with pytest.raises(WeightError, match="got 0"):
        with card.milestone("b", 0):
            pass


def test_exception_inside_a_milestone_is_an_evaluator_crash_naming_the_template():
    card = ScoreCard(template="create_queue")
    with pytest.raises(EvaluatorCrash) as info:
        with card.milestone("queue exists", 1.0):
            raise KeyError("Id")
    assert str(info.value) == "template 'create_queue', milestone 'queue exists' crashed: KeyError: 'Id'"
    assert info.value.error_kind == "evaluator"


def test_milestone_outside_an_evaluation_is_an_error():
    with pytest.raises(RuntimeError, match="no score card is active"):
        with milestone("x", 1.0):
            pass


@pytest.mark.parametrize("pred, truth, f1", [
    ("Paris", "paris", 1.0),
    ("The answer is Paris", "Paris", 0.5),
    ("London", "Paris", 0.0),
    ("", "Paris", 0.0),
])
def test_token_f1(pred, truth, f1):
    assert token_f1(pred, truth) == pytest.approx(f1)


def test_answer_earns_its_f1_only_when_the_truth_occurs_in_it():
    """SCUBA's rule: credit is the token F1 when the answer contains the truth as written (case-sensitive)."""
    assert score_answer("Acme Corp.", "Acme Corp").passed
    assert score_answer("Acme Corp.", "acme corp").credit == 0  # containment is case-sensitive
    long = score_answer("I looked at every record and the account you want is Acme Corp for sure", "Acme Corp")
    assert long.contains and not long.passed and long.credit == pytest.approx(long.f1) and "token F1 0.2" in long.detail
    wrong = score_answer("Acme", "Acme Corp")
    assert not wrong.contains and wrong.credit == 0 and "does not contain" in wrong.detail
    assert score_answer(None, "x").detail == "the agent gave no answer"
