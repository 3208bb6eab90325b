"""Citation markers and their numbering: drafted prose names activities, numbers come last.

A marker names an activity (`repo@sha`); `number_references` turns markers into [n] in
order of first citation, so numbering and the reference list can never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from digest.model import (
    ActionItem,
    Activity,
    Reference,
    Section,
    Sentence,
    Story,
    Urgency,
    Window,
    stable_id,
)
from digest.untrusted import clean_fragment

MARK = "\x00"
MARKER = re.compile(f"{MARK}([^{MARK}]+){MARK}")


def cite(*activities: Activity) -> str:
    """Citation markers for activities, resolved to [n] by `number_references`."""
    return "".join(f"{MARK}{a.repo}@{a.sha}{MARK}" for a in activities)


@dataclass(frozen=True)
class Draft:
    """A story before its citations are numbered."""

    headline: str
    lede: str
    body: tuple[str, ...]
    actions: tuple[tuple[str, Urgency, str, str], ...]  # (text, urgency, repo, key of the ref)
    sections: tuple[tuple[str, int, int], ...] = ()  # (heading, first sentence, end)
    lead: tuple[str, ...] = ()  # `repo@sha` of the changes the headline tells


# ---------------------------------------------------------------- pipeline
def number_references(
    draft: Draft,
    *,
    activities: list[Activity],
    window: Window,
    repos: tuple[str, ...],
    topic: str | None,
) -> Story:
    """Replace citation markers by [n], numbered by first citation, and build the references."""
    by_key = {f"{a.repo}@{a.sha}": a for a in activities}
    numbers: dict[str, int] = {}

    def resolve(text: str) -> tuple[str, tuple[int, ...]]:
        refs: list[int] = []

        def replace(match: re.Match[str]) -> str:
            key = match.group(1)
            number = numbers.setdefault(key, len(numbers) + 1)
            refs.append(number)
            return f"[{number}]"

        resolved = MARKER.sub(replace, text)
        resolved = re.sub(r"\](\s*)\[", "][", resolved)
        return resolved, tuple(refs)

    body = tuple(Sentence(text=t, refs=r) for t, r in map(resolve, draft.body))
    items = []
    for text, urgency, repo, key in draft.actions:
        resolved, refs = resolve(text)
        items.append(
            ActionItem(
                id=stable_id("item", repo, key, urgency),
                text=resolved,
                urgency=urgency,
                repo=repo,
                refs=refs,
            )
        )
    references = tuple(
        Reference(
            n=n,
            repo=by_key[key].repo,
            number=by_key[key].number,
            title=clean_fragment(by_key[key].title),
            url=by_key[key].link,
            sha=by_key[key].sha,
        )
        for key, n in sorted(numbers.items(), key=lambda kv: kv[1])
    )
    story_id = stable_id(
        "story",
        window.since.isoformat(),
        window.until.isoformat(),
        sorted(repos),
        topic,
        sorted(by_key),
    )
    return Story(
        id=story_id,
        window=window,
        repos=repos,
        topic=topic,
        headline=draft.headline,
        lede=draft.lede,
        body=body,
        sections=tuple(Section(heading=h, start=a, end=b) for h, a, b in draft.sections),
        action_items=tuple(items),
        references=references,
        lead=draft.lead,
    )
