"""How a release reads: "vite 8.0.16 is out", "svelte 5.55.6 and 5.55.7 are out with four
security fixes", "vite ships create-vite 9.1.0", "astro ships 12 releases, astro 5.12.3
among them".

A release unit is its project's releases of the window (`select.Unit.related`) and the
changes they ship (`Unit.carried`); the sentence says what the releases carry that a
reader must act on (security fixes, breaking changes), counted. The headline names the
project's own versions (or its packages' when it published none of its own, or counts
them when they are many); the lede names every release by version, a run of one
product's releases as a range ("0.140.0 to 0.140.13").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from digest.compose.carried import carrying
from digest.compose.citations import cite
from digest.compose.packages import (
    NOTHING_HIDDEN,
    Hidden,
    grouped,
    package_name,
    prerelease_only,
    versionless,
)
from digest.compose.phrases import event_predicate
from digest.compose.slots import related_clause, unit_slots
from digest.english.numbers import count_word, join_words
from digest.reading.event import Event
from digest.reading.releases import version_order
from digest.reading.shipping import is_own_change, product_of
from digest.select import MAX_NAMED_RELEASES, Unit, same_change

# A lede names this many products' releases at most; the rest it counts.
MAX_LEDE_PRODUCTS = 12
# A headline counts the releases of this many products or more ("ships 12 releases").
MANY_PRODUCTS = 4


def _own(event: Event) -> bool:
    """True for a release of the project itself, one whose title names no version too."""
    release = event.release
    return release is not None and None in release.products


def cited_releases(unit: Unit) -> list[Event]:
    """The releases a release unit names and cites, earliest first: those that ship a
    security fix or breaking change (`Unit.carriers`) or the change its sentence names
    (`Unit.highlight_by`), the project's own (its latest and
    earliest when there are more than `MAX_NAMED_RELEASES`), then the latest of each
    package, at most `MAX_NAMED_RELEASES`."""
    events = sorted((unit.lead, *unit.related), key=lambda e: e.activity.landed_at)
    own = [e for e in events if _own(e)]
    chosen = own[:] if len(own) <= MAX_NAMED_RELEASES else [own[-1], own[0]]
    # A release that ships a security fix or breaking change is cited, since the sentence
    # says so: one whose version nothing says is in no range ("5.55.6 to 5.55.9").
    # So is the one that ships the change the sentence names (`Unit.highlight`).
    carrying = [
        e
        for e in events
        if e not in chosen
        and (
            (e.activity.sha in unit.carriers and not (e.release and e.release.versions))
            or e.activity.sha == unit.highlight_by
        )
    ]
    if carrying:
        chosen = list(dict.fromkeys([*carrying, *chosen]))[: max(MAX_NAMED_RELEASES, len(carrying))]
    packages = {p for e in chosen if e.release for p in e.release.products if p}
    for event in reversed(events):
        if len(chosen) >= MAX_NAMED_RELEASES:
            break
        names = {p for p in event.release.products if p} if event.release else set()
        if event not in chosen and not _own(event) and not names <= packages:
            packages |= names
            chosen.append(event)
    # (one commit may publish several products, each a release of its own: cited once)
    once = {e.activity.sha: e for e in reversed(chosen)}.values()
    return sorted(once, key=lambda e: e.activity.landed_at)


def versions(unit: Unit) -> tuple[list[str], list[str]]:
    """The project's own versions ("8.0.4 to 8.0.8" for more than two) and its packages'
    ("create-vite 9.1.0"), earliest first, of the releases the unit cites; one GitHub
    flags a prerelease says so ("8.1.0-beta.0 (prerelease)")."""
    own: list[str] = []
    packages: list[str] = []
    for event in cited_releases(unit):
        for package, version in event.release.versions if event.release else ():
            target = own if package is None else packages
            text = version if package is None else f"{package_name(package)} {version}"
            text += " (prerelease)" if event.release and event.release.prerelease else ""
            if text not in target:
                target.append(text)
        for package in event.release.packages if event.release else ():
            # The project's own release whose version nothing says is a release of its
            # package all the same, beside others ("new releases of astro and cloudflare").
            name = package if package is not None else unit.lead.project.name
            if versionless(name) not in packages:
                packages.append(versionless(name))
    mine = versionless(unit.lead.project.name)
    if packages == [mine]:
        packages = []  # alone, it is "a release" of the project
    elif mine in packages:
        # The project's own first, as the lede tells it: "of Astro, astro-prism, …"
        packages = [mine, *(p for p in packages if p != mine)]
    own = sorted(own, key=version_order)
    if len(_every(unit).get(None, ())) > len(own) >= 2:
        # some of a run cited (its ends, and one that ships what the sentence names): the run
        own = [f"{own[0]} to {own[-1]}"]
    return own, packages


def _every(unit: Unit) -> dict[str | None, list[tuple[str, bool]]]:
    """Every product the unit's releases publish, the project's own first and then the
    packages in the order they first landed, with its versions in order (each with whether
    GitHub flags it a prerelease); a product whose versions nothing says has none."""
    events = sorted((unit.lead, *unit.related), key=lambda e: e.activity.landed_at)
    found: dict[str | None, list[tuple[str, bool]]] = {}
    if any(_own(e) for e in events):
        found[None] = []
    for event in events:
        release = event.release
        if release is None:
            continue
        for package, version in release.versions:
            if (version, release.prerelease) not in found.setdefault(package, []):
                found[package].append((version, release.prerelease))
        for package in release.packages:
            found.setdefault(package, [])
    if None in found and not found[None] and len(found) > 1:
        # The project's own release with no version said: named like its packages.
        found = {unit.lead.project.name: [], **{p: vs for p, vs in found.items() if p}}
    return {p: sorted(vs, key=lambda v: version_order(v[0])) for p, vs in found.items()}


def _run(package: str | None, found: list[tuple[str, bool]], *, alone: bool) -> list[str]:
    """How one product's releases are named: "8.0.16"; "8.0.4" and "8.0.5"; "8.0.4 to
    8.0.8" for more than `MAX_NAMED_RELEASES`; "create-vite 9.0.4 to 9.0.5" beside other
    products ("create-vite 9.0.4 and 9.0.5" would blur where the list goes on)."""
    name = f"{package_name(package)} " if package else ""
    texts = [v + (" (prerelease)" if pre else "") for v, pre in found]
    if not texts:
        return [versionless(package)] if package else []
    if len(texts) == 1:
        return [name + texts[0]]
    if len(texts) <= MAX_NAMED_RELEASES and package is None:
        return texts
    if len(texts) <= MAX_NAMED_RELEASES and alone:
        return [name + join_words(texts)]
    return [f"{name}{found[0][0]} to {found[-1][0]}"]


def release_count(unit: Unit) -> int:
    """How many releases the unit tells: each version of each product, and each product
    each release commit publishes whose version nothing says (two release commits that
    each publish astro and cloudflare are four releases)."""
    said: set[tuple[str | None, str]] = set()
    unsaid = 0
    for event in (unit.lead, *unit.related):
        if event.release is not None:
            said.update(event.release.versions)
            # (one that says neither is a release of the project itself: one release)
            unsaid += len(set(event.release.packages)) or int(not event.release.versions)
    return len(said) + unsaid


def all_named(unit: Unit, *, limit: int = MAX_LEDE_PRODUCTS) -> tuple[list[str], Hidden]:
    """Every release of the unit by version, product by product ("8.0.12", "8.0.13",
    "plugin-legacy 8.0.2", "create-vite 9.0.7"); beyond `limit` products, or beyond
    `MAX_NAMED_RELEASES` packages whose version nothing says, the rest left to a count
    (`Hidden`, which `grouped` says)."""
    every = _every(unit)
    products = list(every.items())
    shown = products if len(products) <= limit else products[: limit - 1]
    # A package whose version nothing says is a name only: three of them tell as much as
    # ten ("new releases of 19 packages, among them cloudflare, mdx and svelte").
    unversioned = [p for p, found in shown if p is not None and not found]
    shown = [(p, f) for p, f in shown if p not in unversioned[MAX_NAMED_RELEASES:]]
    named = [t for p, found in shown for t in _run(p, found, alone=len(products) == 1)]
    hidden = [p for p, _ in products if (p, every[p]) not in shown]
    return named, _hidden([package_name(p) for p in hidden if p is not None], len(hidden), unit)


def _hidden(names: list[str], count: int, unit: Unit) -> Hidden:
    """`count` packages left to a count, of which those of `names` that only a pre mode's
    release published are prereleases."""
    early = prerelease_only(unit)
    return Hidden(count, sum(name in early for name in names))


def _headline_named(unit: Unit) -> tuple[list[str], bool]:
    """What a headline names of the unit's releases, and whether they are the project's own:
    its own versions when it has some, else its packages'."""
    every = _every(unit)
    if every.get(None):
        return _run(None, every[None], alone=True), True
    packages = [(p, f) for p, f in every.items() if p is not None]
    named = [t for p, found in packages for t in _run(p, found, alone=len(packages) == 1)]
    return named, False


