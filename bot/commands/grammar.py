"""The `/wire` grammar: text in, a typed command (or a `Rejected` with its usage) out.

Pure and total: `parse` never raises, whatever the text. Resolving names against the
configuration (is `executorch` a project? is `xnnpack` a topic?) is the handlers' job.

    /wire subscribe executorch pytorch/ci-infra topic:xnnpack -author:pytorchbot
    /wire subscribe vitejs/vite releases | security
    /wire unsubscribe executorch [releases|security] | all
    /wire list | topics [PROJECT] | preview [TARGET] | help [COMMAND]
    /wire schedule weekdays 09:00 Europe/Berlin | daily [HH:MM] [TZ] | weekly mon [HH:MM] [TZ] | off
    /wire mute 4h | mute off
    /wire bulletins on | off
    /wire ack ITEM
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import cache
from zoneinfo import available_timezones

from bot.commands.parsed import (
    Ack,
    Bulletins,
    Command,
    Help,
    ListSubscriptions,
    Mute,
    Preview,
    Rejected,
    Schedule,
    Subscribe,
    Target,
    Topics,
    Unsubscribe,
)

USAGE = {
    "subscribe": "/wire subscribe TARGET… [releases|security] [-author:NAME] [-topic:NAME]  (TARGET: alias, owner/repo, topic:NAME or owner/repo topic:NAME)",
    "unsubscribe": "/wire unsubscribe TARGET… [releases|security] | /wire unsubscribe all",
    "list": "/wire list",
    "topics": "/wire topics [PROJECT]",
    "preview": "/wire preview [TARGET]",
    "schedule": "/wire schedule weekdays|daily [HH:MM] [TZ] | /wire schedule weekly DAY [HH:MM] [TZ] | /wire schedule off",
    "mute": "/wire mute DURATION (e.g. 30m, 4h, 2d) | /wire mute off",
    "bulletins": "/wire bulletins on|off  ([immediate] items as they land, ahead of the digest)",
    "ack": "/wire ack ITEM",
    "help": "/wire help [COMMAND]",
}
COMMANDS = tuple(USAGE)
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_MUTE = timedelta(days=90)
MAX_TOKEN = 200
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_DURATION = re.compile(r"^(?:\d{1,6}[mhd])+$")
_UNIT = {"m": 60, "h": 3600, "d": 86400}
_ITEM = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")
_EXCLUDE = re.compile(r"^-(author|topic):(\S+)$")
# The words that narrow a subscription to a kind of news (see `bot.store.KINDS`).
KIND_WORDS = {"releases": "releases", "release": "releases", "security": "security"}


def show(token: str) -> str:
    """A user token quoted for a reply: shortened, and without backticks or newlines."""
    cleaned = re.sub(r"[`\s]+", " ", token).strip()
    return f"`{cleaned[:40]}{'…' if len(cleaned) > 40 else ''}`"


def parse(text: str) -> Command:
    """Parse one `/wire …` command (the leading `/wire` is optional)."""
    tokens = text.split()
    if tokens and tokens[0].lower() in ("/wire", "wire"):
        tokens = tokens[1:]
    if not tokens:
        return Help()
    verb, args = tokens[0].lower(), tokens[1:]
    if any(len(a) > MAX_TOKEN for a in args):
        return Rejected(f"a word longer than {MAX_TOKEN} characters", _usage(verb))
    handler = _PARSERS.get(verb)
    if handler is None:
        from difflib import get_close_matches

        close = tuple(get_close_matches(verb, COMMANDS, n=3, cutoff=0.5))
        return Rejected(f"there is no command {show(verb)}", USAGE["help"], close or COMMANDS)
    return handler(args)


def _usage(verb: str) -> str:
    return USAGE.get(verb, USAGE["help"])


def _targets(args: list[str], verb: str) -> tuple[list[Target], list[str]] | Rejected:
    """Targets and excludes: `owner/repo topic:NAME` pairs up; `-author:`/`-topic:` exclude."""
    targets: list[Target] = []
    excludes: list[str] = []
    for arg in args:
        if arg.startswith("-"):
            match = _EXCLUDE.match(arg)
            if match is None:
                return Rejected(
                    f"{show(arg)} is not an exclusion; use -author:NAME or -topic:NAME",
                    USAGE[verb] if verb in USAGE else USAGE["subscribe"],
                )
            excludes.append(f"{match.group(1)}:{match.group(2)}")
        elif arg.lower().startswith("topic:"):
            name = arg[len("topic:") :]
            if not name:
                return Rejected("`topic:` needs a name, e.g. topic:xnnpack", USAGE[verb])
            if targets and targets[-1].project and targets[-1].topic is None and not excludes:
                targets[-1] = Target(project=targets[-1].project, topic=name)
            else:
                targets.append(Target(topic=name))
        elif ":" in arg:
            return Rejected(f"{show(arg)} is not a target", USAGE[verb])
        else:
            targets.append(Target(project=arg))
    return targets, excludes


def _kind(args: list[str], verb: str) -> tuple[str | None, list[str]] | Rejected:
    """The kind word of a (un)subscribe command (`releases`, `security`), and the rest."""
    kinds = {KIND_WORDS[a.lower()] for a in args if a.lower() in KIND_WORDS}
    rest = [a for a in args if a.lower() not in KIND_WORDS]
    if len(kinds) > 1:
        return Rejected(
            "`releases` and `security` are two subscriptions: one command each", USAGE[verb]
        )
    kind = kinds.pop() if kinds else None
    if kind is None:
        return None, rest
    if any(a.startswith("-") for a in rest):
        return Rejected(f"`{kind}` takes no exclusions: it follows all of them", USAGE[verb])
    if any(a.lower().startswith("topic:") for a in rest):
        return Rejected(
            f"`{kind}` are a repository's, not a topic's: name the repository alone",
            USAGE[verb],
        )
    if not rest:
        return Rejected(f"the {kind} of what? e.g. /wire {verb} vitejs/vite {kind}", USAGE[verb])
    return kind, rest


def _subscribe(args: list[str]) -> Command:
    kind = _kind(args, "subscribe")
    if isinstance(kind, Rejected):
        return kind
    found = _targets(kind[1], "subscribe")
    if isinstance(found, Rejected):
        return found
    targets, excludes = found
    if not targets:
        return Rejected("subscribe to what?", USAGE["subscribe"])
    return Subscribe(
        tuple(dict.fromkeys(targets)), tuple(dict.fromkeys(excludes)), kind[0] or "all"
    )


def _unsubscribe(args: list[str]) -> Command:
    if [a.lower() for a in args] == ["all"]:
        return Unsubscribe(everything=True)
    kind = _kind(args, "unsubscribe")
    if isinstance(kind, Rejected):
        return kind
    found = _targets(kind[1], "unsubscribe")
    if isinstance(found, Rejected):
        return found
    targets, excludes = found
    if excludes:
        return Rejected("unsubscribe takes no exclusions", USAGE["unsubscribe"])
    if not targets:
        return Rejected("unsubscribe from what?", USAGE["unsubscribe"])
    return Unsubscribe(tuple(dict.fromkeys(targets)), kind=kind[0])


def _list(args: list[str]) -> Command:
    if args:
        return Rejected("list takes no arguments", USAGE["list"])
    return ListSubscriptions()


def _topics(args: list[str]) -> Command:
    if len(args) > 1:
        return Rejected("topics takes at most one project", USAGE["topics"])
    return Topics(args[0] if args else None)


def _preview(args: list[str]) -> Command:
    found = _targets(args, "preview")
    if isinstance(found, Rejected):
        return found
    targets, excludes = found
    if len(targets) > 1:
        return Rejected("preview takes one target at most", USAGE["preview"])
    return Preview(targets[0] if targets else None, tuple(excludes))


@cache
def timezones() -> frozenset[str]:
    """Every IANA timezone name this system knows."""
    return frozenset(available_timezones())


def _zone(token: str) -> str | Rejected:
    by_lower = {name.lower(): name for name in timezones()}
    if token.lower() in by_lower:
        return by_lower[token.lower()]
    from difflib import get_close_matches

    close = get_close_matches(token, sorted(timezones()), n=3, cutoff=0.6)
    return Rejected(
        f"{show(token)} is not a timezone; use an IANA name such as Europe/Berlin or UTC",
        USAGE["schedule"],
        tuple(close),
    )


def _schedule(args: list[str]) -> Command:
    if not args:
        return Rejected("schedule needs a rhythm", USAGE["schedule"])
    kind, rest = args[0].lower(), args[1:]
    if kind == "off":
        return Schedule(None) if not rest else Rejected("`off` takes nothing", USAGE["schedule"])
    day = None
    if kind == "weekly":
        if not rest or rest[0].lower()[:3] not in DAYS:
            return Rejected("weekly needs a day: mon, tue, … sun", USAGE["schedule"])
        day, rest = rest[0].lower()[:3], rest[1:]
    elif kind not in ("daily", "weekdays"):
        return Rejected(f"{show(kind)} is not a rhythm", USAGE["schedule"])
    hour, minute = 9, 0
    if rest and ":" in rest[0] and "/" not in rest[0]:
        match = _TIME.match(rest[0])
        if match is None:
            return Rejected(f"{show(rest[0])} is not a time; use HH:MM", USAGE["schedule"])
        hour, minute, rest = int(match.group(1)), int(match.group(2)), rest[1:]
    zone: str | None = None
    if rest:
        found = _zone(rest[0])
        if isinstance(found, Rejected):
            return found
        zone, rest = found, rest[1:]
    if rest:
        return Rejected(f"unexpected {show(rest[0])}", USAGE["schedule"])
    days = {"daily": "*", "weekdays": "mon-fri", "weekly": day}[kind]
    at = f"{hour:02d}:{minute:02d}"
    label = {"daily": f"daily at {at}", "weekdays": f"weekdays at {at}"}.get(
        kind, f"weekly on {day} at {at}"
    )
    return Schedule(f"{minute} {hour} * * {days}", zone, label)


def parse_mute(token: str) -> timedelta | None:
    """`4h`, `30m`, `2d`, `1h30m` → timedelta (at most MAX_MUTE); None when malformed."""
    text = token.lower()
    if not _DURATION.match(text):
        return None
    seconds = sum(int(n) * _UNIT[u] for n, u in re.findall(r"(\d+)([mhd])", text))
    if seconds <= 0:
        return None
    return min(timedelta(seconds=seconds), MAX_MUTE)


def _mute(args: list[str]) -> Command:
    if len(args) != 1:
        return Rejected("mute needs one duration or `off`", USAGE["mute"])
    if args[0].lower() == "off":
        return Mute(None)
    duration = parse_mute(args[0])
    if duration is None:
        return Rejected(f"{show(args[0])} is not a duration", USAGE["mute"])
    return Mute(duration)


def _bulletins(args: list[str]) -> Command:
    if len(args) != 1 or args[0].lower() not in ("on", "off"):
        return Rejected("bulletins needs `on` or `off`", USAGE["bulletins"])
    return Bulletins(args[0].lower() == "on")


def _ack(args: list[str]) -> Command:
    if len(args) != 1 or not _ITEM.match(args[0]):
        return Rejected("ack needs one action-item id", USAGE["ack"])
    return Ack(args[0])


def _help(args: list[str]) -> Command:
    if not args:
        return Help()
    wanted = args[0].lower().lstrip("/")
    if wanted in USAGE and len(args) == 1:
        return Help(wanted)
    return Rejected(f"there is no command {show(args[0])}", USAGE["help"], COMMANDS)


_PARSERS = {
    "subscribe": _subscribe,
    "sub": _subscribe,
    "unsubscribe": _unsubscribe,
    "unsub": _unsubscribe,
    "list": _list,
    "topics": _topics,
    "preview": _preview,
    "schedule": _schedule,
    "mute": _mute,
    "bulletins": _bulletins,
    "ack": _ack,
    "help": _help,
}
