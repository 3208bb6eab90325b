"""The top of a story: the all-caps headline and the one-sentence lede.

The lede says what mattered most, never only how much landed: the lead units of the first
two projects, in the past tense. A quiet window (1–3 changes) says that it was quiet.
"""

from __future__ import annotations

import re

from digest.budget import is_quiet, window_days
from digest.compose.citations import Draft
from digest.compose.counts import trivia_noun
from digest.compose.phrases import event_predicate, project_name
from digest.compose.release import counts_packages_only, release_predicate, unit_predicate
from digest.config import WireConfig
from digest.english.case import headline_case
from digest.english.nouns import possessive
from digest.english.numbers import count_word, join_words
from digest.english.words import verb_form
from digest.model import Window
from digest.rank import INTERNAL, tier
from digest.reading.event import Event, commit_count
from digest.select import ProjectPick, Unit, extra_releases


def news(picks: list[ProjectPick]) -> int:
    """How many changes the story tells of, its folded dependency bumps and trivia aside."""
    told = [e for p in picks for e in p.told]
    # (a back-out counted as trivia absorbs the change it undoes: both its commits go)
    folded = sum(commit_count(p.bumps) + commit_count(p.trivia) for p in picks)
    return sum(p.landed for p in picks) - folded - extra_releases(told)


def write_headline(
    picks: list[ProjectPick], *, config: WireConfig, max_chars: int
) -> tuple[str, tuple[str, ...]]:
    """Each project's lead story as "PROJECT VERBS OBJECT", joined, upper-case (code spans
    keep their case), within `max_chars`; and the `repo@sha` of each lead it tells."""
    if _maintenance_only(picks):
        # "PYTEST BUMPS actions/stale FROM 10.2.0 TO 10.3.0" tells every subscriber of a
        # change none of them sees
        names = join_words([headline_case(project_name(config, p.repo)) for p in picks])
        headline = f"{_maintenance_noun(picks)} IN {names}"
        if len(headline) <= max_chars:
            return headline, _keys(picks)
    headline = ""
    units = [(_headline_subject(config, p), headline_unit(p)) for p in picks]
    for projects in (3, 2, 1):
        told = picks[:projects]
        for max_words in (9, 7, 5, 4, 3):
            clauses = [
                name
                + " "
                + headline_case(
                    unit_predicate(unit, max_words=max_words, headline=True, articles=False),
                    compounds=True,
                )
                for name, unit in units[:projects]
            ]
            headline = ", ".join(clauses).rstrip(" .!?;:,")
            if len(headline) <= max_chars:
                return headline, _keys(told)
    return headline[:max_chars].rsplit(" ", 1)[0], _keys(picks[:1])


def _maintenance_only(picks: list[ProjectPick]) -> bool:
    """True when nothing of the picks reaches users: internal work, housekeeping and
    routine dependency updates alone (no major or security one of what ships)."""
    events = [e for p in picks for e in (*p.told, *p.rest)]
    return all(
        e.bump is not None and not e.bump.stands_alone
        if e.bump is not None
        else tier(e) == INTERNAL and e.release is None and e.kind not in ("revert", "reland")
        for e in events
    )


def _maintenance_noun(picks: list[ProjectPick]) -> str:
    """What landed, said as plainly as it is one kind: "ONLY DEPENDENCY UPDATES LAND"."""
    events = [e for p in picks for e in (*p.told, *p.bumps, *p.trivia, *p.rest)]
    if all(e.bump is not None for e in events):
        return "ONLY DEPENDENCY UPDATES LAND"
    if all(e.trivia == "docs" or e.kind == "docs" for e in events):
        return "ONLY DOCUMENTATION CHANGES LAND"
    return "ONLY MAINTENANCE WORK LANDS"


def _headline_subject(config: WireConfig, pick: ProjectPick) -> str:
    """Who a project's headline clause says acted: the product its lead change is of,
    named so that the project still shows ("CREATE-VITE REMOVES …", never "VITE REMOVES …"
    for a template of create-vite; "WIDGETS' TSDB SKIPS …"), else the project."""
    name = project_name(config, pick.repo)
    product = headline_unit(pick).product
    if product and name.lower() not in product.lower():
        product = f"{possessive(name)} {product}"
    return headline_case(product or name)


def headline_unit(pick: ProjectPick) -> Unit:
    """The unit a project's headline clause tells: its lead, unless that is releases no
    version names and news of another kind landed beside them, which says more."""
    if counts_packages_only(pick.lead):
        others = [u for u in pick.units[1:] if u.lead.release is None and not u.lead.internal]
        if others:
            return others[0]
    return pick.lead


