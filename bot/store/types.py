"""Types shared by the store: UTC timestamps that read back timezone-aware on every
backend, and a row and a SELECT of any columns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Row, Select
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

# A result row, and a SELECT, of any columns
AnyRow = Row[*tuple[Any, ...]]
AnySelect = Select[*tuple[Any, ...]]


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC (time-machine moves it in tests)."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC: `timestamptz` on PostgreSQL, ISO text on SQLite.

    Values must be timezone-aware on the way in and always come back aware, in UTC, so
    SQLite's lexicographic comparison of its stored text matches time order.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