def release_predicate(
    unit: Unit, *, lede: bool = False, carry: bool = True, brief: bool = False
) -> str:
    """The verb phrase after the project's name: "8.0.16 is out", "5.55.6 and 5.55.7 are
    out with four security fixes", "ships create-vite 9.1.0". A `brief` phrase is a
    headline's (the project's own versions when it has any, a count when many products
    released); a `lede`'s names every release (`all_named`) after a verb that can share
    the sentence with other changes' ("ships 8.0.16 and fixes …"). The body's names every
    release it cites and says how many there were when it cites only some."""
    tail = f" {carrying(unit)}" if carry and carrying(unit) else ""
    total = release_count(unit)
    if lede:
        every_named, counted = all_named(unit)
        named = grouped(every_named, unit, hidden=counted)
        if not named:
            return "publishes a release" + tail
        return _ships(named) + join_words(named) + _some_carry(unit, tail, named=named)
    if brief:
        every = _every(unit)
        if len(every) >= MANY_PRODUCTS:
            return f"ships {count_word(total)} releases{tail}, {_example(unit)} among them"
        named, own = _headline_named(unit)
        named = grouped(named, unit)
    else:
        mine, packages = versions(unit)
        if carry and tail and (which := _split_by_version(unit)):
            # "3.11.0 and 3.11.1 are out; 3.11.1 ships a security fix": the other carries none
            ships = "ships" if len(which) == 1 else "ship"
            return f"{join_words(mine)} are out; {join_words(which)} {ships}{tail[5:]}"
        # A range or a release left unnamed: the count says how many there were.
        if total > max(1, sum(" to " not in n for n in mine + packages)):
            tail = f", {count_word(total)} releases in all{tail and ','}{tail}"
        # Three packages whose version nothing says tell as much as twenty: the rest are
        # counted ("new releases of astro, create-astro and cloudflare and releases of 17
        # more packages"), as the lede counts them.
        bare = [p for p in packages if p.startswith("a new ")]
        # (one more is named: "and a release of one more package" is no shorter)
        spare = bare[MAX_NAMED_RELEASES:] if len(bare) > MAX_NAMED_RELEASES + 1 else []
        packages = [p for p in packages if p not in spare]
        # (counted among every package the releases publish, cited or not, as the lede
        # counts them: "14 more" beside the lede's "16 more" read as a contradiction)
        told = {b.removeprefix("a new ") for b in bare if b not in spare}
        hidden = [
            package_name(p) for p, found in _every(unit).items() if p is not None and not found
        ]
        hidden = [p for p in hidden if p not in told]
        counted = _hidden(hidden, len(hidden), unit) if spare else NOTHING_HIDDEN
        named, own = mine + grouped(packages, unit, hidden=counted), bool(mine)
        if tail.startswith(f", {count_word(total)} releases in all") and any(
            f" {count_word(total)} packages, " in n for n in named
        ):
            tail = tail.removeprefix(f", {count_word(total)} releases in all")  # said once
    if own:
        plural = len(named) > 1 or " to " in named[0] or " and " in named[0]
        verb = "are out" if plural else "is out"
        return f"{join_words(named)} {verb}{tail}"
    if not named:
        return "publishes a release" + tail
    return "ships " + join_words(named) + tail


