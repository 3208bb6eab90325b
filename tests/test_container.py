"""The Dockerfile and docker-compose.yml, proven without a container runtime.

No image can be built here (no runtime, no base image to pull), so each promise the two
files make is checked against the repository and the real `wire` instead: every path they
copy exists and is not ignored, the wheel the builder stage installs carries every file of
the packages, dependencies install in a layer before the code, the runtime image has git
and lets its user write the cache and var/, the entrypoint and command are `wire` commands,
the health check passes against a running service, compose publishes a fixed port, and
every `WIRE_…` name they set is a real setting.
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

from bot.settings import OTHER_NAMES, Settings
from bot.settings_sections import HttpSettings

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


def builder_stage() -> list[tuple[str, str]]:
    """The instructions of the first stage, which builds the virtualenv."""
    found = instructions()
    starts = [i for i, (kw, _) in enumerate(found) if kw == "FROM"]
    return found[: starts[1]]


def index_of(stage: list[tuple[str, str]], keyword: str, *words: str) -> int:
    """The position of the one `keyword` instruction of `stage` holding every one of `words`."""
    found = [
        i for i, (kw, rest) in enumerate(stage) if kw == keyword and all(w in rest for w in words)
    ]
    assert len(found) == 1, f"expected one {keyword} with {words}, found {len(found)}"
    return found[0]


def env_values() -> dict[str, str]:
    """NAME=value of the runtime stage's ENV instruction."""
    return dict(pair.split("=", 1) for pair in shlex.split(only("ENV")))


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


def test_dependencies_install_in_a_layer_before_the_code() -> None:
    """A change to bot/ or digest/ (or the README) rebuilds only the layers after it: the
    dependencies are installed from pyproject.toml alone, and the wheel without them."""
    stage = builder_stage()
    dependencies = index_of(stage, "RUN", "pip install --requirement")
    copied_before = [arguments(rest)[:-1] for kw, rest in stage[:dependencies] if kw == "COPY"]
    assert copied_before == [["pyproject.toml"]]
    for code in ("bot", "digest", "README.md"):
        assert index_of(stage, "COPY", code) > dependencies, f"{code} is copied too early"
    assert "pip install --no-deps /wheels/" in stage[index_of(stage, "RUN", "/wheels/*.whl")][1]


# The extras the image runs with: the service and every platform and database it supports.
IMAGE_EXTRAS = ("service", "slack", "discord", "postgres")
SELF_REFERENCE = re.compile(r"^the-wire\[([^\]]+)\]$")


def requirements_of(project: dict, extras: tuple[str, ...]) -> list[str]:
    """What `pip install '.[EXTRAS]'` asks for: the dependencies, then each extra's, with an
    extra's reference to others of the package (`the-wire[service]`) followed, not listed."""
    found = list(project["dependencies"])
    pending, seen = list(extras), set()
    while pending:
        extra = pending.pop(0)
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in project["optional-dependencies"][extra]:
            if own := SELF_REFERENCE.match(requirement):
                pending += [name.strip() for name in own.group(1).split(",")]
            else:
                found.append(requirement)
    return list(dict.fromkeys(found))


def test_the_dependency_list_the_builder_installs_is_pyprojects(tmp_path: Path) -> None:
    """The builder's own command, run on this pyproject.toml, lists [project] dependencies
    and those of the service's extras (what `pip install '.[service,slack,discord,postgres]'`
    installs), and none of the test tools of [dev]."""
    run = builder_stage()[index_of(builder_stage(), "RUN", "pip install --requirement")][1]
    listing = next(part for part in run.split("&&") if "python -c" in part)
    command, _, _written = listing.partition(">")
    program = shlex.split(command)[-1]
    listed = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert listed.stdout.splitlines() == requirements_of(project, IMAGE_EXTRAS)
    names = {re.split(r"[\[<>=!~; ]", line, maxsplit=1)[0] for line in listed.stdout.splitlines()}
    assert {"slack-bolt", "discord.py", "asyncpg", "sqlalchemy", "lemminflect"} <= names
    assert not {"pytest", "mypy", "ruff"} & names, "the image installs test tools"


