"""Typed, validated settings: the base every scenario's settings table derives from, and the
translation of validation failures into errors that name the bad key and what is allowed.

A setting is declared once, with its type, default, unit and meaning (`setting(...)`); the plan's
schema, its defaults and its error messages all come from that one declaration. A validated plan
(`Plan`) holds every key with its default filled in, and each scenario's typed settings.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from perflab.errors import LabError


class Settings(BaseModel):
    """A table of settings: unknown keys are errors, numbers are not silently made from strings."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True)

    def as_plan(self) -> dict[str, Any]:
        return self.model_dump(mode="python")


def setting(default: Any, help: str = "", unit: str = "", **constraints: Any) -> Any:
    """A field with its default, its meaning and its unit (shown by `perflab plan --settings`)."""
    extra = {"unit": unit} if unit else {}
    return Field(default, description=help, json_schema_extra=extra or None, **constraints)


def unit_of(model: type[BaseModel], name: str) -> str:
    extra = model.model_fields[name].json_schema_extra
    return extra.get("unit", "") if isinstance(extra, dict) else ""


_TYPE_WORDS = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true/false",
               "list": "a list", "dict": "a table"}


def _type_word(kind: str) -> str:
    for key, word in _TYPE_WORDS.items():
        if kind.startswith(key):
            return word
    return kind


_BOUNDS = {"greater_than_equal": "at least", "greater_than": "more than", "less_than_equal": "at most",
           "less_than": "less than", "too_short": "a list of at least"}
_CTX = {"greater_than_equal": "ge", "greater_than": "gt", "less_than_equal": "le", "less_than": "lt",
        "too_short": "min_length"}


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The settings table that holds the last key of `loc` (for listing its allowed keys)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or part not in current.model_fields:
            return None
        annotation = current.model_fields[part].annotation
        args = getattr(annotation, "__args__", ())
        current = next((a for a in (annotation, *args) if isinstance(a, type) and issubclass(a, BaseModel)), None)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def lab_error(exc: ValidationError, model: type[BaseModel], source: str) -> LabError:
    """The first validation error, said the way a user fixes it."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind.endswith("_type") and len(loc) > 1 and loc[-1] in _TYPE_WORDS:
        loc, kind = loc[:-1], "float_type"  # a member of `int | float` (limits.cpus): say "a number"
    where = _where(loc)
    if kind == "extra_forbidden":
        table = _model_at(model, loc)
        inside = f" in [{_where(loc[:-1])}]" if len(loc) > 1 else ""
        keys = sorted(f.alias or name for name, f in table.model_fields.items()) if table else []
        close = difflib.get_close_matches(str(loc[-1]), keys, n=1)
        return LabError(f"{source}: unknown key {where}" + (f" (did you mean {close[0]}?)" if close else ""),
                        fix=f"allowed keys{inside}: {', '.join(keys) or '(see the documentation)'}")
    if kind == "missing":
        parent = _where(loc[:-1])
        return LabError(f"{source}: {parent + ' needs' if parent else 'the plan needs'} '{loc[-1]}'")
    if kind.endswith("_type") or kind in ("int_from_float", "model_type", "model_attributes_type"):
        expected = _type_word(kind.split("_")[0]) if kind.endswith("_type") else "a table"
        return LabError(f"{source}: {where} must be {expected}, got {err.get('input')!r}")
    if kind == "literal_error":
        return LabError(f"{source}: {where} must be {err['ctx']['expected']}, got {err.get('input')!r}")
    bound = _BOUNDS.get(kind)
    if bound:
        return LabError(f"{source}: {where} must be {bound} {err['ctx'][_CTX[kind]]}, "
                        f"got {err.get('input')!r}")
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if kind == "value_error" and not message.startswith("must"):
        return LabError(f"{source}: {message}")  # a rule across keys: the message names them
    return LabError(f"{source}: {where} {message[0].lower() + message[1:]}")


def validate(model: type[BaseModel], raw: dict[str, Any], source: str) -> BaseModel:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise lab_error(exc, model, source) from None


@dataclass
class Plan:
    """A validated plan; `data` holds every key with defaults filled in (what gets stored), and
    `settings(name)` a scenario's typed settings."""

    data: dict[str, Any]
    source: str
    model: Any = None

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def repeats(self) -> int:
        return self.data["repeats"]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def settings(self, scenario: str) -> Any:
        return getattr(self.model, scenario)

    def scenarios_for(self, mode: str, app_default: bool = False) -> list[str]:
        """The scenarios a mode gets: mode_scenarios may narrow them for an app's extra modes (an
        app's first, default mode always gets them all: a reactive-only app is not an extra mode)."""
        if app_default:
            return self.data["scenarios"]
        return self.data["mode_scenarios"].get(mode, self.data["scenarios"])
