"""The sentences of open subscriptions: each refusal names what to do or the setting that
decides, and a private repository is answered exactly as a missing one (nothing of it leaks).
A name that is no project carries the subscribe usage line; a refusal of a well-formed
command (missing, archived, an owner kept out, a cap, GitHub unavailable) carries none.
"""

from __future__ import annotations

from bot.commands.grammar import USAGE, show
from bot.commands.replies import Reply, rejected

SETTING = "[subscribing]"


def _repositories(count: int) -> str:
    return f"{count} repositor{'y' if count == 1 else 'ies'}"


def closed(token: str, known: list[str], close: list[str]) -> Reply:
    """`open = "config"`: only the configured projects can be followed."""
    return rejected(
        f"{show(token)} is not a project this Wire follows, and it follows only its configured "
        f'projects ({SETTING} open = "config"; known: {", ".join(known) or "none"})',
        USAGE["subscribe"],
        tuple(close),
    )


def unknown_name(token: str, known: list[str], close: list[str]) -> Reply:
    """A name that is neither a configured project nor OWNER/REPO (often a typo)."""
    return rejected(
        f"{show(token)} is not a project this Wire follows (known: {', '.join(known) or 'none'}); "
        "any public repository can be followed as OWNER/REPO",
        USAGE["subscribe"],
        tuple(close),
    )


def missing(token: str, close: list[str]) -> Reply:
    """No public repository of that name (missing, private and internal read the same)."""
    return rejected(
        f"GitHub has no public repository {show(token)}; check the spelling, or follow one of "
        "the configured projects",
        None,
        tuple(close),
    )


def archived(repo: str) -> Reply:
    """An archived repository: nothing lands in it any more."""
    return rejected(
        f"{show(repo)} is archived on GitHub, so nothing lands there any more to report",
        None,
    )


def owner_refused(owner: str, setting: str) -> Reply:
    """An owner kept out by `allow_owners` or `deny_owners`."""
    why = "is not in" if setting == "allow_owners" else "is in"
    return rejected(
        f"repositories of {show(owner)} cannot be followed here: the owner {why} "
        f"{SETTING} {setting}",
        None,
    )


def channel_full(cap: int) -> Reply:
    """The channel already follows as many repositories as `per_channel` allows."""
    return rejected(
        f"this channel already follows {_repositories(cap)}, the most {SETTING} per_channel "
        "allows; unsubscribe from one first",
        None,
    )


def wire_full(cap: int) -> Reply:
    """The Wire already holds as many repositories added from chat as `total` allows."""
    return rejected(
        f"this Wire already follows {_repositories(cap)} added from chat, the most {SETTING} "
        "total allows; ask its operator to raise it or to configure the project",
        None,
    )


def try_later(minutes: int, *, limited: bool) -> Reply:
    """GitHub is rate-limited or unreachable: nothing was stored."""
    why = "GitHub's rate limit is used up" if limited else "GitHub could not be reached"
    unit = "minute" if minutes == 1 else "minutes"
    return rejected(f"{why}, so nothing was added; try again in {minutes} {unit}", None)


def subscribed(
    target: str, *, next_digest: str, topics: tuple[str, ...], moved_from: str = ""
) -> str:
    """The line that confirms an open subscription (`target`: the repository, its topic and
    exclusions): what the channel gets, and when."""
    was = f" (renamed from {moved_from})" if moved_from else ""
    shown = ", ".join(topics[:8]) + ("…" if len(topics) > 8 else "")
    return (
        f"Subscribed to {target}{was}: its next digest is {next_digest}. "
        f"Topics so far: {shown or 'none yet'}."
    )
