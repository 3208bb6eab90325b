"""Service settings: environment (prefix WIRE_, nesting "__"), `.env`, then the TOML file.

Precedence, highest first: keyword arguments, environment, `.env`, the TOML file given by
`--config` / WIRE_CONFIG, defaults. The TOML file is shared with `digest.config`: these
settings read [service] (the top-level keys), their sections ([delivery], [acks],
[schedule], [slack], [discord], [github], [demo], …) and [[subscriptions]], and leave
[[projects]], [digest] and [prose] to `WireConfig`.

The file is read strictly: a table neither model declares, or a key its section does not
declare, is refused at start with the closest known name ("[service] first_lookbak:
unknown key in config/x.toml; did you mean first_lookback?"). Every problem becomes one
sentence naming the key and what it expects, e.g. "WIRE_DELIVERY__MAX_ATTEMPTS: expected an
integer ≥ 1, got 'x'" (see `bot.config_errors`). Tokens are `SecretStr`: never in `repr`,
logs or error messages.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values
from pydantic import BaseModel, Field, SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings import SettingsError as PydanticSettingsError
from sqlalchemy.engine import make_url

from bot.config_errors import (
    closest,
    env_name,
    from_file,
    model_of,
    read_toml,
    sentence,
    unknown_keys,
)
from bot.errors import SettingsError
from bot.settings_sections import (
    AckSettings,
    DeliverySettings,
    DemoSettings,
    DiscordSettings,
    Duration,
    GitHubSettings,
    HttpSettings,
    LogSettings,
    PlatformName,
    RealtimeSettings,
    ScheduleSettings,
    SlackSettings,
    SubscribingSettings,
    SubscriptionSeed,
    WebSettings,
)
from digest.config import WireConfig

_toml_values: ContextVar[dict[str, Any] | None] = ContextVar("_toml_values", default=None)


class Settings(BaseSettings):
    """Everything the service needs besides the project list (see `digest.config`).

    The fields up to `heartbeat_file` are the [service] table (WIRE_<KEY>); each model field
    after them is a table of its own (WIRE_<TABLE>__<KEY>, or WIRE_<TABLE> as JSON).
    """

    # "ignore", unlike the sections' "forbid": the environment and `.env` are shared with
    # other programs (WIRE_CONFIG, WIRE_PROSE_API_KEY, …). The file's [service] table is
    # checked key by key instead (see `load_settings`).
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
    # The first digest of a channel looks back this far (later ones start where it ended).
    first_lookback: Duration = timedelta(days=1)
    # Post the "no news" story of a quiet window, or nothing?
    deliver_no_news: bool = False
    # A digest lists the [immediate] items nobody acknowledged within this long.
    carry_unacked_for: Duration = timedelta(days=7)
    # A scheduled run missed (the process was down) by less than this still fires, once.
    misfire_grace: Duration = timedelta(hours=1)
    # How often the scheduler's pass runs: leadership, channel schedules, due work, reminders.
    tick_interval: Duration = timedelta(minutes=1)
    # Where `wire run` writes its heartbeat for `wire health`; default: beside the SQLite
    # database, else var/heartbeat.json (see `bot.app.heartbeat`).
    heartbeat_file: Path | None = None
    http: HttpSettings = HttpSettings()
    delivery: DeliverySettings = DeliverySettings()
    acks: AckSettings = AckSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    slack: SlackSettings = SlackSettings()
    discord: DiscordSettings = DiscordSettings()
    github: GitHubSettings = GitHubSettings()
    realtime: RealtimeSettings = RealtimeSettings()
    subscribing: SubscribingSettings = SubscribingSettings()  # open subscriptions from chat
    web: WebSettings = WebSettings()
    log: LogSettings = LogSettings()
    demo: DemoSettings = DemoSettings()
    subscriptions: tuple[SubscriptionSeed, ...] = ()  # [[subscriptions]]

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

    def now(self) -> datetime:
        """Where windows end: the demo's fixed instant if set, else the current time (UTC)."""
        return self.demo.now.astimezone(UTC) if self.demo.now else datetime.now(UTC)

    @property
    def seeds(self) -> tuple[tuple[str, SubscriptionSeed], ...]:
        """Every subscription of the file with the table it came from, once each."""
        found = [("subscriptions", seed) for seed in self.subscriptions]
        found += [("demo.subscriptions", seed) for seed in self.demo.subscriptions]
        first: dict[SubscriptionSeed, str] = {}  # a seed → the table it came from first
        for table, seed in found:
            first.setdefault(seed, table)
        return tuple((table, seed) for seed, table in first.items())

    def enabled_platforms(self) -> tuple[PlatformName, ...]:
        """`platforms` if set, else every chat platform whose token is set (else console)."""
        if self.platforms:
            return self.platforms
        tokens: dict[PlatformName, SecretStr | None] = {
            "slack": self.slack.bot_token,
            "discord": self.discord.bot_token,
        }
        found = tuple(name for name, token in tokens.items() if token is not None)
        return found or ("console",)


# The tables of the file: [service] (the settings' own keys), each section of the settings,
# and what `digest.config.WireConfig` reads ([[projects]], [digest], [prose], …).
SECTIONS = tuple(
    name for name, info in Settings.model_fields.items() if model_of(info.annotation)[0]
)
REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "slack": (("slack", "bot_token"), ("slack", "signing_secret")),
    "discord": (("discord", "bot_token"),),
}
# A required setting that another one makes needless → (that one, the mode it is required
# in, what the sentence adds). Socket Mode's requests come over the WebSocket the app opens
# with its app-level token, so none is signed and there is no signing secret to check.
REQUIRED_UNLESS: dict[tuple[str, str], tuple[tuple[str, str], str, str]] = {
    ("slack", "signing_secret"): (
        ("slack", "app_token"),
        " in HTTP mode",
        " (Socket Mode, with WIRE_SLACK__APP_TOKEN, needs none)",
    ),
}


