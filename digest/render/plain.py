"""The house plain-text format (as in shared/brief/showcase.txt), and a parser that reads it back.

The parser lets any story in that format, ours or not, be judged by `digest.check`. A
sectioned body puts each section's heading on a line of its own before its sentences; a
heading is told from body text by ending in no sentence punctuation.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from digest.english.sentences import split_sentences
from digest.model import (
    ActionItem,
    Reference,
    Section,
    Sentence,
    Story,
    Window,
    cited_numbers,
    stable_id,
)

BYLINE = "By The Wire · {window} · About {projects} · Composed from the cited sources"
_SENTENCE_CLOSE = re.compile(r"[.!?][”\")\]]*$")
_ITEM = re.compile(
    r"^-\s*(?:→\s*)?(?P<text>.*?)\s+(?P<repo>[\w.-]+/[\w.-]+)\s+\[(?P<urgency>immediate|monitor|plan)\]\s*$"
)
_REF = re.compile(r"^-\s*\[(?P<n>\d+)\]\s+(?P<rest>.*)$")
_REF_NUMBER = re.compile(r"\s*\(#(\d+)\)")
_REF_REPO = re.compile(r"\s*(?:↗\s*)?([\w.-]+/[\w.-]+)\s*(?:↗)?\s*$")
_URL = re.compile(r"\s*<?(https?://\S+?)>?\s*$")


def render_plain(story: Story, *, project_names: list[str] | None = None) -> str:
    """Render a story in the house plain-text format."""
    names = ", ".join(project_names or story.repos) or "the followed repositories"
    lines = [story.headline, BYLINE.format(window=story.window.label(), projects=names), story.lede]
    for heading, sentences in story.paragraphs():
        if heading is not None:
            lines.append(heading)
        lines.append(" ".join(s.text for s in sentences))
    if story.action_items:
        lines.append("Action items")
        lines += [f"- → {i.text} {i.repo} [{i.urgency}]" for i in story.action_items]
    if story.references:
        lines.append("References")
        for ref in story.references:
            number = f" (#{ref.number})" if ref.number is not None else ""
            lines.append(f"- [{ref.n}] {ref.title}{number} {ref.repo} {ref.url}")
    return "\n".join(lines) + "\n"


def parse_plain(text: str) -> Story:
    """Read a story in the house format back into a Story (window unknown: the epoch day)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("$"):
        lines = lines[1:]
    headline = lines[0]
    rest = lines[2:] if len(lines) > 1 and lines[1].startswith("By ") else lines[1:]
    lede = rest[0] if rest else ""
    section, items, refs = "body", [], []
    body: list[Sentence] = []
    headings: list[tuple[str, int]] = []
    for line in rest[1:]:
        if line == "Action items":
            section = "items"
        elif line == "References":
            section = "refs"
        elif section == "body" and not _SENTENCE_CLOSE.search(line):
            headings.append((line, len(body)))  # a section heading: no sentence ends it
        elif section == "body":
            body += [
                Sentence(text=s, refs=tuple(cited_numbers(s)))
                for s in split_sentences(line, own_prose=True)
            ]
        elif section == "items":
            items.append(_parse_item(line))
        else:
            refs.append(_parse_reference(line))
    ends = [start for _, start in headings[1:]] + [len(body)] * bool(headings)
    sections = [
        Section(heading=heading, start=start, end=end)
        for (heading, start), end in zip(headings, ends, strict=True)
        if end > start
    ]
    repos = tuple(dict.fromkeys(r.repo for r in refs))
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return Story(
        id=stable_id("story", text),
        window=Window(since=epoch, until=epoch.replace(day=2)),
        repos=repos,
        headline=headline,
        lede=lede,
        body=tuple(body),
        sections=tuple(sections),
        action_items=tuple(items),
        references=tuple(refs),
    )


def _parse_item(line: str) -> ActionItem:
    match = _ITEM.match(line)
    if not match:
        raise ValueError(f"not an action item line: {line!r}")
    text, repo, urgency = match["text"], match["repo"], match["urgency"]
    return ActionItem(
        id=stable_id("item", text, repo, urgency),
        text=text,
        urgency=urgency,  # type: ignore[arg-type]
        repo=repo,
        refs=tuple(cited_numbers(text)),
    )


def _parse_reference(line: str) -> Reference:
    match = _REF.match(line)
    if not match:
        raise ValueError(f"not a reference line: {line!r}")
    rest = match["rest"]
    url = None
    if found := _URL.search(rest):
        url, rest = found.group(1), rest[: found.start()]
    repo = ""
    if found := _REF_REPO.search(rest):
        repo, rest = found.group(1), rest[: found.start()]
    number = None
    if found := _REF_NUMBER.search(rest):
        number, rest = int(found.group(1)), rest[: found.start()] + rest[found.end() :]
    rest = rest.replace("↗", "").strip()
    if url is None:
        url = f"https://github.com/{repo}/pull/{number}" if number else f"https://github.com/{repo}"
    return Reference(n=int(match["n"]), repo=repo, number=number, title=rest, url=url)
