"""Only one replica schedules: the holder of a PostgreSQL advisory lock; SQLite always leads."""

from __future__ import annotations

import pytest

from bot.schedule.leader import Leadership
from bot.store import Store


@pytest.mark.postgres
async def test_only_one_replica_leads_and_the_other_takes_over(postgres_url: str) -> None:
    async with Store.from_url(postgres_url) as first, Store.from_url(postgres_url) as second:
        one, two = Leadership(first.engine, key=4242), Leadership(second.engine, key=4242)
        try:
            assert await one.acquire() and one.held
            assert not await two.acquire() and not two.held
            assert await one.acquire()  # still leading: the lock is re-checked, not re-taken
            assert not await two.acquire()
            await one.release()
            assert not one.held
            assert await two.acquire() and two.held
            assert not await one.acquire()
        finally:
            await one.release()
            await two.release()


@pytest.mark.postgres
async def test_a_dead_leader_session_frees_the_lock(postgres_url: str) -> None:
    async with Store.from_url(postgres_url) as first, Store.from_url(postgres_url) as second:
        one, two = Leadership(first.engine, key=4343), Leadership(second.engine, key=4343)
        try:
            assert await one.acquire()
            await one._drop()  # the leader's connection dies without unlocking
            assert await two.acquire()
        finally:
            await one.release()
            await two.release()


async def test_sqlite_has_one_process_which_leads(tmp_path) -> None:
    async with Store.from_url(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}") as store:
        leader = Leadership(store.engine)
        assert leader.held and await leader.acquire()
        await leader.release()
