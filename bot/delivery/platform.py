"""The Platform protocol every chat adapter implements, and the console platform.

Idempotency: `post` takes a `key` (the delivery id and part index, e.g. "d42.p3"). A
platform must return the *same* message id when it sees a key again instead of posting a
second message, the way chat APIs do with a client message id or nonce. The worker records
a part's message id right after `post` returns; if the process dies between the two, the
retry re-posts with the same key and gets the first message's id back, so nothing appears
twice. Adapters whose API has no such key keep a short-lived key → id map of their own (or
search the thread's recent messages for the key in their metadata); such a map is empty
after a restart, so the worker tells a `Resumable` platform when a part was attempted
before (the delivery's earlier attempt may have posted it), and the platform looks first.

Rendering is a pure function of the part (`render_text` here; Block Kit and embeds in the
adapters), testable without any I/O.
"""

from __future__ import annotations

import re
import sys
from collections import OrderedDict
from datetime import UTC
from typing import Protocol, TextIO, TypeVar, runtime_checkable

from bot.delivery.parts import (
    ActionItemPart,
    BodyPart,
    ParentPart,
    Part,
    ReferencesPart,
    ReminderPart,
)
from digest.model import ActionItem, Reference, cited_numbers

V = TypeVar("V")
REPLY = "  ↳ "
INDENT = "    "
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@runtime_checkable
class Platform(Protocol):
    """A chat platform that posts parts into threads and edits them."""

    name: str

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        """Post `part` to `channel` (as a reply in `thread` when given) and return its
        message id; the same `key` twice returns the first message's id and posts nothing.

        Raises `RetryableError` (with `retry_after` when the platform says) or
        `PermanentError`.
        """
        ...

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        """Replace the content of a message this platform posted (e.g. to show acks)."""
        ...


@runtime_checkable
class Resumable(Protocol):
    """A platform whose API has no client message id, which can look for a message by its
    key (in the message's metadata) before posting it again."""

    def may_have_posted(self, channel: str, key: str) -> None:
        """An earlier attempt at `key` (perhaps by a process that died before recording
        the message) may have posted it: look for it before posting again."""
        ...


class RecentKeys(OrderedDict[str, V]):
    """An adapter's memory of what it posted: keys and their message ids (or None), only the
    `limit` most recently noted kept, so a long-running process stays bounded."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def note(self, key: str, value: V) -> None:
        """Remember `key` (as the most recent), forgetting the oldest beyond `limit`."""
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


def clean(text: str) -> str:
    """Untrusted text made safe for a terminal: no control or escape characters."""
    return _CONTROL.sub("", text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))


def _with_cites(text: str, numbers: tuple[int, ...]) -> str:
    """`text` with its citations; those the text already carries inline are not repeated."""
    missing = [n for n in numbers if n not in cited_numbers(text)]
    return f"{clean(text)} {''.join(f'[{n}]' for n in missing)}".rstrip()


def _item_line(item: ActionItem) -> str:
    return f"[{item.urgency}] {_with_cites(item.text, item.refs)} — {clean(item.repo)}"


def _reference_line(ref: Reference) -> str:
    return f"[{ref.n}] {clean(ref.title)} — {clean(ref.url)}"


def _body_lines(part: BodyPart) -> list[str]:
    """A line per paragraph, each section's heading on a line of its own before it (as in
    the house plain format); a body without sections is one line."""
    lines: list[str] = []
    for heading, sentences in part.paragraphs():
        if heading is not None and (shown := " ".join(clean(heading).split())):
            lines.append(shown)
        lines.append(" ".join(_with_cites(s.text, s.refs) for s in sentences))
    return lines or [""]


def render_lines(part: Part) -> list[str]:
    """The plain-text lines of a part, unindented."""
    match part:
        case ParentPart():
            lines = [clean(part.headline), clean(part.lede), f"({part.window_label})"]
            return [*lines, f"Read it at {clean(part.permalink)}"] if part.permalink else lines
        case BodyPart():
            return _body_lines(part)
        case ActionItemPart():
            acks = [
                f"✓ acknowledged by {clean(a.user_name)} at "
                f"{a.acked_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
                for a in part.acks
            ]
            return [_item_line(part.item), *acks]
        case ReferencesPart():
            return ["References:", *(_reference_line(ref) for ref in part.references)]
        case ReminderPart():
            who = f"{clean(part.oncall)}: " if part.oncall else ""
            return [f"⏰ {who}not acknowledged yet — {_item_line(part.item)}"]
    raise TypeError(f"not a part: {part!r}")


def render_text(part: Part, *, reply: bool | None = None) -> str:
    """A part as console text: a parent flush left, a reply indented under "↳"."""
    lines = render_lines(part)
    if reply is None:
        reply = not isinstance(part, ParentPart)
    if not reply:
        return "\n".join(lines)
    return "\n".join([REPLY + lines[0], *(INDENT + line for line in lines[1:])])


class ConsolePlatform:
    """Prints threads to a stream; message ids are "console-1", "console-2", … in order."""

    name = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._by_key: dict[str, str] = {}
        self._count = 0

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stdout

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        """Print `part`; a key seen before returns its message id and prints nothing."""
        if key in self._by_key:
            return self._by_key[key]
        self._count += 1
        message_id = f"console-{self._count}"
        self._by_key[key] = message_id
        text = render_text(part, reply=thread is not None)
        if thread is None:
            text = f"\n#{clean(channel)}\n{text}"
        print(text, file=self.stream, flush=True)
        return message_id

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        """Print the part again, marked as an edit of `message_id`."""
        print(f"{REPLY}(edited {message_id})", file=self.stream, flush=True)
        print(render_text(part, reply=True), file=self.stream, flush=True)
