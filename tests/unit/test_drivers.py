"""The common driver layer and wrk without running them: parsing captured real outputs, the result
type, driver-bound assessment, the commands (runs are in tests/lab/test_drivers.py)."""

import json
import os
from pathlib import Path

import pytest

from perflab.drivers import base, install, wrk
from perflab.drivers.base import LoadResult
from perflab.drivers.install import DriverUnavailable

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "wrk"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def strip_summary(text: str) -> str:
    return text[: text.index(wrk.SUMMARY_BEGIN)]


def test_time_units():
    assert wrk.parse_time_ms("635.91us") == pytest.approx(0.63591)
    assert wrk.parse_time_ms("1.00ms") == 1.0
    assert wrk.parse_time_ms("1.10s") == pytest.approx(1100.0)
    assert wrk.parse_time_ms("2.50m") == pytest.approx(150000.0)
    with pytest.raises(ValueError):
        wrk.parse_time_ms("12 parsecs")


def test_summary_json_is_preferred():
    figures = wrk.parse_wrk_output(fixture("hello_c1_microseconds.txt"))
    assert figures.source == "json"
    assert figures.requests == 7768
    assert figures.duration_s == pytest.approx(2.01912)
    assert figures.latency.percentile(50) == pytest.approx(0.068)
    assert figures.latency.percentile("99.99") == pytest.approx(34.571)
    assert figures.latency.min_ms == pytest.approx(0.036)
    assert (figures.threads, figures.connections) == (1, 1)


def test_mixed_errors_from_json_and_text_agree():
    text = fixture("mixed_errors.txt")
    from_json = wrk.parse_wrk_output(text)
    from_text = wrk.parse_wrk_output(strip_summary(text))
    assert from_text.source == "text"
    for figures in (from_json, from_text):
        assert figures.requests == 1881
        assert figures.errors.non_2xx == 426
        assert (figures.errors.connect, figures.errors.read, figures.errors.write,
                figures.errors.timeouts) == (0, 244, 0, 8)
        assert figures.errors.total == 426 + 244 + 8
    # the text has 2-3 significant digits: it must agree with the exact figures to that precision
    assert from_text.latency.mean_ms == pytest.approx(from_json.latency.mean_ms, rel=0.01)
    assert from_text.latency.max_ms == pytest.approx(from_json.latency.max_ms, rel=0.01)
    assert from_text.latency.percentile(50) == pytest.approx(0.142)
    assert from_text.latency.percentile(99) == pytest.approx(from_json.latency.percentile(99),
                                                             rel=0.01)
    assert from_text.rps == pytest.approx(603.18, rel=1e-4)
    assert from_json.rps == pytest.approx(1881 / 3.118484)


def test_text_only_output_without_summary():
    figures = wrk.parse_wrk_output(fixture("mixed_errors_text_only.txt"))
    assert figures.source == "text"
    assert figures.requests == 1881
    assert figures.errors.non_2xx == 426 and figures.errors.read == 244
    assert figures.errors.timeouts == 8
    assert figures.latency.mean_ms == pytest.approx(2.10)
    assert figures.latency.stdev_ms == pytest.approx(9.99)
    assert figures.latency.max_ms == pytest.approx(116.86)
    assert figures.latency.percentiles_ms == pytest.approx(
        {"50": 0.132, "75": 0.303, "90": 2.63, "99": 60.35})


def test_seconds_unit_in_text_and_json():
    text = fixture("delay_seconds.txt")
    from_text = wrk.parse_wrk_output(strip_summary(text))
    assert from_text.latency.mean_ms == pytest.approx(1100.0)
    assert from_text.latency.stdev_ms == pytest.approx(0.36773)
    assert from_text.latency.percentile(99) == pytest.approx(1100.0)
    from_json = wrk.parse_wrk_output(text)
    assert from_json.latency.max_ms == pytest.approx(1102.184)
    assert from_json.requests == 4


def test_write_errors_when_server_goes_away():
    text = fixture("server_stopped_mid_run.txt")
    for figures in (wrk.parse_wrk_output(text), wrk.parse_wrk_output(strip_summary(text))):
        assert figures.errors.write == 12928 and figures.errors.read == 4
        assert figures.errors.non_2xx == 0


