"""Action items: one imperative sentence each, saying what to do and why, with its citation.

Only where a reader must act (DIGEST.md): a CI-gate change → [immediate], a breaking
change → [immediate] once a release ships it and [plan] until one does, a revert or reland → [monitor], a deprecation or new support
others build on → [plan], at most one of each a project. An [immediate] item is never
shared or dropped, since each one interrupts someone. Beyond those a story carries at most
`MAX_ITEMS` items, a handful whatever the window: at most `MAX_MONITOR_ITEMS` [monitor]
items (a security fix no release ships yet first, never dropped), one a topic (its three most significant reverts and relands cited, the others
counted), the most significant topics first, then [plan] items. Reverts no item cites are
counted in the body (`acted_on` says which are cited).
"""

from __future__ import annotations

import re
from datetime import datetime

from digest.compose.body import MAX_CITATIONS, reads_well
from digest.compose.carried import breaking_note, fix_key
from digest.compose.citations import cite
from digest.compose.deprecations import deprecation_item
from digest.compose.phrases import (
    backed_out,
    collection_of,
    event_predicate,
    is_backend_area,
    is_package,
    place,
    project_name,
    quoted_title,
    spans_packages,
    topic_of,
)
from digest.config import WireConfig, topic_key
from digest.english.nouns import possessive
from digest.english.numbers import count_word
from digest.english.words import ADDING_VERBS, CONJUNCTIONS, parts_of_speech
from digest.model import Urgency
from digest.reading.event import Event
from digest.reading.releases import CANDIDATE_VERSION
from digest.reading.why import quotation
from digest.select import ProjectPick, Unit, same_change
from digest.untrusted import clean_fragment

Action = tuple[str, Urgency, str, str]  # (text, urgency, repo, key of what it cites)
_ORDER = {"immediate": 0, "monitor": 1, "plan": 2}
# Items a story carries besides its [immediate] ones, and how many of them may be [monitor].
MAX_ITEMS = 5
MAX_MONITOR_ITEMS = 3


def _key(units: list[Unit]) -> str:
    return "+".join(f"{u.lead.repo}@{u.lead.activity.sha}" for u in units)


def ci_gate_item(units: list[Unit], *, name: str) -> str:
    """ "Check what now blocks merges in ci-infra: the change splits pre-merge CI … [1]";
    one change landed more than once (`same_change`) is one item citing each landing."""
    event = units[0].lead
    return (
        f"Check what now blocks merges in {name}: the change "
        f"{event_predicate(event, max_words=10)} {_cite_each(units)}"
    )


def _cite_each(units: list[Unit]) -> str:
    """Each unit's change, and each landing of it again that the unit folded in."""
    landings = [
        a
        for u in units
        for a in (u.lead.activity, *(e.activity for e in u.related if same_change(u.lead, e)))
    ]
    return cite(*landings[:MAX_CITATIONS])


_PRERELEASE = re.compile(rf"{CANDIDATE_VERSION.pattern}|\(prerelease\)", re.I)


def _shipped_in(units: list[Unit], pick: ProjectPick) -> list[str] | None:
    """The versions of the window's releases when one ships any of `units`, the latest
    first and stable ones before prereleases; empty when only releases whose versions
    nothing says ship them; None when none does."""
    shipped = {e.activity.sha for u in pick.units for e in u.carried}
    # (a fix landed twice, on the release branch and on main: the copy a release ships)
    landed = [a.landed_at for u in units for a in u.activities if a.sha in shipped]
    if not landed:
        return None
    # Only a release cut after the first fix can carry it, and none cut on another branch
    # (prometheus' 3.12.0, cut the day before its x/crypto bump landed on main, was named)
    carrying = sorted(
        (
            r
            for u in pick.units
            if u.lead.release is not None
            for r in (u.lead, *u.related)
            if r.release is not None
            and not r.release.elsewhere
            and r.activity.landed_at >= min(landed)
        ),
        key=lambda r: r.activity.landed_at,
        reverse=True,
    )
    latest = [
        version + (" (prerelease)" if r.release.prerelease else "")
        for r in carrying
        if r.release is not None
        for package, version in r.release.versions
        if package is None
    ]
    # The latest release first, a stable one before any prerelease ("3.12.0", not "3.13.0-rc.0").
    return sorted(dict.fromkeys(latest), key=lambda v: _PRERELEASE.search(v) is not None)


