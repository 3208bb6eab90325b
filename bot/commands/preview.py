"""`/wire preview [TARGET]`: the one story the next run would post in a channel (of all its
subscriptions, see `bot.schedule.newsroom`), shown to the asker only, with the window read
in the channel's timezone.

Before anything of a repository added from chat is told, GitHub is asked again
(`OpenDoor.recheck`): one gone private is withdrawn and refused like a missing one.
"""

from __future__ import annotations

from bot.acks.escalate import with_unacknowledged
from bot.commands import open_replies, parsed
from bot.commands.open_door import OpenDoor
from bot.commands.replies import Context, Reply
from bot.commands.targets import Names
from bot.schedule.newsroom import Filter, SourceFor, compose_selection, filters_of, window_for
from bot.settings import Settings
from bot.store import Store
from digest.config import WireConfig


class Previews:
    """Composes previews for `/wire preview`."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        settings: Settings,
        source_for: SourceFor,
        door: OpenDoor,
    ) -> None:
        self.store = store
        self.config = config
        self.settings = settings
        self.source_for = source_for
        self.door = door

    async def __call__(self, command: parsed.Preview, ctx: Context, names: Names) -> Reply:
        """The story the next run would post in `ctx`'s channel, or why there is none;
        `names` resolve what was typed."""
        where = {"platform": ctx.platform, "workspace": ctx.workspace, "channel": ctx.channel}
        settings = await self.store.channels.get(**where)
        now = self.settings.now()
        window = window_for(
            last_until=settings.last_window_until,
            until=now,
            first_lookback=self.settings.first_lookback,
            max_lookback=self.settings.schedule.max_lookback,
        )
        if window is None:
            return Reply(text="Nothing to preview: the last digest ends now.")
        if command.target is not None:
            found = names.resolve(command.target)
            excludes = names.excludes(command.excludes)
            for checked in (found, excludes):
                if isinstance(checked, Reply):
                    return checked
            assert isinstance(found, tuple) and isinstance(excludes, tuple)
            repo, topic = found
            if refused := await self._still_public(repo, command.target):
                return refused
            filters = [Filter(repos=(repo,) if repo else (), topic=topic, excludes=excludes)]
        else:
            subs = await self.store.subscriptions.list(**where)
            if refused := await self.door.recheck(s.repo for s in subs):
                return refused
            # withdrawn meanwhile: its subscriptions are gone
            subs = await self.store.subscriptions.list(**where)
            filters = filters_of(subs)
            if subs and not filters:
                return Reply(
                    text="This channel follows releases or security fixes only, as they land: "
                    "it gets no digest to preview."
                )
        if not filters:
            return Reply(
                text="This channel has no subscriptions to preview. Try: /wire preview executorch"
            )
        composed = await compose_selection(
            tuple(filters), config=self.config, window=window, source_for=self.source_for
        )
        story = await with_unacknowledged(
            composed,
            self.store,
            platform=ctx.platform,
            channel=ctx.channel,
            since=now - self.settings.carry_unacked_for,
        )
        zone = settings.timezone or self.settings.schedule.timezone
        text = f"Preview ({window.label(zone)}): {story.headline}"
        return Reply(text=text, story=story, zone=zone)

    async def _still_public(self, repo: str | None, target: parsed.Target) -> Reply | None:
        """None when `repo` may be told of now (configured, or public on GitHub just now);
        else the refusal, as for a repository that never existed."""
        if repo is None or self.config.is_configured(repo):
            return None
        if refused := await self.door.recheck([repo]):
            return refused
        if await self.store.open_projects.get(repo) is None:
            return open_replies.missing(target.project or repo, [])
        return None
