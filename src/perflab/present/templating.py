"""The report's Jinja2 templates (templates/, autoescaped, undefined names fail) and the one view
of a measured cell they all show, shared by the report, its profiles and the comparison pages."""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.abc import Traversable

from jinja2 import DictLoader, Environment, StrictUndefined

from perflab.present.tables import SERIOUS_FLAGS, flag_help, fmt_value, spread_text
from perflab.results import Cell

FLAG_BADGE = {"noisy": "noisy", "driver-bound": "driver-bound", "errors": "errors", "no-responses": "no responses",
              "cached-build": "cached"}


def template_folder() -> Traversable:
    return resources.files("perflab.present") / "templates"


@cache
def templates() -> Environment:
    """Every template read once, at the first call: a run makes it when it starts
    (perflab.commands), so its report at the end is drawn with the templates of the code that
    measured it, also when the checkout changes in the meantime (a pull, an edit)."""
    texts = {entry.name: entry.read_text(encoding="utf-8") for entry in template_folder().iterdir() if entry.is_file()}
    env = Environment(loader=DictLoader(texts), autoescape=True, trim_blocks=True,
                      lstrip_blocks=True, undefined=StrictUndefined)
    env.globals["cell_view"] = cell_view
    return env


def cell_view(cell: Cell) -> dict:
    """A measured cell as the template shows it: the median in bold, flag badges, the spread below."""
    s = cell.summary
    serious = cell.flags & SERIOUS_FLAGS
    shown = sorted(f for f in cell.flags if f != "single")  # n=1 is in the spread line already
    return {
        "cls": "num" + (" f-serious" if serious else " f-noisy" if "noisy" in cell.flags else ""),
        "median": f"{s.median:g}", "shown": fmt_value(s.median), "spread": spread_text(cell),
        "all_values": ", ".join(fmt_value(v) for v in cell.values),
        "badges": [{"cls": FLAG_BADGE.get(f, "other").replace(" ", "-"), "help": flag_help(f),
                    "text": FLAG_BADGE.get(f, f)} for f in shown],
    }
