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

# A spelling needs this many uses in prose before it names the project.
MIN_USES = 2


def own_spelling(name: str, activities: Iterable[Activity]) -> str | None:
    """The spelling of `name` the activities' prose uses most, when it is not the name as
    given and is used at least `MIN_USES` times more than any other; else None."""
    # A word on its own: no code, path, package or call around it.
    word = re.compile(rf"(?<![\w.`/@-]){re.escape(name)}(?![\w`/@(-]|\.\w)", re.I)
    uses: Counter[str] = Counter()
    for activity in activities:
        for text in (activity.title, activity.body):
            uses.update(m.group(0) for m in word.finditer(text))
    ranked = uses.most_common(2)
    if not ranked:
        return None
    spelling, count = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    if spelling == name or spelling.isupper() or count - runner_up < MIN_USES:
        return None
    return spelling


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
