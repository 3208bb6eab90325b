"""The service's Prometheus metrics, served at `/metrics` (see `bot.web.metrics`).

A leaf (it imports only `prometheus_client`). Each service process installs a fresh
`Metrics` on its own `CollectorRegistry` (`install(Metrics())`), so two services in one
process, or two tests, never see each other's counts; the rest of the code counts through
the one-line functions below, which use the installed instance:

    metrics.delivery_settled("slack", "posted", seconds=1.8)
    metrics.rate_limited("discord")
    with metrics.composing():
        story = compose(...)

Label values are bounded: platforms and outcomes come from fixed sets, and any other label
keeps at most `MAX_LABEL_VALUES` distinct values before folding the rest into "other". No
channel, user or story id is ever a label.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

PLATFORMS = frozenset({"slack", "discord", "console"})
OUTCOMES = frozenset({"posted", "failed", "dead"})
MAX_LABEL_VALUES = 32
COMPOSE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
DELIVERY_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900)


class _Bounded:
    """Label values of one label: a fixed set, or the first `MAX_LABEL_VALUES` seen."""

    def __init__(self, allowed: frozenset[str] | None = None) -> None:
        self.allowed = allowed
        self.seen: set[str] = set()

    def __call__(self, value: str) -> str:
        value = str(value)[:64]
        if self.allowed is not None:
            return value if value in self.allowed else "other"
        if value in self.seen or len(self.seen) < MAX_LABEL_VALUES:
            self.seen.add(value)
            return value
        return "other"


class Metrics:
    """Every metric of one service process, on its own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry = registry or CollectorRegistry()
        self.platform = _Bounded(PLATFORMS)
        self.outcome = _Bounded(OUTCOMES)
        self.event = _Bounded()
        self.event_outcome = _Bounded()
        self.stories_composed = Counter(
            "wire_stories_composed", "Stories composed.", registry=registry
        )
        self.compose_seconds = Histogram(
            "wire_compose_seconds",
            "Time to gather a window's activity and compose its story.",
            buckets=COMPOSE_BUCKETS,
            registry=registry,
        )
        self.outbox = Gauge(
            "wire_outbox_deliveries",
            "Deliveries in the outbox, by state (read from the store on each scrape).",
            ["state"],
            registry=registry,
        )
        self.deliveries = Counter(
            "wire_deliveries",
            "Delivery attempts settled, by platform and outcome: posted (every part is up), "
            "failed (to be retried) or dead (given up).",
            ["platform", "outcome"],
            registry=registry,
        )
        self.rate_limits = Counter(
            "wire_rate_limited",
            "429 (rate limited) answers from a chat platform.",
            ["platform"],
            registry=registry,
        )
        self.delivery_seconds = Histogram(
            "wire_delivery_seconds",
            "Time from claiming a delivery to its last part posted.",
            ["platform"],
            buckets=DELIVERY_BUCKETS,
            registry=registry,
        )
        self.acks = Counter(
            "wire_acks", "Acknowledgements recorded (new ones).", ["platform"], registry=registry
        )
        self.reminders = Counter(
            "wire_reminders_sent",
            "Reminders posted about unacknowledged [immediate] items.",
            ["platform"],
            registry=registry,
        )
        self.leader = Gauge(
            "wire_leader", "1 while this process holds the scheduling lock.", registry=registry
        )
        self.unhealthy = Gauge(
            "wire_unhealthy",
            "1 while a part of the process is unwell (database, scheduler, discord); "
            "/healthz says why.",
            ["part"],
            registry=registry,
        )
        self.webhook_events = Counter(
            "wire_webhook_events",
            "GitHub webhook deliveries received, by event and outcome.",
            ["event", "outcome"],
            registry=registry,
        )


_active = Metrics()


def active() -> Metrics:
    """The installed metrics (a process-wide default until a service installs its own)."""
    return _active


def install(metrics: Metrics) -> Metrics:
    """Make `metrics` the one the functions below count into; returns it."""
    global _active
    _active = metrics
    return metrics


def render(metrics: Metrics | None = None) -> tuple[bytes, str]:
    """The Prometheus text exposition of `metrics` (default: the installed one) and its
    content type."""
    return generate_latest((metrics or _active).registry), CONTENT_TYPE_LATEST


@contextmanager
def composing() -> Iterator[None]:
    """Time one composition; counts a story composed when the block ends without error."""
    started = time.perf_counter()
    yield
    _active.compose_seconds.observe(time.perf_counter() - started)
    _active.stories_composed.inc()


def delivery_settled(platform: str, outcome: str, *, seconds: float | None = None) -> None:
    """A delivery attempt ended: "posted", "failed" (retried later) or "dead"; `seconds`
    (from claim to last part) is observed for posted ones."""
    m = _active
    label = m.platform(platform)
    m.deliveries.labels(platform=label, outcome=m.outcome(outcome)).inc()
    if seconds is not None:
        m.delivery_seconds.labels(platform=label).observe(seconds)


def rate_limited(platform: str) -> None:
    """A chat platform answered 429."""
    _active.rate_limits.labels(platform=_active.platform(platform)).inc()


def ack_recorded(platform: str) -> None:
    """Someone acknowledged an action item (a first ack by that user)."""
    _active.acks.labels(platform=_active.platform(platform)).inc()


def reminders_sent(platform: str, count: int = 1) -> None:
    """`count` reminders were posted on `platform`."""
    if count:
        _active.reminders.labels(platform=_active.platform(platform)).inc(count)


def health(part: str, ok: bool) -> None:
    """A part of the process became unwell, or well again (see `bot.chat.adapters.Health`)."""
    _active.unhealthy.labels(part=_active.event(part)).set(0 if ok else 1)


def leadership(held: bool) -> bool:
    """Whether this process leads the scheduling; returns `held` (to use inline)."""
    _active.leader.set(1 if held else 0)
    return held


def webhook_event(event: str, outcome: str = "accepted") -> None:
    """A GitHub webhook delivery of `event` arrived and was `outcome` (accepted, ignored,
    refused, …)."""
    m = _active
    m.webhook_events.labels(event=m.event(event), outcome=m.event_outcome(outcome)).inc()


def outbox_depth(counts: Mapping[str, int]) -> None:
    """Set the outbox gauge from deliveries counted by state."""
    for state, count in counts.items():
        _active.outbox.labels(state=state).set(count)