def _keys(picks: list[ProjectPick]) -> tuple[str, ...]:
    """The changes each project's clause tells: its lead, and for a release every release
    the clause stands for ("VITE 8.0.4 TO 8.0.8 ARE OUT")."""
    keys = []
    for pick in picks:
        unit = headline_unit(pick)
        told = [unit.lead, *unit.related] if unit.lead.release is not None else [unit.lead]
        keys += [f"{e.activity.repo}@{e.activity.sha}" for e in told]
    return tuple(keys)


def period_words(window: Window) -> tuple[str, str]:
    """How the lede names the window: ("day", "") for a day, ("week", "This week, ") …"""
    days = window_days(window)
    if days <= 1:
        return "day", ""
    if days == 7:
        return "week", "This week, "
    if days % 7 == 0:
        return f"{days // 7} weeks", f"Over {count_word(days // 7)} weeks, "
    return f"{days} days", f"Over {count_word(days)} days, "


def _lede_phrase(unit: Unit) -> str:
    if unit.lead.release is not None:
        return release_predicate(unit, lede=True)
    phrase = event_predicate(unit.lead, max_words=8, headline=True)
    product = unit.product
    if product and _is_package(product, unit) and product.lower() not in phrase.lower():
        # the project's name opens the lede: the package the change is of follows it
        phrase += f" in {product}"
    return phrase


def _is_package(product: str, unit: Unit) -> bool:
    """True for a product published as a package of its own, named after the project
    ("create-vite", "widgets-extra"), not a component spelled as a title tag ("tsdb")."""
    return unit.lead.project.name.lower() in product.lower()


def _joined_phrases(phrases: list[str]) -> str:
    """ "backed out A and backed out B" → "backed out A and B"."""
    if len(phrases) == 2:
        verb = _leading_verb(phrases[0])
        # (after "adds A and drops B", a shared "as well as C" reads as dropped too)
        if verb and _leading_verb(phrases[1]) == verb and not _second_verb(phrases[0]):
            second = phrases[1][len(verb) + 1 :]
            # "added A and B and C" would blur where one change ends and the next begins,
            # and "used A and locked B" reads "locked" as a verb: plain "and" only before a
            # quotation, and when neither object has an "and" of its own.
            plain = second.startswith(("“", "`")) and " and " not in phrases[0] + second
            return f"{phrases[0]} and {second}" if plain else f"{phrases[0]}, as well as {second}"
        if " and " in phrases[0] or " and " in phrases[1]:
            # "added A and dropped B and backed out C", "exports A and fixes B and adds C":
            # the comma says where the second change begins.
            return f"{phrases[0]}, and {phrases[1]}"
    return join_words(phrases)


def _second_verb(phrase: str) -> bool:
    """True when a verb of ours follows an "and" of `phrase`: "adds A and drops B"."""
    return any(verb_form(word) == "VBZ" for word in re.findall(r"\band (\S+)", phrase))


def _leading_verb(phrase: str) -> str | None:
    words = phrase.split()
    if len(words) > 2 and words[1] in ("out", "up", "in", "off", "back"):
        return " ".join(words[:2])
    return words[0] if len(words) > 1 else None


