"""Service settings: environment (prefix WIRE_, nesting "__"), `.env`, then the TOML file.

Precedence, highest first: keyword arguments, environment, `.env`, the TOML file given by
`--config` / WIRE_CONFIG, defaults. The TOML file is shared with `digest.config`: these
settings read only their own tables ([service] for the top-level keys, [delivery], [acks],
[schedule], [slack], [discord], [github]) and ignore [[projects]], [digest] and the rest.

Every problem becomes one sentence naming the key and what it expects, e.g.
"WIRE_DELIVERY__MAX_ATTEMPTS: expected an integer ≥ 1, got 'x'". Tokens are `SecretStr`:
never in `repr`, logs or error messages.
"""

from __future__ import annotations

import os
import re
import tomllib
import types
import typing
from contextvars import ContextVar
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import annotated_types
from apscheduler.triggers.cron import CronTrigger
from dotenv import dotenv_values
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
)
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings import SettingsError as PydanticSettingsError
from sqlalchemy.engine import make_url

from bot.errors import SettingsError

PlatformName = Literal["slack", "discord", "console"]
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
DURATION_HINT = "a duration such as 90s, 30m, 2h or 7d"


def parse_duration(value: Any) -> Any:
    """ "90s", "30m", "1h30m", "7d", "2w" or a number of seconds → timedelta."""
    if isinstance(value, timedelta | int | float) and not isinstance(value, bool):
        return value if isinstance(value, timedelta) else timedelta(seconds=value)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return timedelta(seconds=float(text))
    if not text or _DURATION.sub("", text).strip():
        raise ValueError(f"expected {DURATION_HINT}")
    return timedelta(seconds=sum(float(n) * _UNITS[u] for n, u in _DURATION.findall(text)))


def _positive(value: timedelta) -> timedelta:
    if value <= timedelta(0):
        raise ValueError(f"expected {DURATION_HINT}, longer than zero")
    return value


def _cron(value: str) -> str:
    try:
        CronTrigger.from_crontab(value)
    except ValueError:
        raise ValueError("expected a five-field cron spec such as '0 9 * * 1-5'") from None
    return value


def _zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError("expected an IANA timezone such as 'Europe/Paris' or 'UTC'") from None
    return value


def _http_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+", value):
        raise ValueError("expected an http(s) URL")
    return value


