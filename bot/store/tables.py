"""The tables of the store, as typed declarative models (the migrations create them).

Identity rules from DESIGN.md are constraints here: a delivery is unique on (story,
platform, channel), a posted part on (delivery, part index), an ack on (item, channel,
user), a reminder on (item, channel).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.store.types import UTCDateTime, utcnow

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

DELIVERY_STATES = ("pending", "in_progress", "delivered", "dead")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime(), list[str]: JSON}


class SubscriptionRow(Base):
    """A channel's subscription to a repository, a topic, or both; `kind` is what of it the
    channel follows: "all" (digests and bulletins), "releases" or "security" (a story as
    each lands, no digest)."""

    __tablename__ = "subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    channel: Mapped[str] = mapped_column(String(128))
    repo: Mapped[str | None] = mapped_column(String(200))
    topic: Mapped[str | None] = mapped_column(String(200))
    excludes: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[str] = mapped_column(String(128), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(16), default="all", server_default="all")


# A NULL repo or topic must collide too, so the unique index folds NULL into ''.
Index(
    "uq_subscriptions_target",
    SubscriptionRow.platform,
    SubscriptionRow.workspace,
    SubscriptionRow.channel,
    func.coalesce(SubscriptionRow.repo, text("''")),
    func.coalesce(SubscriptionRow.topic, text("''")),
    SubscriptionRow.kind,
    unique=True,
)


class ChannelSettingsRow(Base):
    """Per-channel schedule, timezone, mute and the end of the last delivered window."""

    __tablename__ = "channel_settings"

    platform: Mapped[str] = mapped_column(String(32), primary_key=True)
    workspace: Mapped[str] = mapped_column(String(128), primary_key=True)
    channel: Mapped[str] = mapped_column(String(128), primary_key=True)
    schedule: Mapped[str | None] = mapped_column(String(200))
    timezone: Mapped[str | None] = mapped_column(String(64))
    muted_until: Mapped[datetime | None]
    last_window_until: Mapped[datetime | None]


class StoryRow(Base):
    """A composed Story, kept as its JSON so the worker delivers exactly what was composed.

    `topic` and `listed` (checks passed, not a "no news" story) are copied out of the JSON
    for the archive's listing, as are the repositories (`StoryRepoRow`)."""

    __tablename__ = "stories"
    __table_args__ = (Index("ix_stories_listed", "listed", "created_at", "id", "topic"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    topic: Mapped[str | None] = mapped_column(String(200))
    listed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class StoryRepoRow(Base):
    """A repository a story covers (in lower case), so the archive filters and hides
    stories by project."""

    __tablename__ = "story_repos"
    __table_args__ = (Index("ix_story_repos_repo", "repo"),)

    story_id: Mapped[str] = mapped_column(
        ForeignKey("stories.id", ondelete="CASCADE"), primary_key=True
    )
    repo: Mapped[str] = mapped_column(String(200), primary_key=True)


class DeliveryRow(Base):
    """One outbox row: deliver story `story_id` to one channel of one platform."""

    __tablename__ = "deliveries"
    __table_args__ = (
        UniqueConstraint("story_id", "platform", "channel"),
        Index("ix_deliveries_due", "state", "next_attempt_at"),
        Index("ix_deliveries_lease", "state", "claimed_until"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    story_id: Mapped[str] = mapped_column(ForeignKey("stories.id", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    channel: Mapped[str] = mapped_column(String(128))
    state: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    claimed_by: Mapped[str | None] = mapped_column(String(128))
    claimed_until: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[datetime | None]


class PostedPartRow(Base):
    """A part of a delivery that the platform accepted, with its message id."""

    __tablename__ = "posted_parts"
    __table_args__ = (
        UniqueConstraint("delivery_id", "part_index"),
        Index("ix_posted_parts_item", "item_id"),
        Index("ix_posted_parts_message", "message_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    delivery_id: Mapped[int] = mapped_column(ForeignKey("deliveries.id", ondelete="CASCADE"))
    part_index: Mapped[int]
    message_id: Mapped[str] = mapped_column(String(128))
    thread_id: Mapped[str | None] = mapped_column(String(128))
    item_id: Mapped[str | None] = mapped_column(String(64))
    posted_at: Mapped[datetime] = mapped_column(default=utcnow)


class AckRow(Base):
    """Someone acknowledged an action item in a channel."""

    __tablename__ = "acks"
    __table_args__ = (UniqueConstraint("item_id", "channel", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[str] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(32))
    channel: Mapped[str] = mapped_column(String(128))
    user_id: Mapped[str] = mapped_column(String(128))
    user_name: Mapped[str] = mapped_column(String(200))
    acked_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReminderRow(Base):
    """An escalation that was sent for an unacknowledged item, so it is sent once."""

    __tablename__ = "reminders"
    __table_args__ = (UniqueConstraint("item_id", "channel"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[str] = mapped_column(String(64))
    channel: Mapped[str] = mapped_column(String(128))
    sent_at: Mapped[datetime] = mapped_column(default=utcnow)


class OpenProjectRow(Base):
    """A repository a channel added from chat (`/wire subscribe OWNER/REPO`), not configured.

    `key` is the repository in lower case, so two replicas adding it at once make one row.
    `topics` are the automatic topics seen so far; `etag` is the last `GET /repos` answer's,
    so a re-check of an unchanged repository costs no quota. `followed_at` is the last time
    a channel was seen following it (a project nobody follows for long is dropped)."""

    __tablename__ = "open_projects"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    repo: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(String(200))
    default_branch: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(300))
    topics: Mapped[list[str]] = mapped_column(JSON, default=list)
    etag: Mapped[str | None] = mapped_column(String(200))
    added_by: Mapped[str] = mapped_column(String(128), default="")
    added_at: Mapped[datetime] = mapped_column(default=utcnow)
    followed_at: Mapped[datetime] = mapped_column(default=utcnow)


class WithdrawnRepoRow(Base):
    """A repository added from chat that GitHub stopped calling public: its archived stories
    are shown only to the holder of the web token until it is admitted again."""

    __tablename__ = "withdrawn_repos"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    repo: Mapped[str] = mapped_column(String(200))
    withdrawn_at: Mapped[datetime] = mapped_column(default=utcnow)