def write_lede(
    picks: list[ProjectPick], *, config: WireConfig, window: Window, topic: str | None
) -> str:
    """One sentence on what mattered most; a quiet window's lede says it was quiet."""
    landed = news(picks)
    period, opening = period_words(window)
    on = f" on {topic}" if topic else ""
    # Internal work alone only when nothing users see landed, named or not: a fix whose title
    # reads too badly to name is counted, and still no internal work.
    internal = all(
        tier(e) == INTERNAL
        for p in picks
        for e in (*(u.lead for u in (*p.units, *p.extra)), *p.rest)
    )
    # A window with a release in its lead is no quiet one, however few changes it holds.
    released = picks[0].lead.lead.release is not None
    if (is_quiet(landed) or internal) and not released:
        names = join_words([project_name(config, p.repo) for p in picks])
        lead = _lede_phrase(picks[0].lead)
        # A lede counts changes: a grouped bump is one change, however many it updates.
        bumps = commit_count(e for p in picks for e in p.bumps)
        updates = "update" if bumps == 1 else "updates"
        counted = [trivia_noun([e for p in picks for e in p.trivia])]
        counted.append(f"{count_word(bumps)} dependency {updates}" if bumps else "")
        listed = [c for c in counted if c]
        besides = f"besides {join_words(listed)}, " if listed else ""
        commits = sum(p.landed for p in picks)
        if is_quiet(landed) and not is_quiet(commits) and landed < commits and listed:
            # A busy window whose news is a few changes among housekeeping is no quiet one:
            # the news first, then what else landed. Nothing says which of them users see,
            # a claim a refactor among them would make false.
            more = landed - 1
            others = [f"{count_word(more)} more change{'s' if more > 1 else ''}"] if more else []
            sentence = f"{names} {lead}; {join_words(others + listed)} landed as well."
            return f"On {topic}, {sentence}" if topic else sentence
        if not is_quiet(landed) or (internal and landed > 1):
            # Changes none of which users see: say so before naming the most notable.
            return (
                f"A quiet {period} for {names}{on}: {besides}only internal work landed, "
                f"{count_word(landed)} changes, the most notable of which {lead}."
            )
        if landed == 1 and not besides:
            # The headline names the one change and the body tells it: a lede that named it
            # too said one thing three times over.
            return f"A quiet {period} for {names}{on}: one change landed."
        if landed == 1:
            # "besides one internal change, its only change …" contradicts itself
            return f"A quiet {period} for {names}{on}, which {lead}; {join_words(listed)} landed as well."
        units = picks[0].units
        if len(picks) == 1 and len(units) >= 2 and commit_count(u.lead for u in units[:2]) == 2:
            # Two or three changes: the first two said, not "the most notable of which".
            said = _joined_phrases([_lede_phrase(u) for u in units[:2]])
            rest = [f"{count_word(landed - 2)} more change"] if landed > 2 else []
            rest += listed
            tail = f"; {join_words(rest)} landed as well" if rest else ""
            return f"A quiet {period} for {names}{on}, which {said}{tail}."
        return (
            f"A quiet {period} for {names}{on}: {besides}{count_word(landed)} changes landed, "
            f"the most notable of which {lead}."
        )
    first = picks[0]
    named = [first.lead]
    # (a security fix the leading release carries is told by its "with a security fix")
    untold = [u for u in first.units[1:] if not _carried_fix(first.lead, u)]
    if len(picks) == 1 and untold:
        # The project's releases are named by version whatever outranks them.
        releases = [u for u in untold if u.lead.release is not None]
        named.append(releases[0] if releases and first.lead.lead.release is None else untold[0])
    phrases = [_lede_phrase(u) for u in named]
    if _apart(named):
        # "ships 2.4.6 and stops forwarding …" reads as the release carrying the fix
        joined = f"{phrases[0]} and, separately, {phrases[1]}"
    else:
        joined = _joined_phrases(phrases)
    sentence = f"{project_name(config, first.repo)} {joined}"
    if len(picks) > 1:
        second = picks[1]
        sentence += f", while {project_name(config, second.repo)} {_lede_phrase(second.lead)}"
    if topic:
        sentence = f"On {topic}, {sentence}"
    elif opening:
        sentence = opening + sentence
    # every back-out of the window, told, counted or folded as internal work alike, once
    # one of them undoes what users saw: a same-day revert of CI work is no news to lead on
    backs = [e for p in picks for e in (*p.told, *p.rest, *p.trivia) if _backs_out(e)]
    backed_out = len(backs) if any(tier(e) != INTERNAL for e in backs) else 0
    if backed_out > sum(_backs_out(u.lead) for u in named) + (len(picks) > 1):
        changes = "change was" if backed_out == 1 else "changes were"
        sentence += f"; in all, {count_word(backed_out)} {changes} backed out"
    return sentence + "."


def _carried_fix(release: Unit, unit: Unit) -> bool:
    """True for a security fix that `release` carries, which its lede phrase counts ("ships
    3.11.3 with a security fix"): named beside it, "and fixes stored XSS …" told it twice."""
    if release.lead.release is None or not unit.lead.security:
        return False
    copies = {a.sha for a in unit.activities}  # a fix landed twice
    return bool(copies & {e.activity.sha for e in release.carried})


def _apart(named: list[Unit]) -> bool:
    """True for a release and a change that landed after it, named side by side: one the
    release cannot ship. (One that landed before it and that it is not known to ship, a
    feature beside a patch release, may have come by its branch: nothing is said.)"""
    if len(named) != 2:
        return False
    releases = [u for u in named if u.lead.release is not None]
    if len(releases) != 1:
        return False
    [change] = [u for u in named if u.lead.release is None]
    shipped = {e.activity.sha for e in releases[0].carried}
    later = change.lead.activity.landed_at > releases[0].lead.activity.landed_at
    return later and change.lead.activity.sha not in shipped


def _backs_out(event: Event) -> bool:
    """True for a back-out that stays out (not relanded within the window)."""
    return event.kind == "revert" and not event.relanded


def draft_no_news(
    *, config: WireConfig, window: Window, repos: tuple[str, ...], topic: str | None
) -> Draft:
    """The explicit story of a window in which nothing landed."""
    names = [project_name(config, r) for r in repos] or ["the followed repositories"]
    about = f" on {topic}" if topic else ""
    return Draft(
        headline=f"NO NEWS{about.upper()} FROM {join_words(names, 'OR').upper()}",
        lede=f"Nothing landed{about} in {join_words(names, 'or')} between {window.label()}.".replace(
            " – ", " and "
        ),
        body=(),
        actions=(),
    )
