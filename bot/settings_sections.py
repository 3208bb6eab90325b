"""The sections of the service's settings: one model a table of the configuration file.

A leaf (rank 0) that `bot.settings` assembles into `Settings`: [delivery], [acks],
[schedule], [http], [slack], [discord], [github], [realtime], [subscribing], [web], [log],
[demo] and the entries of [[subscriptions]]. Every section is frozen and refuses keys it
does not declare; a duration needs its unit ("90s", "30m", "1h30m", "7d", "2w") and a URL
must be http(s). Import a section from here, where it is defined.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    model_validator,
)

from bot.config_errors import cron_spec, http_url, positive, setting_duration, timezone_name

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
    when something needs it: an adapter that serves HTTP, the webhook receiver or the archive.

    It listens on `host`, loopback unless the configuration names another address (the
    container image sets 0.0.0.0). At most `max_connections` connections are open at once:
    one more is answered 503 and closed. A connection that has not sent a request's headers
    `header_timeout` seconds after it opened or after its last answer is closed; a request
    whose body and answer take longer than `request_timeout` seconds is answered 408.
    """

    host: str = "127.0.0.1"
    port: int = Field(default=3000, ge=0, le=65535)
    max_connections: int = Field(default=1000, ge=1)
    header_timeout: float = Field(default=10.0, gt=0)
    request_timeout: float = Field(default=20.0, gt=0)


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

    At most `webhook_concurrency` delivery bodies are read at once, each of at most
    `webhook_max_body` bytes (GitHub's own cap, 25 MB, by default); a delivery that finds
    no place within `webhook_wait` seconds is answered 503 with Retry-After.
    """

    path: str = Field(default="/github/webhook", pattern=r"^/\S*$")
    webhook_max_body: int = Field(default=25 * 1024 * 1024, ge=1, le=25 * 1024 * 1024)
    webhook_concurrency: int = Field(default=2, ge=1)
    webhook_wait: float = Field(default=1.0, ge=0)
    poll_interval: Duration = timedelta(minutes=2)
    polling: bool = True
    webhook_fresh_for: Duration = timedelta(hours=6)
    max_age: Duration = timedelta(hours=1)
    max_attempts: int = Field(default=8, ge=1)


class SubscribingSettings(_Section):
    """Open subscriptions: `/wire subscribe OWNER/REPO` for a repository nobody configured.

    `open = "public"` lets a channel follow any public, unarchived repository GitHub
    shows (checked with `GET /repos/{owner}/{repo}`); `"config"` keeps to the configured
    projects. `allow_owners` (when not empty) and `deny_owners` name the GitHub owners
    that may or may not be followed so. `per_channel` caps the repositories one channel
    follows, `total` the repositories added from chat; one no channel followed for
    `drop_after` is dropped.
    """

    open: Literal["public", "config"] = "public"
    allow_owners: tuple[str, ...] = ()
    deny_owners: tuple[str, ...] = ()
    per_channel: int = Field(default=25, ge=1)
    total: int = Field(default=500, ge=0)
    drop_after: Duration = timedelta(days=30)

    def owner_refused(self, owner: str) -> str | None:
        """The setting that keeps `owner`'s repositories out, or None when it may come in."""
        folded = owner.lower()
        if folded in {o.lower() for o in self.deny_owners}:
            return "deny_owners"
        if self.allow_owners and folded not in {o.lower() for o in self.allow_owners}:
            return "allow_owners"
        return None


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