def test_milliseconds_fixture_and_no_error_lines():
    figures = wrk.parse_wrk_output(strip_summary(fixture("hello_c50_milliseconds.txt")))
    assert figures.errors.total == 0
    assert figures.latency.percentile(99) == pytest.approx(188.85)
    assert (figures.threads, figures.connections) == (2, 50)


def test_damaged_summary_falls_back_to_text():
    text = fixture("mixed_errors.txt").replace('"requests": 1881', '"requests": ')
    figures = wrk.parse_wrk_output(text)
    assert figures.source == "text" and figures.requests == 1881


def test_not_a_wrk_report():
    with pytest.raises(ValueError):
        wrk.parse_wrk_output("unable to connect to 127.0.0.1:1 Connection refused")


def make_result(**changes) -> base.LoadResult:
    values = dict(
        driver="wrk", driver_version="4.1.0", mode="closed", url="http://127.0.0.1:1/x",
        connections=10, threads=2, duration_s=10.0, warmup_s=5.0, requests=1000, rps=100.0,
        latency=base.LatencyStats(1.0, 0.5, 9.0, 0.1, {"50": 0.9, "99.9": 8.0}),
        errors=base.ErrorCounts(non_2xx=3, status_counts={"503": 3}, read=1))
    values.update(changes)
    return base.LoadResult(**values)


def test_load_result_json_round_trip():
    result = make_result(offered_rate=120.0, driver_cpus=[1], raw_output="text")
    again = base.LoadResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    assert again.latency.percentile(99.9) == 8.0
    assert again.errors.total == 4
    assert again.achieved_ratio == pytest.approx(100 / 120)


def test_percentile_keys_are_canonical():
    assert base.percentile_key(99) == "99"
    assert base.percentile_key(99.90) == "99.9"
    assert base.percentile_key("99.99") == "99.99"


@pytest.mark.parametrize("utilisation, offered, achieved, bound, words", [
    (0.50, None, None, False, ""),
    (0.95, None, None, True, "driver CPU 95%"),
    (0.30, 2000.0, 1990.0, False, ""),
    (0.30, 2000.0, 1900.0, True, "achieved 1900.0 req/s"),
    (0.92, 2000.0, 1000.0, True, "; "),
])
def test_assess_driver_bound(utilisation, offered, achieved, bound, words):
    flag, reason = base.assess_driver_bound(utilisation, offered, achieved)
    assert flag is bound
    assert words in reason
    assert bool(reason) is bound


def test_run_driver_rejects_cpus_not_allowed():
    with pytest.raises(ValueError):
        base.run_driver(["true"], cpus=[max(os.sched_getaffinity(0)) + 64], timeout_s=5)


def test_compose_script_appends_summary_hook(tmp_path):
    path = wrk.compose_script("post_data", tmp_path)
    text = path.read_text()
    assert text.index("function request()") < text.index("function done(")
    assert wrk.compose_script(None, tmp_path).read_text().startswith("-- perflab: wrk done()")
    with pytest.raises(FileNotFoundError):
        wrk.compose_script("no_such_script", tmp_path)


def test_run_wrk_rejects_bad_shapes():
    with pytest.raises(ValueError):
        wrk.run_wrk("http://127.0.0.1:1/", connections=1, threads=2, duration_s=1, wrk="wrk")
    with pytest.raises(ValueError):
        wrk.run_wrk("http://127.0.0.1:1/", connections=2, threads=1, duration_s=0.5, wrk="wrk")


def test_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert install.cache_dir() == tmp_path / "perflab"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert install.cache_dir() == Path.home() / ".cache" / "perflab"


