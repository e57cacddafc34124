"""One loop, scripted: start it, then per repeat a compiling change of /hello's text (a stream
app's transformation), an edit that does not compile and its fix, /fruits' ordering in its
service, and a new endpoint in a new file (Quarkus: the file with an imperative and a reactive
endpoint); each timed from the completed save to the first HTTP response (or step output) that
shows it, with what the app kept across it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from perflab import httpclient
from perflab.probes.proc import tree_rss_bytes

from .edits import ENDPOINT, FRUITS, UNDEFINED, HelloSource, NewEndpoint, descending, where_it_points
from .loops import AfterSave, Loop, QuarkusDev, Unavailable, missing_artifacts

HELLO, BROKEN, FIX, FRUITS_EDIT, ENDPOINT_EDIT, MIXED_EDIT = "hello", "broken", "fix", "fruits", "endpoint", "mixed"
EDITS = (HELLO, BROKEN, FIX, FRUITS_EDIT, ENDPOINT_EDIT, MIXED_EDIT)  # in the order a repeat makes them


@dataclass
class Trip:
    edit: str
    repeat: int
    seconds: float | None            # save -> change (or error) visible; None: never within the timeout
    steps: list[str]
    where: str = ""                   # for an error: "http", "compile output", "rebuild output"
    line: int | None = None           # the line of that output naming the edited file and line
    db_kept: bool | None = None       # the same DB backend connections before and after
    restarts: int | None = None       # app restarts inside a dev loop's process for this one save
    state_kept: bool | None = None    # in-memory state across the change: see state_kept()
    note: str = ""


def state_kept(same_process: bool, restarts: int | None) -> bool | None:
    """Whether state the app held in memory before the save can still be there when the change
    shows: only if the same process answers and the app did not start again inside it (a DevTools
    restart or a Quarkus live reload makes new application objects). A new process (stop, rebuild,
    restart) loses it. None: the same process, but its log cannot tell whether the app restarted."""
    if not same_process:
        return False
    return None if restarts is None else restarts == 0


@dataclass
class _Before:
    """What the app had just before a save, to tell what it kept once the change shows."""

    backends: set[int]
    starts: int | None
    pid: int | None


@dataclass
class LoopResult:
    kind: str
    start_s: float
    rss_started_mb: float | None
    rss_after_mb: float | None = None
    trips: list[Trip] = field(default_factory=list)


def http_request(url: str, timeout: float, method: str = "GET", body: str | None = None) -> tuple[int | None, str]:
    """(status, body) of a request, or (None, "") when nothing answers. A body is sent as text/plain."""
    resp = httpclient.answer(url, max(timeout, 0.5), method, None if body is None else body.encode(),
                             None if body is None else "text/plain", accept="text/plain, */*;q=0.5")
    return (None, "") if resp is None else (resp.status, resp.text)


def http_get(url: str, timeout: float) -> tuple[int | None, str]:
    return http_request(url, timeout)


def wait_for(url: str, want: Callable[[int | None, str], bool], since_ns: int, timeout_s: float, poll_s: float,
             alive: Callable[[], bool]) -> tuple[float | None, int | None, str]:
    """Poll until want(status, body); (seconds since since_ns or None, last status, last body)."""
    deadline = since_ns + int(timeout_s * 1e9)
    status, body = None, ""
    while time.monotonic_ns() < deadline:
        status, body = http_get(url, (deadline - time.monotonic_ns()) / 1e9)
        if want(status, body):
            return (time.monotonic_ns() - since_ns) / 1e9, status, body
        if not alive():
            break
        time.sleep(poll_s)
    return None, status, body


def _mb(pid: int | None) -> float | None:
    return tree_rss_bytes(pid) / 1e6 if pid else None


# a dev loop may log the app's start a moment after the first response (Spring Boot logs
# "Started" once its web server already serves): the start count is read again after this
START_LOG_GRACE_S = 1.0


class Script:
    def __init__(self, loop: Loop, hello: HelloSource, path: str, poll_s: float,
                 backends: Callable[[], set[int]], say: Callable[[str], None] = lambda s: None):
        self.loop, self.hello, self.url, self.poll_s = loop, hello, loop.base_url + path, poll_s
        self.backends, self.say = backends, say
        self.ready_url = self.url
        # what a change needed beyond the loop's own steps (e.g. a broker restart), and why
        self.extra_steps: list[str] = []
        self.extra_note = ""

    def shows(self, shown: str, saved_ns: int) -> tuple[float | None, int | None, str]:
        """Wait until a response shows `shown`: (seconds since the save or None, last status, body)."""
        return wait_for(self.url, lambda s, b: s == 200 and shown in b, saved_ns, self.loop.timeout_s,
                        self.poll_s, self.loop.alive)

    def start(self) -> LoopResult:
        loop = self.loop
        loop.start()
        seconds, status, _ = wait_for(self.ready_url, lambda s, b: s == 200, loop.started_ns, loop.timeout_s,
                                      self.poll_s, loop.alive)
        if seconds is None:
            log = loop.app_log.read_text(errors="replace") if loop.app_log.exists() else ""
            missing = missing_artifacts(log)
            if isinstance(loop, QuarkusDev) and missing:
                raise Unavailable(f"dev mode cannot start: the registry lacks {', '.join(missing)}")
            tail = "\n".join(log.splitlines()[-15:])
            raise Unavailable(f"{loop.kind} did not answer on {self.url} within {loop.timeout_s:.0f} s"
                              f" (last status {status})", details=tail)
        pid = loop.proc.pid if loop.proc else None
        return LoopResult(loop.kind, seconds, _mb(pid))

    def _pid(self) -> int | None:
        return self.loop.proc.pid if self.loop.proc is not None and self.loop.alive() else None

    def _before(self) -> _Before:
        return _Before(self.backends(), self.loop.app_starts(), self._pid())

    def _trip(self, edit: str, repeat: int, before: _Before, done: AfterSave, seconds: float | None,
              why_not: str) -> Trip:
        """The trip of one save; what the app kept across it is read once the change showed."""
        steps, note = [*done.steps, *self.extra_steps], self.extra_note
        self.extra_steps, self.extra_note = [], ""
        if done.failed:
            return Trip(edit, repeat, None, steps, note=f"{done.failed} failed:\n{done.output[-1500:]}")
        if seconds is None:
            return Trip(edit, repeat, None, steps, note="; ".join(filter(None, (note, why_not))))
        same = before.pid is not None and before.pid == self._pid()
        if same and before.starts is not None:
            time.sleep(START_LOG_GRACE_S)
        now = self.loop.app_starts()
        restarts = now - before.starts if now is not None and before.starts is not None else None
        after = self.backends()
        return Trip(edit, repeat, seconds, steps, db_kept=bool(before.backends & after) if before.backends else None,
                    restarts=restarts, state_kept=state_kept(same, restarts), note=note)

    def change(self, edit: str, repeat: int) -> Trip:
        """A compiling change of the greeting; `edit` is hello or fix (after a broken edit)."""
        old, new, shown = self.hello.changed(f"{edit} {repeat + 1}")
        before = self._before()
        saved = self.loop.wc.edit(self.hello.file, old, new)
        done = self.loop.after_save()
        seconds, status, body = (None, None, "") if done.failed else self.shows(shown, saved)
        return self._trip(edit, repeat, before, done, seconds, f"not shown (last status {status}: {body[:200]!r})")

    def fruits(self, repeat: int) -> Trip:
        """/fruits' ordering in the service (descending on even repeats, back to ascending on odd
        ones): visible once the list comes in the new order."""
        file, old, new = FRUITS[self.loop.wc.source.name]
        want_desc = repeat % 2 == 0
        before = self._before()
        saved = self.loop.wc.edit(file, old, new if want_desc else old)
        done = self.loop.after_save()
        seconds, status, body = (None, None, "") if done.failed else wait_for(
            self.loop.base_url + "/fruits", lambda s, b: s == 200 and descending(b) is want_desc, saved,
            self.loop.timeout_s, self.poll_s, self.loop.alive)
        return self._trip(FRUITS_EDIT, repeat, before, done, seconds,
                          f"not in the new order (last status {status}: {body[:200]!r})")

    def new_endpoint(self, endpoint: NewEndpoint, repeat: int) -> Trip:
        """A new file with a new endpoint (written again with a new text on later repeats), wired
        where routes are wired by hand: visible once every path it serves answers with the new text."""
        tag = f"{endpoint.edit} {repeat + 1}"
        before = self._before()
        saved = self.loop.wc.write(endpoint.file, endpoint.source.replace("TAG", tag))
        if endpoint.wiring is not None:
            saved = self.loop.wc.edit(*endpoint.wiring)
        done = self.loop.after_save()
        seconds, why_not = None, ""
        for path, text in ({} if done.failed else endpoint.shows).items():
            shown = text.replace("TAG", tag)
            seconds, status, _ = wait_for(self.loop.base_url + path, lambda s, b, shown=shown: s == 200 and shown in b,
                                          saved, self.loop.timeout_s, self.poll_s, self.loop.alive)
            if seconds is None:
                why_not = f"{path} never showed it (last status {status})"
                break
        return self._trip(endpoint.edit, repeat, before, done, seconds, why_not)

    def broken(self, repeat: int) -> Trip:
        """An edit that does not compile: how long until the error is visible, and where."""
        old, new = self.hello.broken()
        saved = self.loop.wc.edit(self.hello.file, old, new)
        done = self.loop.after_save()
        if done.failed:
            seconds = (time.monotonic_ns() - saved) / 1e9
            return Trip(BROKEN, repeat, seconds, done.steps, where=f"{done.failed} output",
                        line=where_it_points(done.output, self.hello.file))
        # a dev mode shows it on the next request (an error page)
        seconds, status, body = wait_for(self.url, lambda s, b: (s or 0) >= 500 or UNDEFINED in b, saved,
                                         self.loop.timeout_s, self.poll_s, self.loop.alive)
        if seconds is None:
            return Trip(BROKEN, repeat, None, done.steps, note=f"no error visible (last status {status})")
        return Trip(BROKEN, repeat, seconds, done.steps, where="http", line=where_it_points(body, self.hello.file))

    def run(self, repeats: int, with_broken: bool) -> LoopResult:
        result = self.start()
        for r in range(repeats):
            self.say(f"{self.loop.kind}: change {r + 1}/{repeats}")
            result.trips.append(self.change(HELLO, r))
            if with_broken:
                self.say(f"{self.loop.kind}: broken edit and fix {r + 1}/{repeats}")
                result.trips.append(self.broken(r))
                result.trips.append(self.change(FIX, r))
            if self.loop.wc.source.name in FRUITS:
                self.say(f"{self.loop.kind}: /fruits ordering {r + 1}/{repeats}")
                result.trips.append(self.fruits(r))
            endpoint = ENDPOINT.get(self.loop.wc.source.name)
            if endpoint is not None:
                self.say(f"{self.loop.kind}: a new endpoint ({endpoint.edit}) {r + 1}/{repeats}")
                result.trips.append(self.new_endpoint(endpoint, r))
        result.rss_after_mb = _mb(self.loop.proc.pid if self.loop.proc else None)
        return result
