"""The Dockerfile and docker-compose.yml, proven without a container runtime.

No image can be built here (no runtime, no base image to pull), so each promise the two
files make is checked against the repository and the real `wire` instead: every path they
copy exists and is not ignored, the wheel the builder stage installs carries every file of
the packages, the entrypoint and command are `wire` commands, the health check asks a
running service's `/healthz`, and every `WIRE_…` name they set is a real setting.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from bot.settings import HttpSettings, Settings

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
SETTING_NAME = re.compile(r"\bWIRE_[A-Z0-9_]+\b")


def instructions(path: Path = DOCKERFILE) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined and comments dropped."""
    found: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        keyword, _, rest = line.partition(" ")
        found.append((keyword.upper(), rest.strip()))
    return found


def arguments(text: str) -> list[str]:
    """An instruction's arguments, in exec form (a JSON list) or shell form."""
    return json.loads(text) if text.startswith("[") else shlex.split(text)


def runtime_stage() -> list[tuple[str, str]]:
    """The instructions of the last stage, the image that runs."""
    found = instructions()
    last = max(i for i, (kw, _) in enumerate(found) if kw == "FROM")
    return found[last:]


def only(keyword: str) -> str:
    """The arguments of the one `keyword` instruction of the image that runs."""
    found = [rest for kw, rest in runtime_stage() if kw == keyword]
    assert len(found) == 1, f"expected one {keyword} in the runtime stage, found {len(found)}"
    return found[0]


def ignored(path: str) -> bool:
    """Whether .dockerignore leaves `path` (relative to the context) out of the context."""
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    parts = Path(path).parts
    return any(
        Path(*parts[: i + 1]).match(pattern.removeprefix("**/"))
        for pattern in patterns
        for i in range(len(parts))
    )


def test_every_path_the_dockerfile_copies_is_in_the_build_context() -> None:
    copies = [arguments(rest) for kw, rest in instructions() if kw == "COPY"]
    local = [args for args in copies if not args[0].startswith("--from=")]
    assert local, "the Dockerfile copies nothing from the context"
    for *sources, _destination in local:
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such path in the repository"
            assert not ignored(source), f"COPY {source}: .dockerignore leaves it out"


def test_the_configuration_the_image_runs_reads_only_what_it_carries() -> None:
    """WIRE_CONFIG names a copied file, and each replay source of it lies in a copied folder."""
    copied = {
        Path(source).name
        for kw, rest in instructions()
        if kw == "COPY" and not rest.startswith("--from=")
        for source in arguments(rest)[:-1]
    }
    config = re.search(r"WIRE_CONFIG=(\S+)", only("ENV"))
    assert config, "the image sets no WIRE_CONFIG"
    inside = Path(config.group(1)).relative_to(only("WORKDIR"))
    assert inside.parts[0] in copied and (ROOT / inside).is_file()
    projects = tomllib.loads((ROOT / inside).read_text(encoding="utf-8"))["projects"]
    for project in projects:
        scheme, _, where = project["source"].partition(":")
        if scheme == "replay":
            assert Path(where).parts[0] in copied and (ROOT / where).is_file(), where


