"""Stream apps (api = "stream"): input topic -> transformation -> output topic, with a REST view
(POST /stream/send puts a record on the input topic, GET /stream/out lists the output topic's last
records). Their check before measuring, and the devloop script whose change is visible once a
record sent after the save comes out transformed the new way."""

from __future__ import annotations

import time
import uuid

from .loops import CheckFailed
from .roundtrip import LoopResult, Script, http_get, http_request


def send(base_url: str, value: str, timeout: float = 5.0) -> int | None:
    """POST a record to the app's input topic; the status, or None when nothing answers."""
    return http_request(base_url + "/stream/send", timeout, "POST", value)[0]


def verify(base_url: str, timeout_s: float = 30.0) -> list[str]:
    """The stream check: records sent to the input come out upper-cased on the output topic (one is
    sent every half second, so a view that starts reading a moment late still sees one)."""
    sent: set[str] = set()
    deadline = time.monotonic() + timeout_s
    status = None
    while time.monotonic() < deadline:
        value = f"perflab-check-{uuid.uuid4().hex[:8]}"
        status = send(base_url, value)
        if status == 202:
            sent.add(value.upper())
        got, body = http_get(base_url + "/stream/out", 5.0)
        if got == 200 and sent & set(body.splitlines()):
            return []
        time.sleep(0.5)
    if not sent:
        return [f"POST /stream/send answered {status}, expected 202"]
    return [f"none of {len(sent)} records sent to the input topic came out upper-cased within {timeout_s:.0f} s"]


BROKER_RESTART = "broker restart"
BROKER_PATIENCE_S = 60.0  # how long after the lab's own steps a stream change may take before the broker restart


class StreamScript(Script):
    """Visible = a record sent after the save comes out with the new prefix. A change that has not
    shown `restart_after_s` after the lab's own steps (compile, rebuild, restart) gets one broker
    restart, a step of its own, and then the rest of the timeout (at least `restart_after_s` more);
    its time still runs from the save, the wait and the broker restart included."""

    def __init__(self, *args, broker=None, restart_after_s: float = BROKER_PATIENCE_S, **kwargs):
        super().__init__(*args, **kwargs)
        self.ready_url = self.loop.base_url + self.loop.wc.app.ready_path
        self.broker = broker
        self.restart_after_s = restart_after_s
        self.sent = 0

    def start(self) -> LoopResult:
        result = super().start()
        problems = verify(self.loop.base_url)
        if problems:
            raise CheckFailed("failed the stream check before measuring: " + "; ".join(problems))
        return result

    def _wait(self, shown: str, saved_ns: int, until_ns: int, expected: set[str]) -> float | None:
        """Send a probe record each poll until one sent since the save comes out as `shown`
        (`expected` keeps those already sent, across a broker restart)."""
        while time.monotonic_ns() < until_ns:
            self.sent += 1
            value = f"probe-{self.sent}"
            if send(self.loop.base_url, value, timeout=2.0) == 202:
                expected.add(shown + value.upper())
            status, body = http_get(self.loop.base_url + "/stream/out", 2.0)
            if status == 200 and expected & set(body.splitlines()):
                return (time.monotonic_ns() - saved_ns) / 1e9
            if not self.loop.alive():
                return None
            time.sleep(max(self.poll_s, 0.2))
        return None

    def shows(self, shown: str, saved_ns: int):
        deadline = saved_ns + int(self.loop.timeout_s * 1e9)
        patience = int(self.restart_after_s * 1e9)
        expected: set[str] = set()
        seconds = self._wait(shown, saved_ns, min(deadline, time.monotonic_ns() + patience), expected)
        if seconds is None and self.broker is not None and self.loop.alive():
            waited = (time.monotonic_ns() - saved_ns) / 1e9
            self.say(f"the change did not show {self.restart_after_s:.0f} s after the lab's steps: restarting the broker")
            began = time.monotonic()
            self.broker.restart()
            self.extra_steps.append(BROKER_RESTART)
            self.extra_note = (f"not shown {waited:.1f} s after the save ({self.restart_after_s:.0f} s after the "
                               f"lab's steps): the broker was restarted ({time.monotonic() - began:.1f} s)")
            seconds = self._wait(shown, saved_ns, max(deadline, time.monotonic_ns() + patience), expected)
        return seconds, None, ""
