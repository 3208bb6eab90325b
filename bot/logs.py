"""How the service logs: text lines for a terminal, or one JSON object per line.

A leaf (stdlib and pydantic; the digest's lexicon only to tell a word). `configure`
installs one handler on the root logger:

    logs.configure(level="INFO", format="json", secrets=logs.secrets_in(settings))
    {"time": "2026-05-27T09:00:01.120Z", "level": "INFO", "logger": "wire.deliver",
     "event": "delivery 42 retried", "delivery": 42, "story": "story_1c…", "channel": "C0…"}

The delivery, story and channel ids come from `bind` (a context variable, so an asyncio
task's ids stay its own: the worker binds them for each delivery it starts) or from a
call's `extra={"delivery": …}`.

Records of other packages (APScheduler, Alembic, aiohttp, …) show from WARNING unless the
level is DEBUG or `configure(libraries=…)` says otherwise (`wire run --verbose`: INFO). A
line meant for the person at the terminal (`announce`: the start banner, "stopping: …") is
printed bare in the text format and is a record with its facts as fields in JSON.

Secrets never reach the output: every configured secret value, and anything shaped like a
token (Slack xox…/xapp-, GitHub ghp_/github_pat_, `Bearer …`/`Bot …` credentials,
`token=`/`secret=` query values, a URL's password), is replaced by "[redacted]" in every
field of every line, tracebacks included, whatever logger wrote it. A weak secret (shorter
than 12 characters, or a dictionary word: `is_weak`) is replaced only where it stands as a
value, so a database password "wire" does not turn every "wire" of the log into
"[redacted]" and tell its reader the password; `wire doctor` warns about such secrets.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

from pydantic import BaseModel, SecretStr

REDACTED = "[redacted]"
IDS = ("delivery", "story", "channel")
OWN = ("wire", "digest", "bot")  # loggers of The Wire; any other is a library's
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
TOKEN_SHAPES = re.compile(
    r"xox[abposr]-[A-Za-z0-9-]+"
    r"|xapp-[A-Za-z0-9-]+"
    r"|gh[pousr]_[A-Za-z0-9]{16,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|(?P<scheme>\bBearer )[^\s'\",;]{8,}"
    r"|(?P<bot>\bBot )[A-Za-z0-9._-]{24,}"
    r"|(?P<query>[?&](?:token|secret|access_token|key)=)[^&\s'\"]+",
    re.IGNORECASE,
)
URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@/\s]+@")  # postgresql://user:PASSWORD@host
_ids: ContextVar[dict[str, Any] | None] = ContextVar("wire_log_ids", default=None)


def bind(**ids: Any) -> None:
    """Attach ids (delivery=, story=, channel=) to every line logged from here on in the
    current context (an asyncio task's own)."""
    _ids.set({**(_ids.get() or {}), **{k: v for k, v in ids.items() if v is not None}})


def bound() -> dict[str, Any]:
    """The ids bound in the current context."""
    return dict(_ids.get() or {})


MIN_STRONG = 12  # characters: a shorter secret is a weak one, whatever it is made of
# Where a value stands as a credential: `password=…`, `token: …`, `"secret": "…"`, `Bearer …`
VALUE_KEYS = (
    r"(?:password|passwd|pwd|pass|secret|signing_secret|token|api_key|apikey|key)"
    r"[\"']?\s*[=:]\s*[\"']?"
    r"|\b(?:Bearer|Bot|Basic) "
)
# The value ends where no letter, digit, "_" or "-" follows ("password=wire." at a sentence's
# end is the value "wire"; "password=wire-2" is another value)
VALUE_END = r"(?![\w-])"


def is_weak(secret: str) -> bool:
    """True for a secret shorter than `MIN_STRONG` characters, or a word of the dictionary:
    replacing such a value wherever it appears would redact common words ("wire") all over
    the log and tell its reader the secret; it is redacted only where it stands as a value."""
    if len(secret) < MIN_STRONG:
        return True
    if not secret.isalpha():
        return False
    from digest.english.lexicon import all_lemmas  # only for a long secret of letters only

    return bool(all_lemmas(secret.lower()))


class Redactor:
    """Replaces secret values and token-shaped strings with "[redacted]": a strong secret
    wherever it appears, a weak one (`is_weak`) only where it stands as a value
    (`password=…`, `://user:…@`, `Bearer …`), and anything shaped like a token."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # A strong secret is matched even inside a longer string: it never occurs there by
        # chance, and text around it (percent-encoding's "%3D", a repr's "\n") is no reason
        # to print it.
        values = sorted({s for s in secrets if s}, key=len, reverse=True)
        strong = [v for v in values if not is_weak(v)]
        weak = [v for v in values if is_weak(v)]
        self._strong = re.compile("|".join(map(re.escape, strong))) if strong else None
        alternatives = "|".join(map(re.escape, weak))
        self._weak = (
            re.compile(rf"(?P<key>{VALUE_KEYS})(?:{alternatives}){VALUE_END}", re.IGNORECASE)
            if weak
            else None
        )

    def __call__(self, text: str) -> str:
        if self._strong is not None:
            text = self._strong.sub(REDACTED, text)
        if self._weak is not None:
            text = self._weak.sub(rf"\g<key>{REDACTED}", text)
        text = URL_PASSWORD.sub(rf"\g<1>{REDACTED}@", text)
        return TOKEN_SHAPES.sub(_keep_prefix, text)


def _keep_prefix(match: re.Match[str]) -> str:
    return (match["scheme"] or match["bot"] or match["query"] or "") + REDACTED


def _ids_of(record: logging.LogRecord) -> dict[str, Any]:
    found = bound()
    found.update({k: getattr(record, k) for k in IDS if getattr(record, k, None) is not None})
    return {k: found[k] for k in IDS if k in found}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, event, the ids, the exception."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        line["time"] = line["time"].replace("+00:00", "Z")
        line.update(_ids_of(record))
        line.update(getattr(record, "facts", None) or {})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(_redacted(line, self.redact), ensure_ascii=False)


def _redacted(value: Any, redact: Redactor) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v, redact) for v in value]
    return value


class TextFormatter(logging.Formatter):
    """`time LEVEL logger: message [delivery=… story=… channel=…]`, redacted."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__(TEXT_FORMAT)
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        if (bare := getattr(record, "terminal", None)) is not None:
            return self.redact(bare)  # `announce`: for the person, without time or level
        text = super().format(record)
        ids = _ids_of(record)
        if ids:
            first, newline, rest = text.partition("\n")
            tags = " ".join(f"{k}={v}" for k, v in ids.items())
            text = f"{first} [{tags}]{newline}{rest}"
        return self.redact(text)


def formatter(format: Literal["text", "json"], *, secrets: Iterable[str] = ()) -> logging.Formatter:
    """The formatter of `format`, redacting `secrets`."""
    redact = Redactor(secrets)
    return JsonFormatter(redact) if format == "json" else TextFormatter(redact)


# Libraries whose INFO records are about themselves, not about the service: Alembic lists
# each plugin it sets up whenever it is first imported, which is when the store migrates.
QUIET_LOGGERS = ("alembic.runtime.plugins",)


class LibraryFloor(logging.Filter):
    """Passes The Wire's records, and another package's from `level` up."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        own = record.name.split(".", 1)[0] in OWN
        return own or record.levelno >= self.level


class WireHandler(logging.StreamHandler[TextIO]):
    """The handler `configure` installs on the root logger, told by its class from the
    handlers of others (the next call replaces it; a test removes it)."""


def configure(
    *,
    level: str = "INFO",
    format: Literal["text", "json"] = "text",
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
    libraries: str | None = None,
) -> logging.Handler:
    """Send every log record to `stream` (default stderr) as `format`; returns the handler.
    Other packages' records pass from `libraries` up (default: WARNING, or DEBUG when
    `level` is DEBUG). Replaces the handlers a previous call installed."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, WireHandler)]:
        root.removeHandler(old)
    handler = WireHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter(format, secrets=secrets))
    floor = libraries or ("DEBUG" if level == "DEBUG" else "WARNING")
    handler.addFilter(LibraryFloor(max(logging.getLevelName(floor), logging.getLevelName(level))))
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return handler


