"""How a release sentence names packages whose version nothing says: "a new release of
mdx", "new prereleases of cloudflare and node", "releases of 14 more packages"."""

from __future__ import annotations

from dataclasses import dataclass

from digest.english.numbers import count_word, join_words
from digest.select import Unit


def versionless(package: str) -> str:
    """A package's release whose version nothing says: "a new pyo3-polars"."""
    return f"a new {package_name(package)}"


@dataclass(frozen=True)
class Hidden:
    """Packages a sentence counts rather than names, and how many of them only a pre mode's
    release published."""

    packages: int = 0
    prereleases: int = 0


NOTHING_HIDDEN = Hidden()


def grouped(named: list[str], unit: Unit, *, hidden: Hidden | None = None) -> list[str]:
    """`named` with its versionless releases said once, where the first stood: "a new
    release of mdx", "new releases of cloudflare, mdx and svelte" (not "a new cloudflare,
    a new mdx", which reads as new products); "prereleases" for the packages that only a
    pre mode's release published, said apart from the rest. The `hidden` packages are
    counted with the named ones ("new releases of 17 packages, among them …"), or after
    the rest when none is named (`more_packages`)."""
    hidden = hidden or NOTHING_HIDDEN
    bare = [n.removeprefix("a new ") for n in named if n.startswith("a new ")]
    if not bare:
        return named + (
            [more_packages(hidden.packages, prereleases=hidden.prereleases)]
            if hidden.packages
            else []
        )
    early = prerelease_only(unit)
    groups = [
        (kind, names)
        for kind, names in (
            ("release", [b for b in bare if b not in early]),
            ("prerelease", [b for b in bare if b in early]),
        )
        if names
    ]
    said = [
        f"a new {kind} of {names[0]}" if len(names) == 1 else f"new {kind}s of {join_words(names)}"
        for kind, names in groups
    ]
    if hidden.packages:
        # "new releases of cloudflare, mdx and svelte and releases of 14 more packages"
        # read as a list of lists: one count, its first three named
        kinds = {kind for kind, _ in groups}
        kinds |= {"prerelease"} if hidden.prereleases == hidden.packages else {"release"}
        what = "releases and prereleases" if len(kinds) > 1 else f"{kinds.pop()}s"
        total = count_word(len(bare) + hidden.packages)
        said = [f"new {what} of {total} packages, among them {join_words(bare)}"]
    out: list[str] = []
    for text in named:
        if not text.startswith("a new "):
            out.append(text)
        elif said:
            out.extend(said)
            said = []
    return out


def prerelease_only(unit: Unit) -> set[str]:
    """The packages, as prose names them, whose every release in the unit is a prerelease."""
    seen: dict[str, bool] = {}
    for event in (unit.lead, *unit.related):
        release = event.release
        if release is None:
            continue
        for package in release.products:
            if package is not None:
                name = package_name(package)
                seen[name] = seen.get(name, True) and release.prerelease
    return {name for name, early in seen.items() if early}


def package_name(package: str) -> str:
    """A package as prose names it; a scoped one ("@astrojs/node") in a code span, which
    no reader takes for an @-mention."""
    return f"`{package}`" if package.startswith("@") else package


def more_packages(count: int, *, prereleases: int = 0) -> str:
    """ "releases of 14 more packages", "a release of one more package"; "prereleases of
    …" when only a pre mode's release published them, and a mix said as one: a beta round
    of ten packages told as "releases" beside "prereleases" of three read as a split."""
    kind = "prerelease" if prereleases == count else "release"
    if count == 1:
        return f"a {kind} of one more package"
    said = f"{kind}s of {count_word(count)} more packages"
    return f"{said}, some of them prereleases" if 0 < prereleases < count else said
