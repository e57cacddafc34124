"""The rounds' pure logic: the seeded order, the headline ratios, and when to add a round."""

from __future__ import annotations

from collections import Counter

import pytest

from perflab import headline, plan, rounds
from perflab.errors import LabError

TARGETS = [("go-reference/native", False, True), ("quarkus/jvm", True, True), ("quarkus/jvm-jdk25", True, False),
           ("spring-boot/jvm", True, True), ("thorntail/jvm", True, True)]


def test_each_round_is_a_shuffle_of_every_app_mode_and_the_seed_reproduces_it():
    labels = [t[0] for t in TARGETS]
    first = rounds.orders(42, labels, 8)
    assert first == rounds.orders(42, labels, 8)
    assert all(sorted(order) == sorted(labels) for order in first)
    assert len({tuple(o) for o in first}) > 1  # not one order for every round
    assert rounds.orders(43, labels, 8) != first


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_a_block_of_rounds_balances_each_app_modes_place_and_the_one_launched_before_it(count):
    labels = [t[0] for t in TARGETS][:count]
    block = count if count % 2 == 0 else 2 * count  # a Williams design: the square, and its mirror when odd
    orders = rounds.orders(5, labels, 2 * block)
    assert orders[:block + 1] == rounds.orders(5, labels, block + 1)  # more rounds start with the same ones
    for rows in (orders[:block], orders[block:]):
        places = Counter((label, i) for row in rows for i, label in enumerate(row))
        assert set(places.values()) == {block // count}, places
        after = Counter((row[i], row[i + 1]) for row in rows for i in range(count - 1))
        assert len(after) == count * (count - 1)  # every app/mode follows every other one ...
        assert len(set(after.values())) == 1, after  # ... equally often


def test_a_runs_report_says_how_its_rounds_were_ordered_also_for_runs_stored_before_the_design():
    assert rounds.order_text({"seed": 9, "design": rounds.BALANCED}) == "order balanced (Williams design) with seed 9"
    assert rounds.order_text({"seed": 9}) == "order shuffled with seed 9"


def test_the_default_headline_is_the_first_jvm_main_mode_against_the_other_jvm_main_modes():
    pairs = headline.pairs(rounds.RoundSettings().headline, TARGETS)
    assert [p.label for p in pairs] == ["quarkus/jvm / spring-boot/jvm", "quarkus/jvm / thorntail/jvm"]


def test_a_named_headline_of_app_modes_left_out_of_the_run_gives_way_to_the_default():
    named = rounds.RoundSettings(headline=["spring-boot/jvm:quarkus/jvm-jdk25"])
    assert [p.label for p in headline.pairs(named.headline, TARGETS)] == ["spring-boot/jvm / quarkus/jvm-jdk25"]
    # quick names Quarkus / Spring Boot; `quick --apps quarkus thorntail` still has a headline
    left_out = rounds.RoundSettings(headline=["micronaut/jvm:quarkus/jvm"])
    assert headline.pairs(left_out.headline, TARGETS) == headline.pairs(rounds.RoundSettings().headline, TARGETS)
    with pytest.raises(ValueError, match="APP/MODE:APP/MODE"):
        headline.pairs(rounds.RoundSettings(headline=["quarkus/jvm"]).headline, TARGETS)


def _states(values, target=0.05):
    pairs = [headline.Pair("q/jvm", "s/jvm"), headline.Pair("q/jvm", "t/jvm")]
    return rounds.ratio_states(pairs, values, target)


STEADY = {1: 20_000.0, 2: 20_100.0, 3: 19_900.0}
WOBBLY = {1: 10_000.0, 2: 14_000.0, 3: 8_000.0}
COST = {"q/jvm": 80.0, "s/jvm": 120.0, "t/jvm": 120.0, "go/native": 20.0}


def test_the_plans_rounds_run_first_whatever_the_ratios_say():
    d = rounds.next_round(rounds.RoundSettings(), 1, 2, _states({}), 0, COST)
    assert d.more and set(d.who) == set(COST)


def test_a_round_is_added_for_the_unsettled_ratio_only():
    values = {"q/jvm": STEADY, "s/jvm": {r: v / 1.5 for r, v in STEADY.items()}, "t/jvm": WOBBLY}
    states = _states(values)
    assert states[0].settled(0.05) and not states[1].settled(0.05)
    d = rounds.next_round(rounds.RoundSettings(), 3, 2, states, 600, COST)
    assert d.more and d.who == ["q/jvm", "t/jvm"]
    # the same app/modes launch steady past its own launches in the plan's remaining rounds; no
    # precision target: none does
    assert rounds.unsettled_labels(states, 0.05) == {"q/jvm", "t/jvm"}
    assert rounds.unsettled_labels(states, 0) == set()


def test_a_tight_ratio_from_fewer_rounds_than_the_plans_minimum_is_not_settled():
    values = {"q/jvm": STEADY, "s/jvm": {r: v / 1.5 for r, v in STEADY.items()},
              "t/jvm": {r: v / 1.2 for r, v in STEADY.items()}}
    pairs = [headline.Pair("q/jvm", "s/jvm"), headline.Pair("q/jvm", "t/jvm")]
    early = rounds.ratio_states(pairs, values, 0.05, least=5)
    assert all(s.interval.half_width < 0.05 and not s.settled(0.05) for s in early)  # three rounds only
    assert all(s.rounds_needed == 5 for s in early)
    cfg = rounds.RoundSettings(min_rounds=5)
    assert rounds.next_round(cfg, 3, 2, early, 0, COST).who == ["q/jvm", "s/jvm", "t/jvm"]
    assert rounds.next_round(cfg, 3, 2, _states(values), 0, COST).why == rounds.SETTLED  # a minimum of 2: settled
    few = rounds.RoundSettings(min_rounds=5, max_rounds=4)
    assert "below min_rounds" in rounds.ended_text(rounds.MAX_ROUNDS, few, 4)
    assert "below" not in rounds.ended_text(rounds.MAX_ROUNDS, cfg, 10)


def test_rounds_end_when_settled_at_the_maximum_or_when_the_budget_has_no_room():
    cfg = rounds.RoundSettings(max_rounds=4, budget_min=15)
    settled = {"q/jvm": STEADY, "s/jvm": {r: v / 1.5 for r, v in STEADY.items()},
               "t/jvm": {r: v / 1.2 for r, v in STEADY.items()}}
    assert rounds.next_round(cfg, 3, 2, _states(settled), 0, COST).why == rounds.SETTLED
    wobbly = {"q/jvm": STEADY, "s/jvm": WOBBLY, "t/jvm": WOBBLY}
    assert rounds.next_round(cfg, 4, 2, _states(wobbly), 0, COST).why == rounds.MAX_ROUNDS
    # 13 minutes gone and the next round would take 80 + 120 + 120 s: past 15 minutes
    assert rounds.next_round(cfg, 3, 2, _states(wobbly), 13 * 60, COST).why == rounds.BUDGET
    assert rounds.next_round(cfg, 3, 2, _states(wobbly), 5 * 60, COST).more
    no_target = rounds.RoundSettings(target=0)
    assert rounds.next_round(no_target, 2, 2, _states(wobbly), 0, COST).why == rounds.PLANNED


def test_a_plan_refuses_a_wrong_rounds_key_by_name():
    with pytest.raises(LabError, match="budget"):
        plan.validate({"name": "t", "rounds": {"budget": 10}}, "t")
    with pytest.raises(LabError, match="target"):
        plan.validate({"name": "t", "rounds": {"target": 1.5}}, "t")
