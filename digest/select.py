"""Choosing what a story covers: the lead stories of each project, and what they cite.

A *story unit* is one lead event plus closely related events of the same project (the same
piece of work landing as several PRs), so one sentence can cite them together. How many
units a story names grows with its window (`story_budget`); routine dependency bumps are
folded into a count instead of taking a unit (`is_folded_bump`), and so is trivia (docs,
typos, lint, housekeeping) and internal work (`split_news`). How long a story may be is
`digest.budget`'s.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from digest.budget import CHANGES_A_SENTENCE, is_quiet
from digest.english.similarity import content_words, jaccard, slots
from digest.english.words import noun_lemma
from digest.model import Activity, Window
from digest.rank import carried as carried_by
from digest.reading.event import Event, commit_count
from digest.reading.releases import CANDIDATE_VERSION
from digest.reading.titles import is_dependency_bump

# Titles sharing this much of their content words describe one piece of work.
RELATED_TITLE_SIMILARITY = 0.3
# Titles this alike are one change told twice ("Fix X", "Fix X 2"): always one sentence.
SAME_TITLE_SIMILARITY = 0.75
MAX_RELATED = CHANGES_A_SENTENCE - 1  # a unit's related changes share its sentence


def news_count(events: Iterable[Event]) -> int:
    """How many changes a story tells of: routine bumps are folded into one clause and do
    not count, unless bumps are all there is; a project's releases are one sentence, so
    they count once."""
    events = list(events)
    told = sum(not is_folded_bump(e) for e in events) - extra_releases(events)
    return told or len(events)


def extra_releases(events: Iterable[Event]) -> int:
    """How many releases beyond each project's first: one sentence tells them all."""
    releases: dict[str, int] = defaultdict(int)
    for event in events:
        if event.release is not None:
            releases[event.repo] += 1
    return sum(n - 1 for n in releases.values())


# ---------------------------------------------------------------- dependency bumps


def is_folded_bump(event: Event) -> bool:
    """True for a routine dependency bump: counted in one clause, never a sentence of its own.

    A major-version or security bump of what the project ships (`Bump.stands_alone`), and
    anything a reader must act on, stays a story.
    """
    return event.bump is not None and not event.bump.stands_alone and not event.must_act


def bump_count(events: Iterable[Event]) -> int:
    """How many dependency updates `events` carry (a grouped bump counts each update), as
    `Event.bump` read them: "Bump replicas from 5 to 12" is configuration, no update."""
    return sum(event.bump.count for event in events if event.bump is not None)


def folds_trivia(window: Window, events: Iterable[Event]) -> bool:
    """True when trivia (`Event.trivia`) and internal work are counted rather than told:
    in any window that is not quiet."""
    return not is_quiet(news_count(events))


def told_count(events: Sequence[Event], window: Window) -> int:
    """How many changes a story of `window` tells of: its news, once routine bumps and the
    trivia the window counts (`split_news`) are set aside, project by project."""
    fold = folds_trivia(window, events)
    by_repo: dict[str, list[Event]] = {}
    for event in events:
        by_repo.setdefault(event.repo, []).append(event)
    told = [e for group in by_repo.values() for e in split_news(group, fold_trivia=fold)[0]]
    return len(told) - extra_releases(told)


# Trivia counted in every window, a day's too: what the project does to keep house.
# The kinds of it a story names, each in a clause of its own ("updates translations in …").
NAMED_HOUSEKEEPING = ("translations", "changelog", "people", "version")
HOUSEKEEPING = frozenset({"housekeeping", *NAMED_HOUSEKEEPING, "lint"})


def is_folded_trivia(event: Event) -> bool:
    """True for a change counted instead of told while other news fills the story
    (`split_news`): trivia (docs wording, lint, housekeeping) and internal work (tests, CI,
    tooling, refactors) in every window, a quiet one's too: a link fix in CONTRIBUTING.md
    never shares a quiet week's lede with a fix users meet."""
    if event.must_act or event.release is not None:
        return False
    return bool(event.trivia) or event.internal


