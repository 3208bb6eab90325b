"""Story parts as Discord message payloads: pure functions, no network, no client.

`render(part)` gives the JSON bodies of `POST /channels/{id}/messages`, in posting order.
The first payload of a part is *its* message (the one whose id the adapter records, which
carries the part's button and is edited to show acks); any further payloads continue it.
For the parent, the adapter creates the thread from the first payload's message
(`thread_name` names it) and posts the rest of the story inside.

Discord's limits are kept by splitting, never by cutting text off: content ≤ 2,000,
embed title ≤ 256, description ≤ 4,096, footer ≤ 2,048, ≤ 6,000 across a message's embeds,
≤ 10 embeds, ≤ 5 buttons a row and ≤ 5 rows. Lengths count UTF-16 code units, as Discord's
clients do, which is never less than Python's count of code points.

Untrusted text passes through `escape_text`; the only markdown we emit ourselves are masked
links to https URLs (citations and references), bold, Discord timestamps and the on-call
role mention of a reminder. Every payload carries `allowed_mentions`; only a reminder's
allows the configured role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC
from typing import Any

from bot.delivery.parts import (
    ActionItemPart,
    BodyPart,
    ParentPart,
    Part,
    ReferencesPart,
    ReminderPart,
)
from bot.delivery.platform import clean
from bot.discord.escape import allowed_mentions_json, escape_text
from digest.model import ActionItem, Reference
from digest.text import CITATION, cited_numbers

Payload = dict[str, Any]

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
EMBEDS_TOTAL_MAX = 6000
EMBEDS_MAX = 10
BUTTONS_PER_ROW = 5
ROWS_MAX = 5
CUSTOM_ID_MAX = 100
THREAD_NAME_MAX = 100
ACKS_SHOWN = 20

ACK_PREFIX = "wire:ack:"
ACK_LABEL = "Acknowledge"
BUTTON_SUCCESS = 3
COLOURS = {"parent": 0x2B2D31, "body": 0x5865F2, "references": 0x99AAB5}
URGENCY_COLOURS = {"immediate": 0xE74C3C, "monitor": 0xF1C40F, "plan": 0x3498DB}

_SAFE_URL = re.compile(r"^https://[^\s<>()\[\]\"'\\`|*~@]+$")  # "@": no user-info tricks
# Our own masked links, [text](https://…) whose "[" is not escaped, and our own bold runs,
# **text** whose "**" is not escaped (escaped text has no bare "*"): never cut inside one.
_OUR_LINK = re.compile(r"(?<!\\)\[(?:\\.|[^\]\\])*\]\(https://[^\s)]+\)")
_OUR_BOLD = re.compile(r"(?<!\\)\*\*(?:\\.|[^*\\\n])+\*\*")
_OURS = re.compile(f"{_OUR_LINK.pattern}|{_OUR_BOLD.pattern}")


def units(text: str) -> int:
    """The length of `text` as Discord counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _prefix_within(text: str, limit: int) -> int:
    """The largest k such that text[:k] fits in `limit` units."""
    if len(text) * 2 <= limit:
        return len(text)
    total = 0
    for k, char in enumerate(text):
        total += 2 if ord(char) > 0xFFFF else 1
        if total > limit:
            return k
    return len(text)


def _cut(text: str, limit: int) -> int:
    """Where to end the first chunk of `text`: after a line break or space if possible,
    never inside one of our links nor between a backslash and the character it escapes."""
    end = _prefix_within(text, limit)
    if end >= len(text):
        return len(text)
    cut = end
    newline = text.rfind("\n", 0, end)
    space = text.rfind(" ", 0, end)
    if newline >= end // 2:
        cut = newline + 1
    elif space > 0:
        cut = space + 1
    for link in _OURS.finditer(text, 0, end + 600):
        if link.start() < cut < link.end() and link.start() > 0:
            cut = link.start()
    backslashes = len(text[:cut]) - len(text[:cut].rstrip("\\"))
    if backslashes % 2:
        cut -= 1
    return max(cut, 1)


def split_text(text: str, limit: int, *, first_limit: int | None = None) -> list[str]:
    """`text` in chunks of at most `limit` units (the first at most `first_limit`), whose
    concatenation is exactly `text`; an empty text is one empty chunk."""
    chunks: list[str] = []
    rest = text
    current = first_limit if first_limit is not None else limit
    while units(rest) > current:
        cut = _cut(rest, current)
        chunks.append(rest[:cut])
        rest = rest[cut:]
        current = limit
    chunks.append(rest)
    return chunks


def embed_chars(embed: Payload) -> int:
    """The characters of an embed that count towards a message's 6,000."""
    total = units(embed.get("title") or "") + units(embed.get("description") or "")
    total += units((embed.get("footer") or {}).get("text") or "")
    total += units((embed.get("author") or {}).get("name") or "")
    for field in embed.get("fields") or ():
        total += units(field.get("name") or "") + units(field.get("value") or "")
    return total


