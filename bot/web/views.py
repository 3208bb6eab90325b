"""What the archive's templates show, built from stories by pure functions.

Every string from a story is untrusted (titles come from pull requests): the templates
escape everything, and the only markup made here is `cited`'s, which escapes the text
first and then links its citation numbers ("[3]", "[ref:3]") to the references' anchors.
A reference links out only when its URL is http(s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup, escape

from bot.store import Ack
from digest.config import WireConfig
from digest.model import CITATION, Reference, Sentence, Story, cited_numbers

TIME_FORMAT = "%Y-%m-%d %H:%M UTC"


def reference_anchor(n: int) -> str:
    """The id of reference `n` on a story page (a citation links to `#ref-N`)."""
    return f"ref-{n}"


def _cite_link(n: int) -> str:
    return f'<a class="cite" href="#{reference_anchor(n)}" aria-label="reference {n}">[{n}]</a>'


def cited(text: str, refs: Iterable[int], *, known: Iterable[int]) -> Markup:
    """`text` escaped, its citations of known references linked, and the citations in
    `refs` that the text does not carry inline appended."""
    numbers = set(known)

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return _cite_link(n) if n in numbers else match.group(0)

    html = CITATION.sub(link, str(escape(text)))
    inline = set(cited_numbers(text))
    extra = [_cite_link(n) for n in dict.fromkeys(refs) if n in numbers and n not in inline]
    return Markup(" ".join([html, *extra]) if extra else html)


def http_url_or_none(url: str) -> str | None:
    """`url` when it is an http(s) address, else None (no `javascript:` links)."""
    return url if url.lower().startswith(("https://", "http://")) else None


def when(moment: datetime) -> str:
    """A time as the archive shows it, in UTC."""
    return moment.astimezone(UTC).strftime(TIME_FORMAT)


@dataclass(frozen=True, slots=True)
class AckView:
    user_name: str
    platform: str
    at: str
    iso: str


@dataclass(frozen=True, slots=True)
class ItemView:
    text: Markup
    urgency: str
    repo: str
    acks: tuple[AckView, ...]


@dataclass(frozen=True, slots=True)
class ReferenceView:
    n: int
    anchor: str
    title: str
    number: int | None
    repo: str
    url: str | None


@dataclass(frozen=True, slots=True)
class SummaryView:
    """A story as the list page shows it."""

    id: str
    headline: str
    lede: str
    window: str
    projects: str
    topic: str | None


@dataclass(frozen=True, slots=True)
class StoryView(SummaryView):
    """A story as its page shows it: what the list shows, and the story itself."""

    paragraphs: tuple[tuple[str | None, Markup], ...]
    items: tuple[ItemView, ...]
    references: tuple[ReferenceView, ...]


def project_names(story: Story, config: WireConfig) -> str:
    """The canonical names of the projects a story covers, for its byline."""
    names = [config.project(repo).name for repo in story.repos]
    return ", ".join(names) or "the followed repositories"


def _paragraphs(story: Story) -> list[tuple[str | None, tuple[Sentence, ...]]]:
    if hasattr(story, "paragraphs"):
        return story.paragraphs()
    return [(None, story.body)] if story.body else []


def _reference(ref: Reference) -> ReferenceView:
    return ReferenceView(
        n=ref.n,
        anchor=reference_anchor(ref.n),
        title=ref.title,
        number=ref.number,
        repo=ref.repo,
        url=http_url_or_none(ref.url),
    )


def story_view(
    story: Story,
    *,
    config: WireConfig,
    acks: Mapping[str, Iterable[Ack]] | None = None,
    zone: str | None = None,
) -> StoryView:
    """The page of `story`, with each action item's acks (by item id) when given, and its
    window in timezone `zone` (UTC when None)."""
    known = [ref.n for ref in story.references]
    acks = acks or {}
    paragraphs = tuple(
        (heading, Markup(" ").join(cited(s.text, s.refs, known=known) for s in sentences))
        for heading, sentences in _paragraphs(story)
    )
    items = tuple(
        ItemView(
            text=cited(item.text, item.refs, known=known),
            urgency=item.urgency,
            repo=item.repo,
            acks=tuple(
                AckView(a.user_name, a.platform, when(a.acked_at), a.acked_at.isoformat())
                for a in acks.get(item.id, ())
            ),
        )
        for item in story.action_items
    )
    return StoryView(
        **_summary_fields(story, config, zone),
        paragraphs=paragraphs,
        items=items,
        references=tuple(_reference(ref) for ref in story.references),
    )


def summary_view(story: Story, *, config: WireConfig) -> SummaryView:
    """One entry of the list page."""
    return SummaryView(**_summary_fields(story, config))


def _summary_fields(story: Story, config: WireConfig, zone: str | None = None) -> dict[str, Any]:
    """What the list entry and the page of a story both show."""
    return {
        "id": story.id,
        "headline": story.headline,
        "lede": story.lede,
        "window": story.window.label(zone),
        "projects": project_names(story, config),
        "topic": story.topic,
    }


@dataclass(frozen=True, slots=True)
class LinkCard:
    """What a chat app shows for a pasted story link: Open Graph and Twitter card values."""

    title: str
    description: str
    url: str


def link_card(story: Story, *, base: str) -> LinkCard:
    """The card of `story` whose archive is at `base`: the headline, the lede, the page."""
    return LinkCard(title=story.headline, description=story.lede, url=f"{base}/stories/{story.id}")