def file_tables() -> dict[str, tuple[type[BaseModel], set[str]] | None]:
    """Every table the shared file may hold → (model, its fields the table does not hold),
    or None for WireConfig's tables, whose keys `digest.config` checks."""
    tables: dict[str, tuple[type[BaseModel], set[str]] | None] = {
        "service": (Settings, set(SECTIONS))
    }
    for name in SECTIONS:
        model = model_of(Settings.model_fields[name].annotation)[0]
        assert model is not None
        tables[name] = (model, set())
    tables.update({name: None for name in WireConfig.model_fields})
    return tables


def load_settings(
    *,
    config: str | Path | None = None,
    env_file: str | Path | None = ".env",
    config_origin: str = "--config",
    require_tokens: bool = True,
    **overrides: Any,
) -> Settings:
    """Read the settings; `config` (else WIRE_CONFIG) names the file, and `config_origin`
    says where that name came from in error sentences. `require_tokens=False` is for
    commands that talk to no chat platform (`wire deliveries`, `wire db upgrade`).

    Raises `SettingsError` with one sentence per unknown, missing or wrong setting.
    """
    dotenv = _dotenv(env_file)
    path: str | Path | None
    if config:
        path, origin = config, config_origin
    elif os.environ.get("WIRE_CONFIG"):
        path, origin = os.environ["WIRE_CONFIG"], "WIRE_CONFIG"
    else:
        path, origin = dotenv.get("WIRE_CONFIG"), f"WIRE_CONFIG in {env_file}"
    raw = read_toml(Path(path), origin) if path else {}
    problems = unknown_keys(raw, tables=file_tables(), path=path or "")
    problems += unknown_environment([*os.environ, *dotenv])
    toml: dict[str, Any] = dict(raw.get("service", {}))
    toml.update({name: raw[name] for name in SECTIONS if name in raw})
    token = _toml_values.set(toml)
    settings = None
    try:
        fields: dict[str, Any] = {"config": path} if path else {}
        settings = Settings(_env_file=env_file, **fields, **overrides)  # type: ignore[call-arg]  # BaseSettings.__init__ takes _env_file; pydantic's dataclass_transform shows mypy the fields only
    except ValidationError as exc:
        for error in exc.errors():
            in_toml = bool(toml) and from_file(error["loc"], toml, dotenv)
            if not (in_toml and error["type"] == "extra_forbidden"):  # said above
                problems.append(
                    sentence(error, root=Settings, sections=SECTIONS, from_file=in_toml, path=path)
                )
    except PydanticSettingsError as exc:  # a WIRE_<TABLE> variable that is not JSON
        field = re.search(r'field "(\w+)"', str(exc))
        name = env_name((field.group(1),)) if field else "WIRE_*"
        problems.append(f"{name}: expected a JSON object of its settings")
    finally:
        _toml_values.reset(token)
    if problems or settings is None:
        raise SettingsError(problems)
    missing = require_tokens and _missing_required(settings)
    if missing:
        raise SettingsError(missing)
    return settings


def _missing_required(settings: Settings) -> list[str]:
    """One sentence for each setting an enabled platform needs (`REQUIRED`) that is not set."""

    def value(loc: tuple[str, str]) -> Any:
        return getattr(getattr(settings, loc[0]), loc[1])

    missing = []
    for name in settings.enabled_platforms():
        for loc in REQUIRED.get(name, ()):
            unless, mode, note = REQUIRED_UNLESS.get(loc, (None, "", ""))
            if value(loc) is None and (unless is None or value(unless) is None):
                missing.append(
                    f"{env_name(loc)}: required when {name!r} is an enabled platform{mode}, "
                    f"but not set{note}"
                )
    return missing


# WIRE_ names that are not settings: read by the Wire's other parts and its own tooling.
OTHER_NAMES = frozenset({"WIRE_CONFIG", "WIRE_CACHE_DIR", "WIRE_PROSE_API_KEY", "WIRE_CHROMIUM"})
OTHER_PREFIXES = ("WIRE_TEST_", "WIRE_PG_")  # the test suite's and CI's


def environment_names(model: type[BaseModel] = Settings, prefix: str = "WIRE_") -> set[str]:
    """Every environment name that sets something of `model`: WIRE_<KEY> for the [service]
    keys, WIRE_<TABLE> (as JSON) and WIRE_<TABLE>__<KEY> for the tables, deeper alike."""
    names = set()
    for name, info in model.model_fields.items():
        own = prefix + (info.alias or name).upper()
        names.add(own)
        inner, many = model_of(info.annotation)
        if inner is not None and not many:
            names |= environment_names(inner, own + "__")
    return names


def unknown_environment(names: list[str]) -> list[str]:
    """One sentence for each WIRE_ name that sets nothing, with the nearest real name: a
    misspelt WIRE_SERVICE__DATABASE_URL is refused rather than silently ignored."""
    known = environment_names()

    def nearest(name: str) -> str:
        near = closest(name.upper(), known)
        return f"did you mean {near}?" if near else "config/wire.example.toml lists the settings"

    return [
        f"{name}: not a setting of the Wire; {nearest(name)}"
        for name in sorted(set(names))
        if name.upper().startswith("WIRE_")
        and name.upper() not in known
        and name.upper() not in OTHER_NAMES
        and not name.upper().startswith(OTHER_PREFIXES)
    ]


def _dotenv(env_file: str | Path | None) -> dict[str, str | None]:
    if env_file is None or not Path(env_file).is_file():
        return {}
    return dotenv_values(env_file)