def _some_carry(unit: Unit, tail: str, *, named: Sequence[str] = ()) -> str:
    """`tail` (" with a security fix") after a lede's releases, said of those that carry it
    when only some do: ", one of them with a security fix", ", 3.11.2 with a security fix";
    "ships 3.11.1 and 3.11.2 with a security fix" put it in both. After a range of `named`
    versions, how many ("3.11.0 to 3.11.3, 3.11.1, 3.11.2 and 3.11.3 with …" said three
    twice); after a count of packages, of its releases ("22 packages, among them …, three
    of them with …" read as three packages)."""
    releases = len({e.activity.sha for e in (unit.lead, *unit.related)})
    if not tail or not unit.carriers or len(unit.carriers) >= releases:
        return tail
    carriers = [e for e in (unit.lead, *unit.related) if e.activity.sha in unit.carriers]
    ranged = any(" to " in n for n in named)
    counted = any(" packages, among them " in n for n in named)
    several = ranged and len(carriers) > 2
    which = _which(sorted(carriers, key=lambda e: e.activity.landed_at), counted=several or counted)
    if counted:
        which = which.replace(" of them", " of the releases")
    return f", {which}{tail}"


def _which(carriers: list[Event], *, counted: bool = False) -> str:
    """Which of a sentence's releases carry what it says they carry: their versions where
    each publishes one ("8.0.5", "8.0.5 and 8.0.6"), else (or when `counted`) how many
    ("one of them")."""
    named = [version for e in carriers if (version := _version_of(e)) is not None]
    if len(named) == len(carriers) and not counted:
        return join_words(named)
    return f"{count_word(len(carriers))} of them"