def _cut_of(version: str, pick: ProjectPick) -> datetime | None:
    """When the window's release of the project's own `version` was cut, or None."""
    return next(
        (
            r.activity.landed_at
            for u in pick.units
            for r in (u.lead, *u.related)
            if r.release is not None and (None, version) in r.release.versions
        ),
        None,
    )


def _watched_security(units: list[Unit], pick: ProjectPick) -> bool:
    """True when the security item of `units` is [monitor]: no release ships them yet and
    the users are not maintainers running the default branch."""
    return _watched(_shipped_in(units, pick), pick)


def _watched(latest: list[str] | None, pick: ProjectPick) -> bool:
    """`_watched_security`, given what `_shipped_in` found."""
    return latest is None and pick.units[0].lead.project.audience != "maintainers"


def _package_of(units: list[Unit], *, name: str) -> str | None:
    """The package of the project that every one of `units` changes, as prose names it
    ("astro's db package", "astro's node integration"), or None: a fix in one package
    ships in that package's release, and upgrading the project does nothing for it."""
    events = [u.lead for u in units]
    if any(spans_packages(e) for e in events):
        return None  # a bump across the monorepo ships with the project's own release
    topics = {topic_of(e) for e in events}
    if len(topics) != 1 or (topic := topics.pop()) is None:
        return None
    if kind := collection_of(topic, events[0]):
        return f"{possessive(name)} {topic} {kind}"
    return (
        f"{possessive(name)} {topic} package" if all(is_package(topic, e) for e in events) else None
    )


def security_item(units: list[Unit], pick: ProjectPick, *, name: str) -> tuple[str, Urgency]:
    """ "Upgrade svelte to 5.55.7 or later: it ships four security fixes, among them one
    that prevents XSS on `hydratable` from user contents [1][2][3]", [immediate]. With no
    release in the window a user has nothing to upgrade to yet: "Upgrade numpy once a
    release carries this security fix: …", [monitor]; unless the users are the maintainers,
    who run the default branch itself (`Project.audience`)."""
    latest = _shipped_in(units, pick)
    # Every security fix of the project counts, folded into a unit or left unnamed.
    fixes = [e for e in (*pick.told, *pick.rest) if e.security and e.release is None]
    count = len({fix_key(e) for e in fixes}) or len(units)
    carried: list[Event] = []
    if latest is not None:
        # "it ships five security fixes" counts, names and cites what the releases ship: a
        # fix that landed after the last cut is in no release yet.
        carried = [e for u in pick.units for e in u.carried if e.security]
        if latest and (cut := _cut_of(latest[0], pick)) is not None:
            # "Upgrade to 3.11.3 or later: it ships two security fixes" counted one that
            # landed eleven days after 3.11.3, which only a later candidate carries
            carried = [e for e in carried if e.activity.landed_at <= cut] or carried
        shipped = {e.activity.sha for e in carried}
        count = len({fix_key(e) for e in carried}) or count
        units = [u for u in units if u.lead.activity.sha in shipped] or units
    these = "this security fix" if count == 1 else "these security fixes"
    watched = _watched(latest, pick)
    if latest and _PRERELEASE.search(latest[0]):
        # only a release candidate carries it: nothing stable to upgrade to yet
        watched = pick.units[0].lead.project.audience != "maintainers"
        action = f"Upgrade {name} once a stable release carries {these}, as {latest[0]} does"
    elif latest:
        action = f"Upgrade {name} to {latest[0]} or later"
    elif latest is not None:  # released, but no version said: the window's releases
        package = _package_of(units, name=name) if count == 1 else None
        action = (
            f"Upgrade {package} to its latest release"
            if package
            else (f"Upgrade {name} to its latest releases")
        )
    elif watched:
        action = f"Upgrade {name} once a release carries {these}"
    else:
        action = f"Check that you run {name} with {these}"
    lead = event_predicate(units[0].lead, max_words=10)
    what = (
        f"it ships a security fix that {lead}"
        if count == 1
        else f"it ships {count_word(count)} security fixes, among them one that {lead}"
    )
    if latest is None:
        what = f"it {lead}" if count == 1 else what.replace("it ships", "the project lands")
    # Each fix the count counts is cited, as far as citations go: "three security fixes
    # [2][3]" left a reader looking for the third.
    counted = carried if latest is not None else fixes
    cited = list({fix_key(e): e for e in [*(u.lead for u in units), *counted]}.values())
    text = f"{action}: {what} {cite(*(e.activity for e in cited[:MAX_CITATIONS]))}"
    return text, "monitor" if watched else "immediate"