def _embeds(
    *, title: str | None, description: str, colour: int, footer: str | None = None
) -> list[Payload]:
    """One embed, or several continuing each other when the text is too long for one."""
    if footer is not None and units(footer) > FOOTER_MAX:
        raise ValueError(f"footer of {units(footer)} chars exceeds {FOOTER_MAX}")
    if title is not None and units(title) > TITLE_MAX:
        bold = units(title) + 4 <= DESCRIPTION_MAX - FOOTER_MAX  # never split a bold run
        head = f"**{title}**" if bold else title
        description = f"{head}\n{description}" if description else head
        title = None
    head = units(title or "") + units(footer or "")
    first = min(DESCRIPTION_MAX, EMBEDS_TOTAL_MAX - head)
    embeds: list[Payload] = []
    for i, chunk in enumerate(split_text(description, DESCRIPTION_MAX, first_limit=first)):
        embed: Payload = {"type": "rich", "color": colour}
        if i == 0 and title:
            embed["title"] = title
        if chunk:
            embed["description"] = chunk
        if i == 0 and footer:
            embed["footer"] = {"text": footer}
        embeds.append(embed)
    return embeds


def pack_embeds(embeds: Iterable[Payload]) -> list[list[Payload]]:
    """Embeds grouped into messages of at most 10 embeds and 6,000 characters."""
    groups: list[list[Payload]] = []
    size = 0
    for embed in embeds:
        chars = embed_chars(embed)
        if not groups or len(groups[-1]) == EMBEDS_MAX or size + chars > EMBEDS_TOTAL_MAX:
            groups.append([])
            size = 0
        groups[-1].append(embed)
        size += chars
    return groups


def _payloads(
    *,
    content: str = "",
    embeds: Sequence[Payload] = (),
    components: list[Payload] | None = None,
    oncall_role_id: int | None = None,
) -> list[Payload]:
    """Messages carrying `content` (split) then `embeds` (packed); `components` ride on the
    first message; every message says whom it may ping."""
    messages: list[Payload] = []
    if content:
        messages.extend({"content": chunk} for chunk in split_text(content, CONTENT_MAX))
    for group in pack_embeds(embeds):
        messages.append({"embeds": group})
    if components:
        messages[0]["components"] = components
    for message in messages:
        message["allowed_mentions"] = allowed_mentions_json(oncall_role_id)
    return messages


def ack_custom_id(item_id: str) -> str:
    """The custom_id of the Acknowledge button of `item_id`: "wire:ack:<item id>"."""
    custom_id = ACK_PREFIX + item_id
    if not item_id or units(custom_id) > CUSTOM_ID_MAX or not item_id.isascii():
        raise ValueError(f"action item id {item_id!r} cannot make a custom_id of ≤ 100 chars")
    return custom_id


def action_rows(buttons: Sequence[Payload]) -> list[Payload]:
    """`buttons` laid out in action rows of at most five; more than 25 is an error."""
    if len(buttons) > BUTTONS_PER_ROW * ROWS_MAX:
        raise ValueError(f"{len(buttons)} buttons do not fit in {ROWS_MAX} rows")
    return [
        {"type": 1, "components": list(buttons[i : i + BUTTONS_PER_ROW])}
        for i in range(0, len(buttons), BUTTONS_PER_ROW)
    ]


def ack_components(item_id: str) -> list[Payload]:
    """The action row holding the Acknowledge button of `item_id`."""
    button = {
        "type": 2,
        "style": BUTTON_SUCCESS,
        "label": ACK_LABEL,
        "custom_id": ack_custom_id(item_id),
    }
    return action_rows([button])


def safe_url(url: str) -> str | None:
    """`url` if it can stand inside a masked link unchanged (https, no markdown, no "@"),
    else None (the reference is then shown as escaped text)."""
    return url if len(url) <= 512 and _SAFE_URL.match(url) else None


def _citation(n: int, by_n: dict[int, Reference]) -> str:
    """Citation `n` as a masked link "[n]" to its reference (plain when unresolved)."""
    ref = by_n.get(n)
    url = safe_url(ref.url) if ref else None
    return f"[\\[{n}\\]]({url})" if url else f"\\[{n}\\]"


def _with_cites(text: str, numbers: tuple[int, ...], references: Iterable[Reference]) -> str:
    """`text` escaped, its inline citations ("[n]") linked, and any of `numbers` it does not
    cite inline appended as links."""
    by_n = {ref.n: ref for ref in references}
    pieces, last, inline = [], 0, set()
    for match in CITATION.finditer(text):
        n = int(match.group(1))
        pieces.append(escape_text(text[last : match.start()]))
        pieces.append(_citation(n, by_n))
        inline.add(n)
        last = match.end()
    pieces.append(escape_text(text[last:]))
    rest = "".join(_citation(n, by_n) for n in numbers if n not in inline)
    return "".join(pieces) + (f" {rest}" if rest else "")


