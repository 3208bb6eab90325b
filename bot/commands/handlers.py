"""The `/wire` command handlers: one set for every platform, returning neutral `Reply`s.

    wire = Commands(store=store, config=config, settings=settings, source_for=source_for)
    reply = await wire.handle("/wire subscribe executorch", context=context)

Configured projects come first. With `[subscribing] open = "public"` (the default), an
`OWNER/REPO` nobody configured is looked up on GitHub and, if public, added from chat (see
`bot.commands.open_door`); a private repository gets the same answer as a missing one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypedDict

from bot.acks.escalate import acknowledge
from bot.commands import grammar as g
from bot.commands import kinds, open_replies, parsed
from bot.commands.config_set import Target, kept, set_in_config
from bot.commands.listing import list_reply
from bot.commands.open_door import LookUp, OpenDoor, with_open
from bot.commands.preview import Previews
from bot.commands.replies import (
    Context,
    Reply,
    duration,
    help_text,
    rejected,
    when,
)
from bot.commands.targets import Names
from bot.delivery.platform import Platform
from bot.schedule.newsroom import SourceFor
from bot.settings import Settings
from bot.store import CapReached, Caps, OpenProject, Store, Where
from digest.config import WireConfig
from digest.errors import WireError

log = logging.getLogger(__name__)


class ChannelKeys(TypedDict):
    """The keyword arguments that name a channel to the store."""

    platform: str
    workspace: str
    channel: str


_VERBS = {parsed.Unsubscribe: "unsubscribe", parsed.Topics: "topics", parsed.Preview: "preview"}


def _verb(command: parsed.Command) -> str:
    """The command whose usage line a refused name carries (subscribe by default)."""
    return _VERBS.get(type(command), "subscribe")


class Commands:
    """Parses and handles `/wire …` for a channel; every input gets a reply, none raises."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        settings: Settings,
        source_for: SourceFor,
        platforms: Mapping[str, Platform] | None = None,
        look_up: LookUp | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.settings = settings
        self.source_for = source_for
        self.platforms = platforms if platforms is not None else {}
        self.names = Names(config)
        self.door = OpenDoor(
            store=store, config=config, settings=settings, source_for=source_for, look_up=look_up
        )
        self.previews = Previews(
            store=store, config=config, settings=settings, source_for=source_for, door=self.door
        )

    async def handle(self, text: str, *, context: Context) -> Reply:
        """Answer one command typed by `context.user_name` in `context.channel`."""
        command = g.parse(text)
        try:
            # the configured projects, then open ones; unknown names refused with the
            # usage line of the command typed
            self.names = (await self.door.names()).typed_in(_verb(command))
            return await self._dispatch(command, context)
        except WireError as error:  # a source or GitHub failed: the command itself was right
            return rejected(str(error).rstrip("."), None)

    async def _dispatch(self, command: parsed.Command, ctx: Context) -> Reply:
        match command:
            case parsed.Rejected():
                return rejected(command.problem, command.usage, command.suggestions)
            case parsed.Subscribe() | parsed.Unsubscribe() if misspelt := kinds.misspelt_kind(
                command, self.config
            ):
                return misspelt
            case parsed.Help():
                return Reply(text=help_text(command.command))
            case parsed.Subscribe():
                return await self.subscribe(command, ctx)
            case parsed.Unsubscribe():
                return await self.unsubscribe(command, ctx)
            case parsed.ListSubscriptions():
                return await self.list(ctx)
            case parsed.Topics():
                return self.topics(command)
            case parsed.Preview():
                return await self.preview(command, ctx)
            case parsed.Schedule():
                return await self.schedule(command, ctx)
            case parsed.Mute():
                return await self.mute(command, ctx)
            case parsed.Bulletins():
                return await self.bulletins(command, ctx)
            case parsed.Ack():
                return await self.ack(command, ctx)
        return rejected("that command is not understood", g.USAGE["help"])

    # ------------------------------------------------------------ handlers

    def _where(self, ctx: Context) -> ChannelKeys:
        return {"platform": ctx.platform, "workspace": ctx.workspace, "channel": ctx.channel}

    async def _admitted(
        self, target: parsed.Target, ctx: Context, admitted: list[OpenProject]
    ) -> tuple[Any, Any]:
        """(repo, topic) of a target, or the Reply that refuses it, admitting a repository
        nobody configured (appended to `admitted`, not stored yet); with (the open project,
        the name typed) when it is one."""
        if target.project is None or self.config.resolve_repo(target.project):
            return self.names.resolve(target), None
        found = await self.door.admit(target.project, ctx)
        if isinstance(found, Reply):
            return found, None
        if isinstance(found, OpenProject):
            admitted.append(found)
        stored = await self.store.open_projects.list()
        known = {p.key: p for p in [*stored, *admitted]}  # a stored one may be admitted again
        self.names = Names(with_open(self.config, list(known.values())))
        resolved = self.names.resolve(parsed.Target(project=found.repo, topic=target.topic))
        opened = (found, target.project) if isinstance(found, OpenProject) else None
        return resolved, opened

    async def _opened_line(
        self, ctx: Context, opened: tuple[OpenProject, str], topic: str | None, but: str
    ) -> str:
        project, typed = opened
        return open_replies.subscribed(
            project.repo + (f" topic:{topic}" if topic else "") + but,
            next_digest=await self.door.next_digest(ctx, self.settings.now()),
            topics=project.topics,
            moved_from=typed if typed.lower() != project.repo.lower() else "",
        )

    async def subscribe(self, command: parsed.Subscribe, ctx: Context) -> Reply:
        """Subscribe the channel to each target, all of them or none; twice is a no-op
        that says so."""
        projects: list[OpenProject] = []
        admitted = []
        for target in command.targets:
            found, opened = await self._admitted(target, ctx, projects)
            if isinstance(found, Reply):
                return found  # nothing is stored before every target is admitted
            admitted.append((found, opened))
        excludes = self.names.excludes(command.excludes)  # an open project's topics count
        if isinstance(excludes, Reply):
            return excludes
        configured = {} if ctx.operator else set_in_config(self.settings, self.names, ctx)
        for found, _ in admitted:
            if command.kind != "all":
                break  # the config's subscriptions are full ones, which cover the kinds
            if found in configured and set(configured[found]) != set(excludes):
                return kept(self.names.describe(*found), exclusions=True)
        outcome = await self.store.admissions.subscribe(
            Where(**self._where(ctx)),
            targets=[found for found, _ in admitted],
            projects=projects,
            excludes=excludes,
            created_by=ctx.user_name or ctx.user_id,
            caps=Caps(
                per_channel=self.settings.subscribing.per_channel,
                total=self.settings.subscribing.total,
            ),
            kind=command.kind,
        )
        if isinstance(outcome, CapReached):
            if outcome.cap == "per_channel":
                return open_replies.channel_full(outcome.limit)
            return open_replies.wire_full(outcome.limit)
        opened = {found[0]: o for found, o in admitted if o is not None}
        lines = []
        for done in outcome:
            repo, topic = done.subscription.repo, done.subscription.topic
            name = self.names.describe(repo, topic)
            but = f" (excluding {', '.join(excludes)})" if excludes else ""
            if command.kind != "all" or done.replaced:
                lines.append(kinds.subscribed(done, name, command.kind))
            elif done.created and repo in opened:
                lines.append(await self._opened_line(ctx, opened[repo], topic, but))
            elif done.created:
                lines.append(f"Subscribed this channel to {name}{but}.")
            elif done.excludes_changed:
                lines.append(
                    f"Already subscribed to {name}; exclusions now: {', '.join(excludes) or 'none'}."
                )
            else:
                lines.append(f"Already subscribed to {name}: nothing changed.")
        return Reply(text="\n".join(lines), visibility="channel")

    async def unsubscribe(self, command: parsed.Unsubscribe, ctx: Context) -> Reply:
        """Remove the named subscriptions, or all of the channel's."""
        configured = {} if ctx.operator else set_in_config(self.settings, self.names, ctx)
        if command.everything:
            return await self._unsubscribe_all(ctx, configured)
        lines = []
        for target in command.targets:
            found = self.names.resolve(target)
            if isinstance(found, Reply):
                return found
            if found in configured and command.kind is None:
                return kept(self.names.describe(*found))
            repo, topic = found
            removed = await self.store.subscriptions.remove(
                **self._where(ctx), repo=repo, topic=topic, kind=command.kind
            )
            lines.append(
                kinds.unsubscribed(self.names.describe(repo, topic), command.kind, removed)
            )
        return Reply(text="\n".join(lines), visibility="channel")

    async def _unsubscribe_all(
        self, ctx: Context, configured: dict[Target, tuple[str, ...]]
    ) -> Reply:
        """`/wire unsubscribe all`: every subscription chat made; those of the config stay."""
        subs = await self.store.subscriptions.list(**self._where(ctx))
        chat = [s for s in subs if (s.repo, s.topic) not in configured]
        for sub in chat:
            await self.store.subscriptions.remove(
                **self._where(ctx), repo=sub.repo, topic=sub.topic, kind=sub.kind
            )
        stay = [self.names.describe(s.repo, s.topic) for s in subs if s not in chat]
        if not subs:
            return Reply(text="This channel has no subscriptions: nothing changed.")
        lines = [f"Unsubscribed this channel from all {len(chat)} subscription(s)."] if chat else []
        if stay:
            lines.append(
                f"Set by the operator in the config, these stay: {', '.join(stay)}; ask them "
                "to remove them there, or `/wire mute` this channel."
            )
        return Reply(text="\n".join(lines), visibility="channel", ok=not stay or bool(chat))

    async def list(self, ctx: Context) -> Reply:
        """The channel's subscriptions, who made them, its schedule and its last delivery."""
        return await list_reply(self.store, self.names, self.settings, ctx)

    def topics(self, command: parsed.Topics) -> Reply:
        """The topics of one project, or of every project."""
        if command.project is not None:
            found = self.names.project(command.project)
            if isinstance(found, Reply):
                return found
            projects = [found]
        else:
            projects = list(self.config.projects)
        lines = [
            f"{p.name}: " + (", ".join(t.name for t in p.topics) or "no configured topics")
            if self.config.is_configured(p.repo)
            else f"{p.name}: automatic topics so far: "
            + (", ".join(t.name for t in p.topics) or "none yet")
            for p in projects
        ]
        return Reply(text="\n".join(lines or ["No projects are configured."]))

    async def preview(self, command: parsed.Preview, ctx: Context) -> Reply:
        """The story the next run would post here (to the asker only)."""
        return await self.previews(command, ctx, self.names)

    async def schedule(self, command: parsed.Schedule, ctx: Context) -> Reply:
        """Set (or switch off) when this channel gets its digest."""
        if command.cron is None:
            await self.store.channels.update(**self._where(ctx), schedule="off")
            return Reply(text="Digests for this channel are off.", visibility="channel")
        current = await self.store.channels.get(**self._where(ctx))
        zone = command.timezone or current.timezone or self.settings.schedule.timezone
        await self.store.channels.update(**self._where(ctx), schedule=command.cron, timezone=zone)
        return Reply(
            text=f"This channel now gets its digest {command.label} {zone}.",
            visibility="channel",
        )

    async def mute(self, command: parsed.Mute, ctx: Context) -> Reply:
        """Hold digests back for a while; the next digest after it covers the muted time."""
        if command.duration is None:
            await self.store.channels.update(**self._where(ctx), muted_until=None)
            return Reply(text="Unmuted: digests resume on schedule.", visibility="channel")
        until = datetime.now(UTC) + command.duration
        await self.store.channels.update(**self._where(ctx), muted_until=until)
        return Reply(
            text=f"Muted for {duration(command.duration)}, until {when(until)}.",
            visibility="channel",
        )

    async def bulletins(self, command: parsed.Bulletins, ctx: Context) -> Reply:
        """Switch bulletins ([immediate] items as they land) on or off for this channel."""
        changed = await self.store.bulletins.set_enabled(
            **self._where(ctx), enabled=command.enabled
        )
        state = "on" if command.enabled else "off"
        what = (
            "[immediate] items arrive here as they land, ahead of the digest"
            if command.enabled
            else "[immediate] items wait for the next digest"
        )
        already = "" if changed else " (they already were)"
        return Reply(text=f"Bulletins are {state}{already}: {what}.", visibility="channel")

    async def ack(self, command: parsed.Ack, ctx: Context) -> Reply:
        """Acknowledge an action item posted in this channel."""
        outcome = await acknowledge(
            self.store,
            self.platforms,
            item_id=command.item,
            platform=ctx.platform,
            channel=ctx.channel,
            user_id=ctx.user_id,
            user_name=ctx.user_name,
        )
        if outcome.result is None:
            return rejected(
                f"no action item {g.show(command.item)} was posted in this channel",
                g.USAGE["ack"],
            )
        if not outcome.result.new:
            return Reply(text=f"You had already acknowledged {outcome.item_id}.")
        names = ", ".join(a.user_name for a in outcome.result.acks)
        return Reply(text=f"Acknowledged {outcome.item_id} (by {names}).")