def test_the_wheel_the_builder_installs_carries_every_file_of_the_packages(tmp_path: Path) -> None:
    """The runtime stage runs the installed wheel, not this checkout: migrations, templates
    and the archive's stylesheet must be inside it."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("the_wire-*.whl")
    inside = set(zipfile.ZipFile(wheel).namelist())
    tracked = [  # not `git ls-files`: CI runs from a copy that is no git checkout
        path.relative_to(ROOT).as_posix()
        for package in ("bot", "digest")
        for path in sorted((ROOT / package).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    ]
    missing = [path for path in tracked if path not in inside]
    assert not missing, f"left out of the wheel: {missing}"
    assert any(name.endswith("entry_points.txt") for name in inside)


def test_the_entrypoint_and_command_are_wire_commands() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entrypoint, command = arguments(only("ENTRYPOINT")), arguments(only("CMD"))
    assert entrypoint == ["wire"] and "wire" in pyproject["project"]["scripts"]
    helped = subprocess.run(
        [*WIRE, *command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0, helped.stderr
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert compose["services"]["wire"]["command"] == command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_health_check_asks_the_running_service(tmp_path: Path) -> None:
    """The HEALTHCHECK's own command passes while `wire run` serves `/healthz` and fails,
    naming the address, once it has stopped."""
    check = arguments(only("HEALTHCHECK").split(" CMD ", 1)[1])
    assert check[:2] == ["wire", "health"]
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")} | {
        "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        "WIRE_HTTP__PORT": str(port),
        "WIRE_CONFIG": str(ROOT / "config" / "demo.toml"),
    }

    def healthcheck() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*WIRE, *check[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )

    service = subprocess.Popen(
        [*WIRE, "run"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30  # as the image's --start-period allows
        while (healthy := healthcheck()).returncode != 0 and time.monotonic() < deadline:
            assert service.poll() is None, "wire run exited"
            time.sleep(0.2)
        assert healthy.returncode == 0 and healthy.stdout.strip() == "ok", healthy.stderr
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=30)
    down = healthcheck()
    assert down.returncode == 1
    assert f"http://127.0.0.1:{port}/healthz" in down.stderr


def _is_setting(name: str) -> bool:
    """Whether WIRE_A__B names a field of Settings (WIRE_<KEY> or WIRE_<TABLE>__<KEY>)."""
    model: type[BaseModel] = Settings
    *tables, key = name.removeprefix("WIRE_").lower().split("__")
    for table in tables:
        field = model.model_fields.get(table)
        if field is None or not (isinstance(field.annotation, type)):
            return False
        model = field.annotation
    return key in model.model_fields


@pytest.mark.parametrize("path", [DOCKERFILE, COMPOSE], ids=lambda p: p.name)
def test_every_wire_name_the_files_set_or_mention_is_a_setting(path: Path) -> None:
    names = set(SETTING_NAME.findall(path.read_text(encoding="utf-8")))
    assert names, f"{path.name} names no setting"
    unknown = sorted(name for name in names if not _is_setting(name))
    assert not unknown, f"{path.name} names settings that do not exist: {unknown}"


def test_the_setting_check_refuses_a_name_that_is_not_one() -> None:
    assert _is_setting("WIRE_SLACK__BOT_TOKEN") and _is_setting("WIRE_DATABASE_URL")
    assert not _is_setting("WIRE_SLACK__BOT_TOKN") and not _is_setting("WIRE_DATABASE")
    assert not _is_setting("WIRE_NOSUCH__TABLE")


def test_compose_runs_the_image_beside_a_healthy_postgres() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    wire, db = services["wire"], services["db"]
    assert wire["build"] == "." and wire["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    url = wire["environment"]["WIRE_DATABASE_URL"]
    assert url.startswith("postgresql+asyncpg://")
    user = db["environment"]["POSTGRES_USER"]
    password, database = db["environment"]["POSTGRES_PASSWORD"], db["environment"]["POSTGRES_DB"]
    assert url == f"postgresql+asyncpg://{user}:{password}@db:5432/{database}"
    for volume in wire["volumes"]:
        source = volume.split(":")[0]
        if source.startswith("./"):
            assert (ROOT / source).is_dir(), f"compose mounts {source}, which does not exist"
    exposed = arguments(only("EXPOSE"))
    assert [str(p) for p in wire["ports"]] == exposed


def test_the_image_opens_the_web_server_to_the_containers_network() -> None:
    """The service binds loopback unless told otherwise; inside a container that would
    answer nobody, so the image says 0.0.0.0 (and publishing the port stays a choice)."""
    assert re.search(r"(^|\s)WIRE_HTTP__HOST=0\.0\.0\.0(\s|$)", only("ENV"))
    assert HttpSettings().host == "127.0.0.1"
