"""A related change is told in a clause of its own only when the clause says something the
lead's does not; else it is counted and cited ("…, with one related change [2]")."""

from __future__ import annotations

from datetime import UTC, datetime

from digest.compose.phrases import event_predicate
from digest.compose.slots import related_clause
from digest.config import WireConfig
from digest.reading.classify import classify
from digest.reading.event import Event
from tests.digest_data import hourly_changes

START = datetime(2026, 5, 4, tzinfo=UTC)


def _events(*titles: str) -> list[Event]:
    return classify(hourly_changes(*titles), WireConfig())


def test_a_related_change_that_would_repeat_the_lead_is_counted_not_told() -> None:
    lead, again = _events(
        "Keep widget clients from defeating dead-code elimination",
        "Keep widget client from defeating dead-code elimination",
    )
    said = related_clause(event_predicate(lead, max_words=10), (again,))
    assert said.startswith(", with one related change ") and "client" not in said, said
    assert again.activity.sha in said  # still cited


def test_a_related_change_that_says_more_is_told() -> None:
    lead, other = _events("Add a retry option to the client", "Add a timeout option to the server")
    said = related_clause(event_predicate(lead, max_words=10), (other,))
    assert said.startswith(" and a timeout option to the server"), said


def test_a_related_change_of_another_verb_joins_without_a_comma() -> None:
    lead, other = _events("Add a retry option to the client", "Fix a crash in the server")
    said = related_clause(event_predicate(lead, max_words=10), (other,))
    assert said.startswith(" and fixes a crash in the server"), said
