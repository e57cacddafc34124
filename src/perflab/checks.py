"""One finding of `perflab doctor`: what was checked, whether it holds, and the fix. Apart from
doctor itself, so the parts that contribute checks (the devloop's needs) need not import it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True
    apt: str | None = None  # the Debian package that fixes it, when one does
