"""A story cut into platform-neutral parts, posted as one thread.

`parts_of(story)` gives the parent (headline, lede, window), then the body (with its
section headings, if any), then one part per action item, then the references; a "no news"
story is its parent alone. Each part carries everything an adapter needs to render it,
including the references its citations point to, so no adapter ever looks the story up
again.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Literal, NamedTuple
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field, model_validator

from digest.model import (
    ActionItem,
    Paragraph,
    Reference,
    Section,
    Sentence,
    Story,
    check_sections,
    paragraphs_of,
)


class AckMark(NamedTuple):
    """Who acknowledged an action item, and when."""

    user_name: str
    acked_at: datetime


class _PartBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    story_id: str


class ParentPart(_PartBase):
    """The thread's parent message: headline, lede, the window the story covers and, when
    the archive has a public address, the story's page there."""

    kind: Literal["parent"] = "parent"
    headline: str
    lede: str
    window_label: str
    permalink: str | None = None


class BodyPart(_PartBase):
    """The cited body; `references` resolve its citation numbers to links. A longer
    window's body has `sections` (the story's: a heading over `sentences[start:end]`);
    `paragraphs()` gives the sentences in reading order under their headings."""

    kind: Literal["body"] = "body"
    sentences: tuple[Sentence, ...]
    references: tuple[Reference, ...]
    sections: tuple[Section, ...] = ()

    @model_validator(mode="after")
    def _sections_fit(self) -> BodyPart:
        check_sections(self.sentences, self.sections)
        return self

    def paragraphs(self) -> list[Paragraph]:
        """(heading or None, its sentences) in reading order, covering every sentence; a
        body without sections is one paragraph without a heading."""
        return paragraphs_of(self.sentences, self.sections)


class ActionItemPart(_PartBase):
    """One action item with the references it cites and who has acknowledged it."""

    kind: Literal["action_item"] = "action_item"
    item: ActionItem
    references: tuple[Reference, ...] = ()
    acks: tuple[AckMark, ...] = ()


class ReferencesPart(_PartBase):
    """The numbered references, each a link to its pull request or commit."""

    kind: Literal["references"] = "references"
    references: tuple[Reference, ...]


class ReminderPart(_PartBase):
    """An escalation posted in the thread when an immediate item stays unacknowledged;
    `index` is the index of the item's own part."""

    kind: Literal["reminder"] = "reminder"
    item: ActionItem
    oncall: str | None = None


Part = Annotated[
    ParentPart | BodyPart | ActionItemPart | ReferencesPart | ReminderPart,
    Field(discriminator="kind"),
]


def _cited(story: Story, numbers: Iterable[int]) -> tuple[Reference, ...]:
    wanted = set(numbers)
    return tuple(ref for ref in story.references if ref.n in wanted)


def permalink(story_id: str, public_url: str | None, zone: str | None = None) -> str | None:
    """The address of a story's page in the archive at `public_url` (None when unset); with
    `zone`, the page shows the window in that timezone."""
    if not public_url:
        return None
    address = f"{public_url.rstrip('/')}/stories/{story_id}"
    return address + "?" + urlencode({"tz": zone}) if zone and zone != "UTC" else address


def parts_of(story: Story, *, public_url: str | None = None, zone: str | None = None) -> list[Part]:
    """The parts of `story` in posting order; index 0 is the thread's parent, which links
    to the story's archive page when `public_url` (`[web] public_url`) is given, and reads
    the window in the channel's timezone `zone` (UTC when None)."""
    parts: list[Part] = [
        ParentPart(
            index=0,
            story_id=story.id,
            headline=story.headline,
            lede=story.lede,
            window_label=story.window.label(zone),
            permalink=permalink(story.id, public_url, zone),
        )
    ]
    if story.is_empty:
        return parts
    if story.body:
        cited = _cited(story, (n for sentence in story.body for n in sentence.refs))
        parts.append(
            BodyPart(
                index=len(parts),
                story_id=story.id,
                sentences=story.body,
                references=cited,
                sections=story.sections,
            )
        )
    for item in story.action_items:
        parts.append(
            ActionItemPart(
                index=len(parts),
                story_id=story.id,
                item=item,
                references=_cited(story, item.refs),
            )
        )
    parts.append(ReferencesPart(index=len(parts), story_id=story.id, references=story.references))
    return parts


def item_id_of(part: Part) -> str | None:
    """The action item a part carries, if it is an action-item part."""
    return part.item.id if isinstance(part, ActionItemPart) else None


def item_part(story: Story, item_id: str, acks: Iterable[AckMark] = ()) -> ActionItemPart:
    """The part of `story` that carries `item_id`, showing `acks` (to update its message)."""
    for part in parts_of(story):
        if isinstance(part, ActionItemPart) and part.item.id == item_id:
            return part.model_copy(update={"acks": tuple(acks)})
    raise KeyError(f"story {story.id} has no action item {item_id}")


def reminder_part(story: Story, item_id: str, *, oncall: str | None) -> ReminderPart:
    """A reminder about `item_id` of `story`, addressed to the on-call handle if any."""
    found = item_part(story, item_id)
    return ReminderPart(index=found.index, story_id=story.id, item=found.item, oncall=oncall)
