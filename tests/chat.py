"""A fake chat for command tests (errbot style): type `/wire …`, read the reply.

    wire = WireChat(store)
    assert "Subscribed" in await wire("/wire subscribe executorch")

The fake platform at the far edge records what was posted and edited; everything between
the typed text and the database is the real code, on a real SQLite file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.commands.handlers import Commands
from bot.commands.replies import Context, Reply
from bot.delivery.parts import Part
from bot.delivery.platform import render_text
from bot.settings import Settings
from bot.settings_sections import (
    AckSettings,
    DemoSettings,
    OncallHandles,
    ScheduleSettings,
    SubscribingSettings,
)
from bot.store import Store, upgrade_database
from digest.config import Project, WireConfig, load_config
from digest.sources import Source, open_source

ROOT = Path(__file__).resolve().parents[1]
DEMO_CONFIG = ROOT / "config" / "demo.toml"
DEMO_ACTIVITY = ROOT / "demo" / "activity.jsonl"
DEMO_NOW = datetime(2026, 5, 27, tzinfo=UTC)


def demo_config() -> WireConfig:
    """The demo configuration: ExecuTorch and ci-infra with their topics."""
    return load_config(DEMO_CONFIG)


def demo_source(project: Project) -> Source:
    """Every project replays the recorded demo activity (absolute path: any cwd works)."""
    return open_source(f"replay:{DEMO_ACTIVITY}", repo=project.repo)


def settings_with(
    *,
    now: datetime | None = None,
    default_cron: str = "0 9 * * 1-5",
    max_lookback: timedelta = timedelta(days=7),
    oncall: dict[str, str] | None = None,
    **service: object,
) -> Settings:
    """Service settings (no environment, no `.env`) with the demo clock at `now`, the given
    schedule defaults and on-call handles, and [service] keys such as first_lookback.
    Open subscriptions are off unless `subscribing=` opens them (no test asks github.com)."""
    service.setdefault("subscribing", SubscribingSettings(open="config"))
    return Settings(
        _env_file=None,
        demo=DemoSettings(now=now),
        schedule=ScheduleSettings(default_cron=default_cron, max_lookback=max_lookback),
        acks=AckSettings(oncall=OncallHandles(**(oncall or {}))),
        **service,
    )


def demo_settings(**changes: object) -> Settings:
    """Settings with the demo's fixed clock and two-day first look-back."""
    return settings_with(**{"now": DEMO_NOW, "first_lookback": timedelta(days=2), **changes})


async def sqlite_store(tmp_path: Path) -> Store:
    """A migrated store on a SQLite file under `tmp_path`."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}"
    await upgrade_database(url)
    return Store.from_url(url)


@dataclass
class Posted:
    channel: str
    part: Part
    thread: str | None
    key: str
    message_id: str

    @property
    def text(self) -> str:
        return render_text(self.part)


@dataclass
class ChatPlatform:
    """A chat platform at the far edge: keeps posts and edits, honours idempotency keys."""

    name: str = "chat"
    posts: list[Posted] = field(default_factory=list)
    updates: list[tuple[str, str, Part]] = field(default_factory=list)

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        for earlier in self.posts:
            if earlier.key == key:
                return earlier.message_id
        message_id = f"m{len(self.posts) + 1}"
        self.posts.append(Posted(channel, part, thread, key, message_id))
        return message_id

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        self.updates.append((channel, message_id, part))

    def texts(self, channel: str | None = None) -> str:
        """Everything posted (to `channel`), rendered as text."""
        return "\n".join(p.text for p in self.posts if channel in (None, p.channel))


class WireChat:
    """Types commands into a channel as a user and returns the bot's reply."""

    def __init__(
        self,
        store: Store,
        *,
        config: WireConfig | None = None,
        settings: Settings | None = None,
        platform: ChatPlatform | None = None,
        channel: str = "C1",
        user: tuple[str, str] = ("U1", "alice"),
        source_for: Callable[[Project], Source] = demo_source,
    ) -> None:
        self.platform = platform or ChatPlatform()
        self.store = store
        self.commands = Commands(
            store=store,
            config=config or demo_config(),
            settings=settings or demo_settings(),
            source_for=source_for,
            platforms={self.platform.name: self.platform},
        )
        self.channel = channel
        self.user = user

    def context(self, *, channel: str | None = None, user: tuple[str, str] | None = None):
        user_id, user_name = user or self.user
        return Context(
            platform=self.platform.name,
            workspace="W1",
            channel=channel or self.channel,
            user_id=user_id,
            user_name=user_name,
        )

    async def __call__(
        self, text: str, *, channel: str | None = None, user: tuple[str, str] | None = None
    ) -> Reply:
        return await self.commands.handle(text, context=self.context(channel=channel, user=user))