def thread_name(part: ParentPart) -> str:
    """The thread's name: the headline as plain text, shortened with "…" past 100 chars
    (a label; the whole headline is in the parent message)."""
    name = clean(part.headline).strip() or "The Wire"
    return name if len(name) <= THREAD_NAME_MAX else name[: THREAD_NAME_MAX - 1] + "…"


def _ack_footer(part: ActionItemPart) -> str | None:
    """Who acknowledged, as plain footer text (footers render neither markdown nor mentions)."""
    if not part.acks:
        return None
    shown = [
        f"{clean(a.user_name)[:40]} ({a.acked_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
        for a in part.acks[:ACKS_SHOWN]
    ]
    more = len(part.acks) - len(shown)
    tail = f" and {more} more" if more > 0 else ""
    return "✓ Acknowledged by " + ", ".join(shown) + tail


def _item_embeds(part: ActionItemPart) -> list[Payload]:
    item = part.item
    return _embeds(
        title=escape_text(f"[{item.urgency}] {item.repo}"),
        description=_with_cites(item.text, item.refs, part.references),
        colour=URGENCY_COLOURS[item.urgency],
        footer=_ack_footer(part),
    )


def _reference_line(ref: Reference) -> str:
    url = safe_url(ref.url)
    title = escape_text(ref.title)
    if url:
        return f"\\[{ref.n}\\] [{title}]({url})"
    return f"\\[{ref.n}\\] {title} — {escape_text(ref.url)}"


def _reminder_content(item: ActionItem, oncall_role_id: int | None) -> str:
    who = f"<@&{oncall_role_id}> " if oncall_role_id is not None else ""
    line = escape_text(f"[{item.urgency}] {item.text} — {item.repo}")
    inline = set(cited_numbers(item.text))
    cites = "".join(f"\\[{n}\\]" for n in item.refs if n not in inline)
    return f"{who}⏰ Not acknowledged yet: {line}" + (f" {cites}" if cites else "")


def _heading_line(heading: str) -> str:
    """A section heading as a bold line: escaped, so it can neither close the bold nor open
    anything else; one longer than an embed title is an escaped line without bold, so no
    split ever falls inside a bold run."""
    escaped = escape_text(" ".join(heading.split()))
    if not escaped:
        return ""
    return f"**{escaped}**" if units(escaped) <= TITLE_MAX else escaped


def _body_text(part: BodyPart) -> str:
    """The body's paragraphs, a blank line apart, each section's heading a bold line above
    its sentences; a body without sections is its sentences on one line."""
    paragraphs = []
    for heading, sentences in part.paragraphs():
        text = " ".join(_with_cites(s.text, s.refs, part.references) for s in sentences)
        line = _heading_line(heading) if heading is not None else ""
        paragraphs.append(f"{line}\n{text}" if line else text)
    return "\n\n".join(paragraphs)


def render(part: Part, *, oncall_role_id: int | None = None) -> list[Payload]:
    """The message payloads of `part`, in posting order (see the module doc).

    `oncall_role_id` is the configured Discord on-call role: a reminder mentions it and its
    payloads allow pinging it; no other payload can ping anyone.
    """
    match part:
        case ParentPart():
            permalink = safe_url(part.permalink) if part.permalink else None
            archive = f"\n\n[Read it in the archive]({permalink})" if permalink else ""
            embeds = _embeds(
                title=escape_text(part.headline),
                description=escape_text(part.lede) + archive,
                colour=COLOURS["parent"],
                footer=clean(part.window_label),
            )
            return _payloads(embeds=embeds)
        case BodyPart():
            text = _body_text(part)
            return _payloads(embeds=_embeds(title=None, description=text, colour=COLOURS["body"]))
        case ActionItemPart():
            components = ack_components(part.item.id) if part.item.urgency == "immediate" else None
            return _payloads(embeds=_item_embeds(part), components=components)
        case ReferencesPart():
            lines = "\n".join(_reference_line(ref) for ref in part.references)
            embeds = _embeds(title="References", description=lines, colour=COLOURS["references"])
            return _payloads(embeds=embeds)
        case ReminderPart():
            content = _reminder_content(part.item, oncall_role_id)
            return _payloads(content=content, oncall_role_id=oncall_role_id)
    raise TypeError(f"not a part: {part!r}")


def edit_payload(part: Part, *, oncall_role_id: int | None = None) -> Payload:
    """The JSON body of `PATCH …/messages/{id}` that makes a part's message show `part`
    (e.g. with new acks): its first payload, with every field stated so stale ones clear."""
    first = render(part, oncall_role_id=oncall_role_id)[0]
    return {
        "content": first.get("content"),
        "embeds": first.get("embeds", []),
        "components": first.get("components", []),
        "allowed_mentions": first["allowed_mentions"],
    }
