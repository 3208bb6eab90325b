"""Judging a story: the rules 1–7 of DIGEST.md, computed for every composed story.

Rules 1 (dangling citations), 3 (action integrity) and 4 (canonical names) must never
fail: `require_integrity` raises when they do, so such a story is never delivered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from digest.check import claims, shape
from digest.check.claims import expected_urgencies
from digest.config import WireConfig
from digest.errors import StoryCheckError
from digest.model import Activity, CheckFigures, Reference, Story
from digest.rank import rank
from digest.reading.classify import classify_one
from digest.reading.event import Event
from digest.select import told_count

__all__ = ["check_story", "expected_urgencies", "require_integrity"]

MIN_ATTRIBUTION = 0.9
MIN_COVERAGE = 0.67
MAX_REDUNDANCY = 0.1


def check_story(
    story: Story,
    *,
    config: WireConfig,
    ranking: Sequence[tuple[Event, float]] | None = None,
    events: Iterable[Event] | None = None,
) -> CheckFigures:
    """Compute every rule's figure; `problems` lists each failed rule in a sentence.

    `ranking` is the window's classified events with their scores, as the composer ranked
    them; `events` alone are ranked here. Each reference is matched to its event by sha,
    PR number or URL, so a story parsed back from the house format (which keeps no sha) is
    judged on the same events as the story the composer made.

    From text alone (neither given) a reference is known only by its title, so:
    rule 1, 4 and 6 and the headline's length are judged in full; rule 2 credits a component
    only when the title names it (paths and labels are unknown); rule 3 checks that each
    item cites existing references of its repository and that its urgency fits what the
    title shows (a revert is [monitor], a title that says it breaks is [immediate]), but an
    [immediate] item whose reason only a change's body or files can show (a CI gate stated
    in the body) is not judged; rule 5 is not judged; rule 7 takes a story of 1–3
    references for a quiet window.
    """
    if ranking is None:
        ranking = rank(list(events)) if events is not None else []
    ranking = list(ranking)
    events = [event for event, _ in ranking]
    by_ref, from_title = _events_by_reference(story.references, events, config)
    problems: list[str] = []

    dangling = claims.dangling(story)
    if dangling:
        problems.append(f"rule 1: citations {dangling} are not in the references")

    attribution, misattributed = claims.attribution(story, by_ref, config)
    if attribution < MIN_ATTRIBUTION:
        problems.append(
            f"rule 2: attribution {attribution:.2f} < {MIN_ATTRIBUTION}: "
            + "; ".join(misattributed)
        )

    integrity, broken = claims.action_integrity(
        story, by_ref, {p.name for p in config.projects}, from_title=from_title
    )
    if integrity < 1.0:
        problems.append("rule 3: " + "; ".join(broken))

    canonical, misspelt = claims.canonical_names(story, config)
    if canonical < 1.0:
        problems.append(f"rule 4: names not spelled as configured: {', '.join(sorted(misspelt))}")

    coverage, reverts_cited = shape.coverage(story, ranking) if ranking else (1.0, 1.0)
    if coverage < MIN_COVERAGE:
        problems.append(f"rule 5: coverage {coverage:.2f} < {MIN_COVERAGE}")
    if reverts_cited < 1.0:
        problems.append(f"rule 5: only {reverts_cited:.0%} of the changes to act on are cited")

    problems += [f"rule 8: {p}" for p in claims.faithful(story, by_ref, from_title)]

    redundancy = shape.redundancy(story)
    if redundancy > MAX_REDUNDANCY:
        problems.append(f"rule 6: redundancy {redundancy:.2f} > {MAX_REDUNDANCY}")

    words = sum(len(s.text.split()) for s in story.body)
    # The projects it tells of: those with changes in the window, else those it cites.
    projects = len({e.repo.lower() for e in events} or {r.repo.lower() for r in story.references})
    problems += shape.length(
        story,
        config,
        changes=told_count(events, story.window) if events else None,
        words=words,
        projects=projects,
    )

    return CheckFigures(
        dangling_citations=len(dangling),
        attribution=round(attribution, 3),
        action_integrity=round(integrity, 3),
        canonical_names=round(canonical, 3),
        coverage=round(coverage, 3),
        reverts_cited=round(reverts_cited, 3),
        redundancy=round(redundancy, 3),
        headline_chars=len(story.headline),
        body_sentences=len(story.body),
        body_words=words,
        problems=tuple(problems),
    )


def require_integrity(story: Story) -> None:
    """Raise StoryCheckError when rule 1, 3 or 4 failed: such a story must not go out."""
    if story.checks is None:
        raise StoryCheckError(["the story was never checked"])
    fatal = [p for p in story.checks.problems if p.startswith(("rule 1", "rule 3", "rule 4"))]
    if fatal:
        raise StoryCheckError(fatal)


# ---------------------------------------------------------------- rules


def _events_by_reference(
    references: tuple[Reference, ...], events: list[Event], config: WireConfig
) -> tuple[dict[int, Event], set[int]]:
    """The event behind each reference, and the references no event was found for, which
    are classified from their titles alone."""
    by_sha = {e.activity.sha: e for e in events}
    by_number = {(e.repo.lower(), e.activity.number): e for e in events if e.activity.number}
    by_url = {e.activity.link: e for e in events}
    for event in events:
        for original in event.linked:
            linked = classify_one(original, config.project(original.repo))
            by_sha.setdefault(original.sha, linked)
            by_url.setdefault(original.link, linked)
            if original.number:
                by_number.setdefault((original.repo.lower(), original.number), linked)
    found: dict[int, Event] = {}
    from_title: set[int] = set()
    for ref in references:
        known = (
            by_sha.get(ref.sha)
            or (by_number.get((ref.repo.lower(), ref.number)) if ref.number else None)
            or by_url.get(ref.url)
        )
        if known is None:
            stub = Activity(repo=ref.repo, sha=ref.sha or f"ref{ref.n}", number=ref.number,
                            title=ref.title, landed_at=datetime(1970, 1, 1, tzinfo=UTC))  # fmt: skip
            known = classify_one(stub, config.project(ref.repo))
            from_title.add(ref.n)
        found[ref.n] = known
    return found, from_title