def breaking_item(units: list[Unit], pick: ProjectPick, *, name: str) -> tuple[str, Urgency]:
    """ "Check your use of pydantic before upgrading: a breaking change drops support for
    Python 3.9 [1]", [immediate], when a release ships it; a backend's breaking change
    names the backend. One no release ships yet is the next release's, a [plan]: "Check
    your use of pydantic before its next release: …"; unless the users are the
    maintainers, who run the default branch itself (`Project.audience`)."""
    event = units[0].lead
    if event.release is not None:  # a release says it breaks: what its notes list, counted
        text = f"Check your use of {name} before upgrading: {breaking_note(units[0])}"
        return f"{text} {_cite_each(units)}", "immediate"
    topic = topic_of(event)
    where = (
        f"{possessive(name)} {topic} backend" if topic and is_backend_area(event, topic) else name
    )
    unreleased = _watched(_shipped_in(units, pick), pick)
    when = "before its next release" if unreleased else "before upgrading"
    predicate = event_predicate(event, max_words=10)
    if gone := _REMOVED_CODE.match(predicate):
        # what to stop relying on, where the change removes it by name: "Stop relying on
        # `eval_type_backport()` before pydantic's next release: a breaking change removes
        # support for it"
        thing = gone["thing"]
        told = f"{predicate[: gone.start('thing')]}it{predicate[gone.end('thing') :]}"
        when = f"before {possessive(where)} next release" if unreleased else "before upgrading"
        text = f"Stop relying on {thing} {when}: a breaking change {told} {_cite_each(units)}"
    else:
        text = (
            f"Check your use of {where} {when}: a breaking change {predicate} {_cite_each(units)}"
        )
    return text, "plan" if unreleased else "immediate"


# A removal of named code: "removes support for `eval_type_backport()`", "drops `--foo`".
_REMOVED_CODE = re.compile(
    r"^(?:removes|drops|deletes)\s+(?:(?:the\s+)?support\s+for\s+)?(?:the\s+)?"
    r"(?P<thing>`[^`]+`)(?:\s+(?:option|flag|argument|parameter|function|method|API))?$"
)


def _undone(unit: Unit) -> str:
    """What a revert or reland is about, as a noun phrase or a quoted title."""
    event = unit.lead
    if event.kind == "revert" and not event.relanded:
        return backed_out(event, max_words=8)  # as the story's sentence names it
    return quoted_title(event, max_words=8)


# Openings of a story's [monitor] items, in turn, so no two read alike.
_WATCH = (
    "Check whether {where} still does what you rely on: ",
    "Review your use of {where}: ",
    "Watch {where} for the work to return: ",
)


def monitor_item(units: list[Unit], *, name: str, turn: int = 0) -> str:
    """ "Check whether ExecuTorch's XNNPACK backend still does what you rely on: XNNPACK
    serialization was backed out [5]"; a reland alone, "Check ExecuTorch's Arm backend
    again: “Add X” is back after a back-out [5]"; several reverts and relands of one topic are counted, the first
    `MAX_CITATIONS` cited ("five changes were backed out, among them [1][4][6]")."""
    where = place(units[0].lead, name)
    cited = units[:MAX_CITATIONS]
    marker = cite(*(u.lead.activity for u in cited))
    if len(units) > len(cited):
        marker = f", among them {marker}"
    reverts = sum(u.lead.kind == "revert" for u in units)
    relands = len(units) - reverts
    if len(units) == 1:
        what = f"{_undone(units[0])} was {'backed out' if reverts else 'relanded'}"
    elif reverts and relands:
        changes = "change was" if reverts == 1 else "changes were"
        what = f"{count_word(reverts)} {changes} backed out and {count_word(relands)} relanded"
        if reverts == relands:
            what = f"{count_word(reverts)} {changes} backed out and as many relanded"
    else:
        what = f"{count_word(len(units))} changes were {'backed out' if reverts else 'relanded'}"
    marker = marker if marker.startswith(",") else f" {marker}"
    if len(units) == 1 and relands:
        return f"Check {where} again: {_undone(units[0])} is back after a back-out{marker}"
    return _WATCH[turn % len(_WATCH)].format(where=where) + f"{what}{marker}"


