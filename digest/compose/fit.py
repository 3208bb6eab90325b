"""Fitting a story to its limits: fewer changes told in full before every change in fewer
words (EDITORIAL.md, "Fewer changes, told well")."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from digest.select import ProjectPick, must_tell


def trimmed(picks: list[ProjectPick], *, plain_units: int) -> Iterator[list[ProjectPick]]:
    """`picks` with one more named unit counted instead each time, the lowest ranked first:
    never a project's first `plain_units` nor a change readers must hear of (`must_tell`).
    A story too long for its limits names fewer changes before it tells them in fewer words
    (EDITORIAL.md, "Fewer changes, told well")."""
    spare = sorted(
        (
            unit
            for pick in picks
            for position, unit in enumerate(pick.units)
            if position >= plain_units and not must_tell(unit.lead)
        ),
        key=lambda unit: unit.score,
    )
    for count in range(1, len(spare) + 1):
        dropped = {id(unit) for unit in spare[:count]}
        yield [_counting(pick, dropped) for pick in picks]


def _counting(pick: ProjectPick, dropped: set[int]) -> ProjectPick:
    """`pick` with the units of `dropped` (by id) counted among its rest."""
    if not any(id(unit) in dropped for unit in pick.units):
        return pick
    gone = tuple(e for u in pick.units if id(u) in dropped for e in (u.lead, *u.related))
    kept = tuple(unit for unit in pick.units if id(unit) not in dropped)
    return replace(pick, units=kept, rest=(*pick.rest, *gone))
