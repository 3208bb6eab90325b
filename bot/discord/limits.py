"""Discord's limits on a message, kept by splitting text, never by cutting it off.

Content ≤ 2,000, embed title ≤ 256, description ≤ 4,096, footer ≤ 2,048, ≤ 6,000 across a
message's embeds and ≤ 10 embeds. Lengths count UTF-16 code units, as Discord's clients
do, which is never less than Python's count of code points. `split_text` cuts at line
breaks or spaces, never inside one of our own masked links or bold runs nor between a
backslash and the character it escapes; `embeds_of` continues a long description in
further embeds, `pack_embeds` groups embeds into messages and `payloads` makes the
messages, each saying whom it may ping.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from bot.discord.escape import allowed_mentions_json

Payload = dict[str, Any]

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
EMBEDS_TOTAL_MAX = 6000
EMBEDS_MAX = 10

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


def embeds_of(
    *, title: str | None, description: str, colour: int, footer: str | None = None
) -> list[Payload]:
    """One embed, or several continuing each other when the text is too long for one."""
    if footer is not None and units(footer) > FOOTER_MAX:
        raise ValueError(f"footer of {units(footer)} chars exceeds {FOOTER_MAX}")
    if title is not None and units(title) > TITLE_MAX:
        bold = units(title) + 4 <= DESCRIPTION_MAX - FOOTER_MAX  # never split a bold run
        lead = f"**{title}**" if bold else title
        description = f"{lead}\n{description}" if description else lead
        title = None
    head_units = units(title or "") + units(footer or "")
    first = min(DESCRIPTION_MAX, EMBEDS_TOTAL_MAX - head_units)
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


def payloads(
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
