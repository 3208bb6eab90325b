"""How adapters plug into the service: front ends start with it, their routes are served
by its web server next to /healthz, an exclusive front end runs on one replica at a time,
and everything closes when it stops."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from aiohttp import web

from bot.app.frontends import Frontends
from bot.app.service import Service
from bot.chat.adapters import ConsoleAdapter, Hub, adapters_for
from bot.commands.handlers import Commands
from bot.delivery.platform import ConsolePlatform
from bot.settings import load_settings
from bot.settings_sections import HttpSettings
from bot.store import Store
from digest.config import load_config

ROOT = Path(__file__).resolve().parents[1]


class EchoAdapter:
    """A front end that serves one route answering with the hub's configured projects."""

    name = "console"

    def __init__(self) -> None:
        self.platform = ConsolePlatform()
        self.hub: Hub | None = None
        self.closed = 0

    def mount(self, app: web.Application) -> bool:
        async def projects(_request: web.Request) -> web.Response:
            assert self.hub is not None
            names = [p.name for p in self.hub.commands.config.projects]
            return web.json_response(names)

        app.router.add_get("/echo", projects)
        return True

    async def start(self, hub: Hub) -> None:
        self.hub = hub

    async def close(self) -> None:
        self.closed += 1


def _settings(tmp_path: Path, **overrides):
    return load_settings(
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        http={"host": "127.0.0.1", "port": 0},
        **overrides,
    )


async def test_front_end_routes_and_health_are_served_while_running(tmp_path: Path) -> None:
    config = load_config(ROOT / "config/demo.toml")
    echo = EchoAdapter()
    service = await Service.start(
        settings=_settings(tmp_path), config=config, adapters={"console": echo}
    )
    stop = asyncio.Event()
    async with service:
        running = asyncio.create_task(service.run(stop))
        for _ in range(200):
            if service.web_url and echo.hub is not None:
                break
            await asyncio.sleep(0.01)
        assert service.web_url is not None
        async with httpx.AsyncClient(base_url=service.web_url) as http:
            health = await http.get("/healthz")
            assert health.status_code == 200 and health.json()["ok"] is True
            echoed = await http.get("/echo")
            assert echoed.json() == [p.name for p in config.projects]
        assert echo.hub.platforms["console"] is echo.platform
        stop.set()
        await asyncio.wait_for(running, 10)
        assert echo.closed == 1
        url = service.web_url
    assert echo.closed == 1  # leaving the service does not close it twice
    async with httpx.AsyncClient() as http:
        try:
            await http.get(f"{url}/healthz", timeout=1)
        except httpx.ConnectError:
            pass
        else:
            raise AssertionError("the web server still answers after the service stopped")


async def test_no_web_server_when_no_adapter_serves_http(tmp_path: Path) -> None:
    config = load_config(ROOT / "config/demo.toml")
    service = await Service.start(
        settings=_settings(tmp_path), config=config, adapters={"console": ConsoleAdapter()}
    )
    async with service:
        await service.start_frontends()
        assert service.web_url is None


def test_console_is_the_adapter_when_no_chat_platform_is_configured(tmp_path: Path) -> None:
    adapters = adapters_for(_settings(tmp_path))
    assert list(adapters) == ["console"]
    assert isinstance(adapters["console"].platform, ConsolePlatform)


class GatewayAdapter:
    """An exclusive front end (like a gateway session) that counts its starts and closes."""

    name = "gateway"
    exclusive = True

    def __init__(self) -> None:
        self.platform = ConsolePlatform()
        self.starts = 0
        self.closes = 0

    def mount(self, app: web.Application) -> bool:
        return False

    async def start(self, hub: Hub) -> None:
        self.starts += 1

    async def close(self) -> None:
        self.closes += 1


def _hub(store: Store) -> Hub:
    config = load_config(ROOT / "config/demo.toml")
    settings = load_settings(env_file=None)
    commands = Commands(store=store, config=config, settings=settings, source_for=lambda p: None)
    return Hub(store=store, commands=commands, settings=settings, platforms={})


@pytest.mark.postgres
async def test_an_exclusive_front_end_runs_on_one_replica_and_moves_when_it_stops(
    postgres_url: str,
) -> None:
    http = HttpSettings(host="127.0.0.1", port=0)
    async with Store.from_url(postgres_url) as one, Store.from_url(postgres_url) as two:
        first, second = GatewayAdapter(), GatewayAdapter()
        replica_one = Frontends({"gateway": first}, hub=_hub(one), http=http, engine=one.engine)
        replica_two = Frontends({"gateway": second}, hub=_hub(two), http=http, engine=two.engine)
        await replica_one.open()
        await replica_two.open()
        await replica_two.claim()
        assert (first.starts, second.starts) == (1, 0)
        assert replica_one.running == ["gateway"] and replica_two.running == []

        await replica_one.close()  # the holder stops: its lock is released
        await replica_two.claim()
        assert (first.closes, second.starts) == (1, 1)
        assert replica_two.running == ["gateway"]
        await replica_one.open()  # back again, it waits its turn
        assert first.starts == 1 and replica_one.running == []
        await replica_one.close()
        await replica_two.close()
        assert second.closes == 1


async def test_a_lone_replica_starts_its_exclusive_front_end_once(store: Store) -> None:
    gateway = GatewayAdapter()
    frontends = Frontends(
        {"gateway": gateway},
        hub=_hub(store),
        http=HttpSettings(host="127.0.0.1", port=0),
        engine=store.engine,
    )
    await frontends.open()
    await frontends.claim()  # a later tick does not start it twice
    assert gateway.starts == 1 and frontends.running == ["gateway"]
    await frontends.close()
    await frontends.close()
    assert gateway.closes == 1
