"""The Discord front end: a discord.py client that takes `/wire`, Acknowledge buttons and ✅
reactions, and answers through the shared hub.

    bot = WireBot(settings.discord)        # no I/O
    bot.bind(hub)                          # before the gateway delivers anything
    await bot.client.login(token); await bot.sync_commands(); await bot.client.connect()

* `/wire …` (bot/discord/commands.py) runs the command layer with the channel as context and
  answers the member alone unless the reply is for the channel. Changing what a channel gets
  (subscribe, unsubscribe, schedule, mute) needs the member permission named by
  `subscribe_permission` (default Manage Channels; "" lets everyone).
* The Acknowledge button is a persistent dynamic item: its custom_id names the item, so a
  button posted before a restart works after it. The ack is recorded through the hub, which
  edits the item's message through the platform; the press itself is only acknowledged.
* A ✅ reaction on an item's message acknowledges it the same way.

A story lives in a thread whose id is its parent message's id; its deliveries, acks and
subscriptions belong to the thread's parent channel, so every event in a thread is mapped
to that channel first.

A gateway event the client cannot parse (a payload discord.py's parser raises on) is
logged with its type and traceback and dropped; the session carries on with the next one.
Dropping the connection, resuming and being ready again are reported to the hub's
`Health` ("discord"), which `/healthz` shows.

Only the Guilds and Guild Message Reactions intents are asked for: no privileged intent.
`shard_count` 1 gives a plain client; 0 (as many as Discord recommends) or more gives an
`AutoShardedClient`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.commands.replies import Context, Reply
from bot.delivery.parts import parts_of
from bot.discord.commands import WireGroup
from bot.discord.escape import allowed_mentions, escape_text
from bot.discord.limits import CONTENT_MAX, pack_embeds, split_text
from bot.discord.render import render
from bot.discord.views import TEMPLATE, AckAnswer, AckButton, Acked
from bot.errors import SettingsError
from bot.settings_sections import DiscordSettings

if TYPE_CHECKING:
    from bot.chat.adapters import Hub
    from digest.config import WireConfig

log = logging.getLogger("wire.discord")

PLATFORM = "discord"
ACK_EMOJI = frozenset({"✅", "white_check_mark"})
ALREADY = "You had already acknowledged this item."
NOT_READY = "The Wire is starting; try again in a moment."
NO_MENTIONS = allowed_mentions(None)


def intents() -> discord.Intents:
    """Guilds (channels, threads, roles) and guild message reactions; nothing privileged."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_reactions = True
    return wanted


def check_permission_name(name: str) -> str:
    """`name` if it is a Discord permission flag (or "" for none), else a SettingsError."""
    if name and name not in discord.Permissions.VALID_FLAGS:
        known = ", ".join(sorted(discord.Permissions.VALID_FLAGS))
        raise SettingsError(
            [
                f"discord.subscribe_permission {name!r} is not a Discord permission; use one of "
                f'{known}, or "" to let every member change subscriptions'
            ]
        )
    return name


def permission_label(name: str) -> str:
    """`manage_channels` → "Manage Channels"."""
    return name.replace("_", " ").title()


def reply_chunks(text: str) -> list[str]:
    """A reply's text made inert line by line (mentions, markdown, links), in messages of at
    most 2,000 characters."""
    escaped = "\n".join(escape_text(line) for line in text.splitlines() or [""])
    return split_text(escaped, CONTENT_MAX) if escaped else ["…"]


def embed_groups(embeds: Iterable[dict[str, Any]]) -> list[list[discord.Embed]]:
    """Embed payloads packed into messages of at most 10 embeds and 6,000 characters."""
    return [[discord.Embed.from_dict(e) for e in group] for group in pack_embeds(embeds)]


def story_embeds(reply: Reply) -> list[list[discord.Embed]]:
    """The previewed story as the embeds of its delivered parts (without buttons: nothing
    of a preview can be acknowledged)."""
    if reply.story is None:
        return []
    payloads = [p for part in parts_of(reply.story, zone=reply.zone) for p in render(part)]
    return embed_groups(e for payload in payloads for e in payload.get("embeds", []))


