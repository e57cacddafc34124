"""The A/A check: an app against a copy of itself, the same build under another name, with the
pair as the headline the rounds settle."""

from __future__ import annotations

from perflab import headline, plan, rounds
from perflab.targets import aa_headline, select_targets


def _aa_plan(app: str):
    data = {"name": "aa", "apps": [app], "aa": [app], "modes": ["main"], "scenarios": ["steady"]}
    data["rounds"] = {"headline": aa_headline(plan.validate(data, "aa"))}
    return plan.validate(data, "aa")


def test_the_copy_shares_the_build_under_its_own_name():
    targets = select_targets(_aa_plan("go-reference"))
    assert [t.label for t in targets] == ["go-reference/native", "go-reference-aa/native"]
    original, copy = (t.app for t in targets)
    assert copy.build_key == original.build_key and copy.dir == original.dir
    assert copy.for_mode("native").build_key == original.for_mode("native").build_key
    assert copy.copy_of == "go-reference" and not original.copy_of


def test_the_pair_is_the_headline():
    p = _aa_plan("quarkus")
    targets = select_targets(p)
    pairs = headline.pairs(p.settings("rounds").headline, [(t.label, True, True) for t in targets])
    assert [x.label for x in pairs] == ["quarkus/jvm / quarkus-aa/jvm"]
