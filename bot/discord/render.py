"""Story parts as Discord message payloads: pure functions, no network, no client.

`render(part)` gives the JSON bodies of `POST /channels/{id}/messages`, in posting order.
The first payload of a part is *its* message (the one whose id the adapter records, which
carries the part's button and is edited to show acks); any further payloads continue it.
For the parent, the adapter creates the thread from the first payload's message
(`thread_name` names it) and posts the rest of the story inside.

Discord's limits are kept by splitting, never by cutting text off (`bot.discord.limits`:
content ≤ 2,000, embed title ≤ 256, description ≤ 4,096, footer ≤ 2,048, ≤ 6,000 across a
message's embeds, ≤ 10 embeds, in UTF-16 code units), and ≤ 5 buttons a row and ≤ 5 rows
here. A sectioned body puts each heading on a bold line above its paragraph.

Untrusted text passes through `escape_text`; the only markdown we emit ourselves are masked
links to https URLs (citations and references), bold, Discord timestamps and the on-call
role mention of a reminder. Every payload carries `allowed_mentions`; only a reminder's
allows the configured role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC

from bot.delivery.parts import (
    ActionItemPart,
    BodyPart,
    ParentPart,
    Part,
    ReferencesPart,
    ReminderPart,
)
from bot.delivery.platform import clean
from bot.discord.escape import escape_text
from bot.discord.limits import (
    TITLE_MAX,
    Payload,
    embeds_of,
    payloads,
    units,
)
from digest.model import CITATION, ActionItem, Reference, cited_numbers

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

_MASKED_LINK_TARGET = re.compile(r"^https://[^\s<>()\[\]\"'\\`|*~@]+$")  # "@": no user-info tricks


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


def masked_link_target(url: str) -> str | None:
    """`url` if it can stand inside a masked link unchanged (https, no markdown, no "@"),
    else None (the reference is then shown as escaped text)."""
    return url if len(url) <= 512 and _MASKED_LINK_TARGET.match(url) else None


def _citation(n: int, by_n: dict[int, Reference]) -> str:
    """Citation `n` as a masked link "[n]" to its reference (plain when unresolved)."""
    ref = by_n.get(n)
    url = masked_link_target(ref.url) if ref else None
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
    return embeds_of(
        title=escape_text(f"[{item.urgency}] {item.repo}"),
        description=_with_cites(item.text, item.refs, part.references),
        colour=URGENCY_COLOURS[item.urgency],
        footer=_ack_footer(part),
    )


def _reference_line(ref: Reference) -> str:
    url = masked_link_target(ref.url)
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
            permalink = masked_link_target(part.permalink) if part.permalink else None
            archive = f"\n\n[Read it in the archive]({permalink})" if permalink else ""
            embeds = embeds_of(
                title=escape_text(part.headline),
                description=escape_text(part.lede) + archive,
                colour=COLOURS["parent"],
                footer=clean(part.window_label),
            )
            return payloads(embeds=embeds)
        case BodyPart():
            text = _body_text(part)
            return payloads(embeds=embeds_of(title=None, description=text, colour=COLOURS["body"]))
        case ActionItemPart():
            components = ack_components(part.item.id) if part.item.urgency == "immediate" else None
            return payloads(embeds=_item_embeds(part), components=components)
        case ReferencesPart():
            lines = "\n".join(_reference_line(ref) for ref in part.references)
            embeds = embeds_of(title="References", description=lines, colour=COLOURS["references"])
            return payloads(embeds=embeds)
        case ReminderPart():
            content = _reminder_content(part.item, oncall_role_id)
            return payloads(content=content, oncall_role_id=oncall_role_id)
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
