"""The table of skips the suite ends with (tests/skips.py): one row per reason, counted, with what
makes those tests run."""

from __future__ import annotations

from types import SimpleNamespace

from tests import skips


def _skipped(why: str):
    return SimpleNamespace(longrepr=("tests/lab/test_x.py", 3, f"Skipped: {why}"))


def test_skips_are_counted_by_reason_the_most_frequent_first_each_with_its_fix():
    reports = [_skipped("needs root for cgroups and the DB user")] * 3 + [
        _skipped("the study texts are not at /x/shared/studies (set PERFLAB_STUDIES)")] * 5 + [
        _skipped("needs Go")]
    rows = skips.table(reports)
    assert [(n, why) for n, why, _ in rows] == [
        (5, "the study texts are not at /x/shared/studies (set PERFLAB_STUDIES)"),
        (3, "needs root for cgroups and the DB user"), (1, "needs Go")]
    assert "PERFLAB_STUDIES" in rows[0][2] and "as root" in rows[1][2] and "golang-go" in rows[2][2]


def test_a_reason_no_rule_knows_still_gets_a_row_and_the_lines_name_reason_and_fix():
    rows = skips.table([_skipped("only one app")])
    assert rows == [(1, "only one app", skips.UNKNOWN)]
    first, second = skips.lines(rows)[0].splitlines()
    assert first.split(maxsplit=1) == ["1", "only one app"] and skips.UNKNOWN in second


def test_words_inside_other_words_do_not_pick_a_fix():
    assert skips.how("the Google mirror is unreachable") == skips.UNKNOWN  # not Go
    assert skips.how("a groot tree") == skips.UNKNOWN  # not root
    assert "openjdk" in skips.how("no JDK 17 with jstat found (set PERFLAB_JDK17)")