def build_client(settings: DiscordSettings, *, guild_ready_timeout: float) -> discord.Client:
    """A plain client for one shard, an AutoShardedClient otherwise (see the module doc)."""
    options: dict[str, Any] = {
        "intents": intents(),
        "guild_ready_timeout": guild_ready_timeout,
        "max_messages": None,  # no message cache: nothing here reads old messages
        "allowed_mentions": NO_MENTIONS,
    }
    if settings.application_id:
        options["application_id"] = int(settings.application_id)
    if settings.shard_count == 1:
        return discord.Client(**options)
    if settings.shard_count > 1:
        options["shard_count"] = settings.shard_count
    return discord.AutoShardedClient(**options)


def guard_parsers(client: discord.Client, on_drop: Callable[[str], None]) -> None:
    """Make every gateway event parser of `client` log and drop an event it raises on
    (the event type and the traceback), instead of ending the session."""
    parsers: dict[str, Callable[[Any], None]] = client._connection.parsers

    def guarded(event: str, parse: Callable[[Any], None]) -> Callable[[Any], None]:
        def parse_or_drop(data: Any) -> None:
            try:
                parse(data)
            except Exception:
                log.exception("dropped a Discord gateway event %s that could not be handled", event)
                on_drop(event)

        return parse_or_drop

    for event, parse in list(parsers.items()):
        parsers[event] = guarded(event, parse)


