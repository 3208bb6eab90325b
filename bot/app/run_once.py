"""What `wire run --once` says when it ends, and the exit status that says work remains.

    due channels: 2, stories composed: 2, deliveries queued: 50, delivered: 47, reminders: 0
    3 pending: rate limited, next attempt 05:41

Exit status 0 means the outbox holds nothing this run could have sent; 75 (EX_TEMPFAIL, from
sysexits.h) means some deliveries wait for a retry: run again after the time shown (a cron
job's next run does) and they complete where they stopped, each part posted once.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from bot.schedule.scheduler import RunReport
from bot.store import DeliveryInfo, Store

EX_TEMPFAIL = 75
_REASONS = (  # the words of the platforms' RetryableErrors → what a person reads
    ("rate limited", "rate limited"),
    ("HTTP 5", "server error"),
    ("did not complete", "no answer from the platform"),
    ("not logged in", "not logged in yet"),
)


def summary(report: RunReport) -> str:
    """The one-line account of the run."""
    return (
        f"due channels: {report.due}, stories composed: {report.composed}, "
        f"deliveries queued: {report.enqueued}, delivered: {report.delivered.delivered}, "
        f"reminders: {report.reminders}"
    )


def reason_of(error: str | None) -> str:
    """Why a delivery waits, in a few words, from its last error."""
    for needle, words in _REASONS:
        if error and needle in error:
            return words
    return "retrying after an error" if error else "not tried yet"


def _when(moment: datetime, now: datetime) -> str:
    moment = moment.astimezone(UTC)
    same_day = moment.date() == now.astimezone(UTC).date()
    return moment.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M") + ("" if same_day else " UTC")


def pending_line(pending: list[DeliveryInfo], *, now: datetime) -> str | None:
    """ "3 pending: rate limited, next attempt 05:41", or None when nothing is pending."""
    if not pending:
        return None
    reasons = Counter(reason_of(info.last_error) for info in pending)
    why = ", ".join(
        reason if len(reasons) == 1 else f"{count} {reason}"
        for reason, count in reasons.most_common()
    )
    soonest = min(info.next_attempt_at for info in pending)
    return f"{len(pending)} pending: {why}, next attempt {_when(soonest, now)}"


async def outcome(store: Store, report: RunReport) -> tuple[list[str], int]:
    """The lines to print after a run and its exit status (0, or EX_TEMPFAIL when
    deliveries are still pending)."""
    waiting = await store.listing.list(state="pending", limit=10_000)
    lines = [summary(report)]
    line = pending_line(waiting, now=datetime.now(UTC))
    if line is not None:
        lines.append(line)
    return lines, EX_TEMPFAIL if waiting else 0
