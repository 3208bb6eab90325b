"""The neutral reply of a command and every sentence a person reads from the command layer.

Adapters turn a `Reply` into an ephemeral message (only the asker sees it) or a channel
message, and render `story` with the same parts as a delivered story.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bot.commands.grammar import USAGE, show
from digest.model import Story

Visibility = Literal["ephemeral", "channel"]


@dataclass(frozen=True, slots=True)
class Context:
    """Who typed a command, and where."""

    platform: str
    workspace: str
    channel: str
    user_id: str
    user_name: str
    operator: bool = False  # the configuration's own seeding, not a person in chat


class Reply(BaseModel):
    """What the bot answers: `text`, who sees it, and a story to show (for `preview`) with
    the timezone of the channel it is shown in.

    `ok` is False when the input was rejected or refused. A rejection of what was typed
    carries the usage line of the command typed; a refusal of a well-formed command (GitHub
    unreachable, a cap reached, no such public repository) is the one sentence that says
    what to do, with no usage line.
    `"Subscribed" in reply` tests the text.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    visibility: Visibility = "ephemeral"
    story: Story | None = None
    zone: str | None = None  # the channel's timezone, in which `story`'s window reads
    ok: bool = True

    def __contains__(self, fragment: str) -> bool:
        return fragment in self.text

    def __str__(self) -> str:
        return self.text


def rejected(problem: str, usage: str | None, suggestions: tuple[str, ...] = ()) -> Reply:
    """A rejection: what is wrong, what would work, and the closest known words; without
    `usage`, a refusal of a command typed right."""
    lines = [f"Sorry: {problem}."]
    if suggestions:
        lines.append("Did you mean: " + ", ".join(f"`{s}`" for s in suggestions) + "?")
    if usage is not None:
        lines.append(f"Usage: {usage}")
    return Reply(text="\n".join(lines), ok=False)


def unknown_project(token: str, *, close: list[str], known: list[str], usage: str) -> Reply:
    """An unknown project: the same words whether or not such a repository exists anywhere;
    `usage` is the line of the command typed."""
    return rejected(
        f"{show(token)} is not a project this Wire follows (known: {', '.join(known) or 'none'})",
        usage,
        tuple(close),
    )


def unknown_topic(
    token: str, *, close: list[str], known: list[str], where: str, usage: str
) -> Reply:
    """An unknown topic, with the closest known ones; `usage` as for `unknown_project`."""
    listing = ", ".join(known[:12]) + ("…" if len(known) > 12 else "")
    return rejected(
        f"{show(token)} is not a topic of {where} (topics: {listing or 'none'})",
        usage,
        tuple(close),
    )


def help_text(command: str | None = None) -> str:
    """Usage of one command, or of all."""
    if command is not None:
        return f"Usage: {USAGE[command]}"
    return "The Wire — commands:\n" + "\n".join(f"• {usage}" for usage in USAGE.values())


def when(moment: datetime | None) -> str:
    """A timestamp for a reply, in UTC to the minute."""
    if moment is None:
        return "never"
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def duration(span: timedelta) -> str:
    """A duration in the largest whole units: "4h", "1d 2h", "30m"."""
    minutes = int(span.total_seconds() // 60)
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (mins, "m")) if n]
    return " ".join(parts) or "0m"