_SETTING = re.compile(r"\b(options?|flags?|parameters?|settings?|arguments?|env var\w*)\b", re.I)
_SUPPORT = re.compile(r"\bsupport\b", re.I)
# What a change adds support for: "support for Conv2d in AdaLoRA", "bf16 support".
_SUPPORTED = (
    re.compile(r"\bsupport for (?P<thing>.+?)(?= (?:in|to|on|with|via|for) |$)", re.I),
    re.compile(r"(?P<thing>(?:\S+ ){0,2}\S+) support\b", re.I),
)


def _supported(event: Event) -> str | None:
    """The thing a change supports, in its own words, or None."""
    for pattern in _SUPPORTED:
        if match := pattern.search(clean_fragment(event.obj)):
            thing = match["thing"].strip()
            words = thing.split()
            own = event.project.own_keys & {topic_key(w) for w in words}
            if 0 < len(words) <= 5 and not own and thing.lower() not in ("add", "the"):
                return None if _partial(words) else thing
    return None


def _partial(words: list[str]) -> bool:
    """True when a supported "thing" is only part of one: the end of a list ("+ ValueList
    graph" of "cat op + ValueList graph support") or a lone modifier ("extended support")."""
    first = words[0].lower()
    modifier = len(words) == 1 and bool(pos := parts_of_speech(first)) and pos <= {"ADJ", "VERB"}
    return first in CONJUNCTIONS or modifier


# A description quoted in an item is short: an item is read at a glance.
_QUOTED_WORDS = 16
_SAYS = "; its description says “"


def item_quotation(text: str) -> str:
    """The description an item's text quotes ("" for none): what a story's body may have
    quoted already."""
    return text.partition(_SAYS)[2].partition("”")[0]


def capability_item(unit: Unit, *, name: str) -> str | None:
    """What a reader can now do, in the change's own terms: "Try bf16 in ExecuTorch's Arm
    backend: the change adds bf16 support for …", or "Consider the new setting if you
    configure …" for a setting a change adds; with what its description says it is for,
    when it says so briefly. None when the change names nothing to try: an item that says
    "try it" of nothing in particular is a template, not advice."""
    event = unit.lead
    where = place(event, name)
    adds = event.verb in ADDING_VERBS or event.predicate.split(" ", 1)[0] in ("adds", "introduces")
    if _SETTING.search(event.obj) and adds:
        lead = f"Consider the new setting if you configure {where}"
    elif event.new_support or _SUPPORT.search(event.obj):
        thing = _supported(event)
        # A name with a number ("Gemma 4 31B") said twice in one line reads as a stutter.
        stutter = thing is None or re.search(r"(?<!\w)\d", thing) is not None
        lead = f"Try it in {where}" if stutter else f"Try {thing} in {where}"
    else:
        lead = f"Plan to use it if you build on {where}"
    # "Try X: the change adds X" only says the change again: a reason the description gives
    # (what X is for) is what makes it advice, so an item without one is no item.
    item = f"{lead}: the change {event_predicate(event, max_words=10)}"
    said = quotation(event.body, event.activity.title, max_words=_QUOTED_WORDS)
    quoted = f"{item}{_SAYS}{said}”" if said and not said.endswith("…") else ""
    names = (name, event.project.name)
    if not (quoted and reads_well(quoted, event.activity.title, names)):
        return None
    return f"{quoted} {cite(event.activity)}"


