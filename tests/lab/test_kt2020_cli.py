"""`perflab apps start` of an app that needs the lab's H2 server refuses it clearly."""

from __future__ import annotations


def test_apps_start_refuses_an_h2_app_clearly(workdir):
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "perflab", "apps", "start", "kt2020-spring"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode != 0
    assert "kt2020-spring needs the lab's H2, which only a run starts" in res.stderr + res.stdout
