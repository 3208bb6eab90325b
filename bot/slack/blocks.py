"""Story parts as Block Kit messages: pure functions, no I/O.

`render(part)` returns a list of `SlackMessage`s. The platform posts the first as the part's
own message (its ts is the part's message id, the thread parent for a parent part) and the
rest, if any, as follow-ups in the same thread. Almost every part fits one message; more
appear only when a part would exceed Slack's limits, which are met by splitting, never by
cutting text off:

- a section's text is at most 3,000 characters: long text is split across sections at
  sentence boundaries, then at spaces, and only a single "word" longer than a section is
  split inside; a long reference list is split between lines, a long title into several
  links to the same URL;
- a message holds at most 50 blocks: further blocks go into follow-up messages;
- a header is at most 150 characters: a longer headline is split at a space, the header
  ends with "…" and the next section carries on with "…" and the rest.

Each message's `text` is the notification preview Slack shows where blocks cannot be shown
(push notifications, screen readers' summary). It is a preview, not the content: it is cut
at a space with "…" after `PREVIEW_CHARS`. The blocks carry everything.

All source text goes through `escape.escape_mrkdwn` and every mrkdwn object is `verbatim`,
so nothing but `<!subteam^ID>` of the configured on-call group (reminders) and
`<!date^…>` timestamps is ever a mention, and only reference URLs are ever links.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.delivery.parts import (
    AckMark,
    ActionItemPart,
    BodyPart,
    ParentPart,
    Part,
    ReferencesPart,
    ReminderPart,
)
from bot.slack.escape import (
    escape_mrkdwn,
    is_user_group_id,
    link,
    one_line,
    plain_text,
    safe_url,
    user_group_mention,
)
from digest.model import ActionItem, Reference
from digest.text import CITATION, cited_numbers

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


def _words(raw: str, limit: int) -> list[str]:
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


def _pack(pieces: Iterable[tuple[str, str]], limit: int) -> list[str]:
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


def _chunks(raw: str, limit: int = SECTION_CHARS) -> list[str]:
    """`raw` escaped as mrkdwn, in chunks of at most `limit` characters split at spaces."""
    escaped = escape_mrkdwn(raw)
    if not escaped.strip():
        return []
    if len(escaped) <= limit:
        return [escaped]
    return _pack(((" ", w) for w in _words(raw, limit)), limit)


def _link_pieces(url: str, label: str, limit: int) -> list[str]:
    """A link to `url` labelled `label`, as one or more links of at most `limit` characters
    each (a label too long for one is spread over several links to the same URL). An unsafe
    URL gives no link: the label and the URL as escaped text."""
    target = safe_url(url)
    if target is None or len(target) > limit // 2:
        return [w for w in _words(f"{label} ({url})", limit)]
    room = limit - len(target) - 3
    labels = _pack(((" ", w) for w in _words(label, room)), room) or [escape_mrkdwn(url)]
    return [f"<{target}|{text}>" for text in labels]


def _preview(raw: str, limit: int = PREVIEW_CHARS) -> str:
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


def _messages(blocks: Sequence[Block], preview: str) -> list[SlackMessage]:
    """`blocks` in messages of at most 50 blocks; follow-ups' previews say "(continued)"."""
    if not blocks:
        blocks = [context("(empty)")]
    preview = preview if preview.strip() else "The Wire"
    messages = []
    for start in range(0, len(blocks), MAX_BLOCKS):
        text = preview if start == 0 else f"(continued) {preview}"
        messages.append(SlackMessage(text=text, blocks=tuple(blocks[start : start + MAX_BLOCKS])))
    return messages


