"""Topics mean something: a backend, subsystem, crate, package or label, never a container
folder, a test tree or docs; on configured and unconfigured repositories alike."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.app.cli import app
from digest.config import CONTAINER_FOLDERS, DigestSettings, WireConfig, topic_key
from digest.model import Activity, FileChange
from digest.reading.classify import classify
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config
from tests.test_source_git import Clone

PYDANTIC = ACTIVITY / "pydantic-pydantic-2026-q2.jsonl"
GENERIC = {topic_key(f) for f in CONTAINER_FOLDERS} | {"github"}
BARE = WireConfig()


def change(
    *paths: str,
    repo: str = "acme/foo",
    title: str = "Tune things",
    labels: tuple[str, ...] = (),
    n: int = 0,
    lines: tuple[int, ...] = (),
) -> Activity:
    """A change of `paths`, each adding `lines[i]` lines (5 where `lines` is short)."""
    return Activity(
        repo=repo,
        sha=f"{n:040x}",
        title=title,
        labels=labels,
        landed_at=datetime(2026, 6, 1, tzinfo=UTC) + timedelta(minutes=n),
        files=tuple(
            FileChange(path=p, additions=(lines[i] if i < len(lines) else 5), deletions=1)
            for i, p in enumerate(paths)
        ),
    )


def topics_of(activity: Activity, config: WireConfig = BARE) -> tuple[str, ...]:
    (event,) = classify([activity], config)
    return event.topics


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (("crates/foo-resolver/src/lock.rs",), ("foo-resolver",)),
        (("crates/foo-cli/src/main.rs", "crates/foo-cli/tests/it.rs"), ("foo-cli",)),
        (("packages/widget-core/lib/index.ts",), ("widget-core",)),
        (("src/engine/core.py",), ("Engine",)),
        (("backends/arm/quantizer.py",), ("Arm",)),
        (("lib/internal/cache/store.go",), ("Cache",)),
        ((".github/workflows/ci.yml",), ("CI",)),
        # Tests, docs, benchmarks and tool folders never give a topic on their own.
        (("tests/test_models.py", "tests/conftest.py"), ()),
        (("docs/concepts/models.md", "README.md"), ()),
        (("benchmarks/bench_validate.py",), ()),
        ((".vscode/settings.json", ".agents/skills/x.md"), ()),
        # Root files say nothing about a part of the code.
        (("Cargo.lock", "pyproject.toml"), ()),
    ],
)
def test_the_first_component_that_is_not_generic_is_the_topic(
    paths: tuple[str, ...], expected: tuple[str, ...]
) -> None:
    assert topics_of(change(*paths)) == expected


def test_the_projects_own_package_is_a_container() -> None:
    own = change("pydantic/fields.py", "pydantic/_internal/_core.py", repo="pydantic/pydantic")
    assert topics_of(own) == ()
    nested = change("pydantic/experimental/pipeline.py", repo="pydantic/pydantic")
    assert topics_of(nested) == ("Experimental",)
    src = change("src/foo/resolver/graph.py", repo="acme/foo")
    assert topics_of(src) == ("Resolver",)


def test_configured_globs_win_and_other_paths_still_get_a_name() -> None:
    config = example_config()
    arm = change("backends/arm/quantizer.py", "examples/arm/run.sh", repo="pytorch/executorch")
    assert topics_of(arm, config) == ("Arm",)
    mixed = change("backends/openvino/partitioner.py", repo="pytorch/executorch")
    assert topics_of(mixed, config) == ("openvino",)  # as its folder writes it
    # A window whose titles tag the backend spells it their way.
    tagged = change(
        "backends/openvino/quantizer.py", repo="pytorch/executorch", title="[OpenVINO] Pin NNCF"
    )
    events = classify([tagged, mixed], config)
    assert [e.topics for e in events] == [("OpenVINO",), ("OpenVINO",)]


def test_a_name_keeps_the_capitals_the_titles_give_it() -> None:
    crcr = change("crcr/deploy/l2.yaml", title="Add L2 CRCR deployment configuration")
    other = change("crcr/deploy/l1.yaml", title="Tune the l1 deployment", n=1)
    assert [e.topics for e in classify([crcr, other], BARE)] == [("CRCR",), ("CRCR",)]
    # Seen on its own, a folder's name keeps the folder's case: "Crcr" is no one's spelling.
    assert topics_of(other) == ("crcr",)
    # An English word reads as a name.
    assert topics_of(change("crcr/deploy/l1.yaml", "crcr/deploy/l2.yaml")) == ("crcr",)
    assert topics_of(change("src/foo/scheduler/queue.py")) == ("Scheduler",)
    # A capitalised spelling beats an all-lower-case tag; a longer tag naming the same
    # backend as the path ("Qualcomm AI Engine Direct - …") is that backend's topic.
    window = [
        change("backends/cuda/a.cu", title="[cuda] Fuse kernels"),
        change("backends/cuda/b.cu", title="Speed up CUDA graphs", n=1),
        change("backends/qualcomm/c.py", title="Qualcomm AI Engine Direct - Fix op", n=2),
    ]
    assert [e.topics for e in classify(window, BARE)] == [("CUDA",), ("CUDA",), ("Qualcomm",)]


def test_the_code_a_change_touches_leads_its_ci_and_test_files() -> None:
    config = example_config()
    mixed = change(
        ".ci/scripts/wheel/test_linux.py",
        ".ci/scripts/wheel/test_macos.py",
        "backends/cortex_m/library/cmsis_nn.py",
        repo="pytorch/executorch",
    )
    assert topics_of(mixed, config) == ("Cortex-M", "CI")
    # Every configured topic whose globs match a path is kept (OSDC holds Grafana's folder).
    nested = change("osdc/modules/monitoring/dashboards/a.json", repo="pytorch/ci-infra")
    assert topics_of(nested, config) == ("OSDC", "Grafana")


def test_area_labels_give_topics_and_process_labels_do_not() -> None:
    labelled = change("Cargo.toml", labels=("area: resolver", "bug", "needs review"))
    assert topics_of(labelled) == ("Resolver",)
    assert topics_of(change("Cargo.toml", labels=("module/docs", "documentation"))) == ()


def test_a_folder_holding_nearly_all_changes_is_a_container_whatever_its_name() -> None:
    parts = ["resolver", "cli", "cache", "auth", "index", "build", "python", "resolver", "cli"]
    window = [change(f"workspace/foo-{p}/x.rs", n=i) for i, p in enumerate(parts)]
    window.append(change("docs/index.md", n=99))
    topics = {t for e in classify(window, BARE) for t in e.topics}
    assert "workspace" not in {topic_key(t) for t in topics}
    assert {"foo-resolver", "foo-cli", "foo-cache"} <= topics
    # A day of three changes in one folder says nothing about the repository's layout.
    small = [change(f"engine/{p}/x.py", n=i) for i, p in enumerate(("io", "core", "io"))]
    assert {t for e in classify(small, BARE) for t in e.topics} == {"Engine"}


def test_the_window_rule_is_configurable() -> None:
    strict = WireConfig(digest=DigestSettings(container_share=1.0, container_min_changes=50))
    window = [change(f"workspace/foo-{p}/x.rs", n=i) for i, p in enumerate("abcdefghij")]
    assert {t for e in classify(window, strict) for t in e.topics} == {"Workspace"}
    custom = WireConfig(digest=DigestSettings(container_folders=("workspace",)))
    assert topics_of(change("workspace/foo-a/x.rs"), custom) == ("foo-a",)


def test_pydantic_topics_are_parts_of_pydantic_not_its_folders() -> None:
    activities = ReplaySource(PYDANTIC).read_all()
    events = classify(activities, BARE)
    topics = {t for e in events for t in e.topics}
    keys = {topic_key(t) for t in topics}
    assert "pydantic" not in keys
    assert not keys & GENERIC, keys & GENERIC
    assert {"pydantic-core", "CI"} <= topics
    week = [a for a in activities if datetime(2026, 6, 1, tzinfo=UTC) <= a.landed_at]
    week = [a for a in week if a.landed_at < datetime(2026, 6, 8, tzinfo=UTC)]
    assert all(not {topic_key(t) for t in e.topics} & GENERIC for e in classify(week, BARE))


def test_no_activity_file_gives_a_generic_folder_topic() -> None:
    """Only a topic the configuration names (executorch's "Docs") may be a generic word."""
    config = example_config()
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activities = ReplaySource(path).read_all()
        configured = {t.name for t in config.project(activities[0].repo).topics}
        events = classify(activities, config)
        bad = {t for e in events for t in e.topics if topic_key(t) in GENERIC} - configured
        assert not bad, (path.name, bad)
        # A change seen on its own, without its window, follows the same rules.
        alone = {t for a in activities[:200] for t in topics_of(a, config)}
        assert not {t for t in alone if topic_key(t) in GENERIC} - configured


# ---------------------------------------------------------------- an unconfigured clone


@pytest.fixture
def monorepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone shaped like a Rust monorepo: crates, docs, tests, CI."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    clone = Clone(tmp_path / "foo")
    start = datetime(2026, 6, 1, 9, tzinfo=UTC)
    commits = [
        ("Add lock file pruning (#11)", {"crates/foo-resolver/src/lock.rs": "fn prune() {}\n"}),
        ("Fix resolver backtracking (#12)", {"crates/foo-resolver/src/pubgrub.rs": "fn b() {}\n"}),
        ("Add `--fix` to `foo check` (#13)", {"crates/foo-cli/src/check.rs": "fn fix() {}\n"}),
        ("Speed up wheel cache reads (#14)", {"crates/foo-cache/src/wheel.rs": "fn r() {}\n"}),
        ("Document the lock format (#15)", {"docs/concepts/lock.md": "# Lock\n"}),
        ("Cover pruning with integration cases (#16)", {"tests/it/prune.rs": "fn t() {}\n"}),
        ("Run clippy in CI (#17)", {".github/workflows/ci.yml": "on: push\n"}),
        ("Prune stale lock entries (#18)", {"crates/foo-resolver/src/lock.rs": "fn p2() {}\n"}),
    ]
    for i, (message, files) in enumerate(commits):
        clone.commit(message, start + timedelta(hours=i), files)
    return clone.path


def digest(clone: Path, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    result = CliRunner().invoke(
        app,
        [
            "digest",
            "--repo", "acme/foo",
            "--source", f"git:{clone}",
            "--since", "2026-06-01T00:00:00Z",
            "--until", "2026-06-02T00:00:00Z",
            "--config", str(empty),
            "--format", "json",
            *extra,
        ],
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def test_an_unconfigured_clone_gets_crate_topics(monorepo: Path, tmp_path: Path) -> None:
    code, out, err = digest(monorepo, tmp_path)
    assert code == 0, err
    story = json.loads(out)
    prose = " ".join([story["headline"], story["lede"], *(s["text"] for s in story["body"])])
    prose += " ".join(i["text"] for i in story["action_items"])
    # No title says these words, so only a topic could bring them into the story.
    for folder in ("crates", "docs", "tests", ".github", "src"):
        assert not re.search(rf"(?<![\w.]){re.escape(folder)}\b", prose, re.I), (folder, prose)
    code, out, err = digest(monorepo, tmp_path, "--topic", "foo-resolver")
    assert code == 0, err
    cited = {r["number"] for r in json.loads(out)["references"]}
    assert cited and cited <= {11, 12, 18}
    for container in ("crates", "tests", "docs"):
        code, _, err = digest(monorepo, tmp_path, "--topic", container)
        assert code == 2, (container, err)


def test_a_stray_file_of_a_large_change_is_no_place_for_it() -> None:
    # One install script among the CI files of a pin change: the change is CI's.
    ci = [f".ci/docker/step{n}.sh" for n in range(8)] + [".github/workflows/pin.yml"]
    pin = change(*ci, "examples/models/moshi/install_requirements.sh", title="Centralize the pins")
    assert topics_of(pin)[0] == "CI"
    small = change(".github/workflows/pin.yml", "examples/models/moshi/install.sh")
    assert topics_of(small)[0] == "moshi"  # code leads CI in a small change


def test_an_undone_title_gives_its_prefix_as_a_topic_and_loses_it() -> None:
    (reland,) = classify(
        [
            change(
                "backends/qualcomm/runtime/profiler.cpp",
                title='Revert "Revert "Qualcomm AI Engine Direct - heap profiling at runtime""',
            )
        ],
        BARE,
    )
    assert reland.kind == "reland" and reland.obj == "heap profiling at runtime"
    assert reland.topics == ("Qualcomm",)  # the prefix names the backend of its folder
    # A prefix names a place where the change's files show it (tests/test_places.py).
    (revert,) = classify(
        [change("src/foo/kernels/arm/sdpa.py", title='Revert "Arm backend: Add bf16 SDPA"')],
        BARE,
    )
    assert revert.obj == "Add bf16 SDPA" and revert.topics[0] == "Arm"


def test_compiled_globs_match_as_the_rules_do() -> None:
    from digest.config import TopicRule
    from digest.reading.topics import glob_topics

    rules = (
        TopicRule(name="Arm", paths=("backends/arm/**", "examples/arm/**")),
        TopicRule(name="Kernels", paths=("kernels/*/op_*.cpp", "kernels/portable/**")),
        TopicRule(name="Root", paths=("setup.py", "*.toml")),
        TopicRule(name="None", paths=()),
    )
    paths = [
        "backends/arm", "backends/arm/x.py", "backends/armv8/x.py", "examples/arm/a/b.c",
        "kernels/quantized/op_add.cpp", "kernels/quantized/sub/op_add.cpp", "kernels/portable",
        "setup.py", "pyproject.toml", "sub/pyproject.toml", "Setup.py", "a\nb.toml",
    ]  # fmt: skip
    for path in paths:
        expected = tuple(r.name for r in rules if r.matches_path(path))
        assert glob_topics(rules, path) == expected, path
