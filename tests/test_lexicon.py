"""lemminflect's word lists are read from a fast copy after the first process: the same
lookups, without parsing its gzip files in every process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.digest_data import ROOT

_PROBE = """
import json, sys, time
from digest.english import lexicon
started = time.perf_counter()
cached = lexicon.load()
elapsed = time.perf_counter() - started
words = sys.argv[1].split(",")
print(json.dumps({
    "cached": cached,
    "seconds": elapsed,
    "lemmas": [lexicon.all_lemmas(w) for w in words],
    "inflections": [lexicon.all_inflections(w, "VERB") for w in words],
    "vbz": [lexicon.inflection(w, "VBZ") for w in words],
    "oov": [lexicon.all_lemmas_oov(w, "VERB") for w in words],
}))
"""
_LIBRARY = """
import json, sys
import lemminflect
words = sys.argv[1].split(",")
print(json.dumps({
    "lemmas": [lemminflect.getAllLemmas(w) for w in words],
    "inflections": [lemminflect.getAllInflections(w, upos="VERB")
                    or lemminflect.getAllInflectionsOOV(w, upos="VERB") for w in words],
    "vbz": [lemminflect.getInflection(w, tag="VBZ") for w in words],
    "oov": [lemminflect.getAllLemmasOOV(w, upos="VERB") for w in words],
}))
"""
WORDS = "fixed,fix,does,relands,sympify,template,chat,ran,leaves,analyses,better,backout"


def _run(script: str, cache: Path) -> dict:
    env = {**os.environ, "WIRE_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", script, WORDS], cwd=ROOT, env=env, check=True,
        capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def test_the_fast_copy_is_written_once_and_answers_as_the_library_does(tmp_path: Path) -> None:
    first = _run(_PROBE, tmp_path)
    assert first["cached"] is False
    assert len(list(tmp_path.glob("lemminflect-*.marshal"))) == 1
    second = _run(_PROBE, tmp_path)
    assert second["cached"] is True
    library = _run(_LIBRARY, tmp_path)
    for key in ("lemmas", "inflections", "vbz", "oov"):
        assert first[key] == second[key] == library[key], key
    print(
        f"lexicon load: {first['seconds']:.3f} s from the gzip files, {second['seconds']:.3f} s from the copy"
    )


def test_an_unwritable_cache_falls_back_to_the_library(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    probe = _run(_PROBE, blocked / "cache")
    assert probe["cached"] is False
    assert probe["vbz"] == _run(_LIBRARY, tmp_path)["vbz"]