def split_news(
    events: Sequence[Event], *, fold_trivia: bool
) -> tuple[list[Event], list[Event], list[Event]]:
    """One project's events as (news, routine bumps, trivia), each in the given order.

    Bumps, trivia and internal work are counted instead of told, unless nothing else
    landed that a story can name: then a quiet window (not `fold_trivia`) tells its
    documentation, typing and lint work, and else its internal work; with none of those,
    housekeeping is the news, and with no housekeeping either the bumps are.
    """
    bumps = [e for e in events if is_folded_bump(e)]
    trivia = [e for e in events if is_folded_trivia(e) and not is_folded_bump(e)]
    folded = {id(e) for e in (*bumps, *trivia)}
    news = [e for e in events if id(e) not in folded]
    if not fold_trivia and not any(nameable(e) for e in news):
        # A quiet window with no news it can name tells its documentation and typing work,
        # ahead of internal work ("improves MiSS documentation", not "removes Transformer
        # Engine from Dockerfile") and of a fix whose title reads too badly to name.
        told = {id(e) for e in news}
        told |= {id(e) for e in trivia if e.trivia and e.trivia not in HOUSEKEEPING}
        news = [e for e in events if id(e) in told]
        trivia = [e for e in trivia if id(e) not in told]
    internal = [e for e in trivia if not e.trivia]
    # Internal work is told only when nothing users see landed: it never takes a sentence
    # from what they do see.
    if internal and not news:
        trivia = [e for e in trivia if e.trivia]
        told = {id(e) for e in (*news, *internal)}
        news = [e for e in events if id(e) in told]
    if not news and trivia:
        news, trivia = trivia, []
    if not news:
        news, bumps = bumps, []
    return news, bumps, trivia


# How many releases one sentence names and cites.
MAX_NAMED_RELEASES = 3


@dataclass(frozen=True)
class Unit:
    """One lead event, the related events folded into it, and its significance."""

    lead: Event
    score: float
    related: tuple[Event, ...] = ()
    # The topic most of the project's changes share; naming it adds nothing.
    dominant_topic: str | None = None
    # For a release: the changes of the window it ships (`rank.carried`), and the one its
    # sentence names when none of them is a security fix or breaking change.
    carried: tuple[Event, ...] = ()
    highlight: Event | None = None
    highlight_by: str | None = None  # the sha of the release that ships `highlight`
    # For a release: the shas of its releases that ship a security fix or breaking change,
    # which its sentence cites whatever else it leaves uncited.
    carriers: frozenset[str] = frozenset()
    # The first security fix a release unit of the story ships: its sentence reads as one
    # the release ships, not another fix.
    shipped_fix: bool = False
    # The release of the story that ships this unit's change, as a sentence names it after
    # the project's name: "8.0.9", "create-vite 9.0.6"; None when none does.
    shipped_in: str | None = None
    shipped_by: Activity | None = None  # that release, which the sentence cites with it

    @property
    def product(self) -> str | None:
        """The product of the repository the lead change is news of ("create-vite", "ty"),
        when it is not the project itself; a release names its own packages."""
        return self.lead.product if self.lead.release is None else None

    @property
    def activities(self) -> tuple[Activity, ...]:
        """Everything this unit cites: the lead's linked originals first, then the lead, then related."""
        return (*self.lead.linked, self.lead.activity, *(e.activity for e in self.related))


@dataclass(frozen=True)
class ProjectPick:
    """The units chosen for one project, lead first, and how many changes it landed."""

    repo: str
    units: tuple[Unit, ...]
    extra: tuple[Unit, ...]
    landed: int
    topic_counts: tuple[tuple[str, int], ...]
    # Routine dependency bumps, folded into one counted clause.
    bumps: tuple[Event, ...] = ()
    # Docs, typo, lint and housekeeping changes of a longer window: counted, not told.
    trivia: tuple[Event, ...] = ()
    # Changes neither named, related, must-act nor bumps: summarised as counts by topic.
    rest: tuple[Event, ...] = ()

    @property
    def lead(self) -> Unit:
        return self.units[0]

    @property
    def told(self) -> tuple[Event, ...]:
        """The events its units and extras tell: each one's lead, then its related."""
        return tuple(e for u in (*self.units, *self.extra) for e in (u.lead, *u.related))


