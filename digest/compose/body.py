"""The body of a story: one sentence per story unit, then what is left as counts
(`counts`).

A day's body is one paragraph. A longer window's body is sectioned by topic (a single
project) or by project, under the lede, and ends with an "In brief" section that counts
what was not named. Every sentence carries at most three citations, none twice, and each
connective (`CONNECTIVES`: "also", "In addition", "Elsewhere", …) opens at most one
sentence of the story; which of them a story uses turns with the story (`Openings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from digest.check.proofread import proofread_sentences
from digest.check.proofread_rules import CONNECTIVES
from digest.compose.citations import MARKER, cite
from digest.compose.phrases import (
    area_of,
    collection_of,
    event_predicate,
    is_backend_area,
    is_package,
    names_a_place,
    quoted_title,
    spans_packages,
)
from digest.compose.release import (
    cited_releases,
    further_releases,
    highlight_clause,
    release_phrase,
)
from digest.compose.slots import related_clause, unit_slots
from digest.config import topic_key
from digest.english.nouns import possessive
from digest.english.numbers import count_word, join_words
from digest.model import Activity
from digest.reading.audience import advisory_of
from digest.reading.event import Event
from digest.reading.why import quotation
from digest.select import Unit, same_change

MAX_CITATIONS = 3
# A crate's or package's name: lower-case words joined by "-" or "_" ("polars-core").
_PACKAGE_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")
# Connectives that open a further sentence about the same subject: for a change of the same
# kind as the one before ("It also fixes …"), and for one of another kind. Each opens at
# most one sentence of a story, and a story's rotation (`Openings.seed`) picks which comes
# first, so no connective or scaffold runs through most stories of a feed.
# Another change of the same kind: an opening that adds, never one that claims the two
# are alike ("Likewise", "Similarly" joined unrelated fixes).
ALSO_OPENING = "{s} also {p}"
_SAME_KIND = ("On top of that, {s} {p}", "Additionally, {s} {p}", ALSO_OPENING)
_OTHER_KIND = ("In addition, {s} {p}", "Separately, {s} {p}", "Beyond that, {s} {p}")
_ELSEWHERE = (
    "Elsewhere, {s} {p}",
    "In other areas, {s} {p}",
    "Away from that, {s} {p}",
    "In other work, {s} {p}",
    "On another front, {s} {p}",
)
_BEYOND = ("Beyond these, {s} {p}", "Besides these, {s} {p}", "Other than these, {s} {p}")
_BESIDES_ONE = "Besides that, {s} {p}"
_ON_TOP_OF_THOSE = "On top of those, {s} {p}"
_NEXT_PROJECT = "Meanwhile, {s} {p}"
# The openings that link a sentence to the one before, and how many a story uses.
_LINKING = frozenset({*_SAME_KIND, *_OTHER_KIND, *_ELSEWHERE})
MAX_LINKS = 2
PLAIN_OPENING = "{s} {p}"
_CONNECTIVE = re.compile(r"\b(" + "|".join(CONNECTIVES) + r")\b", re.I)
OPENINGS = (
    *_SAME_KIND,
    *_OTHER_KIND,
    *_ELSEWHERE,
    *_BEYOND,
    _BESIDES_ONE,
    _ON_TOP_OF_THOSE,
    _NEXT_PROJECT,
)


# How a quotation of a change's description is introduced after "; ". A story uses each
# at most `MAX_FRAME_USES` times, so no frame is heard over and over.
ATTRIBUTIONS = (
    "its description says “{q}”",
    "in its author's words, “{q}”",
    "as its description puts it, “{q}”",
    "its author explains: “{q}”",
    "according to its description, “{q}”",
    "the pull request notes: “{q}”",
)
# (readers heard three frames "in every sentence" as a form: six, each once before again)
MAX_FRAME_USES = 2


@dataclass
class Openings:
    """The sentence openings of one story: every connective at most once, taken in the
    story's own rotation (`seed`)."""

    seed: int = 0
    used: set[str] = field(default_factory=set)
    stand_ins: int = 0  # stand-ins for a repeated subject so far, so they take turns
    quoted: int = 0  # quotations of descriptions so far, so their frames take turns
    # releases a sentence has said ships its change, once a sentence: the next says
    # "likewise in 8.0.9", the one after that nothing
    releases_said: list[str] = field(default_factory=list)

    def attribution(self) -> str | None:
        """The frame of the story's next quotation (`ATTRIBUTIONS`), or None once every
        frame has been used `MAX_FRAME_USES` times."""
        if self.quoted >= len(ATTRIBUTIONS) * MAX_FRAME_USES:
            return None
        return ATTRIBUTIONS[(self.seed + self.quoted) % len(ATTRIBUTIONS)]

    def _first_free(self, pool: tuple[str, ...]) -> str | None:
        for turn in range(len(pool)):
            opening = pool[(self.seed + turn) % len(pool)]
            if opening not in self.used:
                self.used.add(opening)
                return opening
        return None

    def _spent(self) -> bool:
        # Readers heard "On top of that", "Separately", "Elsewhere", "Additionally", "Beyond
        # that" open nearly every sentence: two a story, and the plain subject after.
        return len(self.used & _LINKING) >= MAX_LINKS

    def further(self, *, same_kind: bool = True) -> str:
        """An opening for another sentence about the same subject, while the story has
        links left (`MAX_LINKS`); then none."""
        if self._spent():
            return PLAIN_OPENING
        pool = _SAME_KIND if same_kind else _OTHER_KIND
        return self._first_free(pool) or PLAIN_OPENING

    def also(self) -> str:
        """An opening that adds to a count before it: "{s} also {p}" once a story, then
        "On top of those, {s} {p}"."""
        # (in the story's own turn: "also" in a third of a feed is a tic)
        return self._first_free((ALSO_OPENING, _ON_TOP_OF_THOSE)) or _ON_TOP_OF_THOSE

    def heard(self, sentences: list[str]) -> None:
        """Note what the story's sentences so far say: an "also" of a title told in one of
        them ("… is also used by …") leaves no room for ours."""
        if any(re.search(r"\balso\b", sentence, re.I) for sentence in sentences):
            self.used.add(ALSO_OPENING)

    def elsewhere(self) -> str:
        """An opening for a sentence that moves to another part of the same project: one
        of `_ELSEWHERE` once a story, while it has links left; then the plain subject."""
        if self.used & set(_ELSEWHERE) or self._spent():
            return PLAIN_OPENING
        return self._first_free(_ELSEWHERE) or PLAIN_OPENING

    def beyond(self, *, named: int) -> str:
        """An opening for what is counted after `named` named changes: "Beyond these, …"
        needs more than one before it; after fewer, "… also …"."""
        if named < 2:
            # (taking turns with "Besides that": "also" in a third of a feed is a tic)
            return self._first_free((ALSO_OPENING, _BESIDES_ONE)) or ALSO_OPENING
        return self._first_free(_BEYOND[self.seed % len(_BEYOND) :][:1]) or PLAIN_OPENING

    def next_project(self) -> str:
        """An opening for the first sentence about a project after the first one."""
        if _NEXT_PROJECT not in self.used:
            self.used.add(_NEXT_PROJECT)
            return _NEXT_PROJECT
        return PLAIN_OPENING

    def take(self, opening: str) -> bool:
        """Use `opening` if it is still free."""
        if opening in self.used:
            return False
        self.used.add(opening)
        return True


