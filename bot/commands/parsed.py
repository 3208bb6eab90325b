"""The typed commands `bot.commands.grammar.parse` returns: one frozen record per `/wire`
verb, `Rejected` for input that does not parse, and `Command`, the union of them all."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta


@dataclass(frozen=True, slots=True)
class Target:
    """What a subscription names: a project (alias or owner/repo), a topic, or both."""

    project: str | None = None
    topic: str | None = None

    def __str__(self) -> str:
        parts = [self.project or "", f"topic:{self.topic}" if self.topic else ""]
        return " ".join(p for p in parts if p)


@dataclass(frozen=True, slots=True)
class Subscribe:
    """`kind` "all" follows the targets in full; "releases" or "security" only those."""

    targets: tuple[Target, ...]
    excludes: tuple[str, ...] = ()
    kind: str = "all"


@dataclass(frozen=True, slots=True)
class Unsubscribe:
    """`kind` None removes the targets' subscriptions of every kind."""

    targets: tuple[Target, ...] = ()
    everything: bool = False
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class ListSubscriptions:
    pass


@dataclass(frozen=True, slots=True)
class Topics:
    project: str | None = None


@dataclass(frozen=True, slots=True)
class Preview:
    target: Target | None = None
    excludes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Schedule:
    """`cron` is a five-field crontab ("0 9 * * mon-fri"), None for `off`; `timezone` None
    keeps the channel's (or the default) zone; `label` is how the reply says it."""

    cron: str | None
    timezone: str | None = None
    label: str = "off"


@dataclass(frozen=True, slots=True)
class Mute:
    """`duration` None means `mute off`."""

    duration: timedelta | None


@dataclass(frozen=True, slots=True)
class Bulletins:
    """`/wire bulletins on|off`: whether [immediate] items come at once, as bulletins."""

    enabled: bool


@dataclass(frozen=True, slots=True)
class Ack:
    item: str


@dataclass(frozen=True, slots=True)
class Help:
    command: str | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    """Input that does not parse: `problem` says what is wrong, `usage` what would work."""

    problem: str
    usage: str
    suggestions: tuple[str, ...] = field(default=())


Command = (
    Subscribe
    | Unsubscribe
    | ListSubscriptions
    | Topics
    | Preview
    | Schedule
    | Mute
    | Bulletins
    | Ack
    | Help
    | Rejected
)
