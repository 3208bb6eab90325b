"""Crontab specs with standard cron semantics on APScheduler 3.

APScheduler 3's `CronTrigger.from_crontab` numbers weekdays from Monday = 0, so the
crontab "0 9 * * 1-5" would fire Tuesday to Saturday. `trigger_for` rewrites numeric
weekdays into names (0 and 7 = Sunday, 1 = Monday, as cron means them) first.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apscheduler.triggers.cron import CronTrigger

_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_STEPS = 20_000


def _weekday_element(element: str) -> str:
    body, _, step = element.partition("/")
    low, dash, high = body.partition("-")
    if not (low.isdigit() and (not dash or high.isdigit())):
        return element
    first, last = int(low), int(high) if dash else int(low)
    if not (0 <= first <= 7 and 0 <= last <= 7) or first > last:
        raise ValueError(f"day of week {element!r} is outside 0-7")
    numbers = range(first, last + 1, int(step) if step.isdigit() and int(step) > 0 else 1)
    return ",".join(dict.fromkeys(_NAMES[n] for n in numbers))


def standard_crontab(spec: str) -> str:
    """`spec` with numeric days of week turned into names, so APScheduler reads them as
    cron does (0 and 7 are Sunday)."""
    fields = spec.split()
    if len(fields) != 5:
        raise ValueError(f"{spec!r} is not a five-field crontab")
    fields[4] = ",".join(_weekday_element(e) for e in fields[4].split(","))
    return " ".join(fields)


def trigger_for(spec: str, *, timezone: str) -> CronTrigger:
    """An APScheduler cron trigger for a standard five-field crontab in `timezone`."""
    return CronTrigger.from_crontab(standard_crontab(spec), timezone=timezone)


def next_fire(trigger: CronTrigger, *, after: datetime) -> datetime | None:
    """The first fire time strictly after `after`."""
    fire: datetime | None = trigger.get_next_fire_time(None, after + timedelta(microseconds=1))
    return fire


def last_fire(trigger: CronTrigger, *, after: datetime, until: datetime) -> datetime | None:
    """The latest fire time in (after, until], or None when the trigger does not fire there."""
    found = None
    moment = next_fire(trigger, after=after)
    for _ in range(MAX_STEPS):
        if moment is None or moment > until:
            return found
        found = moment
        moment = next_fire(trigger, after=moment)
    return until
