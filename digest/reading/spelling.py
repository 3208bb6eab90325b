"""How a project spells its own name, when the configuration does not say.

A repository's name is often its project's name in lower case ("numpy/numpy",
"prometheus/prometheus"), while the project writes "NumPy" and "Prometheus" in its own
prose. A story calls an unconfigured project by the spelling its changes' titles and
descriptions use most, in prose (not in code: `import numpy`, `numpy.linalg`,
`packages/astro/`), when they use it often enough to tell; else by the repository's name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from digest.config import Project, WireConfig
from digest.model import Activity


def _prose_uses(name: str, activities: Iterable[Activity]) -> Counter[str]:
    """How often each spelling of `name` stands as a word of prose in the activities'
    titles and descriptions: not in code, a path, a package, a call, a quoted key
    (`"astro": patch`), a commit scope (`fix(astro):`) or a module (`astro:assets`)."""
    word = re.compile(
        rf"(?<![\w.`/@'\"(:-]){re.escape(name)}(?!'(?!s\b)|[\w`/@(\":)?-]|\.\w)", re.I
    )
    # Most texts never name it: a bare search, free of the lookbehind the engine would try
    # at every position, rules them out three times as fast.
    named = re.compile(re.escape(name), re.I)
    uses: Counter[str] = Counter()
    for activity in activities:
        for text in (activity.title, activity.body):
            if named.search(text):
                uses.update(m.group(0) for m in word.finditer(text))
    return uses


def own_spelling(name: str, activities: Iterable[Activity]) -> str | None:
    """The spelling of `name` the activities' prose uses, when it is not the name as given;
    else None. A spelling with capitals ("Polars", "NumPy") wins as soon as the prose
    writes the name with capitals more than half as often as in lower case, since a project
    that keeps its name lower case ("pytest") writes it so nearly always; any other spelling must be used
    more often than every other. An all-capital spelling is a shout, never a name."""
    uses = _prose_uses(name, activities)
    capitalized = Counter({s: n for s, n in uses.items() if s != s.lower() and not s.isupper()})
    # (half as often is enough: the lower-case uses that slip past `_prose_uses` are a
    # command's or a package's, "run astro build", and readers took "astro adds …" for a slip)
    if capitalized and 2 * capitalized.total() > uses[name.lower()]:
        # a spelling with inner capitals wins whenever it is used
        spelling = (_inner_capitals(capitalized) or capitalized).most_common(1)[0][0]
        return None if spelling == name else spelling
    ranked = uses.most_common(2)
    if not ranked:
        return None
    spelling, count = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    if spelling == name or spelling.isupper() or count == runner_up:
        return None
    return spelling


def prose_spelling(word: str, activities: Iterable[Activity]) -> str | None:
    """How the activities' prose spells `word`, a package or area in lower case ("tsdb",
    "promql"), when it writes it otherwise at least as often as in lower case: "TSDB",
    "PromQL"; else None. An acronym counts here, unlike for a project's name."""
    uses = _prose_uses(word, activities)
    spelled = Counter({s: n for s, n in uses.items() if s != s.lower()})
    if not spelled or spelled.total() < uses[word.lower()]:
        return None
    return spelled.most_common(1)[0][0]


def capital_spelling(name: str, activities: Iterable[Activity]) -> str | None:
    """How the story writes `name` with a capital ("Prometheus fixes …"), or None when it
    keeps it as given. A name in lower case takes a capital unless the activities' prose
    keeps it so even where a sentence opens ("pytest is …") and writes it with a capital
    less often; "the prometheus binary" within a sentence is the program's file name, no
    word on how a sentence opens. The capital is the prose's own spelling with inner
    capitals when it writes one ("NumPy", where "Numpy" read as a slip)."""
    if not name.islower():
        return None
    activities = list(activities)
    uses = _prose_uses(name, activities)
    lower = uses[name]
    capitals = uses.total() - lower
    if lower >= _ALWAYS_LOWER and lower >= _LOWER_TO_CAPITAL * capitals:
        return None  # a name the prose keeps lower case again and again ("pytest")
    if capitals <= lower and _opens_sentences(name, activities):
        return None
    inner = _inner_capitals(uses)
    return inner.most_common(1)[0][0] if inner else name[:1].upper() + name[1:]


def _inner_capitals(uses: Counter[str]) -> Counter[str]:
    """The spellings of `uses` with a capital inside ("NumPy"), not shouted: capitals inside a
    name are meant, where one at its start may be a sentence's or a slip ("Numpy")."""
    return Counter(
        {s: n for s, n in uses.items() if not s.isupper() and any(c.isupper() for c in s[1:])}
    )


# A name written in lower case this often, and this many times for each time with a capital,
# is kept so at a sentence's start even where no sentence of the prose opens with it.
_ALWAYS_LOWER = 5
_LOWER_TO_CAPITAL = 3


def _opens_sentences(name: str, activities: Iterable[Activity]) -> bool:
    """True when the activities' prose opens a sentence with `name` in lower case."""
    opening = re.compile(rf"(?:^|[.!?]\s+){re.escape(name)}\s+[a-z]", re.M)
    return any(opening.search(a.body) or opening.match(a.title) for a in activities)


def with_own_spellings(config: WireConfig, activities: Iterable[Activity]) -> WireConfig:
    """`config` with a project for each unconfigured repository of `activities` whose own
    spelling of its name (`own_spelling`) differs from the repository's; `config` itself
    when there is none."""
    by_repo: dict[str, list[Activity]] = {}
    for activity in activities:
        if not config.is_configured(activity.repo):
            by_repo.setdefault(activity.repo, []).append(activity)
    named = []
    for repo, changes in by_repo.items():
        spelling = own_spelling(repo.split("/", 1)[1], changes)
        if spelling is not None:
            named.append(Project(repo=repo, name=spelling))
    if not named:
        return config
    return WireConfig.model_validate(
        {**config.model_dump(), "projects": (*config.projects, *named)}
    )
