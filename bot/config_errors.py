"""One sentence per configuration problem: unknown tables and keys, wrong values; and
the parsers of the values settings take (durations, cron specs, timezones, URLs).

A leaf under `bot.settings` (rank 0): it knows pydantic models, not the service's.

    unknown_keys(raw, tables={"service": ServiceKeys, "delivery": DeliverySettings, …},
                 path="config/x.toml")
    → ["[service] frobnicate: unknown key in config/x.toml; known keys: config, …",
       "[delivery] max_attemps: unknown key in config/x.toml; did you mean max_attempts?"]

Every suggestion comes from `difflib` over the names the models declare, so a table or key
added to a model is known here without a list to keep in step.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import types
import typing
from collections.abc import Iterable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import annotated_types
from apscheduler.triggers.cron import CronTrigger
from pydantic import BaseModel

from bot.errors import SettingsError

DURATION_HINT = "a duration such as 90s, 30m, 2h or 7d"
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(value: Any) -> Any:
    """ "90s", "30m", "1h30m", "7d", "2w" or a number of seconds → timedelta."""
    if isinstance(value, timedelta | int | float) and not isinstance(value, bool):
        return value if isinstance(value, timedelta) else timedelta(seconds=value)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return timedelta(seconds=float(text))
    if not text or _DURATION_PART.sub("", text).strip():
        raise ValueError(f"expected {DURATION_HINT}")
    return timedelta(seconds=sum(float(n) * _UNITS[u] for n, u in _DURATION_PART.findall(text)))


def setting_duration(value: Any) -> Any:
    """A duration setting needs its unit: a bare 42 (seconds? days?) is refused."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int | float) or re.fullmatch(r"\s*\d+(\.\d+)?\s*", str(value)):
        raise ValueError(f"expected {DURATION_HINT} (a number and its unit)")
    return parse_duration(value)


def positive(value: timedelta) -> timedelta:
    """A duration longer than zero."""
    if value <= timedelta(0):
        raise ValueError(f"expected {DURATION_HINT}, longer than zero")
    return value


def cron_spec(value: str) -> str:
    """A five-field cron spec APScheduler reads."""
    try:
        CronTrigger.from_crontab(value)
    except ValueError:
        raise ValueError("expected a five-field cron spec such as '0 9 * * 1-5'") from None
    return value


def timezone_name(value: str) -> str:
    """An IANA timezone name."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError("expected an IANA timezone such as 'Europe/Paris' or 'UTC'") from None
    return value


def http_url(value: str) -> str:
    """An http(s) URL with a host."""
    if not re.match(r"^https?://[^/\s]+", value):
        raise ValueError("expected an http(s) URL")
    return value


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name nearest to `word` when one is near enough to be a typo, else None."""
    found = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return found[0] if found else None


def hint(word: str, known: Iterable[str], *, brackets: bool = False) -> str:
    """ "did you mean X?" for a near name, else the list of known names."""
    names = sorted(known)
    near = closest(word, names)
    if near is not None:
        return f"did you mean {f'[{near}]' if brackets else near}?"
    shown = ", ".join(f"[{n}]" if brackets else n for n in names)
    return f"known {'tables' if brackets else 'keys'}: {shown}"