Duration = Annotated[timedelta, BeforeValidator(parse_duration), AfterValidator(_positive)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DeliverySettings(_Section):
    """The outbox worker: retries with exponential back-off and full jitter, leases."""

    max_attempts: int = Field(default=8, ge=1)
    backoff_base: float = Field(default=2.0, gt=0)
    backoff_cap: float = Field(default=900.0, gt=0)
    workers: int = Field(default=100, ge=1)
    batch_size: int = Field(default=20, ge=1)
    poll_interval: float = Field(default=2.0, gt=0)
    lease: Duration = timedelta(minutes=5)


class OncallHandles(_Section):
    """Who a reminder pings, per platform: a Slack user-group id, a Discord role id."""

    slack: str | None = None
    discord: str | None = None
    console: str | None = None


class AckSettings(_Section):
    """Acknowledgements of immediate items and the reminder when nobody acknowledges."""

    reminder_after: Duration = timedelta(minutes=30)
    oncall: OncallHandles = OncallHandles()


class ScheduleSettings(_Section):
    """When channels get their digest unless a channel sets its own schedule."""

    default_cron: Annotated[str, AfterValidator(_cron)] = "0 9 * * 1-5"
    max_lookback: Duration = timedelta(days=7)
    timezone: Annotated[str, AfterValidator(_zone)] = "UTC"


class HttpSettings(_Section):
    """The service's web server: Slack's events, commands and interactivity (HTTP mode) and
    `/healthz`. It starts only when an adapter serves something over HTTP."""

    host: str = "0.0.0.0"
    port: int = Field(default=3000, ge=0, le=65535)


class SlackSettings(_Section):
    """Slack app credentials, API base URL, the request path and posting pace.

    With `app_token` set the app connects in Socket Mode; otherwise Slack POSTs events,
    commands and interactivity to `path` on the service's web server.
    """

    bot_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    app_token: SecretStr | None = None
    api_url: HttpUrl = "https://slack.com/api/"
    path: str = Field(default="/slack/events", pattern=r"^/\S*$")
    per_channel_interval: float = Field(default=1.0, ge=0)
    per_minute: float = Field(default=240, gt=0)
    burst: int = Field(default=10, ge=1)


class DiscordSettings(_Section):
    """Discord bot credentials, API base URL, command sync, sharding and pacing.

    `guild_id` syncs the `/wire` commands to that one server (instantly, for trying things
    out) instead of globally. `shard_count` 1 runs a plain client; more, or 0 for as many as
    Discord recommends, runs an AutoShardedClient. `subscribe_permission` is the permission a
    member needs to change a channel's subscriptions ("" lets everyone).
    """

    bot_token: SecretStr | None = None
    application_id: str | None = None
    api_url: HttpUrl = "https://discord.com/api/v10"
    guild_id: int | None = None
    shard_count: int = Field(default=1, ge=0)
    subscribe_permission: str = "manage_channels"
    requests_per_second: float = Field(default=45, gt=0)


class GitHubSettings(_Section):
    """GitHub token (optional for public repositories) and API base URL."""

    token: SecretStr | None = None
    api_url: HttpUrl = "https://api.github.com"


SECTIONS = ("http", "delivery", "acks", "schedule", "slack", "discord", "github")
_toml_values: ContextVar[dict[str, Any] | None] = ContextVar("_toml_values", default=None)


class Settings(BaseSettings):
    """Everything the service needs besides the project list (see `digest.config`)."""

    model_config = SettingsConfigDict(
        env_prefix="WIRE_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
        frozen=True,
    )

    config: Path | None = None
    database_url: str = Field(default="sqlite+aiosqlite:///var/wire.db", repr=False)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    platforms: tuple[PlatformName, ...] = ()
    http: HttpSettings = HttpSettings()
    delivery: DeliverySettings = DeliverySettings()
    acks: AckSettings = AckSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    slack: SlackSettings = SlackSettings()
    discord: DiscordSettings = DiscordSettings()
    github: GitHubSettings = GitHubSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = InitSettingsSource(settings_cls, init_kwargs=_toml_values.get() or {})
        return (init_settings, env_settings, dotenv_settings, toml)

    @property
    def database_url_for_display(self) -> str:
        """The database URL with its password hidden, for logs."""
        return make_url(self.database_url).render_as_string(hide_password=True)

    def enabled_platforms(self) -> tuple[PlatformName, ...]:
        """`platforms` if set, else every chat platform whose token is set (else console)."""
        if self.platforms:
            return self.platforms
        found: tuple[PlatformName, ...] = tuple(
            name
            for name, token in (
                ("slack", self.slack.bot_token),
                ("discord", self.discord.bot_token),
            )
            if token is not None
        )
        return found or ("console",)


REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "slack": (("slack", "bot_token"), ("slack", "signing_secret")),
    "discord": (("discord", "bot_token"),),
}


