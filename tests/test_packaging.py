"""`pip install the-wire` is the digest alone; the service and each platform are extras.

The slow test installs the package with no extra into a fresh virtualenv (no system site
packages, built from a copy of the sources so no build/ is left in the checkout) and runs
`wire digest` there: the engine and its CLI must need nothing of the service. The fast
ones check that every extra the code tells people to install is one pyproject.toml has.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import typer

from bot.app.cli import COMMANDS
from bot.app.lazy_commands import LazyCommand, install_hint, load_command
from bot.chat.adapters import EXTRAS, REGISTRY, adapters_for
from bot.errors import StoreError
from bot.settings import load_settings
from bot.store.engine import make_engine

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]
ACTIVITY = ROOT / "tests" / "data" / "activity" / "pytorch-executorch-2026-q2.jsonl"
# what only the service, a chat platform or PostgreSQL needs
SERVICE_ONLY = (
    "slack_bolt",
    "slack_sdk",
    "discord",
    "asyncpg",
    "sqlalchemy",
    "aiohttp",
    "apscheduler",
    "alembic",
    "pydantic_settings",
)
HINT = re.compile(r"pip install '?the-wire\[([a-z0-9_,-]+)\]")


def names(requirements: list[str]) -> set[str]:
    """The distribution names of requirement strings, normalised (`discord.py` → discord-py)."""
    return {
        re.sub(r"[-_.]+", "-", re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0]).lower()
        for r in requirements
    }


def test_every_platform_adapter_names_an_extra_of_the_package() -> None:
    assert set(EXTRAS) == set(REGISTRY), "a platform without an extra to install"
    for platform, extra in EXTRAS.items():
        assert extra in OPTIONAL, f"{platform}: pyproject.toml has no extra [{extra}]"
    assert "slack-bolt" in names(OPTIONAL[EXTRAS["slack"]])
    assert "discord-py" in names(OPTIONAL[EXTRAS["discord"]])


def test_every_command_names_an_extra_of_the_package() -> None:
    for name, lazy in COMMANDS.items():
        assert lazy.extra is None or lazy.extra in OPTIONAL, f"wire {name}: [{lazy.extra}]"
    assert COMMANDS["digest"].extra is None and COMMANDS["export"].extra is None
    assert COMMANDS["run"].extra == "service"


def test_every_install_hint_in_the_code_and_readme_names_real_extras() -> None:
    """`pip install 'the-wire[X]'` wherever it is written: in bot/, digest/ and the README."""
    texts = [
        path.read_text(encoding="utf-8")
        for package in ("bot", "digest")
        for path in sorted((ROOT / package).rglob("*.py"))
    ] + [(ROOT / "README.md").read_text(encoding="utf-8"), install_hint("service")]
    hinted = {extra for text in texts for found in HINT.findall(text) for extra in found.split(",")}
    assert {"service", "slack", "discord", "postgres"} <= hinted
    assert hinted <= set(OPTIONAL), sorted(hinted - set(OPTIONAL))


def test_the_core_install_holds_nothing_of_the_service() -> None:
    core = names(PYPROJECT["project"]["dependencies"])
    service = {"slack-bolt", "slack-sdk", "discord-py", "asyncpg", "sqlalchemy", "aiohttp"}
    assert not core & (service | {"apscheduler", "alembic", "aiosqlite", "pydantic-settings"})
    # each platform extra brings the service with it, so one install line is enough
    for extra in ("slack", "discord", "postgres"):
        assert "the-wire[service]" in OPTIONAL[extra], extra
    assert "the-wire[service,slack,discord,postgres]" in OPTIONAL["dev"]


def test_lemminflect_is_pinned_to_the_release_whose_internals_the_lexicon_reads() -> None:
    (pin,) = [r for r in PYPROJECT["project"]["dependencies"] if r.startswith("lemminflect")]
    assert re.fullmatch(r"lemminflect==[\d.]+", pin), pin
    import lemminflect

    assert pin == f"lemminflect=={lemminflect.__version__}"


def _sources_copy(into: Path) -> None:
    """What a wheel is built from, copied without caches or an old build/."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, into / name)
    for package in ("bot", "digest"):
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__")
        )


@pytest.mark.slow
def test_the_core_install_runs_wire_digest_without_the_service(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    _sources_copy(source)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WIRE_", "PYTHON", "VIRTUAL"))}
    env |= {"WIRE_CACHE_DIR": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    started = time.monotonic()
    installed = subprocess.run(  # this pip, installing into the new environment
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(source)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.monotonic() - started
    assert installed.returncode == 0, installed.stderr[-3000:]
    print(f"core install: {took:.1f} s")  # shown with -s; about 20 s from a warm pip cache

    probe = (
        "import importlib.util, sys; "
        "print(*[m for m in sys.argv[1:] if importlib.util.find_spec(m)], sep=' ')"
    )
    found = subprocess.run(
        [str(python), "-c", probe, *SERVICE_ONLY, "lemminflect", "typer"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert found == ["lemminflect", "typer"], f"the core install brings {found}"

    wire = venv / "bin" / "wire"
    window = ["--since", "2026-05-25T00:00:00Z", "--until", "2026-05-26T00:00:00Z"]
    digest = [str(wire), "digest", "--source", f"replay:{ACTIVITY}", *window]
    # another folder than the checkout, so nothing of it (config/, bot/) is read
    as_json = subprocess.run(
        [*digest, "--format", "json"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert as_json.returncode == 0, as_json.stderr
    headline = json.loads(as_json.stdout)["headline"]
    assert headline.strip() and headline == headline.upper(), headline
    as_text = subprocess.run(digest, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert as_text.returncode == 0, as_text.stderr
    assert headline in " ".join(as_text.stdout.split()), as_text.stdout[:300]  # rich wraps

    service = subprocess.run(
        [str(wire), "run"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert service.returncode == 2
    assert "pip install 'the-wire[service]'" in service.stderr, service.stderr
    assert "Traceback" not in service.stderr


def test_a_command_whose_extra_is_missing_names_the_extra(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lazy = LazyCommand("wire_test_no_such_library.commands", "Nothing.", "service")
    with pytest.raises(typer.Exit) as stopped:
        load_command("run", lazy)
    assert stopped.value.exit_code == 2
    err = capsys.readouterr().err
    assert "`wire run` needs the service extra" in err
    assert err.rstrip().endswith("pip install 'the-wire[service]'")


def test_a_missing_module_of_the_wire_itself_is_a_bug_not_an_extra() -> None:
    with pytest.raises(ModuleNotFoundError):
        load_command("run", LazyCommand("bot.app.no_such_module", "Nothing.", "service"))


def test_a_platform_whose_sdk_is_missing_names_its_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(REGISTRY, "slack", "wire_test_no_such_sdk.adapter:SlackAdapter")
    settings = load_settings(
        env_file=None,
        require_tokens=False,  # the adapter is never built: its module is missing
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        platforms=["slack"],
    )
    with caplog.at_level(logging.ERROR, logger="wire.adapters"):
        assert adapters_for(settings) == {}
    assert "pip install 'the-wire[slack]'" in caplog.text


def test_a_postgresql_url_without_its_driver_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # import asyncpg fails as if missing
    with pytest.raises(StoreError) as refused:
        make_engine("postgresql://wire:secret@127.0.0.1:5432/wire")
    assert "pip install 'the-wire[postgres]'" in str(refused.value)
    assert "secret" not in str(refused.value)