@dataclass(frozen=True)
class Paragraph:
    """Sentences under an optional heading (None: the unheaded paragraph of a day)."""

    heading: str | None
    sentences: tuple[str, ...]


def citations(text: str) -> int:
    """How many distinct citation markers `text` holds."""
    return len(set(MARKER.findall(text)))


def cite_capped(*activities: Activity, limit: int = MAX_CITATIONS) -> str:
    """Markers for the first `limit` distinct activities."""
    unique = list({a.sha: a for a in activities}.values())
    return cite(*unique[:limit])


def _since_original(event_landed: datetime, original_landed: datetime) -> str:
    """How long after the change it undoes a back-out landed, as the real gap says it:
    "minutes after", "an hour after", "five hours after", "hours after" (ten or more: a
    count in digits would be a number no source states), "a day after", "four days after"
    (3 days 21 hours: the nearest day). Nothing when the back-out's commit is the older (a
    cherry-pick keeps its first date): the sources state no gap."""
    gap = event_landed - original_landed
    if gap < timedelta(0):
        return ""
    if gap < timedelta(hours=1):
        return "minutes after it landed"
    if gap < timedelta(days=1):
        hours = int(gap.total_seconds() // 3600)
        if hours == 1:
            return "an hour after it landed"
        return (
            f"{count_word(hours)} hours after it landed" if hours < 10 else "hours after it landed"
        )
    days = round(gap / timedelta(days=1))
    return "a day after it landed" if days == 1 else f"{count_word(days)} days after it landed"


@lru_cache(maxsize=4096)
def reads_well(sentence: str, title: str, names: tuple[str, ...]) -> bool:
    """True when the proofread finds no slip in `sentence`, told of the change titled `title`."""
    return not proofread_sentences([sentence], titles=[title], names=names)


def told_reason(event: Event) -> str | None:
    """The quotation of why a change was made that its sentence may carry (`why.quotation`):
    none with a connective of ours in it, which would be heard twice."""
    said = quotation(event.body, event.activity.title)
    return said if said and not _CONNECTIVE.search(said) else None


def unit_sentence(
    unit: Unit,
    *,
    name: str,
    opening: str,
    related: bool,
    max_words: int = 16,
    known_topic: str | None = None,
    quote: bool = False,
    openings: Openings | None = None,
) -> str:
    """One sentence about a unit: who did what, where (unless known), with its citations;
    with `quote`, what its description says of why, verbatim (`why.quotation`), in the
    story's next frame (`openings.attribution`)."""
    event = unit.lead
    if event.relanded:
        predicate = f"briefly backs out and relands {quoted_title(event, max_words=12)}"
        sentence = opening.format(s=name, p=predicate)
        return f"{sentence} {cite_capped(*unit.activities)}."
    if event.release is not None:
        sentence = opening.format(s=name, p=release_phrase(unit))
        more = further_releases(unit, cited_releases(unit))
        return f"{sentence}{highlight_clause(unit, name=name, max_words=max_words)}.{more}"
    if event.kind == "revert" and event.linked:
        original = event.linked[0]
        when = _since_original(event.activity.landed_at, original.landed_at)
        predicate = f"{event_predicate(event, max_words=12)} {when}".rstrip()
        return (
            opening.format(s=name, p=predicate) + f" {cite(original, event.activity)}."
        ).replace("  ", " ")
    predicate = event_predicate(event, max_words=max_words)
    # No place for internal work: its folder (a test app, an example) is none a reader
    # follows; nor is a crate's or package's folder ("in polars-core", "in ruff_dev").
    # Nor a package's, when the change spans the monorepo ("bumps vite in db" of a bump of
    # every package).
    area = None if event.internal or spans_packages(event) else area_of(event)
    subject = name
    if area and _PACKAGE_NAME.fullmatch(area):
        # A crate's or package's name is the subject when it says more than the section
        # does ("polars-plan pushes down slices …"), else nothing; a folder inside one
        # ("src/vite-plugin-hmr-reload/") is how its code is laid out, and no subject.
        told = area in (unit.dominant_topic, known_topic) or event.product is not None
        package = is_package(area, event) and not told
        subject, area = (area if package else name), None
    if area and is_backend_area(event, area):
        subject, area = f"{possessive(name)} {area} backend", None
    elif (
        area
        and area not in (unit.dominant_topic, known_topic)
        and event.project.topic_for_key(topic_key(area)) is None
        and (kind := collection_of(area, event))
    ):
        # One of a collection is the subject, not a place: "astro's svelte integration
        # keeps props reactive", not "astro keeps props reactive … in svelte".
        subject, area = f"{possessive(name)} {area} {kind}", None
    elif event.product is not None:
        # A change to a product that lives in the repository is the product's news: "ty
        # respects `rules` …", not "ruff respects `rules` … in ty".
        subject = event.product
        area = None if area and topic_key(area) == topic_key(event.product) else area
    if unit.shipped_fix or (unit.shipped_in and opening in (*_ELSEWHERE, *_OTHER_KIND)):
        # what a release told before ships: no "Separately, …" or "Elsewhere, …"
        opening = PLAIN_OPENING
    sentence = opening.format(s=subject, p=predicate)
    if area and area not in (unit.dominant_topic, known_topic) and names_a_place(area, event):
        sentence += f" in {area}"
    located = sentence  # what the sentence says before a release or a label
    if unit.shipped_in and not event.security and event.kind not in ("revert", "reland"):
        # "a fix that Vite 8.0.9 ships": the release's contents, not other news beside it
        noun = "fix" if event.kind == "fix" else "change"
        release = unit.shipped_in if unit.shipped_in[:1].isalpha() else f"{name} {unit.shipped_in}"
        times = openings.releases_said.count(unit.shipped_in) if openings is not None else 0
        if not times:
            sentence += f", a {noun} that {release} ships"
        elif times == 1:
            sentence += f", likewise in {unit.shipped_in}"  # the release was named before
        # (a third time, "likewise in 5.56.0" again read as a form: the sentence says no more)
        if openings is not None:
            openings.releases_said.append(unit.shipped_in)
    undoing = event.linked or event.kind in ("revert", "reland")
    # Changes of one shape differing in one slot: one clause, each slot cited.
    merged = None if undoing else unit_slots(unit, predicate, max_words=max_words)
    if event.security:
        # The advisory, which tells a reader whether it concerns them, unless already said
        advisory = advisory_of(event.activity)
        named = advisory and advisory.lower() not in sentence.lower()
        # (a dependency's update is the dependency's fix: "a security update" of it)
        noun = "security update" if event.bump is not None else "security fix"
        # (one clause of several fixes says how many: "prevents XSS in A [1] and B [2], two
        # security fixes")
        fixes = 1 + len(unit.related) if merged and all(e.security for e in unit.related) else 1
        if fixes > 1:
            plural = "security updates" if event.bump is not None else "security fixes"
            sentence += f", {count_word(fixes)} {plural}"
        else:
            sentence += f", a {noun} for {advisory}" if named else f", a {noun}"
        if unit.shipped_fix:
            # (the release sentence before it names the version, which this one cites not)
            sentence += " that the new release ships"
    retold = all(same_change(event, e) for e in unit.related)
    if merged:
        # (a release that ships the lead may not ship the others: it is left unsaid)
        kept = sentence if event.security else located
        if (
            not event.security
            and openings is not None
            and unit.shipped_in in openings.releases_said
        ):
            openings.releases_said.remove(unit.shipped_in)  # the next sentence says it first
        place = kept[len(opening.format(s=subject, p=predicate)) :]
        return f"{opening.format(s=subject, p=merged)}{place}."
    # Related changes a clause of ours tells (", and adds Y [2]") would follow a quotation
    # as if its author said them, and cited bare they would be told by nothing: the clause
    # wins over the quotation.
    untold = bool(unit.related) and related and not retold
    said = told_reason(event) if quote and not untold else None
    frame = openings.attribution() if openings else ATTRIBUTIONS[0]
    if said and frame and event.kind not in ("revert", "reland"):
        quoted = f"{sentence}; {frame.format(q=said)}"
        # The quotation must read as well as our own words: no container folder or own
        # name as a place.
        if reads_well(quoted + ".", event.activity.title, (name, event.project.name)):
            sentence = quoted
            if openings:
                openings.quoted += 1
    own = (*event.linked, event.activity)
    if unit.shipped_by is not None and unit.shipped_in and unit.shipped_in in sentence:
        own = (*own, unit.shipped_by)  # the version it names is the release's to state
    sentence += f" {cite_capped(*own)}"
    room = MAX_CITATIONS - len({a.sha for a in own})
    shown = [e.activity for e in unit.related][: max(0, room)]
    if shown and related and "“" not in sentence and not retold:
        # After a quotation, a clause of ours would read as the author's: it is folded.
        sentence += related_clause(predicate, unit.related[: len(shown)])
    elif shown and not retold:
        # Cited but not told: counted, so no citation stands for words it has not.
        noun = "related change" if len(shown) == 1 else "related changes"
        sentence = f"{sentence.rstrip()}, with {count_word(len(shown))} {noun} {cite(*shown)}"
    elif shown:
        sentence = sentence.rstrip() + cite(*shown)
    return sentence + "."


# Stand-ins for a subject just named: the project's, and a backend's ("ExecuTorch's Arm backend").
_PROJECT_ALIASES = ("It", "The project")
_BACKEND_ALIASES = ("It", "The backend")
_ALIASES = frozenset({*_PROJECT_ALIASES, *_BACKEND_ALIASES})


def _subject_pattern(name: str) -> re.Pattern[str]:
    aliases = "|".join(sorted(_ALIASES))
    return re.compile(
        rf"^(?P<link>(?:{'|'.join(c.capitalize() for c in CONNECTIVES)}), )?"
        rf"(?P<subject>{re.escape(name)}(?:'s \S+(?: \S+){{0,2}}? backend)?|{aliases}"
        rf"|{'|'.join(a.lower() for a in sorted(_ALIASES))}) "
    )


def vary_subjects(sentences: list[str], *, name: str, openings: Openings) -> list[str]:
    """Sentences of one paragraph, a subject repeated from the sentence before replaced by
    turns with "It" and "The project" (or "The backend"): "pydantic uses X. In addition, it
    validates Y. pydantic avoids Z. The project does not resolve W."."""
    pattern = _subject_pattern(name)
    out: list[str] = []
    previous: str | None = None  # the subject of the sentence before, if it was named
    for sentence in sentences:
        match = pattern.match(sentence)
        subject = match.group("subject") if match else None
        if match is None or subject is None:
            previous = None
        elif subject.capitalize() in _ALIASES:
            previous = None  # after a stand-in, the name again
        elif re.match(r"v?\d", sentence[match.end() :]):
            previous = None  # "svelte 5.55.2 to 5.55.5 are out": the versions are the name's
        elif subject == previous:
            aliases = _PROJECT_ALIASES if subject == name else _BACKEND_ALIASES
            alias = aliases[openings.stand_ins % len(aliases)]
            openings.stand_ins += 1
            alias = alias.lower() if match.group("link") else alias
            sentence = sentence[: match.start("subject")] + alias + sentence[match.end("subject") :]
            previous = None
        else:
            previous = subject
        out.append(sentence)
    return out


def pack_phrases(phrases: list[str], *, name: str, openings: Openings) -> list[str]:
    """Join verb phrases about one project into sentences of at most three citations."""
    sentences: list[str] = []
    current: list[str] = []
    for phrase in phrases:
        if current and citations(" ".join([*current, phrase])) > MAX_CITATIONS:
            sentences.append(_joined(current, name=name, openings=openings))
            current = []
        current.append(phrase)
    if current:
        sentences.append(_joined(current, name=name, openings=openings))
    return sentences


def _joined(phrases: list[str], *, name: str, openings: Openings) -> str:
    return openings.further(same_kind=False).format(s=name, p=join_words(phrases)).rstrip() + "."