def _title_words(event: Event) -> set[str]:
    # ("part2" is "part 2": one of the retelling words and a number)
    subject = re.sub(r"\b(part|pt|take)(\d+)\b", r"\1 \2", event.subject, flags=re.I)
    return content_words(subject.replace("_", " "))


# Words by which a title told twice differs: "Fix X (take 2)", "Fix X again", "X, part 2".
_RETELLING_WORDS = frozenset({"take", "part", "pt", "again", "follow", "followup", "up", "more"})


def same_change(one: Event, other: Event) -> bool:
    """True when two titles are one change told twice ("Fix X", "Fix X 2"): alike, and
    differing by no word that names something ("support for `tan`" and "for `randn`" are
    two changes)."""
    # "SD clients" and "SD client": a noun's number tells no change apart
    mine = {noun_lemma(w) for w in _title_words(one)}
    theirs = {noun_lemma(w) for w in _title_words(other)}
    differ = {w for w in mine ^ theirs if not w.isdigit() and w not in _RETELLING_WORDS}
    return not differ and jaccard(mine, theirs) >= SAME_TITLE_SIMILARITY


def nameable(event: Event) -> bool:
    """True for a change a story may name: its sentence reads cleanly (`Event.clean`), or
    readers must hear of it (must-act, a release) however its title reads. Others are
    counted, unless one leads."""
    return event.clean or event.must_act or event.release is not None


def must_tell(event: Event) -> bool:
    """True for a change every reader must hear of, told or not: a release, a security fix,
    a breaking change, a deprecation (its [plan] item asks a move), anything to act on."""
    return (
        event.release is not None
        or event.security
        or event.breaking
        or event.must_act
        or event.deprecation
    )


