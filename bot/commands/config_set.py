"""Subscriptions the operator set in the configuration, and what chat may do to them.

The file's `[[subscriptions]]` are created at every start when missing, so a chat command
that removed one, or changed its exclusions, would be undone silently by the next start.
Chat therefore leaves them as they are and says so, and how to get what was wanted:

    Sorry: ExecuTorch is followed here because the operator set it in the config
    ([[subscriptions]]); ask them to change it there, or `/wire mute` this channel.

The operator's own seeding (a `Context` with `operator=True`) is not refused.
"""

from __future__ import annotations

from bot.commands import grammar as g
from bot.commands import parsed
from bot.commands.replies import Context, Reply, rejected
from bot.commands.targets import Names
from bot.settings import Settings

Target = tuple[str | None, str | None]  # (repo, topic), as stored


def set_in_config(settings: Settings, names: Names, ctx: Context) -> dict[Target, tuple[str, ...]]:
    """The (repo, topic) targets the configuration subscribes `ctx`'s channel to, each with
    its exclusions as `/wire subscribe` stores them."""
    found: dict[Target, tuple[str, ...]] = {}
    for _table, seed in settings.seeds:
        if (seed.platform, seed.workspace, seed.channel) != (
            ctx.platform,
            ctx.workspace,
            ctx.channel,
        ):
            continue
        command = g.parse(seed.command())
        if not isinstance(command, parsed.Subscribe):
            continue
        excludes = names.excludes(command.excludes)
        for target in command.targets:
            resolved = names.resolve(target)
            if isinstance(resolved, tuple) and isinstance(excludes, tuple):
                found[resolved] = excludes
    return found


def kept(name: str, *, exclusions: bool = False) -> Reply:
    """The refusal for a change chat may not make to a subscription set in the config: its
    removal, or (`exclusions`) a change of its exclusions."""
    if exclusions:
        problem = (
            f"the exclusions of {name} in this channel are set by the operator in the config "
            "([[subscriptions]]), like the subscription itself; ask them to change them there"
        )
    else:
        problem = (
            f"{name} is followed here because the operator set it in the config "
            "([[subscriptions]]); ask them to remove it there, or `/wire mute` this channel"
        )
    return rejected(problem, None)