def announce(logger: logging.Logger, event: str, *, text: str | None = None, **facts: Any) -> None:
    """Tell the person at the terminal: `text` (else `event`) printed bare in the text
    format; in JSON a record whose event is `event`, with `facts` as its fields."""
    logger.info(event, extra={"terminal": text or event, "facts": facts})


def secrets_in(model: BaseModel) -> list[str]:
    """Every `SecretStr` value in a settings model and its sections, and the password of
    any URL among its strings (the database's), for `configure`."""
    return [value for _name, value in named_secrets(model)]


def named_secrets(model: BaseModel, prefix: str = "WIRE_") -> list[tuple[str, str]]:
    """`secrets_in` with the environment name of each ("WIRE_SLACK__SIGNING_SECRET",
    "WIRE_DATABASE_URL password"), for `wire doctor`'s warning about weak ones."""
    return list(_secrets(model, prefix))


def _secrets(value: Any, name: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, SecretStr):
        yield name, value.get_secret_value()
    elif isinstance(value, str) and (found := URL_PASSWORD.search(value)):
        yield f"{name} password", found.group(0)[len(found.group(1)) : -1]  # a URL's
    elif isinstance(value, BaseModel):
        top = name.endswith("_") and not name.endswith("__")  # WIRE_<KEY>, then __<KEY>
        for field in type(value).model_fields:
            yield from _secrets(
                getattr(value, field), f"{name}{'' if top else '__'}{field.upper()}"
            )
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _secrets(item, name)