def test_apt_binary_present_is_returned_without_installing(monkeypatch):
    monkeypatch.setattr(install.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(install.subprocess, "run", lambda *a, **k: pytest.fail("ran apt-get"))
    assert install.ensure_apt_binary("wrk", "wrk") == Path("/usr/bin/wrk")


def test_apt_binary_missing_without_root_says_how_to_fix(monkeypatch):
    monkeypatch.setattr(install.shutil, "which",
                        lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)
    monkeypatch.setattr(install.os, "geteuid", lambda: 1000)
    with pytest.raises(DriverUnavailable, match="sudo apt-get install -y wrk"):
        install.ensure_apt_binary("wrk", "wrk")


def test_apt_binary_missing_without_apt(monkeypatch):
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    with pytest.raises(DriverUnavailable, match="apt-get is not available"):
        install.ensure_apt_binary("wrk", "wrk")


def test_apt_install_as_root_says_what_it_does(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    installed = []
    monkeypatch.setattr(install.shutil, "which", lambda name: {
        "apt-get": "/usr/bin/apt-get", "wrk": "/usr/bin/wrk" if installed else None}.get(name))
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)

    def fake_run(command, **kwargs):
        installed.append(command)
        return install.subprocess.CompletedProcess(command, 0, "", "")
    monkeypatch.setattr(install.subprocess, "run", fake_run)
    said = []
    assert install.ensure_apt_binary("wrk", "wrk", log=said.append) == Path("/usr/bin/wrk")
    assert installed == [["/usr/bin/apt-get", "install", "-y", "--no-install-recommends", "wrk"]]
    assert "installing Debian package 'wrk'" in said[0]


def test_cargo_binary_cached_is_reused(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    target = install.cargo_tool_path("tool", "1.0.0")
    target.parent.mkdir(parents=True)
    target.write_text("")
    monkeypatch.setattr(install, "find_cargo", lambda: pytest.fail("looked for cargo"))
    assert install.ensure_cargo_binary("tool", "1.0.0") == target


def test_cargo_binary_without_cargo_says_how_to_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(install, "find_cargo", lambda: None)
    with pytest.raises(DriverUnavailable, match="cargo install tool --version 1.0.0 --locked"):
        install.ensure_cargo_binary("tool", "1.0.0")


def test_oha_path_is_in_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from perflab.drivers.oha import OHA_VERSION
    assert install.oha_path() == tmp_path / "perflab" / "oha" / OHA_VERSION / "bin" / "oha"


def _flat(requests: int, ms: float, duration_s: float = 1.0, **errors) -> LoadResult:
    """A run whose every request took ``ms``, reported on wrk's percentile grid."""
    grid = {base.percentile_key(p): ms for p in [*range(1, 100), 99.5, 99.9, 99.99]}
    return LoadResult(driver="wrk", driver_version="4", mode="closed", url="http://x/", connections=4, threads=1,
                      duration_s=duration_s, warmup_s=0, requests=requests, rps=requests / duration_s,
                      latency=base.LatencyStats(mean_ms=ms, stdev_ms=0.0, max_ms=ms, min_ms=ms, percentiles_ms=grid),
                      errors=base.ErrorCounts(**errors), driver_cpu_s=0.1, driver_cpu_utilisation=0.1)


def test_merged_intervals_weigh_each_run_by_its_requests():
    from perflab.drivers.merge import merge
    fast, slow = _flat(100, 10.0), _flat(300, 20.0, non_2xx=3, status_counts={"500": 3})
    one = merge([fast, slow])
    assert one.requests == 400 and one.duration_s == 2.0 and one.rps == 200.0
    assert one.latency.mean_ms == pytest.approx(17.5)
    assert one.latency.percentile(50) == 20.0  # a quarter of the requests took 10 ms, the rest 20 ms
    assert one.latency.percentile(99.99) == 20.0 and one.latency.max_ms == 20.0 and one.latency.min_ms == 10.0
    assert one.latency.stdev_ms == pytest.approx((0.25 * 7.5 ** 2 + 0.75 * 2.5 ** 2) ** 0.5)
    assert one.errors.non_2xx == 3 and one.errors.status_counts == {"500": 3}
    assert one.raw_output.count("# interval") == 2


def test_a_percentile_finer_than_a_grid_is_not_guessed():
    from perflab.drivers.merge import merge
    coarse = _flat(100, 5.0)
    coarse.latency.percentiles_ms = {"50": 5.0, "99": 6.0}
    merged = merge([coarse, _flat(100, 5.0)])
    assert merged.latency.percentile("99.9") is None and merged.latency.percentile("99") is not None
