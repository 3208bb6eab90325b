"""What a channel follows of a repository: all of it, or only its releases or security fixes.

    /wire subscribe vitejs/vite releases    → a story as each release lands, no digest
    /wire subscribe vitejs/vite security    → a story as each security fix lands, no digest

A full subscription covers both (its digests and bulletins tell them), so a channel that
follows a repository in full is never subscribed to its releases besides: the store keeps
the full one and the reply says so. The replies of such commands are written here.
"""

from __future__ import annotations

from difflib import get_close_matches

from bot.commands import grammar as g
from bot.commands import parsed
from bot.commands.replies import Reply, rejected
from bot.store import Subscribed, Subscription
from digest.config import WireConfig

# How a reply names what a kind follows, and what the channel gets of it.
FOLLOWS = {"releases": "releases", "security": "security fixes"}
GETS = {
    "releases": "a story as each release lands: its version, what it carries since the "
    "previous one, stated breaking changes and security fixes, with its link",
    "security": "a story as each security fix lands",
}


def misspelt_kind(command: parsed.Command, config: WireConfig) -> Reply | None:
    """The reply to a (un)subscribe command that names `relases` or `securty`: a word that
    is no configured project and close to a kind's word."""
    if not isinstance(command, parsed.Subscribe | parsed.Unsubscribe):
        return None
    verb = "subscribe" if isinstance(command, parsed.Subscribe) else "unsubscribe"
    for target in command.targets:
        token = target.project
        if token is None or "/" in token or config.resolve_repo(token) is not None:
            continue
        close = get_close_matches(token.lower(), list(g.KIND_WORDS), n=1, cutoff=0.75)
        if close:
            word = g.KIND_WORDS[close[0]]
            return rejected(
                f"{g.show(token)} is not a project or a kind of news; did you mean `{word}`?",
                g.USAGE[verb],
            )
    return None


def subscribed(done: Subscribed, name: str, kind: str) -> str:
    """The reply line of one target of `/wire subscribe … releases|security`, or of a full
    subscription that took the place of such ones."""
    if done.covered:
        return (
            f"This channel follows {name} in full already, which covers its "
            f"{FOLLOWS[kind]}: they come in its digests and bulletins. Nothing changed."
        )
    if done.replaced:
        narrower = " and ".join(FOLLOWS[k] for k in done.replaced)
        return (
            f"Subscribed this channel to {name} in full, in place of its {narrower} only: "
            f"its digests and bulletins tell those too."
        )
    if not done.created:
        return f"Already subscribed to {name} {FOLLOWS[kind]}: nothing changed."
    return f"Subscribed this channel to {name} {FOLLOWS[kind]}: {GETS[kind]}. No digest."


def following(sub: Subscription) -> str:
    """What a `/wire list` line adds for a subscription's kind ("" for a full one)."""
    return "" if sub.kind == "all" else f" ({FOLLOWS[sub.kind]} only, as they land)"


def unsubscribed(name: str, kind: str | None, removed: bool) -> str:
    """The reply line of one target of `/wire unsubscribe` (`kind` None: every kind)."""
    what = f"{name} {FOLLOWS[kind]}" if kind in FOLLOWS else name
    if removed:
        return f"Unsubscribed this channel from {what}."
    return f"This channel was not subscribed to {what}: nothing changed."


def digests_due(subs: list[Subscription]) -> bool:
    """True when some subscription of the channel gets digests (a full one)."""
    return any(sub.kind == "all" for sub in subs)