def test_the_extras_the_image_installs_name_only_each_other() -> None:
    """The builder leaves out an extra's `the-wire[...]` reference, which is right only while
    every extra it names is one the image installs anyway."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in IMAGE_EXTRAS:
        for requirement in project["optional-dependencies"][extra]:
            if own := SELF_REFERENCE.match(requirement):
                named = {name.strip() for name in own.group(1).split(",")}
                assert named <= set(IMAGE_EXTRAS), f"[{extra}] needs {named}"


def test_the_runtime_image_has_git_for_git_sources() -> None:
    """python:3.11-slim has no git, which `git:` sources run; the clones are mounted and
    belong to another user, which git refuses unless every directory is marked safe."""
    stage = runtime_stage()
    install = index_of(stage, "RUN", "apt-get install")
    command = stage[install][1]
    assert re.search(r"apt-get install --yes --no-install-recommends git(\s|$)", command)
    assert "apt-get update" in command and "rm -rf /var/lib/apt/lists/*" in command
    assert "git config --system --add safe.directory '*'" in command
    assert install < index_of(stage, "USER", ""), "apt-get needs root: before USER"


def test_the_unprivileged_user_owns_the_cache_and_var() -> None:
    """/app belongs to root: the lexicon's cache and var/ (the SQLite database, the
    heartbeat) must be directories the service's user owns, or nothing is written there."""
    stage = runtime_stage()
    user = only("USER")
    env = env_values()
    cache = env["WIRE_CACHE_DIR"]
    database = Path(env["WIRE_DATABASE_URL"].removeprefix("sqlite+aiosqlite:///"))
    chowns = [
        arguments(part.strip())
        for kw, rest in stage[: index_of(stage, "USER", "")]
        if kw == "RUN"
        for part in rest.split("&&")
        if part.strip().startswith("chown")
    ]
    owned = {path for args in chowns if args[1] == f"{user}:{user}" for path in args[2:]}
    assert {cache, str(database.parent)} <= owned
    made = {path for kw, rest in stage if kw == "RUN" for path in re.findall(r"/app/\S+", rest)}
    assert {cache, str(database.parent)} <= made


def test_the_image_writes_the_lexicons_cache_as_its_user(tmp_path: Path) -> None:
    """The RUN after USER makes the lexicon's fast copy in WIRE_CACHE_DIR, so no container
    start reads lemminflect's files again: run here, it writes the copy."""
    stage = runtime_stage()
    warm = next(
        rest
        for kw, rest in stage[index_of(stage, "USER", "") :]
        if kw == "RUN" and "lexicon" in rest
    )
    command = arguments(warm)
    assert command[0] == "python"
    env = os.environ | {"WIRE_CACHE_DIR": str(tmp_path)}
    made = subprocess.run(
        [sys.executable, *command[1:]], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    assert [path.name for path in tmp_path.glob("lemminflect-*.marshal")], "no copy written"


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
    """The HEALTHCHECK's own command is `wire health`, which checks the database, the
    scheduler's heartbeat and `/healthz` when there is a web server (not `--http`, which
    fails a service that serves no HTTP): it passes while `wire run` runs and fails, naming
    the missing heartbeat, once it has stopped."""
    check = arguments(only("HEALTHCHECK").split(" CMD ", 1)[1])
    assert check == ["wire", "health"]
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
    assert "unhealthy: the service is not running here (no heartbeat at" in down.stderr


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
def test_every_wire_name_the_files_set_or_mention_is_one_the_wire_reads(path: Path) -> None:
    """A setting, or a name the Wire's other parts read (WIRE_CACHE_DIR): the service
    refuses any other WIRE_ name in its environment."""
    names = set(SETTING_NAME.findall(path.read_text(encoding="utf-8")))
    assert names, f"{path.name} names no setting"
    unknown = sorted(name for name in names if not (_is_setting(name) or name in OTHER_NAMES))
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


def _interpolated(text: str) -> str:
    """`text` as Compose reads it with no variable set: ${NAME:-default} → default."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)


def test_compose_publishes_the_port_on_a_fixed_host_port() -> None:
    """ "3000" alone would publish on a random host port, which no Slack request URL can
    name: the host port is fixed (3000 unless a variable that is not a setting moves it)."""
    wire = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["wire"]
    [published] = wire["ports"]
    [exposed] = arguments(only("EXPOSE"))
    assert _interpolated(str(published)) == f"{exposed}:{exposed}"
    for name in re.findall(r"\$\{(\w+)", str(published)):
        assert not name.startswith("WIRE_"), f"{name}: the service refuses unknown WIRE_ names"


def test_compose_keeps_each_replicas_heartbeat_its_own() -> None:
    """With PostgreSQL, /app/var holds only the heartbeat `wire health` reads: a volume
    shared by the replicas (`--scale`) would let one replica's beat stand for another's."""
    wire = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["wire"]
    assert wire["environment"]["WIRE_DATABASE_URL"].startswith("postgresql")
    mounted = [volume.split(":")[1] for volume in wire.get("volumes", [])]
    assert "/app/var" not in mounted


def test_compose_and_the_readme_say_which_compose_version_it_needs() -> None:
    """`env_file` with `required: false` is refused by Docker Compose before 2.24."""
    text = COMPOSE.read_text(encoding="utf-8")
    wire = yaml.safe_load(text)["services"]["wire"]
    assert any(isinstance(entry, dict) and "required" in entry for entry in wire["env_file"])
    assert "Docker Compose 2.24 or later" in " ".join(text.split())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docker = readme.split("## Docker", 1)[1].split("\n## ", 1)[0]
    assert "Docker Compose 2.24 or later" in " ".join(docker.replace("*", "").split())


def test_the_image_opens_the_web_server_to_the_containers_network() -> None:
    """The service binds loopback unless told otherwise; inside a container that would
    answer nobody, so the image says 0.0.0.0 (and publishing the port stays a choice)."""
    assert re.search(r"(^|\s)WIRE_HTTP__HOST=0\.0\.0\.0(\s|$)", only("ENV"))
    assert HttpSettings().host == "127.0.0.1"