def load_settings(
    *, config: str | Path | None = None, env_file: str | Path | None = ".env", **overrides: Any
) -> Settings:
    """Read the settings; `config` (else WIRE_CONFIG) names the TOML file.

    Raises `SettingsError` with one sentence per missing or wrong setting.
    """
    path = config or os.environ.get("WIRE_CONFIG") or _dotenv(env_file).get("WIRE_CONFIG")
    toml = _read_toml(Path(path)) if path else {}
    token = _toml_values.set(toml)
    try:
        settings = Settings(_env_file=env_file, **({"config": path} if path else {}), **overrides)
    except ValidationError as exc:
        problems = [_sentence(error, toml, path, env_file) for error in exc.errors()]
        raise SettingsError(problems) from None
    except PydanticSettingsError as exc:  # a WIRE_<TABLE> variable that is not JSON
        field = re.search(r'field "(\w+)"', str(exc))
        name = _env_name((field.group(1),)) if field else "WIRE_*"
        raise SettingsError([f"{name}: expected a JSON object of its settings"]) from None
    finally:
        _toml_values.reset(token)
    missing = [
        f"{_env_name(loc)}: required when {name!r} is an enabled platform, but not set"
        for name in settings.enabled_platforms()
        for loc in REQUIRED.get(name, ())
        if getattr(getattr(settings, loc[0]), loc[1]) is None
    ]
    if missing:
        raise SettingsError(missing)
    return settings


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError([f"WIRE_CONFIG: config file {path} does not exist"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError([f"WIRE_CONFIG: config file {path} is not valid TOML: {exc}"]) from None
    values: dict[str, Any] = dict(raw.get("service", {}))
    values.update({name: raw[name] for name in SECTIONS if name in raw})
    return values


def _dotenv(env_file: str | Path | None) -> dict[str, str | None]:
    if env_file is None or not Path(env_file).is_file():
        return {}
    return dotenv_values(env_file)


def _env_name(loc: tuple[Any, ...]) -> str:
    return "WIRE_" + "__".join(str(part).upper() for part in loc)


def _from_toml(loc: tuple[Any, ...], toml: dict[str, Any], env_file: str | Path | None) -> bool:
    name = _env_name(loc)
    in_env = {k.upper() for k in os.environ} | {k.upper() for k in _dotenv(env_file)}
    if any(name == key or name.startswith(key + "__") for key in in_env):
        return False
    node: Any = toml
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _field(loc: tuple[Any, ...]) -> Any:
    """The FieldInfo at `loc` in Settings, or None where loc leaves the models."""
    model: Any = Settings
    found = None
    for part in loc:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        found = model.model_fields.get(str(part))
        if found is None:
            return None
        model = found.annotation
    return found


def _choices(values: tuple[Any, ...]) -> str:
    quoted = [repr(v) for v in values]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else "".join(quoted)


def _expected(field: Any) -> str:
    annotation = field.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is Literal:
        return "one of " + _choices(typing.get_args(annotation))
    if typing.get_origin(annotation) is tuple:
        return "a list of " + _choices(typing.get_args(typing.get_args(annotation)[0]))
    base = {int: "an integer", float: "a number", bool: "true or false", timedelta: DURATION_HINT}
    text = base.get(annotation, "a string")
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    for meta in field.metadata:
        if isinstance(
            meta, annotated_types.Ge | annotated_types.Gt | annotated_types.Le | annotated_types.Lt
        ):
            attr = next(name for name in marks if hasattr(meta, name))
            text += f" {marks[attr]} {getattr(meta, attr):g}"
    return text


def _sentence(error: Any, toml: dict[str, Any], path: Any, env_file: str | Path | None) -> str:
    loc = tuple(part for part in error["loc"] if not isinstance(part, int))
    where = _env_name(loc)
    if toml and _from_toml(loc, toml, env_file):
        in_section = len(loc) > 1 and loc[0] in SECTIONS
        table = f"[{loc[0]}]" if in_section else "[service]"
        key = ".".join(str(part) for part in (loc[1:] if in_section else loc))
        where = f"{key} in {table} of {path}"
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown setting"
    field = _field(loc)
    message = str(error.get("msg", ""))
    if error["type"] == "value_error":
        expected = message.removeprefix("Value error, ").removeprefix("expected ")
    else:
        expected = _expected(field) if field is not None else message
    secret = field is not None and "SecretStr" in str(field.annotation)
    got = "" if secret or "input" not in error else f", got {error['input']!r}"
    return f"{where}: expected {expected}{got}"
