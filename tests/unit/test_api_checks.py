from perflab import api_checks
from tests.conftest import write_standin_app
from perflab import apps


def test_an_app_with_an_unknown_api_is_not_measured(tmp_path):
    desc = write_standin_app(tmp_path) / "perflab.toml"
    desc.write_text('api = "nobody-knows"\n' + desc.read_text())
    problems = api_checks.verify(apps.load_descriptor(desc), "http://127.0.0.1:9")
    assert len(problems) == 1 and "nobody-knows" in problems[0] and "contract" in problems[0]


def test_each_api_has_its_own_check(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setitem(api_checks.CHECKS, "study", lambda url: seen.append(url) or ["bad"])
    desc = write_standin_app(tmp_path) / "perflab.toml"
    desc.write_text('api = "study"\n' + desc.read_text())
    assert api_checks.verify(apps.load_descriptor(desc), "http://127.0.0.1:1") == ["bad"]
    assert seen == ["http://127.0.0.1:1"]