class WireBot:
    """The discord.py client, its `/wire` command tree and its handlers (module doc)."""

    def __init__(self, settings: DiscordSettings, *, guild_ready_timeout: float = 2.0) -> None:
        self.settings = settings
        self.permission = check_permission_name(settings.subscribe_permission)
        self.client = build_client(settings, guild_ready_timeout=guild_ready_timeout)
        self.tree = app_commands.CommandTree(self.client)
        self.tree.add_command(WireGroup(self))
        self.client.add_dynamic_items(self._ack_button())
        self.client.event(self.on_raw_reaction_add)
        for handler in (self.on_ready, self.on_resumed, self.on_disconnect):
            self.client.event(handler)
        self.dropped: list[str] = []  # the types of the gateway events dropped
        guard_parsers(self.client, self.dropped.append)
        self.hub: Hub | None = None

    @property
    def config(self) -> WireConfig | None:
        """The configuration the command layer resolves names in (None before `bind`)."""
        return self.hub.commands.config if self.hub is not None else None

    def bind(self, hub: Hub) -> None:
        """Answer through `hub` from now on."""
        self.hub = hub

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Register `/wire` with Discord: in the configured guild (at once) or globally."""
        if self.settings.guild_id is None:
            return await self.tree.sync()
        guild = discord.Object(id=self.settings.guild_id)
        self.tree.copy_global_to(guild=guild)
        return await self.tree.sync(guild=guild)

    # ---- /wire ----------------------------------------------------------------------------

    async def run(
        self,
        interaction: discord.Interaction,
        words: Iterable[str | None],
        *,
        changes: bool,
        slow: bool = False,
    ) -> None:
        """Run `/wire <words…>` and answer the interaction (see the module doc); a `slow`
        command (one that composes) is deferred first, as Discord wants an answer in 3 s."""
        if self.hub is None:
            await self._answer(interaction, Reply(text=NOT_READY))
            return
        if changes and not self.may_change(interaction):
            label = permission_label(self.permission)
            refusal = (
                f"Sorry: only members with the {label} permission can change what this "
                "channel receives. Ask someone who has it, or use /wire list and /wire preview."
            )
            await self._answer(interaction, Reply(text=refusal, ok=False))
            return
        text = " ".join(["/wire", *(w.strip() for w in words if w and w.strip())])
        if slow:
            await interaction.response.defer(ephemeral=True, thinking=True)
        channel = await self.delivery_channel(interaction.channel_id or 0, interaction.channel)
        user = interaction.user
        context = Context(
            platform=PLATFORM,
            workspace=str(interaction.guild_id or "dm"),
            channel=channel,
            user_id=str(user.id),
            user_name=user.display_name,
        )
        reply = await self.hub.commands.handle(text, context=context)
        await self._answer(interaction, reply)

    def may_change(self, interaction: discord.Interaction) -> bool:
        """Whether the member holds the permission that changing subscriptions needs."""
        if not self.permission:
            return True
        held = interaction.permissions
        return held.administrator or bool(getattr(held, self.permission, False))

    async def _answer(self, interaction: discord.Interaction, reply: Reply) -> None:
        """The reply as an ephemeral (or channel) message, its story as embeds after it."""
        ephemeral = reply.visibility != "channel"
        chunks = reply_chunks(reply.text)
        messages: list[dict[str, Any]] = [{"content": c} for c in chunks]
        messages += [{"embeds": group} for group in story_embeds(reply)]
        for message in messages:
            if interaction.response.is_done():
                await interaction.followup.send(
                    **message, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS
                )
            else:
                await interaction.response.send_message(
                    **message, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS
                )

    # ---- the session's health --------------------------------------------------------------

    async def on_ready(self) -> None:
        """READY (after IDENTIFY): the session works."""
        if self.hub is not None:
            self.hub.health.ok(PLATFORM)

    async def on_resumed(self) -> None:
        """RESUMED: the session works again, with nothing missed."""
        if self.hub is not None:
            self.hub.health.ok(PLATFORM)

    async def on_disconnect(self) -> None:
        """The gateway connection dropped; discord.py resumes it (or identifies anew). A
        problem already reported (the session ended, by the adapter) is more precise."""
        if self.hub is not None and PLATFORM not in self.hub.health.problems:
            self.hub.health.problem(PLATFORM, "the gateway connection dropped; reconnecting")

    # ---- acknowledgements -----------------------------------------------------------------

    def _ack_button(self) -> type[AckButton]:
        bot = self

        class HubAckButton(AckButton, template=TEMPLATE):
            async def answer(self, interaction: discord.Interaction) -> AckAnswer:
                return await bot.ack_pressed(self.item_id, interaction)

        return HubAckButton

    async def ack_pressed(self, item_id: str, interaction: discord.Interaction) -> AckAnswer:
        """Record the presser's ack of `item_id`; the hub edits the item's message."""
        if self.hub is None:
            return Acked(note=NOT_READY)
        channel = await self.delivery_channel(interaction.channel_id or 0, interaction.channel)
        user = interaction.user
        outcome = await self.hub.acknowledge(
            item_id=item_id,
            platform=PLATFORM,
            channel=channel,
            user_id=str(user.id),
            user_name=user.display_name,
        )
        if outcome.result is None:
            return None
        return Acked() if outcome.result.new else Acked(note=ALREADY)

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        """A ✅ on an action item's message acknowledges it (the bot's own are ignored)."""
        me = self.client.user
        if self.hub is None or payload.guild_id is None or (me and payload.user_id == me.id):
            return
        if payload.emoji.is_custom_emoji() or payload.emoji.name not in ACK_EMOJI:
            return
        channel = await self.delivery_channel(payload.channel_id)
        found = await self.hub.store.acks.find_message(
            f"{payload.channel_id}/{payload.message_id}", platform=PLATFORM, channel=channel
        )
        if found is None:
            return
        name = payload.member.display_name if payload.member else str(payload.user_id)
        await self.hub.acknowledge(
            item_id=found.item_id,
            platform=PLATFORM,
            channel=channel,
            user_id=str(payload.user_id),
            user_name=name,
        )

    async def delivery_channel(self, channel_id: int, channel: Any = None) -> str:
        """The channel deliveries go to for an event in `channel_id`: a thread's parent, else
        the channel itself (from the event, the gateway's cache, or one REST lookup)."""
        found = channel or self.client.get_channel(channel_id)
        if found is None:
            try:
                found = await self.client.fetch_channel(channel_id)
            except discord.HTTPException as error:
                log.warning("could not look up channel %s: %s", channel_id, error.status)
                return str(channel_id)
        parent = getattr(found, "parent_id", None)
        if isinstance(found, discord.Thread) and parent is not None:
            return str(parent)
        return str(channel_id)
