"""The API contract as executable checks (apps/contract/README.md in code).

One ordered list of cases, run black-box over HTTP against an app whose database was just loaded
with the contract's seed. Each case checks status, content type and body, and yields a normalised
result so that different implementations can be compared with each other. The conformance suite
runs all cases; the lab's verify-before-measuring step runs the read-only ones.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

from perflab import httpclient
from perflab.httpclient import NO_ANSWER, Response

SEED_FRUITS = [{"id": 2, "name": "Apple"}, {"id": 3, "name": "Banana"}, {"id": 1, "name": "Cherry"}]
SEED_TODOS = [
    {"id": 2, "title": "Write the report", "completed": False, "order": 1, "user": {"id": 1, "name": "alice"},
     "categories": [{"id": 2, "name": "work"}]},
    {"id": 1, "title": "Buy groceries", "completed": False, "order": 2, "user": {"id": 1, "name": "alice"},
     "categories": [{"id": 1, "name": "home"}]},
    {"id": 3, "title": "Fix the bike", "completed": True, "order": 3, "user": {"id": 2, "name": "bob"},
     "categories": [{"id": 1, "name": "home"}]},
    {"id": 4, "title": "Plan the sprint", "completed": False, "order": 4, "user": {"id": 2, "name": "bob"},
     "categories": [{"id": 1, "name": "home"}, {"id": 2, "name": "work"}]},
    {"id": 5, "title": "Read a book", "completed": False, "order": 4, "user": {"id": 1, "name": "alice"},
     "categories": []},
]
_STORES = {
    1: {"id": 1, "name": "Corner Grocer", "currency": "USD",
        "address": {"address": "12 Elm Street", "city": "Springfield", "country": "USA"}},
    2: {"id": 2, "name": "Marché du Centre", "currency": "EUR",
        "address": {"address": "3 rue de la République", "city": "Lyon", "country": "France"}},
    3: {"id": 3, "name": "Obstmarkt", "currency": "EUR",
        "address": {"address": "Hauptstraße 5", "city": "Köln", "country": "Germany"}},
    4: {"id": 4, "name": "High Street Fruit", "currency": "GBP",
        "address": {"address": "8 High Street", "city": "York", "country": "UK"}},
}
SEED_PRICED_FRUITS = [
    {"id": 2, "name": "Apple", "storePrices": [{"price": 1.29, "store": _STORES[1]}, {"price": 1.15, "store": _STORES[2]},
                                               {"price": 0.99, "store": _STORES[3]}, {"price": 2.0, "store": _STORES[4]}]},
    {"id": 3, "name": "Banana", "storePrices": [{"price": 0.59, "store": _STORES[1]}, {"price": 0.49, "store": _STORES[3]}]},
    {"id": 1, "name": "Cherry", "storePrices": []},
]
NAME_40 = "N" * 40
NAME_41 = "N" * 41
NAME_40_UNICODE = "ü" * 40  # 40 characters, 80 bytes: limits count characters
KEY_100 = "k" * 100
KEY_101 = "k" * 101


def request(base_url: str, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
            timeout: float = 10.0) -> Response:
    return httpclient.request(base_url + path, method, body, content_type, timeout)


@dataclass
class Case:
    id: str
    method: str
    path: str
    status: int
    body: Any = None               # JSON-encodable request body, or bytes sent as they are
    content_type: str | None = None
    expect_json: Any = None        # the exact JSON expected (dict equality: key order free)
    expect: Callable[[Response], str | None] | None = None  # further check; returns a problem or None
    readonly: bool = False         # safe to run against any app before measuring it
    save_as: str | None = None     # a create: remember the new id under this name
    canonical: Callable[[Any], Any] | None = None  # what the answer may vary in, removed before comparing

    def send(self, base_url: str, ids: dict[str, int]) -> Response:
        payload = self.body
        ctype = self.content_type
        if payload is not None and not isinstance(payload, bytes):
            payload = json.dumps(payload).encode()
            ctype = ctype or "application/json"
        return request(base_url, self.method, self.path.format(**ids), payload, ctype)


# Ids of created rows are the database's to choose (a failed insert may use up a sequence value),
# so expectations name them: "<id:mango>" stands for the id the "mango" create returned.
def resolve(expected: Any, ids: dict[str, int]) -> Any:
    if isinstance(expected, str) and expected.startswith("<id:"):
        return ids.get(expected[4:-1], expected)
    if isinstance(expected, list):
        return [resolve(e, ids) for e in expected]
    if isinstance(expected, dict):
        return {k: resolve(v, ids) for k, v in expected.items()}
    return expected


def symbolise(value: Any, ids: dict[str, int]) -> Any:
    """The reverse of resolve for "id" fields: created ids become their names (for comparison)."""
    names = {v: k for k, v in ids.items()}
    if isinstance(value, list):
        return [symbolise(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: (f"<id:{names[v]}>" if k == "id" and isinstance(v, int) and v in names else symbolise(v, ids))
                for k, v in value.items()}
    return value


@dataclass
class Outcome:
    case: Case
    problems: list[str]
    normalised: Any
    response: Response | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def _is_error_body(resp: Response, status: int) -> str | None:
    if resp.media_type != "application/json":
        return f"error body should be application/json, got {resp.headers.get('content-type')!r}: {resp.body[:120]!r}"
    try:
        data = resp.json()
    except ValueError:
        return f"error body is not JSON: {resp.body[:120]!r}"
    if not isinstance(data, dict) or set(data) != {"status", "error"}:
        return f'error body must be exactly {{"status","error"}}, got {data!r}'
    if data["status"] != status:
        return f"error body status {data['status']!r} differs from the HTTP status {status}"
    if not isinstance(data["error"], str) or not data["error"].strip():
        return f"error message must be a non-empty string, got {data['error']!r}"
    return None


def _location_endswith(suffix: str) -> Callable[[Response], str | None]:
    """Location must name the created resource; '{id}' stands for the id in the body."""
    def check(resp: Response) -> str | None:
        loc = resp.headers.get("location")
        if not loc:
            return "no Location header"
        want = suffix
        if "{id}" in suffix:
            try:
                want = suffix.replace("{id}", str(resp.json()["id"]))
            except (ValueError, KeyError, TypeError):
                return "no id in the body to check Location against"
        if not urlsplit(loc).path.endswith(want):
            return f"Location {loc!r} should end with {want}"
        return None
    return check


def _hello(resp: Response) -> str | None:
    if not re.fullmatch(r"Hello from .+ \(.+\)", resp.body.decode("utf-8", "replace").strip()):
        return f"body should be 'Hello from <framework> (<mode>)', got {resp.body[:80]!r}"
    return None


def _empty(resp: Response) -> str | None:
    return None if not resp.body.strip() else f"body should be empty, got {resp.body[:80]!r}"


def _status_up(resp: Response) -> str | None:
    try:
        data = resp.json()
    except ValueError:
        return f"health body is not JSON: {resp.body[:80]!r}"
    return None if isinstance(data, dict) and data.get("status") == "UP" else f'expected {{"status":"UP"}}, got {data!r}'


def _err(case_id: str, method: str, path: str, status: int, body: Any = None, content_type: str | None = None,
         readonly: bool = False) -> Case:
    return Case(case_id, method, path, status, body, content_type, readonly=readonly)


def _prices_in_store_order(body: Any) -> Any:
    """Prices may come in any order (a lazy collection has none of its own): sorted by store id,
    each price rounded to its two decimals."""
    def fruit(f: Any) -> Any:
        if not isinstance(f, dict) or not isinstance(f.get("storePrices"), list):
            return f
        prices = [dict(p, price=round(p["price"], 2)) if isinstance(p, dict) and isinstance(p.get("price"), (int, float))
                  else p for p in f["storePrices"]]
        return dict(f, storePrices=sorted(prices, key=lambda p: json.dumps(p.get("store") if isinstance(p, dict) else p,
                                                                        sort_keys=True)))
    return [fruit(f) for f in body] if isinstance(body, list) else fruit(body)


def _fruits_after_writes() -> list[dict]:
    rows = SEED_FRUITS + [{"id": "<id:max>", "name": NAME_40}, {"id": "<id:unicode>", "name": NAME_40_UNICODE}]
    return sorted(rows, key=lambda r: r["name"].encode())  # the lab's cluster uses the C collation


CASES: list[Case] = [
    Case("hello", "GET", "/hello", 200, expect=_hello, readonly=True),
    Case("fruits.list", "GET", "/fruits", 200, expect_json=SEED_FRUITS, readonly=True),
    Case("fruits.get", "GET", "/fruits/1", 200, expect_json={"id": 1, "name": "Cherry"}, readonly=True),
    _err("fruits.get.unknown", "GET", "/fruits/999", 404, readonly=True),
    _err("fruits.get.non-numeric", "GET", "/fruits/abc", 404, readonly=True),
    _err("fruits.get.beyond-long", "GET", "/fruits/99999999999999999999", 404, readonly=True),
    # the priced fruits on the seed, before any write adds fruits with no prices
    Case("fruit-prices.list", "GET", "/fruit-prices", 200, expect_json=SEED_PRICED_FRUITS, readonly=True,
         canonical=_prices_in_store_order),
    Case("fruit-prices.get", "GET", "/fruit-prices/Banana", 200, expect_json=SEED_PRICED_FRUITS[1], readonly=True,
         canonical=_prices_in_store_order),
    Case("fruit-prices.get.none", "GET", "/fruit-prices/Cherry", 200, expect_json=SEED_PRICED_FRUITS[2],
         readonly=True, canonical=_prices_in_store_order),
    _err("fruit-prices.get.unknown", "GET", "/fruit-prices/Durian", 404, readonly=True),
    Case("fruit-prices.joined", "GET", "/fruit-prices-joined", 200, expect_json=SEED_PRICED_FRUITS, readonly=True,
         canonical=_prices_in_store_order),
    Case("fruits.create", "POST", "/fruits", 201, {"name": "Mango"}, expect_json={"id": "<id:mango>", "name": "Mango"},
         expect=_location_endswith("/fruits/{id}"), save_as="mango"),
    Case("fruits.get.created", "GET", "/fruits/{mango}", 200, expect_json={"id": "<id:mango>", "name": "Mango"}),
    _err("fruits.create.duplicate", "POST", "/fruits", 409, {"name": "Mango"}),
    _err("fruits.create.duplicate-seed", "POST", "/fruits", 409, {"name": "Apple"}),
    _err("fruits.create.blank", "POST", "/fruits", 400, {"name": ""}),
    _err("fruits.create.whitespace", "POST", "/fruits", 400, {"name": "   "}),
    _err("fruits.create.missing", "POST", "/fruits", 400, {}),
    _err("fruits.create.null", "POST", "/fruits", 400, {"name": None}),
    _err("fruits.create.too-long", "POST", "/fruits", 400, {"name": NAME_41}),
    Case("fruits.create.max-length", "POST", "/fruits", 201, {"name": NAME_40},
         expect_json={"id": "<id:max>", "name": NAME_40}, expect=_location_endswith("/fruits/{id}"), save_as="max"),
    Case("fruits.create.max-length-unicode", "POST", "/fruits", 201, {"name": NAME_40_UNICODE},
         expect_json={"id": "<id:unicode>", "name": NAME_40_UNICODE}, save_as="unicode"),
    _err("fruits.create.malformed", "POST", "/fruits", 400, b'{"name": "Kiwi"', "application/json"),
    _err("fruits.create.not-an-object", "POST", "/fruits", 400, b"[]", "application/json"),
    _err("fruits.create.empty", "POST", "/fruits", 400, b"", "application/json"),
    _err("fruits.create.not-json", "POST", "/fruits", 400, b"Kiwi", "application/json"),
    _err("fruits.create.text-plain", "POST", "/fruits", 415, b"Kiwi", "text/plain"),
    Case("fruits.update", "PUT", "/fruits/{mango}", 200, {"name": "Papaya"},
         expect_json={"id": "<id:mango>", "name": "Papaya"}),
    Case("fruits.update.same-name", "PUT", "/fruits/{mango}", 200, {"name": "Papaya"},
         expect_json={"id": "<id:mango>", "name": "Papaya"}),
    _err("fruits.update.duplicate", "PUT", "/fruits/{mango}", 409, {"name": "Apple"}),
    _err("fruits.update.unknown", "PUT", "/fruits/999", 404, {"name": "Kiwi"}),
    _err("fruits.update.blank", "PUT", "/fruits/{mango}", 400, {"name": ""}),
    _err("fruits.update.too-long", "PUT", "/fruits/{mango}", 400, {"name": NAME_41}),
    _err("fruits.update.malformed", "PUT", "/fruits/{mango}", 400, b"{name:", "application/json"),
    _err("fruits.update.empty", "PUT", "/fruits/{mango}", 400, b"", "application/json"),
    _err("fruits.update.not-json", "PUT", "/fruits/{mango}", 400, b"Kiwi", "application/json"),
    _err("fruits.update.missing", "PUT", "/fruits/{mango}", 400, {}),
    _err("fruits.update.text-plain", "PUT", "/fruits/{mango}", 415, b"Kiwi", "text/plain"),
    Case("fruits.delete", "DELETE", "/fruits/{mango}", 204, expect=_empty),
    _err("fruits.delete.again", "DELETE", "/fruits/{mango}", 404),
    _err("fruits.delete.non-numeric", "DELETE", "/fruits/abc", 404),
    Case("fruits.list.after-writes", "GET", "/fruits", 200, expect_json=_fruits_after_writes()),
    Case("todos.list", "GET", "/todos", 200, expect_json=SEED_TODOS, readonly=True),
    _err("method.not-allowed-fruit-prices", "POST", "/fruit-prices", 405, {"name": "Kiwi"}),
    Case("data.get", "GET", "/data/SlimShady", 200, expect_json={"data": "SlimShady"}, readonly=True),
    _err("data.get.unknown", "GET", "/data/nobody", 404, readonly=True),
    Case("data.create", "POST", "/data", 201, {"data": "Eminem"}, expect_json={"data": "Eminem"},
         expect=_location_endswith("/data/Eminem")),
    Case("data.get.created", "GET", "/data/Eminem", 200, expect_json={"data": "Eminem"}),
    _err("data.create.duplicate", "POST", "/data", 409, {"data": "SlimShady"}),
    _err("data.create.missing", "POST", "/data", 400, {}),
    _err("data.create.blank", "POST", "/data", 400, {"data": ""}),
    _err("data.create.too-long", "POST", "/data", 400, {"data": KEY_101}),
    Case("data.create.max-length", "POST", "/data", 201, {"data": KEY_100}, expect_json={"data": KEY_100}),
    _err("data.create.malformed", "POST", "/data", 400, b'{"data":', "application/json"),
    _err("data.create.empty", "POST", "/data", 400, b"", "application/json"),
    _err("data.create.not-json", "POST", "/data", 400, b"Eminem", "application/json"),
    _err("data.create.text-plain", "POST", "/data", 415, b"Eminem", "text/plain"),
    Case("health.live", "GET", "/health/live", 200, expect=_status_up, readonly=True),
    Case("health.ready", "GET", "/health/ready", 200, expect=_status_up, readonly=True),
    _err("route.unknown", "GET", "/nope", 404, readonly=True),
    _err("route.unknown-nested", "GET", "/fruits/1/seeds", 404, readonly=True),
    _err("method.not-allowed", "DELETE", "/fruits", 405, readonly=True),
    _err("method.not-allowed-item", "POST", "/fruits/1", 405, {"name": "Kiwi"}),
]

_JSON_SUCCESS_MEDIA = "application/json"


def normalise(case: Case, resp: Response, ids: dict[str, int] | None = None) -> Any:
    """What must be equal across implementations: status, media type and the body with the
    implementation-specific parts (framework name, error wording, extra health keys) masked."""
    result: dict[str, Any] = {"status": resp.status, "media": resp.media_type if resp.body.strip() else None}
    if resp.status >= 400:
        try:
            data = resp.json()
            result["body"] = {"status": data.get("status"), "error": "<message>"} if isinstance(data, dict) else data
        except ValueError:
            result["body"] = "<not json>"
    elif case.path == "/hello":
        text = resp.body.decode("utf-8", "replace").strip()
        result["body"] = re.sub(r"^Hello from .+ \((.+)\)$", r"Hello from <framework> (<mode>)", text)
    elif case.path.startswith("/health"):
        data = resp.json()
        result["body"] = {"status": data.get("status")} if isinstance(data, dict) else data
    elif resp.body.strip():
        try:
            # created ids name fruits: only fruit answers carry them (a todo's id 4 is a seed id)
            body = resp.json()
            body = case.canonical(body) if case.canonical else body
            result["body"] = symbolise(body, ids or {}) if case.path.startswith("/fruits") else body
        except ValueError:
            result["body"] = resp.body.decode("utf-8", "replace")
    if "location" in resp.headers:
        path = urlsplit(resp.headers["location"]).path
        for name, value in (ids or {}).items():
            path = re.sub(rf"/{value}$", f"/<id:{name}>", path)
        result["location"] = path
    return result


def check(case: Case, resp: Response, ids: dict[str, int] | None = None) -> list[str]:
    problems = []
    if resp.status != case.status:
        problems.append(f"status {resp.status}, expected {case.status}: {resp.body[:200]!r}")
        return problems
    if case.status >= 400:
        problem = _is_error_body(resp, case.status)
        if problem:
            problems.append(problem)
    elif case.expect_json is not None:
        if resp.media_type != _JSON_SUCCESS_MEDIA:
            problems.append(f"content type {resp.headers.get('content-type')!r}, expected application/json")
        try:
            got = resp.json()
        except ValueError:
            problems.append(f"body is not JSON: {resp.body[:200]!r}")
        else:
            want = resolve(case.expect_json, ids or {})
            if case.canonical:
                got, want = case.canonical(got), case.canonical(want)
            if got != want:
                problems.append(f"body {json.dumps(got)[:400]} differs from the expected {json.dumps(want)[:400]}")
    if case.path == "/hello" and not resp.media_type.startswith("text/plain"):
        problems.append(f"content type {resp.headers.get('content-type')!r}, expected text/plain")
    if case.expect is not None:
        problem = case.expect(resp)
        if problem:
            problems.append(problem)
    return problems


def run_cases(base_url: str, cases: list[Case] | None = None) -> list[Outcome]:
    """Run cases in order (they build on each other's writes); a failed request is an outcome too."""
    outcomes = []
    ids: dict[str, int] = {}
    for case in cases if cases is not None else CASES:
        try:
            resp = case.send(base_url, ids)
        except KeyError as exc:
            outcomes.append(Outcome(case, [f"skipped: the create that gives id {exc} failed"], {"skipped": True}))
            continue
        except NO_ANSWER as exc:
            outcomes.append(Outcome(case, [f"request failed: {exc}"], {"error": type(exc).__name__}))
            continue
        problems = []
        if case.save_as and resp.status == case.status:
            try:
                new_id = resp.json()["id"]
            except (ValueError, KeyError, TypeError):
                new_id = None
            if not isinstance(new_id, int) or new_id in {f["id"] for f in SEED_FRUITS} or new_id in ids.values():
                problems.append(f"the created id {new_id!r} is not a fresh integer id")
            else:
                ids[case.save_as] = new_id
        problems += check(case, resp, ids)
        outcomes.append(Outcome(case, problems, normalise(case, resp, ids), resp))
    return outcomes


def verify(base_url: str) -> list[str]:
    """The quick check before measuring: the read-only cases; returns the problems (empty = fine)."""
    return [f"{o.case.id} ({o.case.method} {o.case.path}): {p}"
            for o in run_cases(base_url, [c for c in CASES if c.readonly]) for p in o.problems]


def differences(normalised_by_app: dict[str, dict[str, Any]]) -> list[str]:
    """Where implementations answered differently: one line per case and deviating app, against
    the answer most apps gave (ties: the first app's)."""
    apps = list(normalised_by_app)
    if len(apps) < 2:
        return []
    case_ids: list[str] = []
    for app in apps:
        for cid in normalised_by_app[app]:
            if cid not in case_ids:
                case_ids.append(cid)
    found = []
    for cid in case_ids:
        answers = {app: normalised_by_app[app].get(cid, "<no answer>") for app in apps}
        encoded = {app: json.dumps(a, sort_keys=True) for app, a in answers.items()}
        counts: dict[str, int] = {}
        for e in encoded.values():
            counts[e] = counts.get(e, 0) + 1
        reference = max(counts, key=lambda e: (counts[e], -list(encoded.values()).index(e)))
        for app in apps:
            if encoded[app] != reference:
                found.append(f"{cid}: {app} answered {encoded[app][:300]}, others {reference[:300]}")
    return found