def _split_header(headline: str) -> tuple[str, str]:
    """(header text, rest): the headline whole if it fits, else cut at a space with "…"."""
    flat = " ".join(plain_text(headline).split())
    if len(flat) <= HEADER_CHARS:
        return flat, ""
    cut = flat[: HEADER_CHARS - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut + ELLIPSIS, flat[len(cut) :].strip()


# ---------------------------------------------------------------- parts


def _cite_links(references: Sequence[Reference]):
    """A `re.sub` replacement turning "[n]" into "[<url|n>]" for the known references."""
    urls = {ref.n: safe_url(ref.url) for ref in references}

    def replace(match: re.Match[str]) -> str:
        n = int(match.group(1))
        target = urls.get(n)
        return f"[<{target}|{n}>]" if target else match.group(0)

    return replace


def _cited_pieces(
    raw: str, numbers: Sequence[int], references: Sequence[Reference]
) -> list[tuple[str, str]]:
    """(separator, piece) pairs of a sentence whose citations ("[n]") link to their
    references; cited numbers missing from the text are appended. Whole if it fits a
    section, else word by word."""
    linked = _cite_links(references)
    missing = [n for n in numbers if n not in cited_numbers(raw)]
    extra = "".join(f"[{n}]" for n in missing)
    text = f"{raw} {extra}".strip() if extra else raw
    whole = CITATION.sub(linked, escape_mrkdwn(text)).strip()
    if len(whole) <= SECTION_CHARS:
        return [(" ", whole)] if whole else []
    pieces: list[tuple[str, str]] = []
    for word in one_line(text).split():
        escaped = CITATION.sub(linked, escape_mrkdwn(word))
        if len(escaped) <= SECTION_CHARS:
            pieces.append((" ", escaped))
        else:
            pieces += [(" ", w) for w in _words(word, SECTION_CHARS)]
    return pieces


def render_parent(part: ParentPart) -> list[SlackMessage]:
    """Headline as a header (continued in a section when longer than 150 characters), the
    lede as a section, the window as context, and a link to the story's archive page when
    it has one."""
    head, rest = _split_header(part.headline)
    blocks: list[Block] = [header(head)] if head else []
    if rest:
        blocks += [section(c) for c in _chunks(ELLIPSIS + rest)]
    blocks += [section(c) for c in _chunks(part.lede)]
    blocks += [context(c) for c in _chunks(part.window_label)]
    if part.permalink and safe_url(part.permalink):
        blocks.append(context(link(part.permalink, "Read it in the archive")))
    return _messages(blocks, _preview(f"{part.headline} — {part.lede}"))


def _heading_pieces(heading: str | None) -> list[tuple[str, str]]:
    """A section heading as a bold mrkdwn line (escaped; a heading too long for one section
    is bold in several pieces), or nothing."""
    flat = " ".join(one_line(heading or "").split())
    return [("\n", f"*{chunk}*") for chunk in _chunks(flat, SECTION_CHARS - 2)]


def render_body(part: BodyPart) -> list[SlackMessage]:
    """The body as sections, each sentence followed by its citations linked to their PRs;
    split between sentences when longer than a section. Each paragraph of a sectioned body
    starts a section block with its heading as a bold line."""
    blocks: list[Block] = []
    for heading, sentences in part.paragraphs():
        pieces = [
            piece
            for sentence in sentences
            for piece in _cited_pieces(sentence.text, sentence.refs, part.references)
        ]
        if head := _heading_pieces(heading):
            pieces = head + [("\n", p) for _, p in pieces[:1]] + pieces[1:]
        blocks += [section(c) for c in _pack(pieces, SECTION_CHARS)]
    preview = _preview(" ".join(s.text for s in part.sentences))
    return _messages(blocks, preview)


def _item_line(item: ActionItem, references: Sequence[Reference]) -> list[tuple[str, str]]:
    pieces = [(" ", f"*[{item.urgency}]*")]
    pieces += _cited_pieces(item.text, item.refs, references)
    pieces += [(" ", "—")] + [(" ", w) for w in _words(item.repo, SECTION_CHARS)]
    return pieces


def _date(moment: datetime) -> str:
    """A Slack date token: shown in the reader's time zone, with a UTC fallback."""
    utc = moment.astimezone(UTC)
    fallback = f"{utc:%Y-%m-%d %H:%M} UTC"
    return f"<!date^{int(utc.timestamp())}^{{date_short_pretty}} at {{time}}|{fallback}>"


def _ack_lines(acks: Sequence[AckMark]) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    for ack in acks:
        words = _words(ack.user_name, SECTION_CHARS - 200) or ["someone"]
        pieces.append(("\n", f"✓ Acknowledged by {words[0]}"))
        pieces += [(" ", w) for w in words[1:]]
        pieces.append((" ", f"on {_date(ack.acked_at)}"))
    return pieces


def render_action_item(part: ActionItemPart) -> list[SlackMessage]:
    """The item (urgency, text, repository, citations) with an "Acknowledge" button, then
    who acknowledged it and when. The button stays after an ack so others can add theirs."""
    item = part.item
    chunks = _pack(_item_line(item, part.references), SECTION_CHARS)
    blocks: list[Block] = [section(chunks[0], accessory=ack_button(item.id))]
    blocks += [section(c) for c in chunks[1:]]
    blocks += [context(c) for c in _pack(_ack_lines(part.acks), SECTION_CHARS)]
    preview = _preview(f"[{item.urgency}] {item.text} — {item.repo}")
    return _messages(blocks, preview)


def _reference_pieces(ref: Reference) -> list[tuple[str, str]]:
    number = f"[{ref.n}]"
    links = _link_pieces(ref.url, ref.title, SECTION_CHARS - len(number) - 1)
    suffix = f"{ref.repo}#{ref.number}" if ref.number is not None else ref.repo
    return (
        [("\n", f"{number} {links[0]}")]
        + [(" ", link_piece) for link_piece in links[1:]]
        + [(" ", "—")]
        + [(" ", w) for w in _words(suffix, SECTION_CHARS)]
    )


def render_references(part: ReferencesPart) -> list[SlackMessage]:
    """ "References" and one numbered line per reference, its title linked to its PR or
    commit; split between lines when longer than a section."""
    pieces = [("\n", "*References*")]
    for ref in part.references:
        pieces += _reference_pieces(ref)
    blocks = [section(c) for c in _pack(pieces, SECTION_CHARS)]
    return _messages(blocks, f"References ({len(part.references)})")


def render_reminder(part: ReminderPart) -> list[SlackMessage]:
    """A reminder that an item is still unacknowledged, mentioning the configured on-call
    user group when `part.oncall` is a user-group id (and nobody otherwise)."""
    mention = (
        user_group_mention(part.oncall) if part.oncall and is_user_group_id(part.oncall) else ""
    )
    lead = f"{mention} ⏰ Not acknowledged yet:".strip()
    pieces = [(" ", lead), *_item_line(part.item, ())]
    blocks = [section(c) for c in _pack(pieces, SECTION_CHARS)]
    preview = f"{lead} {_preview(f'[{part.item.urgency}] {part.item.text}')}"
    return _messages(blocks, preview)


def notification_text(raw: str) -> str:
    """A one-line notification preview of untrusted `raw`, escaped and cut at a space."""
    return _preview(raw)


def text_sections(raw: str) -> list[Block]:
    """Untrusted multi-line `raw` (a command's reply, which echoes what was typed) as
    sections: each line escaped, lines kept, split between lines to fit a section."""
    pieces = [("\n", chunk) for line in raw.splitlines() for chunk in _chunks(line)]
    return [section(c) for c in _pack(pieces, SECTION_CHARS)]


def render(part: Part) -> list[SlackMessage]:
    """The Slack messages of a part: the first is the part's own message, any others are
    follow-ups posted in the same thread (see the module doc)."""
    match part:
        case ParentPart():
            return render_parent(part)
        case BodyPart():
            return render_body(part)
        case ActionItemPart():
            return render_action_item(part)
        case ReferencesPart():
            return render_references(part)
        case ReminderPart():
            return render_reminder(part)
    raise TypeError(f"not a part: {part!r}")
