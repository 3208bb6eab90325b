"""Block Kit's building blocks within Slack's limits: pure functions, no I/O.

Slack's limits are met by splitting, never by cutting text off:

- a section's text is at most 3,000 characters: `escaped_chunks` splits escaped text at
  spaces, and only a single "word" longer than a section is split inside
  (`escaped_words`); `pack` joins pieces (sentences, reference lines) into sections of at
  most that, splitting between pieces; `link_pieces` spreads a long title over several
  links to the same URL;
- a message holds at most 50 blocks: `messages_of` puts further blocks into follow-ups;
- a header is at most 150 characters: `split_header` cuts a longer headline at a space, the
  header ends with "…" and the caller carries on with "…" and the rest.

Each message's `text` is the notification preview Slack shows where blocks cannot be shown
(push notifications, screen readers' summary). It is a preview, not the content:
`preview_text` cuts it at a space with "…" after `PREVIEW_CHARS`; the blocks carry
everything.

All source text goes through `escape.escape_mrkdwn` and every mrkdwn object is `verbatim`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.slack.escape import escape_mrkdwn, one_line, plain_text, slack_link_target

SECTION_CHARS = 3000
HEADER_CHARS = 150
MAX_BLOCKS = 50
BUTTON_VALUE_CHARS = 2000
PREVIEW_CHARS = 300
ACK_ACTION_ID = "wire_ack"
ELLIPSIS = "…"

Block = dict[str, Any]


@dataclass(frozen=True)
class SlackMessage:
    """One chat.postMessage / chat.update payload: preview `text` and Block Kit `blocks`."""

    text: str
    blocks: tuple[Block, ...]

    def payload(self) -> dict[str, Any]:
        """The `text` and `blocks` arguments of chat.postMessage or chat.update."""
        return {"text": self.text, "blocks": list(self.blocks)}


# ---------------------------------------------------------------- splitting


def _cost(char: str) -> int:
    """An upper bound of the escaped length of one character (entities, zero-width spaces)."""
    return {"&": 5, "<": 4, ">": 5, "`": 2}.get(char, 1)


def escaped_words(raw: str, limit: int) -> list[str]:
    """`raw` escaped, as pieces of at most `limit` characters: its words, and a word longer
    than `limit` cut into consecutive pieces."""
    pieces: list[str] = []
    for word in one_line(raw).split():
        escaped = escape_mrkdwn(word)
        if len(escaped) <= limit:
            pieces.append(escaped)
            continue
        start, used = 0, 1  # 1: room for a leading zero-width space
        for i, char in enumerate(word):
            if used + _cost(char) > limit:
                pieces.append(escape_mrkdwn(word[start:i]))
                start, used = i, 1
            used += _cost(char)
        pieces.append(escape_mrkdwn(word[start:]))
    return pieces


def pack(pieces: Iterable[tuple[str, str]], limit: int) -> list[str]:
    """Greedily join (separator, piece) pairs into chunks of at most `limit` characters; a
    separator is dropped where a chunk starts. Every piece must fit `limit` on its own."""
    chunks: list[str] = []
    current = ""
    for sep, piece in pieces:
        if not current:
            current = piece
        elif len(current) + len(sep) + len(piece) <= limit:
            current += sep + piece
        else:
            chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def escaped_chunks(raw: str, limit: int = SECTION_CHARS) -> list[str]:
    """`raw` escaped as mrkdwn, in chunks of at most `limit` characters split at spaces."""
    escaped = escape_mrkdwn(raw)
    if not escaped.strip():
        return []
    if len(escaped) <= limit:
        return [escaped]
    return pack(((" ", w) for w in escaped_words(raw, limit)), limit)


def link_pieces(url: str, label: str, limit: int) -> list[str]:
    """A link to `url` labelled `label`, as one or more links of at most `limit` characters
    each (a label too long for one is spread over several links to the same URL). An unsafe
    URL gives no link: the label and the URL as escaped text."""
    target = slack_link_target(url)
    if target is None or len(target) > limit // 2:
        return [w for w in escaped_words(f"{label} ({url})", limit)]
    room = limit - len(target) - 3
    labels = pack(((" ", w) for w in escaped_words(label, room)), room) or [escape_mrkdwn(url)]
    return [f"<{target}|{text}>" for text in labels]


def preview_text(raw: str, limit: int = PREVIEW_CHARS) -> str:
    """A one-line notification preview of `raw`, cut at a space with "…" past `limit`."""
    flat = " ".join(one_line(raw).split())
    if len(flat) > limit:
        cut = flat[: limit - 1]
        flat = (cut.rsplit(" ", 1)[0] if " " in cut else cut) + ELLIPSIS
    return escape_mrkdwn(flat)


# ---------------------------------------------------------------- blocks


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def section(text: str, *, accessory: Block | None = None) -> Block:
    """A section block of mrkdwn `text` (already escaped, at most 3,000 characters)."""
    if not 0 < len(text) <= SECTION_CHARS:
        raise ValueError(f"section text must be 1–{SECTION_CHARS} characters, got {len(text)}")
    block: Block = {"type": "section", "text": _mrkdwn(text)}
    if accessory is not None:
        block["accessory"] = accessory
    return block


def context(text: str) -> Block:
    """A context block (small grey text) of one mrkdwn element."""
    if not 0 < len(text) <= SECTION_CHARS:
        raise ValueError(f"context text must be 1–{SECTION_CHARS} characters, got {len(text)}")
    return {"type": "context", "elements": [_mrkdwn(text)]}


def header(text: str) -> Block:
    """A header block of plain `text` (at most 150 characters)."""
    if not 0 < len(text) <= HEADER_CHARS:
        raise ValueError(f"header text must be 1–{HEADER_CHARS} characters, got {len(text)}")
    return {"type": "header", "text": {"type": "plain_text", "text": text}}


def ack_button(item_id: str) -> Block:
    """The "Acknowledge" button of an action item; its value is the item id."""
    if not 0 < len(item_id) <= BUTTON_VALUE_CHARS:
        raise ValueError(f"an item id must be 1–{BUTTON_VALUE_CHARS} characters")
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": "Acknowledge"},
        "action_id": ACK_ACTION_ID,
        "value": item_id,
    }


def messages_of(blocks: Sequence[Block], preview: str) -> list[SlackMessage]:
    """`blocks` in messages of at most 50 blocks; follow-ups' previews say "(continued)"."""
    if not blocks:
        blocks = [context("(empty)")]
    preview = preview if preview.strip() else "The Wire"
    messages = []
    for start in range(0, len(blocks), MAX_BLOCKS):
        text = preview if start == 0 else f"(continued) {preview}"
        messages.append(SlackMessage(text=text, blocks=tuple(blocks[start : start + MAX_BLOCKS])))
    return messages


def split_header(headline: str) -> tuple[str, str]:
    """(header text, rest): the headline whole if it fits, else cut at a space with "…"."""
    flat = " ".join(plain_text(headline).split())
    if len(flat) <= HEADER_CHARS:
        return flat, ""
    cut = flat[: HEADER_CHARS - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut + ELLIPSIS, flat[len(cut) :].strip()
