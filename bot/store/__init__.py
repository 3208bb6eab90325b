"""The store: SQLAlchemy 2 (async) over SQLite by default, PostgreSQL by URL.

    store = Store.from_url(settings.database_url)      # after `await upgrade_database(url)`
    await store.subscriptions.add(platform="slack", workspace="T1", channel="C1", repo="a/b")
    queued = await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel="C1")
    await store.close()

Each repository (`subscriptions`, `channels`, `stories`, `deliveries`, `listing`, `acks`,
`archive`, `open_projects`, `admissions`) opens one short transaction per call (through `Store.db`, see `bot.store.database`) and returns frozen records from `bot.store.records`.
"""

from __future__ import annotations

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.acks import Acks
from bot.store.admissions import Admissions, CapReached, Caps, Subscribed, Where
from bot.store.archive import ArchivePage, StoryArchive
from bot.store.bulletins import Bulletins
from bot.store.channels import Channels
from bot.store.database import Database
from bot.store.deliveries import Deliveries, check_failure
from bot.store.engine import make_engine, parse_url, upgrade_database
from bot.store.listing import DeliveryListing
from bot.store.open_projects import OpenProject, OpenProjects
from bot.store.records import (
    KINDS,
    Ack,
    AckResult,
    ChannelSettings,
    Claim,
    DeliveryInfo,
    Enqueued,
    ItemMessage,
    PostedPart,
    Subscription,
)
from bot.store.stories import Stories
from bot.store.subscriptions import Subscriptions
from bot.store.types import utcnow
from bot.store.webhooks import Changes, WebhookEvent, WebhookEvents

__all__ = [
    "KINDS",
    "Ack",
    "AckResult",
    "ArchivePage",
    "CapReached",
    "Caps",
    "ChannelSettings",
    "Claim",
    "DeliveryInfo",
    "Enqueued",
    "ItemMessage",
    "OpenProject",
    "PostedPart",
    "Store",
    "Subscribed",
    "Subscription",
    "WebhookEvent",
    "Where",
    "check_failure",
    "make_engine",
    "parse_url",
    "upgrade_database",
    "utcnow",
]


class Store:
    """All repositories over one engine; `close()` (or `async with`) disposes of the pool."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.db = Database(engine)
        self.subscriptions = Subscriptions(self.db)
        self.channels = Channels(self.db)
        self.stories = Stories(self.db)
        self.deliveries = Deliveries(self.db)
        self.listing = DeliveryListing(self.db)
        self.acks = Acks(self.db)
        self.webhooks = WebhookEvents(self.db)  # GitHub deliveries (bot.realtime)
        self.changes = Changes(self.db)
        self.bulletins = Bulletins(self.db)
        self.archive = StoryArchive(self.db)
        self.open_projects = OpenProjects(self.db)  # repositories added from chat
        self.admissions = Admissions(self.db)  # a subscribe command, whole, within the caps

    @classmethod
    def from_url(cls, url: str | URL, *, pool_size: int = 5) -> Store:
        """A store on `url` (the schema must be migrated: see `upgrade_database`)."""
        return cls(make_engine(url, pool_size=pool_size))

    @property
    def backend(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self.engine.dialect.name

    async def close(self) -> None:
        """Close every connection."""
        await self.db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()