def group_units(
    ranked: list[tuple[Event, float]],
    *,
    per_project: int,
    max_must_act: int | None = None,
    fold_trivia: bool = False,
    plain_units: int | None = None,
    explains: Callable[[Event], bool] | None = None,
) -> list[ProjectPick]:
    """Pick the top `per_project` units of each project; must-act changes beyond them are
    kept as `extra` so they are always cited, routine bumps as `bumps`, trivia (when
    `fold_trivia`, see `split_news`) as `trivia`, the rest as `rest`.

    Beyond a project's first `plain_units` units, a change is named only when its sentence
    can say why (`explains`) or readers must hear of it (`must_tell`): a list of titles
    tells a reader less than a count does (EDITORIAL.md, "Fewer changes, told well").

    `max_must_act` caps the units that are must-act changes, so that in a long window the
    back-outs (which rank highest) leave room for what else happened; the others go to
    `extra`.

    Projects are ordered by the score of their lead unit.
    """
    by_repo: dict[str, list[tuple[Event, float]]] = defaultdict(list)
    for event, score in ranked:
        by_repo[event.repo].append((event, score))

    shipped = carried_by([e for e, _ in ranked])
    picks = []
    for repo, events in by_repo.items():
        topic_counts: dict[str, int] = defaultdict(int)
        for event, _ in events:
            for topic in event.topics:
                topic_counts[topic] += 1
        ordered_topics = sorted(topic_counts.items(), key=lambda kv: (-kv[1], kv[0].lower()))
        dominant = (
            ordered_topics[0][0]
            if ordered_topics and ordered_topics[0][1] * 2 > len(events)
            else None
        )
        news, bumps, trivia = split_news([e for e, _ in events], fold_trivia=fold_trivia)
        told = {id(e) for e in news}
        candidates = [pair for pair in events if id(pair[0]) in told]
        # A change that can be named cleanly leads before one that cannot, whatever its rank.
        candidates.sort(key=lambda pair: not nameable(pair[0]))
        scores = {e.activity.sha: score for e, score in candidates}
        words = {e.activity.sha: _title_words(e) for e, _ in candidates}
        used: set[str] = set()
        top: list[Unit] = []
        extras: list[Unit] = []
        rest: list[Event] = []
        for event, score in candidates:
            if event.activity.sha in used:
                continue
            used.add(event.activity.sha)
            acting = sum(u.lead.must_act for u in top)
            capped = max_must_act is not None and event.must_act and acting >= max_must_act
            # (beyond the plain units, only what the sentence can explain or must tell)
            room = len(top) < per_project and not capped and (nameable(event) or not top)
            plain = plain_units is None or explains is None or len(top) < plain_units
            # (asked last: reading a description is the dearest test, and a full story
            # need not ask it of every change left)
            if room and (plain or must_tell(event) or (explains is not None and explains(event))):
                # Related changes share a sentence only when there are more than fit.
                crowded = len(candidates) > per_project
                alike = RELATED_TITLE_SIMILARITY if crowded else SAME_TITLE_SIMILARITY
                # Uncrowded, changes of one shape still share one: three sentences
                # "adds an a16w8 per-op test for X" would say one thing three times.
                related = _related(event, candidates, used, words, alike, shaped=not crowded)
                if event.release is not None:  # one sentence tells every release
                    related = _releases(event, candidates, used)
                ships = tuple(e for r in (event, *related) for e in shipped.get(r.activity.sha, ()))
                # A release names a change it ships only when there are more than fit.
                names = event.release is not None and crowded
                best = _highlight(ships, used, scores) if names else None
                by = next(
                    (
                        r.activity.sha
                        for r in (event, *related)
                        if best in shipped.get(r.activity.sha, ())
                    ),
                    None,
                )
                carriers = frozenset(
                    r.activity.sha
                    for r in (event, *related)
                    if any(e.security or e.breaking for e in shipped.get(r.activity.sha, ()))
                )
                top.append(
                    Unit(
                        event,
                        score,
                        related,
                        dominant,
                        carried=ships,
                        highlight=best,
                        highlight_by=by,
                        carriers=carriers,
                    )
                )
            elif event.must_act or event.deprecation:
                # (a deprecation beyond the named units keeps its [plan] item: never a count)
                extras.append(Unit(lead=event, score=score, dominant_topic=dominant))
            else:
                rest.append(event)
        top = _mark_releases(_mark_shipped(top), shipped)
        extra = tuple(extras)
        picks.append(
            ProjectPick(
                repo=repo,
                units=tuple(top),
                extra=extra,
                landed=commit_count(e for e, _ in events),
                topic_counts=tuple(ordered_topics),
                bumps=tuple(bumps),
                trivia=tuple(trivia),
                rest=tuple(rest),
            )
        )
    picks.sort(key=lambda p: -p.lead.score)
    return picks


def _mark_shipped(units: list[Unit]) -> list[Unit]:
    """`units` with the first security fix that a release unit among them ships marked so
    (`Unit.shipped_fix`): "3.11.2 is out with a security fix [1]. Separately, it fixes
    stored XSS …" told one fix as two."""
    shipped = {
        e.activity.sha for u in units if u.lead.release is not None for e in u.carried if e.security
    }
    for at, unit in enumerate(units):
        lead = unit.lead
        # (the same fix landed twice, on the release branch and on main: the release ships
        # one copy, and "Beyond that, it fixes stored XSS …" told it as a second fix)
        copies = {a.sha for a in unit.activities}
        if lead.security and lead.release is None and copies & shipped:
            return [*units[:at], replace(unit, shipped_fix=True), *units[at + 1 :]]
    return units


