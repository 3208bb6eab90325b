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
from typing import Annotated, Any, Literal

from dotenv import dotenv_values
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings import SettingsError as PydanticSettingsError
from sqlalchemy.engine import make_url

from bot.config_errors import (
    cron_spec,
    env_name,
    from_file,
    http_url,
    model_of,
    parse_duration,
    positive,
    read_toml,
    sentence,
    setting_duration,
    timezone_name,
    unknown_keys,
)
from bot.errors import SettingsError
from digest.config import WireConfig

__all__ = ["Duration", "HttpUrl", "Settings", "load_settings", "parse_duration"]
PlatformName = Literal["slack", "discord", "console"]
Duration = Annotated[timedelta, BeforeValidator(setting_duration), AfterValidator(positive)]
HttpUrl = Annotated[str, AfterValidator(http_url)]


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

    default_cron: Annotated[str, AfterValidator(cron_spec)] = "0 9 * * 1-5"
    max_lookback: Duration = timedelta(days=7)
    timezone: Annotated[str, AfterValidator(timezone_name)] = "UTC"


class HttpSettings(_Section):
    """The service's web server: Slack's events, commands and interactivity (HTTP mode),
    GitHub's webhooks, the story archive ([web]), `/metrics` and `/healthz`. It starts only
    when something needs it: an adapter that serves HTTP, the webhook receiver or the archive."""

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
    """GitHub token (optional for public repositories), API base URL, and the secret GitHub
    signs webhook deliveries with (unset: no webhook receiver; see `bot.realtime`)."""

    token: SecretStr | None = None
    api_url: HttpUrl = "https://api.github.com"
    webhook_secret: SecretStr | None = None


class RealtimeSettings(_Section):
    """Bulletins: [immediate] items sent as they land (see `bot.realtime`).

    GitHub POSTs webhook deliveries to `path` on the service's web server (when
    [github] webhook_secret is set). A repository whose webhook delivered nothing for
    `webhook_fresh_for` is polled every `poll_interval` instead (unless `polling` is off).
    A change that landed longer than `max_age` ago is left to the digest.
    """

    path: str = Field(default="/github/webhook", pattern=r"^/\S*$")
    poll_interval: Duration = timedelta(minutes=2)
    polling: bool = True
    webhook_fresh_for: Duration = timedelta(hours=6)
    max_age: Duration = timedelta(hours=1)
    max_attempts: int = Field(default=8, ge=1)


class WebSettings(_Section):
    """The story archive on the service's web server (see `bot.web`).

    `enabled` serves it (and so starts the web server); `public_url` is where readers reach
    it, and each posted story's parent message links to its page there (unset: no link).
    Stories of a project marked `private = true` are listed and served only to a reader
    holding `token`. `/metrics` is served on the same server when `metrics` is on.
    """

    enabled: bool = False
    public_url: HttpUrl | None = None
    token: SecretStr | None = None
    page_size: int = Field(default=20, ge=1, le=200)
    metrics: bool = True


class LogSettings(_Section):
    """How the service logs: `text` lines for a terminal, or `json` lines (time, level,
    logger, event and the delivery, story and channel ids where known; see `bot.logs`)."""

    format: Literal["text", "json"] = "text"


class SubscriptionSeed(_Section):
    """A subscription kept as code: created at start when missing (idempotent), the same as
    `/wire subscribe TARGET -EXCLUDE…` typed in that channel.

    `workspace` is the Slack team id (T…) or the Discord server id; the console's is
    "local". `target` is what `/wire subscribe` takes: an alias, owner/repo, topic:NAME or
    "owner/repo topic:NAME"; `exclude` holds "author:NAME" and "topic:NAME" entries.
    """

    platform: PlatformName = "console"
    workspace: str = "local"
    channel: str = Field(min_length=1)
    target: str = Field(min_length=1)
    exclude: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _workspace_named(self) -> SubscriptionSeed:
        if self.platform != "console" and self.workspace == "local":
            raise ValueError(f"a {self.platform} subscription needs its workspace id")
        return self

    def command(self) -> str:
        """The `/wire subscribe …` command that creates it."""
        return " ".join(["/wire subscribe", self.target, *(f"-{x}" for x in self.exclude)])


class DemoSettings(_Section):
    """The bundled demo's fixed clock (its data was recorded in May 2026).

    With `now` set, every window ends at that instant instead of at the wall-clock time, so
    the demo tells the same story on any day. `subscriptions` is the older spelling of the
    top-level [[subscriptions]] table, still read.
    """

    now: AwareDatetime | None = None
    subscriptions: tuple[SubscriptionSeed, ...] = ()


_toml_values: ContextVar[dict[str, Any] | None] = ContextVar("_toml_values", default=None)


class Settings(BaseSettings):
    """Everything the service needs besides the project list (see `digest.config`).

    The fields up to `misfire_grace` are the [service] table (WIRE_<KEY>); each model field
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
    http: HttpSettings = HttpSettings()
    delivery: DeliverySettings = DeliverySettings()
    acks: AckSettings = AckSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    slack: SlackSettings = SlackSettings()
    discord: DiscordSettings = DiscordSettings()
    github: GitHubSettings = GitHubSettings()
    realtime: RealtimeSettings = RealtimeSettings()
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
        seen: set[SubscriptionSeed] = set()
        return tuple((t, s) for t, s in found if not (s in seen or seen.add(s)))

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


# The tables of the file: [service] (the settings' own keys), each section of the settings,
# and what `digest.config.WireConfig` reads ([[projects]], [digest], [prose], …).
SECTIONS = tuple(
    name for name, info in Settings.model_fields.items() if model_of(info.annotation)[0]
)
REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "slack": (("slack", "bot_token"), ("slack", "signing_secret")),
    "discord": (("discord", "bot_token"),),
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
    if config:
        path, origin = config, config_origin
    elif os.environ.get("WIRE_CONFIG"):
        path, origin = os.environ["WIRE_CONFIG"], "WIRE_CONFIG"
    else:
        path, origin = dotenv.get("WIRE_CONFIG"), f"WIRE_CONFIG in {env_file}"
    raw = read_toml(Path(path), origin) if path else {}
    problems = unknown_keys(raw, tables=file_tables(), path=path or "")
    toml: dict[str, Any] = dict(raw.get("service", {}))
    toml.update({name: raw[name] for name in SECTIONS if name in raw})
    token = _toml_values.set(toml)
    settings = None
    try:
        settings = Settings(_env_file=env_file, **({"config": path} if path else {}), **overrides)
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
    missing = require_tokens and [
        f"{env_name(loc)}: required when {name!r} is an enabled platform, but not set"
        for name in settings.enabled_platforms()
        for loc in REQUIRED.get(name, ())
        if getattr(getattr(settings, loc[0]), loc[1]) is None
    ]
    if missing:
        raise SettingsError(missing)
    return settings


def _dotenv(env_file: str | Path | None) -> dict[str, str | None]:
    if env_file is None or not Path(env_file).is_file():
        return {}
    return dotenv_values(env_file)