def _split_by_version(unit: Unit) -> list[str]:
    """The project's own versions that ship what the unit's releases carry, when only some
    of its cited releases do and no package is named beside them: the sentence says which
    by version. Else []."""
    mine, packages = versions(unit)
    which = _carrying_versions(unit)
    return which if which and len(which) < len(mine) and not packages else []


def release_phrase(unit: Unit) -> str:
    """A release unit's predicate with its citations (`cited_releases`). When only some of
    the cited releases carry its security fixes or breaking changes and no version says
    which, the carriers are cited apart: "ships new releases of astro and cloudflare, 25
    releases in all [1][2]; one of them ships a security fix [3]", not "… 25 releases in
    all, with a security fix [1][2][3]", which pinned the fix on all three."""
    cited = cited_releases(unit)
    tail = carrying(unit)
    carriers = [e for e in cited if e.activity.sha in unit.carriers]
    others = [e for e in cited if e.activity.sha not in unit.carriers]
    # (only when every carrier is cited: else what it carries would go to the others)
    every = {e.activity.sha for e in carriers} == set(unit.carriers)
    if tail and carriers and others and every and not _split_by_version(unit):
        them = f"{_which(carriers)} {'ships' if len(carriers) == 1 else 'ship'}"
        said = f"{release_predicate(unit, carry=False)} {cite(*(e.activity for e in others))}"
        return (
            f"{said}; {them} {tail.removeprefix('with ')} {cite(*(e.activity for e in carriers))}"
        )
    return f"{release_predicate(unit)} {cite(*(e.activity for e in cited))}"


def _version_of(release: Event) -> str | None:
    """The one version `release` publishes, as a sentence names it ("8.0.5", "create-vite
    9.0.4"), or None when it publishes several or none."""
    found = release.release.versions if release.release else ()
    if len(found) != 1:
        return None
    package, version = found[0]
    return version if package is None else f"{package_name(package)} {version}"


def _carrying_versions(unit: Unit) -> list[str]:
    """The project's own versions, of the releases the unit cites, that ship its security
    fixes or breaking changes (`Unit.carriers`)."""
    found = [
        version
        for event in cited_releases(unit)
        if event.activity.sha in unit.carriers and event.release is not None
        for package, version in event.release.versions
        if package is None
    ]
    return sorted(set(found), key=version_order)


def _ships(named: list[str]) -> str:
    """The verb before `named`: "publishes new releases of …", not "ships new releases
    of …", which reads as if the releases were goods."""
    unnamed = r"new (pre)?release|^releases of "
    return "publishes " if all(re.search(unnamed, n) for n in named) else "ships "


def _example(unit: Unit) -> str:
    """The release a headline that counts many names: the project's own latest version, or
    the latest package's."""
    every = _every(unit)
    if every.get(None):
        return f"{unit.lead.project.name} {every[None][-1][0]}"
    named = [(p, found) for p, found in every.items() if p is not None and found]
    if named:
        package, found = named[-1]
        return f"{package_name(package)} {found[-1][0]}"
    return join_words([package_name(p) for p in every if p][:1])


