"""Story parts as Block Kit messages: pure functions, no I/O.

`render(part)` returns a list of `SlackMessage`s. The platform posts the first as the part's
own message (its ts is the part's message id, the thread parent for a parent part) and the
rest, if any, as follow-ups in the same thread. Almost every part fits one message; more
appear only when a part would exceed Slack's limits, which `bot.slack.limits` meets by
splitting, never by cutting text off (sections of at most 3,000 characters, split between
sentences, lines or words; at most 50 blocks a message; a headline longer than a header
continued in a section). A sectioned body opens each paragraph's section block with its
heading as a bold line.

All source text goes through `escape.escape_mrkdwn` and every mrkdwn object is `verbatim`,
so nothing but `<!subteam^ID>` of the configured on-call group (reminders) and
`<!date^…>` timestamps is ever a mention, and only reference URLs are ever links.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

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
    slack_link_target,
    user_group_mention,
)
from bot.slack.limits import (
    ELLIPSIS,
    SECTION_CHARS,
    Block,
    SlackMessage,
    ack_button,
    context,
    escaped_chunks,
    escaped_words,
    header,
    link_pieces,
    messages_of,
    pack,
    preview_text,
    section,
    split_header,
)
from digest.model import CITATION, ActionItem, Reference, cited_numbers


def _cite_links(references: Sequence[Reference]) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement turning "[n]" into "[<url|n>]" for the known references."""
    urls = {ref.n: slack_link_target(ref.url) for ref in references}

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
            pieces += [(" ", w) for w in escaped_words(word, SECTION_CHARS)]
    return pieces


def render_parent(part: ParentPart) -> list[SlackMessage]:
    """Headline as a header (continued in a section when longer than 150 characters), the
    lede as a section, the window as context, and a link to the story's archive page when
    it has one."""
    head, rest = split_header(part.headline)
    blocks: list[Block] = [header(head)] if head else []
    if rest:
        blocks += [section(c) for c in escaped_chunks(ELLIPSIS + rest)]
    blocks += [section(c) for c in escaped_chunks(part.lede)]
    blocks += [context(c) for c in escaped_chunks(part.window_label)]
    if part.permalink and slack_link_target(part.permalink):
        blocks.append(context(link(part.permalink, "Read it in the archive")))
    return messages_of(blocks, preview_text(f"{part.headline} — {part.lede}"))


def _heading_pieces(heading: str | None) -> list[tuple[str, str]]:
    """A section heading as a bold mrkdwn line (escaped; a heading too long for one section
    is bold in several pieces), or nothing."""
    flat = " ".join(one_line(heading or "").split())
    return [("\n", f"*{chunk}*") for chunk in escaped_chunks(flat, SECTION_CHARS - 2)]


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
        blocks += [section(c) for c in pack(pieces, SECTION_CHARS)]
    preview = preview_text(" ".join(s.text for s in part.sentences))
    return messages_of(blocks, preview)


def _item_line(item: ActionItem, references: Sequence[Reference]) -> list[tuple[str, str]]:
    pieces = [(" ", f"*[{item.urgency}]*")]
    pieces += _cited_pieces(item.text, item.refs, references)
    pieces += [(" ", "—")] + [(" ", w) for w in escaped_words(item.repo, SECTION_CHARS)]
    return pieces


def _date(moment: datetime) -> str:
    """A Slack date token: shown in the reader's time zone, with a UTC fallback."""
    utc = moment.astimezone(UTC)
    fallback = f"{utc:%Y-%m-%d %H:%M} UTC"
    return f"<!date^{int(utc.timestamp())}^{{date_short_pretty}} at {{time}}|{fallback}>"


def _ack_lines(acks: Sequence[AckMark]) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    for ack in acks:
        words = escaped_words(ack.user_name, SECTION_CHARS - 200) or ["someone"]
        pieces.append(("\n", f"✓ Acknowledged by {words[0]}"))
        pieces += [(" ", w) for w in words[1:]]
        pieces.append((" ", f"on {_date(ack.acked_at)}"))
    return pieces


def render_action_item(part: ActionItemPart) -> list[SlackMessage]:
    """The item (urgency, text, repository, citations) with an "Acknowledge" button, then
    who acknowledged it and when. The button stays after an ack so others can add theirs."""
    item = part.item
    chunks = pack(_item_line(item, part.references), SECTION_CHARS)
    blocks: list[Block] = [section(chunks[0], accessory=ack_button(item.id))]
    blocks += [section(c) for c in chunks[1:]]
    blocks += [context(c) for c in pack(_ack_lines(part.acks), SECTION_CHARS)]
    preview = preview_text(f"[{item.urgency}] {item.text} — {item.repo}")
    return messages_of(blocks, preview)


def _reference_pieces(ref: Reference) -> list[tuple[str, str]]:
    number = f"[{ref.n}]"
    links = link_pieces(ref.url, ref.title, SECTION_CHARS - len(number) - 1)
    suffix = f"{ref.repo}#{ref.number}" if ref.number is not None else ref.repo
    return (
        [("\n", f"{number} {links[0]}")]
        + [(" ", link_piece) for link_piece in links[1:]]
        + [(" ", "—")]
        + [(" ", w) for w in escaped_words(suffix, SECTION_CHARS)]
    )


def render_references(part: ReferencesPart) -> list[SlackMessage]:
    """ "References" and one numbered line per reference, its title linked to its PR or
    commit; split between lines when longer than a section."""
    pieces = [("\n", "*References*")]
    for ref in part.references:
        pieces += _reference_pieces(ref)
    blocks = [section(c) for c in pack(pieces, SECTION_CHARS)]
    return messages_of(blocks, f"References ({len(part.references)})")


def render_reminder(part: ReminderPart) -> list[SlackMessage]:
    """A reminder that an item is still unacknowledged, mentioning the configured on-call
    user group when `part.oncall` is a user-group id (and nobody otherwise)."""
    mention = (
        user_group_mention(part.oncall) if part.oncall and is_user_group_id(part.oncall) else ""
    )
    lead = f"{mention} ⏰ Not acknowledged yet:".strip()
    pieces = [(" ", lead), *_item_line(part.item, ())]
    blocks = [section(c) for c in pack(pieces, SECTION_CHARS)]
    preview = f"{lead} {preview_text(f'[{part.item.urgency}] {part.item.text}')}"
    return messages_of(blocks, preview)


def notification_text(raw: str) -> str:
    """A one-line notification preview of untrusted `raw`, escaped and cut at a space."""
    return preview_text(raw)


def text_sections(raw: str) -> list[Block]:
    """Untrusted multi-line `raw` (a command's reply, which echoes what was typed) as
    sections: each line escaped, lines kept, split between lines to fit a section."""
    pieces = [("\n", chunk) for line in raw.splitlines() for chunk in escaped_chunks(line)]
    return [section(c) for c in pack(pieces, SECTION_CHARS)]


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
