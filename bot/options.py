"""What the scheduler, the commands and escalation need to know, in one frozen record.

Most values come from `bot.settings.Settings` ([schedule], [acks]); the rest from two
tables of the configuration file that the settings do not read:

    [service]
    first_lookback = "1d"        # the first digest of a channel looks back this far
    deliver_no_news = false      # post the "no news" story of a quiet window?
    carry_unacked_for = "7d"     # list unacknowledged [immediate] items this long
    misfire_grace = "1h"         # a run missed by less than this still fires (coalesced)

    [demo]
    now = "2026-05-27T00:00:00Z" # windows end here instead of at the wall-clock time
    [[demo.subscriptions]]
    platform = "console"  channel = "demo"  target = "executorch"

`[demo] now` exists for the bundled demo data (recorded in May 2026): with it, every
window ends at that instant, so the demo tells the same story on any day it is run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, ValidationError

from bot.errors import SettingsError
from bot.settings import Settings, parse_duration
from digest.config import WireConfig


class SeedSubscription(BaseModel):
    """A subscription the service creates at start when it is missing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    platform: str = "console"
    workspace: str = "local"
    channel: str
    target: str


class _ServiceTable(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    first_lookback: timedelta = timedelta(days=1)
    deliver_no_news: bool = False
    carry_unacked_for: timedelta = timedelta(days=7)
    misfire_grace: timedelta = timedelta(hours=1)


class _DemoTable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    now: AwareDatetime | None = None
    subscriptions: tuple[SeedSubscription, ...] = ()


@dataclass(frozen=True, slots=True)
class Options:
    """Knobs of scheduling, composing and escalation (see the module docstring)."""

    default_cron: str = "0 9 * * 1-5"
    timezone: str = "UTC"
    max_lookback: timedelta = timedelta(days=7)
    first_lookback: timedelta = timedelta(days=1)
    deliver_no_news: bool = False
    carry_unacked_for: timedelta = timedelta(days=7)
    misfire_grace: timedelta = timedelta(hours=1)
    reminder_after: timedelta = timedelta(minutes=30)
    oncall: dict[str, str | None] = field(default_factory=dict)
    fixed_now: datetime | None = None
    seeds: tuple[SeedSubscription, ...] = ()

    def now(self) -> datetime:
        """Where windows end: the fixed demo instant, else the current time (UTC)."""
        return self.fixed_now if self.fixed_now is not None else datetime.now(UTC)


def _durations(raw: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: parse_duration(v) if k in names else v for k, v in raw.items()}


def options_from(*, settings: Settings, config: WireConfig) -> Options:
    """Options from the settings and the [service]/[demo] tables of the configuration."""
    extra = config.model_extra or {}
    try:
        service = _ServiceTable.model_validate(
            _durations(
                dict(extra.get("service") or {}),
                ("first_lookback", "carry_unacked_for", "misfire_grace"),
            )
        )
        demo = _DemoTable.model_validate(extra.get("demo") or {})
    except (ValidationError, ValueError) as exc:
        raise SettingsError([f"[service] or [demo] of the configuration: {exc}"]) from None
    return Options(
        default_cron=settings.schedule.default_cron,
        timezone=settings.schedule.timezone,
        max_lookback=settings.schedule.max_lookback,
        first_lookback=service.first_lookback,
        deliver_no_news=service.deliver_no_news,
        carry_unacked_for=service.carry_unacked_for,
        misfire_grace=service.misfire_grace,
        reminder_after=settings.acks.reminder_after,
        oncall=settings.acks.oncall.model_dump(),
        fixed_now=demo.now.astimezone(UTC) if demo.now else None,
        seeds=demo.subscriptions,
    )