def model_of(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The model a field holds and whether it holds a list of them (`tuple[Model, ...]`);
    (None, False) for a plain value."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    if typing.get_origin(annotation) in (tuple, list):
        inner = typing.get_args(annotation)[0] if typing.get_args(annotation) else None
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner, True
    return None, False


def _field_names(model: type[BaseModel], exclude: Iterable[str] = ()) -> set[str]:
    skip = set(exclude)
    return {(info.alias or name) for name, info in model.model_fields.items() if name not in skip}


def unknown_keys(
    raw: Mapping[str, Any],
    *,
    tables: Mapping[str, tuple[type[BaseModel], set[str]] | None],
    path: Path | str,
) -> list[str]:
    """A sentence for every table and key of the parsed TOML `raw` that no model declares.

    `tables` maps each top-level table to its model and the field names the table does
    not hold (the [service] table is the settings' root minus its sections), or to None
    for a table whose keys are checked elsewhere.
    """
    problems: list[str] = []
    for name, value in raw.items():
        if name not in tables:
            scalar_home = next(
                (t for t, v in tables.items() if v and name in _field_names(*v)), None
            )
            if not isinstance(value, dict | list) and scalar_home is not None:
                problems.append(
                    f"{name}: a key of [{scalar_home}] outside any table in {path}; "
                    f"move it under [{scalar_home}]"
                )
            else:
                problems.append(
                    f"[{name}]: unknown table in {path}; {hint(name, tables, brackets=True)}"
                )
            continue
        table = tables[name]
        if table is None:
            continue
        model, skip = table
        problems += _walk(value, model, skip=skip, table=name, path=path)
    return problems


def _walk(
    value: Any, model: type[BaseModel], *, skip: set[str], table: str, path: Path | str
) -> list[str]:
    rows = value if isinstance(value, list) else [value]
    shown = f"[[{table}]]" if isinstance(value, list) else f"[{table}]"
    known = _field_names(model, skip)
    problems: list[str] = []
    for row in rows:
        if not isinstance(row, dict):
            continue  # a wrong shape is the validation's sentence, not this one
        for key, inner in row.items():
            if key not in known:
                sentence = f"{shown} {key}: unknown key in {path}; {hint(key, known)}"
                if sentence not in problems:
                    problems.append(sentence)
                continue
            child, _many = model_of(model.model_fields[key].annotation)
            if child is not None and isinstance(inner, dict | list):
                for found in _walk(inner, child, skip=set(), table=f"{table}.{key}", path=path):
                    if found not in problems:
                        problems.append(found)
    return problems


def env_name(loc: tuple[Any, ...]) -> str:
    """The environment variable of a setting: ("delivery", "lease") → WIRE_DELIVERY__LEASE."""
    return "WIRE_" + "__".join(str(part).upper() for part in loc)


def set_in_environment(loc: tuple[Any, ...], dotenv: Mapping[str, Any]) -> bool:
    """True when the environment or `.env` sets the setting at `loc` (or its whole table)."""
    name = env_name(loc)
    names = {k.upper() for k in os.environ} | {k.upper() for k in dotenv}
    return any(name == key or name.startswith(key + "__") for key in names)


def in_file(loc: tuple[Any, ...], toml: Mapping[str, Any]) -> bool:
    """True when the parsed file holds a value at the pydantic error location `loc`."""
    node: Any = toml
    for part in loc:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return False
        elif not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def field_at(root: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The FieldInfo at `loc` below `root`, or None where `loc` leaves the models."""
    model: Any = root
    found = None
    for part in loc:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        found = model.model_fields.get(str(part))
        if found is None:
            return None
        model = model_of(found.annotation)[0] or found.annotation
    return found


def _choices(values: tuple[Any, ...]) -> str:
    quoted = [repr(v) for v in values]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else "".join(quoted)


def expected(field: Any) -> str:
    """What a field takes, in words: "an integer ≥ 1", "one of 'a' or 'b'", a duration…"""
    annotation = field.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is Literal:
        return "one of " + _choices(typing.get_args(annotation))
    if typing.get_origin(annotation) is tuple:
        inner = typing.get_args(annotation)[0]
        if typing.get_origin(inner) is Literal:
            return "a list of " + _choices(typing.get_args(inner))
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return "a list of tables"
        return "a list"
    base = {int: "an integer", float: "a number", bool: "true or false", timedelta: DURATION_HINT}
    text = base.get(annotation, "a string")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        text = "a table"
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    for meta in field.metadata:
        if isinstance(
            meta, annotated_types.Ge | annotated_types.Gt | annotated_types.Le | annotated_types.Lt
        ):
            attr = next(name for name in marks if hasattr(meta, name))
            text += f" {marks[attr]} {getattr(meta, attr):g}"
    return text


def sentence(
    error: Mapping[str, Any],
    *,
    root: type[BaseModel],
    sections: Iterable[str],
    from_file: bool,
    path: Path | str | None,
) -> str:
    """One pydantic error as a sentence naming where the value came from: the table and
    key of the file when `from_file`, else the environment variable."""
    loc = tuple(part for part in error["loc"] if not isinstance(part, int))
    where = _where(tuple(error["loc"]), sections=set(sections), from_file=from_file, path=path)
    field = field_at(root, loc)
    if error["type"] == "missing":
        return f"{where}: required, but not set"
    if error["type"] == "extra_forbidden":
        parent = field_at(root, loc[:-1]) if len(loc) > 1 else None
        model = model_of(parent.annotation)[0] if parent is not None else root
        known = _field_names(model) if model is not None else set()
        return f"{where}: unknown setting; {hint(str(loc[-1]), known)}"
    message = str(error.get("msg", ""))
    if error["type"] == "value_error" and not message.startswith("Value error, expected "):
        return f"{where}: {message.removeprefix('Value error, ')}"  # a whole sentence already
    if error["type"] == "value_error":
        wanted = message.removeprefix("Value error, ").removeprefix("expected ")
    else:
        wanted = expected(field) if field is not None else message
    secret = field is not None and "SecretStr" in str(field.annotation)
    got = "" if secret or "input" not in error else f", got {error['input']!r}"
    return f"{where}: expected {wanted}{got}"


def _where(
    loc: tuple[Any, ...], *, sections: set[str], from_file: bool, path: Path | str | None
) -> str:
    """ "[table] key in FILE", "[[table]] key (entry 2) in FILE", or the variable's name."""
    names = tuple(part for part in loc if not isinstance(part, int))
    in_section = bool(loc) and loc[0] in sections
    table, rest = (str(loc[0]), loc[1:]) if in_section else ("service", loc)
    entry = ""
    if rest and isinstance(rest[0], int):  # an array of tables: [[subscriptions]]
        entry, rest = f"entry {rest[0] + 1}", rest[1:]
    key = ".".join(str(part) for part in rest if not isinstance(part, int))
    detail = f"{key} ({entry})" if key and entry else key or entry
    if not from_file:
        return env_name(names) + (f" ({entry})" if entry else "")
    shown = f"[[{table}]]" if entry else f"[{table}]"
    return f"{shown} {detail} in {path}"


def from_file(loc: tuple[Any, ...], toml: dict[str, Any], dotenv: dict[str, Any]) -> bool:
    """True when the value at `loc` came from the file (set there, or missing from a table
    there), and not from a variable."""
    names = tuple(part for part in loc if not isinstance(part, int))
    if set_in_environment(names, dotenv):
        return False
    return in_file(loc, toml) or (len(loc) > 1 and in_file(loc[:-1], toml))


def read_toml(path: Path, origin: str) -> dict[str, Any]:
    """The parsed TOML file; `origin` (--config, WIRE_CONFIG) says where its name came from."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError([f"{origin}: config file {path} does not exist"]) from None
    except IsADirectoryError:
        raise SettingsError([f"{origin}: {path} is a directory, not a config file"]) from None
    except (PermissionError, NotADirectoryError) as exc:
        raise SettingsError([f"{origin}: cannot read config file {path}: {exc.strerror}"]) from None
    except UnicodeDecodeError:
        raise SettingsError([f"{origin}: config file {path} is not UTF-8 text"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError([f"{origin}: config file {path} is not valid TOML: {exc}"]) from None
