"""Plain, frozen records the store returns; callers never hold database rows or sessions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Subscription:
    """A channel follows a repository, a topic, or a topic within a repository; `kind` says
    what of it: "all", or only its "releases" or "security" fixes (see `KINDS`)."""

    id: int
    platform: str
    workspace: str
    channel: str
    repo: str | None
    topic: str | None
    excludes: tuple[str, ...]
    created_by: str
    created_at: datetime
    kind: str = "all"


# What a subscription follows: everything (digests and bulletins), or a story as each
# release, or each security fix, lands (no digest).
KINDS = ("all", "releases", "security")


@dataclass(frozen=True, slots=True)
class ChannelSettings:
    """A channel's own schedule and state; None means "use the service default"."""

    platform: str
    workspace: str
    channel: str
    schedule: str | None = None
    timezone: str | None = None
    muted_until: datetime | None = None
    last_window_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """A delivery a worker has claimed; `attempts` counts this attempt too."""

    id: int
    story_id: str
    platform: str
    workspace: str
    channel: str
    attempts: int


@dataclass(frozen=True, slots=True)
class Enqueued:
    """The outcome of an enqueue: the delivery's id and whether this call created it."""

    id: int
    created: bool
    state: str


@dataclass(frozen=True, slots=True)
class PostedPart:
    """A part the platform accepted; the part at index 0 is the thread's parent."""

    part_index: int
    message_id: str
    thread_id: str | None
    item_id: str | None
    posted_at: datetime


@dataclass(frozen=True, slots=True)
class DeliveryInfo:
    """One delivery as `wire deliveries` lists it."""

    id: int
    story_id: str
    headline: str
    platform: str
    workspace: str
    channel: str
    state: str
    attempts: int
    parts_posted: int
    next_attempt_at: datetime
    last_error: str | None
    created_at: datetime
    delivered_at: datetime | None


@dataclass(frozen=True, slots=True)
class Ack:
    """Someone acknowledged an action item."""

    item_id: str
    platform: str
    channel: str
    user_id: str
    user_name: str
    acked_at: datetime


@dataclass(frozen=True, slots=True)
class AckResult:
    """`new` is False when this user had already acknowledged; `acks` are all, oldest first."""

    new: bool
    acks: tuple[Ack, ...]


@dataclass(frozen=True, slots=True)
class ItemMessage:
    """Where an action item was posted, so an ack or a reminder can find its message."""

    delivery_id: int
    story_id: str
    item_id: str
    platform: str
    workspace: str
    channel: str
    part_index: int
    message_id: str
    thread_id: str | None
    posted_at: datetime
