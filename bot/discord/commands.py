"""`/wire` as a Discord application command group: one subcommand per verb of the shared
grammar (`bot.commands.grammar`), each turning its options back into the `/wire …` text the command
layer parses, so Discord, Slack and the console answer exactly alike.

The group only translates; `WireBot` (bot/discord/frontend.py) runs the command and answers.
Autocomplete offers the configured projects and `topic:` names (nothing learned elsewhere),
the grammar's rhythms and timezones, and the commands `help` knows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

import discord
from discord import app_commands

from bot.commands import grammar as g

if TYPE_CHECKING:
    from digest.config import WireConfig

CHOICES_MAX = 25
CHOICE_MAX = 100
RHYTHMS = ("weekdays 09:00", "daily 09:00", "weekly mon 09:00", "off")
DURATIONS = ("30m", "1h", "4h", "1d", "off")
# `only`: follow a repository's releases or security fixes instead of all of it
KINDS = [
    app_commands.Choice(name="releases", value="releases"),
    app_commands.Choice(name="security fixes", value="security"),
]


Choices = list[app_commands.Choice[str]]  # what an autocomplete callback answers


class Runner(Protocol):
    """What the group needs from the bot: run a command text, and the configuration."""

    @property
    def config(self) -> WireConfig | None:
        """The configuration names are completed from (None before the bot is bound)."""
        ...

    async def run(
        self,
        interaction: discord.Interaction,
        words: Iterable[str | None],
        *,
        changes: bool,
        slow: bool = False,
    ) -> None:
        """Run `/wire <words…>` for the interaction's member and answer it; `changes` marks a
        command that changes the channel's subscriptions or delivery, `slow` one that may
        take longer than Discord waits for an answer."""
        ...


def completions(current: str, candidates: Iterable[str]) -> Choices:
    """Choices for the last word of `current` among `candidates` (case-insensitive substring
    match, prefixes first), keeping the words typed before it."""
    head, _, word = current.rpartition(" ")
    prefix = f"{head} " if head else ""
    needle = word.lower()
    found = [c for c in dict.fromkeys(candidates) if needle in c.lower()]
    found.sort(key=lambda c: (not c.lower().startswith(needle), c.lower()))
    choices = []
    for candidate in found:
        value = prefix + candidate
        if len(value) <= CHOICE_MAX:
            choices.append(app_commands.Choice(name=value, value=value))
        if len(choices) == CHOICES_MAX:
            break
    return choices


def project_names(config: WireConfig | None) -> list[str]:
    """What a person would type for each configured project: its first alias, else owner/repo."""
    if config is None:
        return []
    return [p.aliases[0] if p.aliases else p.repo for p in config.projects]


def target_names(config: WireConfig | None) -> list[str]:
    """Every project name and `topic:NAME` of the configuration."""
    if config is None:
        return []
    topics = [f"topic:{name}" for name in config.known_topics()]
    return project_names(config) + topics


def exclusions(text: str | None) -> str | None:
    """`author:bot topic:docs` → `-author:bot -topic:docs` (a leading "-" is optional)."""
    if not text:
        return None
    return " ".join(word if word.startswith("-") else f"-{word}" for word in text.split())


class WireGroup(app_commands.Group):
    """`/wire subscribe|unsubscribe|list|topics|preview|schedule|mute|bulletins|ack|help`,
    in servers only (a story needs a channel that can hold threads)."""

    def __init__(self, runner: Runner) -> None:
        super().__init__(
            name="wire", description="The Wire: cited news of your projects", guild_only=True
        )
        self.runner = runner

    async def _targets(self, _interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, target_names(self.runner.config))

    async def _projects(self, _interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, project_names(self.runner.config))

    @app_commands.command(description="Follow a project or topic in this channel")
    @app_commands.describe(
        target="A project (executorch), owner/repo, topic:NAME, or several",
        exclude="Leave out authors or topics, e.g. author:pytorchbot topic:docs",
        only="Only its releases, or only its security fixes, each as it lands (no digest)",
    )
    @app_commands.choices(only=KINDS)
    async def subscribe(
        self,
        interaction: discord.Interaction,
        target: str,
        exclude: str | None = None,
        only: app_commands.Choice[str] | None = None,
    ) -> None:
        kind = only.value if only else None
        await self.runner.run(
            interaction, ["subscribe", target, kind, exclusions(exclude)], changes=True
        )

    @subscribe.autocomplete("target")
    async def _subscribe_target(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._targets(interaction, current)

    @app_commands.command(description="Stop following a project or topic here")
    @app_commands.describe(
        target="What to stop following, or all", only="Stop only its releases or security fixes"
    )
    @app_commands.choices(only=KINDS)
    async def unsubscribe(
        self,
        interaction: discord.Interaction,
        target: str,
        only: app_commands.Choice[str] | None = None,
    ) -> None:
        kind = only.value if only else None
        await self.runner.run(interaction, ["unsubscribe", target, kind], changes=True)

    @unsubscribe.autocomplete("target")
    async def _unsubscribe_target(self, interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, ["all", *target_names(self.runner.config)])

    @app_commands.command(name="list", description="What this channel follows, and when")
    async def list_(self, interaction: discord.Interaction) -> None:
        await self.runner.run(interaction, ["list"], changes=False)

    @app_commands.command(description="The topics of a project (or of all)")
    @app_commands.describe(project="A configured project")
    async def topics(self, interaction: discord.Interaction, project: str | None = None) -> None:
        await self.runner.run(interaction, ["topics", project], changes=False)

    @topics.autocomplete("project")
    async def _topics_project(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._projects(interaction, current)

    @app_commands.command(description="The story the next digest would post here (only to you)")
    @app_commands.describe(target="Preview a project or topic instead of the subscriptions")
    async def preview(self, interaction: discord.Interaction, target: str | None = None) -> None:
        await self.runner.run(interaction, ["preview", target], changes=False, slow=True)

    @preview.autocomplete("target")
    async def _preview_target(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._targets(interaction, current)

    @app_commands.command(description="When this channel gets its digest")
    @app_commands.describe(
        when="weekdays 09:00, daily 18:00, weekly mon 09:00, or off",
        timezone="An IANA timezone such as Europe/Berlin (default: the channel's)",
    )
    async def schedule(
        self, interaction: discord.Interaction, when: str, timezone: str | None = None
    ) -> None:
        await self.runner.run(interaction, ["schedule", when, timezone], changes=True)

    @schedule.autocomplete("when")
    async def _schedule_when(self, _interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, RHYTHMS) if " " not in current else []

    @schedule.autocomplete("timezone")
    async def _schedule_timezone(self, _interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, sorted(g.timezones()))

    @app_commands.command(description="Hold digests back for a while (or: off)")
    @app_commands.describe(duration="30m, 4h, 2d … or off")
    async def mute(self, interaction: discord.Interaction, duration: str) -> None:
        await self.runner.run(interaction, ["mute", duration], changes=True)

    @mute.autocomplete("duration")
    async def _mute_duration(self, _interaction: discord.Interaction, current: str) -> Choices:
        return completions(current, DURATIONS)

    @app_commands.command(description="[immediate] items as they land, ahead of the digest")
    @app_commands.describe(state="on or off")
    @app_commands.choices(state=[app_commands.Choice(name=c, value=c) for c in ("on", "off")])
    async def bulletins(self, interaction: discord.Interaction, state: str) -> None:
        await self.runner.run(interaction, ["bulletins", state], changes=True)

    @app_commands.command(description="Acknowledge an action item posted in this channel")
    @app_commands.describe(item="The action item's id")
    async def ack(self, interaction: discord.Interaction, item: str) -> None:
        await self.runner.run(interaction, ["ack", item], changes=False)

    @app_commands.command(name="help", description="How to use /wire")
    @app_commands.describe(command="A command to explain")
    @app_commands.choices(command=[app_commands.Choice(name=c, value=c) for c in g.COMMANDS])
    async def help_(self, interaction: discord.Interaction, command: str | None = None) -> None:
        await self.runner.run(interaction, ["help", command], changes=False)