def _chosen(picks: list[ProjectPick]) -> list[tuple[str, ProjectPick, list[Unit]]]:
    """Which items a story carries, as (kind, project, its units, most significant first), in the
    order they are written: every [immediate] change, then at most `MAX_MONITOR_ITEMS`
    topics of reverts and relands, most significant first, then [plan] items (every
    deprecation, then new support, one a project), at most `MAX_ITEMS` besides the
    [immediate] ones."""
    immediate, watch, plans = [], [], []
    for pick in picks:
        planned: set[str] = set()
        topics: dict[str, list[Unit]] = {}
        fixes = [u for u in (*pick.units, *pick.extra) if u.lead.security]
        if fixes:
            immediate.append(("security", pick, sorted(fixes, key=lambda u: -u.score)))
        for unit in (*pick.units, *pick.extra):
            event = unit.lead
            if event.security:
                continue
            if event.must_act and event.urgency == "immediate":
                kind = "ci_gate" if event.ci_gate else "breaking"
                told = next(
                    (
                        us
                        for k, p, us in immediate
                        if k == kind and p is pick and same_change(us[0].lead, event)
                    ),
                    None,
                )
                if told is not None:
                    told.append(unit)  # the same change landed again: one item cites both
                else:
                    immediate.append((kind, pick, [unit]))
            elif event.must_act:
                topics.setdefault(topic_of(event) or "", []).append(unit)
            elif event.urgency == "plan":
                # Each deprecation asks its own move of a reader; new support, one a project.
                what = "deprecation" if event.deprecation else "support"
                if what == "deprecation" or what not in planned:
                    planned.add(what)
                    plans.append((what, pick, [unit]))
        # A deprecation a release's sentence names as what it ships asks the same move.
        for unit in pick.units:
            shipped = unit.highlight
            if shipped is not None and shipped.deprecation and shipped.urgency == "plan":
                plans.append(("deprecation", pick, [Unit(lead=shipped, score=unit.score)]))
        plans.sort(key=lambda item: item[0] != "deprecation")
        for units in topics.values():
            watch.append(("monitor", pick, sorted(units, key=lambda u: -u.score)))
    watch.sort(key=lambda item: -item[2][0].score)
    # A security fix no release ships yet is watched too, first and never dropped.
    watched = sum(k == "security" and _watched_security(us, p) for k, p, us in immediate)
    watch = watch[: max(0, MAX_MONITOR_ITEMS - watched)]
    return immediate + watch + plans[: max(0, MAX_ITEMS - len(watch) - watched)]


def acted_on(picks: list[ProjectPick]) -> frozenset[str]:
    """The shas of the changes the story's action items cite."""
    return frozenset(
        u.lead.activity.sha for _, _, units in _chosen(picks) for u in units[:MAX_CITATIONS]
    )


def write_actions(picks: list[ProjectPick], *, config: WireConfig) -> list[Action]:
    """Action items where a reader must act (`Event.must_act`) or may plan (a deprecation,
    new support: at most one of each a project), with the urgency `Event.urgency` gives;
    most urgent first, a handful at most besides the [immediate] ones (`_chosen`)."""
    items: list[Action] = []
    for kind, pick, units in _chosen(picks):
        name = project_name(config, pick.repo)
        unit = units[0]
        if kind == "security":
            text, urgency = security_item(units, pick, name=name)
            items.append((text, urgency, pick.repo, _key(units[:MAX_CITATIONS])))
        elif kind == "ci_gate":
            told = units[:MAX_CITATIONS]
            items.append((ci_gate_item(told, name=name), "immediate", pick.repo, _key(told)))
        elif kind == "breaking":
            told = units[:MAX_CITATIONS]
            text, urgency = breaking_item(told, pick, name=name)
            items.append((text, urgency, pick.repo, _key(told)))
        elif kind == "monitor":
            turn = sum(item[1] == "monitor" for item in items)
            text = monitor_item(units, name=name, turn=turn)
            items.append((text, "monitor", pick.repo, _key(units[:MAX_CITATIONS])))
        else:
            plan = deprecation_item if kind == "deprecation" else capability_item
            if (planned := plan(unit, name=name)) is not None:
                items.append((planned, "plan", pick.repo, _key([unit])))
    items.sort(key=lambda item: _ORDER[item[1]])
    return items