def _mark_releases(units: list[Unit], shipped: dict[str, list[Event]]) -> list[Unit]:
    """`units` with the release of the story that ships each one's change
    (`Unit.shipped_in`), so that a change the release carries reads as part of it rather
    than as other news beside it."""
    label: dict[str, tuple[str, Activity]] = {}
    for unit in units:
        releases = (unit.lead, *unit.related)
        if unit.lead.release is None or len(releases) > MAX_NAMED_RELEASES:
            continue  # the sentence cites some of many releases: none is named here uncited
        for release in releases:
            published = release.release
            if published is None or published.elsewhere or not published.versions:
                continue
            package, version = published.versions[0]
            if published.prerelease or CANDIDATE_VERSION.search(version):
                # a second candidate is cut on its branch: what landed on the default
                # branch after the first may not be in it
                continue
            for change in shipped.get(release.activity.sha, ()):
                said = f"{package} {version}" if package else version
                label.setdefault(change.activity.sha, (said, release.activity))
    return [
        replace(u, shipped_in=found[0], shipped_by=found[1])
        if u.lead.release is None and (found := label.get(u.lead.activity.sha))
        else u
        for u in units
    ]


def _highlight(ships: tuple[Event, ...], used: set[str], scores: dict[str, float]) -> Event | None:
    """The change a release sentence names: the most significant user-visible change it
    ships that no unit names yet, unless it ships a security fix or breaking change (the
    sentence counts those, and they have sentences of their own)."""
    if any(e.security or e.breaking for e in ships):
        return None
    told = [e for e in ships if e.activity.sha in scores and e.activity.sha not in used]
    told = [e for e in told if not (e.internal or e.must_act or e.kind == "revert")]
    if not told:
        return None
    best = max(told, key=lambda e: scores[e.activity.sha])
    used.add(best.activity.sha)
    return best


def _releases(lead: Event, events: list[tuple[Event, float]], used: set[str]) -> tuple[Event, ...]:
    """The other releases of the lead release's project, earliest first."""
    others = [e for e, _ in events if e.release is not None and e.activity.sha not in used]
    used.update(e.activity.sha for e in others)
    return tuple(sorted(others, key=lambda e: e.activity.landed_at))


def _updates_another(one: Event, other: Event) -> bool:
    """True when both are dependency updates, of two dependencies: "update module x/net"
    and "update module x/crypto" share most words, yet neither tells the other."""
    mine = is_dependency_bump(one.activity.title)
    theirs = is_dependency_bump(other.activity.title)
    return (
        mine is not None
        and theirs is not None
        and mine.package is not None
        and theirs.package is not None
        and mine.package.lower() != theirs.package.lower()
    )


# How alike two titles of changes in different places must be to be one piece of work.
ELSEWHERE_SIMILARITY = 0.6


def _related(
    lead: Event,
    events: list[tuple[Event, float]],
    used: set[str],
    words: dict[str, set[str]],
    alike: float,
    *,
    shaped: bool = False,
) -> tuple[Event, ...]:
    """Events whose titles share at least `alike` of their words with the lead's, or when
    `shaped`, whose titles differ from the lead's in one slot (`text.slots`)."""
    if lead.kind in ("revert", "reland", "release"):
        return ()
    lead_words = words[lead.activity.sha]
    related = []
    for other, _ in events:
        if other.activity.sha in used or other.kind in ("revert", "reland", "release"):
            continue
        if _updates_another(lead, other):
            continue
        one_place = other.topics[:1] == lead.topics[:1]
        one_shape = (
            shaped
            and one_place  # the sentence names the place
            and slots([lead.subject, other.subject]) is not None
        )
        # Titles alike in other places must be nearly one title: "Add turbo quant support"
        # (MLX) and "Add short function support" (the runtime) are no piece of work.
        needed = alike if one_place else max(alike, ELSEWHERE_SIMILARITY)
        if one_shape or jaccard(lead_words, words[other.activity.sha]) >= needed:
            related.append(other)
            used.add(other.activity.sha)
            if len(related) == MAX_RELATED:
                break
    return tuple(related)