def highlight_clause(unit: Unit, *, name: str, max_words: int) -> str:
    """ ", with a fix that …" for the change a release sentence names (`Unit.highlight`),
    which the releases carry; when they publish several products, it says whose: ", with a
    fix to create-vite that …"."""
    event = unit.highlight
    if event is None:
        return ""
    predicate = event_predicate(event, max_words=max_words)
    what = "the change"
    if event.kind == "fix" or event.activity.title.startswith("fix"):
        # "a fix that fixes a panic" says it twice: "a change that fixes a panic"
        what = "a change" if predicate.startswith("fixes ") else "a fix"
    releases = [unit.lead, *unit.related]
    if len(_every(unit)) > 1:
        product = product_of(event, releases)
        if product is None and is_own_change(event, releases):
            product = name
        # (a change to several packages at once is said as no one's)
        what = f"{what} to {product}" if product else what
    # Of several releases, the one that ships it, where a version names it: "9.1.0 and
    # 9.1.1 are out [1][2], 9.1.1 with a change that …", not "…, with a change that …" of
    # both, when the change landed after 9.1.0
    carrier = next(
        (e for e in (unit.lead, *unit.related) if e.activity.sha == unit.highlight_by), None
    )
    if (
        unit.related
        and carrier in cited_releases(unit)
        and (version := _version_of(carrier)) is not None
    ):
        # ("create-vite 9.0.6 with a fix that …": the version names the product)
        what = re.sub(r" to \S+$", "", what) if " " in version else what
        return f", {version} with {what} that {predicate} {cite(event.activity)}"
    return f", with {what} that {predicate} {cite(event.activity)}"


def counts_packages_only(unit: Unit) -> bool:
    """True for a release unit of packages whose releases no version says (changesets'
    `[ci] release`): "ASTRO SHIPS 20 RELEASES" tells a headline's reader nothing. (The
    project's own release alone still leads: "POLARS PUBLISHES A RELEASE".)"""
    if unit.lead.release is None:
        return False
    every = _every(unit)
    return list(every) != [None] and not any(every.values())


def unit_predicate(unit: Unit, **options: object) -> str:
    """`phrases.event_predicate` of the unit's lead, or its release phrase for a release."""
    if unit.lead.release is not None:
        return release_predicate(unit, brief=True)
    return event_predicate(unit.lead, **options)  # type: ignore[arg-type]


def unit_phrase(unit: Unit, *, max_words: int) -> str:
    """A unit's verb phrase with its citations, for sentences that join several units."""
    if unit.lead.release is not None:
        return release_phrase(unit)
    unique = list({a.sha: a for a in unit.activities}.values())
    predicate = event_predicate(unit.lead, max_words=max_words)
    # Changes of one shape differing in one slot: one clause, each slot cited.
    merged = unit_slots(unit, predicate, max_words=max_words)
    if merged:
        return merged
    # Changes of another shape ("updates postcss …", "updates fastify …") are each said
    # or counted: one name cited for three changes credits it with all of them.
    other = tuple(e for e in unit.related if not same_change(unit.lead, e))
    if other:
        return f"{predicate} {cite(unit.lead.activity)}{related_clause(predicate, other[:3])}"
    return f"{predicate} {cite(*unique[:3])}"


def further_releases(unit: Unit, cited: list[Event]) -> str:
    """The sentence after a release sentence, which cites `cited` (`cited_releases`), that
    names the unit's releases it could not cite ("plugin-legacy 8.1.0-beta.0 is out as
    well [4]."), when there are at most as many as a sentence cites and each has a version;
    else "". A sentence that names three of "four releases in all" left readers looking for
    the fourth."""
    said = {e.activity.sha for e in cited}
    # the project's own are named all, by range when many ("5.55.2 to 5.55.5"): only a
    # package's release can be left out
    rest = [e for e in (unit.lead, *unit.related) if e.activity.sha not in said and not _own(e)]
    if not rest or len(rest) > MAX_NAMED_RELEASES:
        return ""
    if any(e.release is None or not e.release.versions for e in rest):
        return ""
    named = list(
        dict.fromkeys(
            f"{package_name(package)} {version}" + (" (prerelease)" if e.release.prerelease else "")
            for e in sorted(rest, key=lambda e: e.activity.landed_at)
            if e.release is not None
            for package, version in e.release.versions
            if package is not None
        )
    )
    if not named:
        return ""
    verb = "is" if len(named) == 1 else "are"
    return f" {join_words(named)} {verb} out as well {cite(*(e.activity for e in rest))}."
