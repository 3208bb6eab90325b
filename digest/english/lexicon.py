"""lemminflect's lexicon, read once per machine and then from a fast local copy.

lemminflect reads two gzip-compressed CSV dictionaries on first use (`lemma_lu.csv.gz`,
about 70,000 words, and `infl_lu.csv.gz`, about 34,000 lemmas) and parses them line by
line: 0.5–0.7 s in every process that inflects a word. The tables it builds are plain
dicts of strings and tuples, so `load` keeps them in a marshal file under the user's
cache directory (keyed by the library's version, its files and the Python version) and
hands them to the library's own singletons, which then skip their loading. Every lookup
is still lemminflect's; only the reading of its files is cached.

The cache lives in `$WIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/wire`, else `~/.cache/wire`.
When it cannot be read or written, lemminflect loads its files itself, as before.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from functools import cache
from pathlib import Path

import lemminflect
from lemminflect import config as _config
from lemminflect.core.Inflections import Inflections
from lemminflect.core.Lemmatizer import Lemmatizer

_SOURCES = (_config.lemma_lu_fn, _config.inflection_lu_fn)
_FORMAT = "flat-1"  # the layout of the copy (`_encode`); a new layout is a new file


def cache_dir() -> Path:
    """Where the lexicon's fast copy is kept."""
    if explicit := os.environ.get("WIRE_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "wire"


def _cache_file() -> Path:
    stamp = [_FORMAT, lemminflect.__version__, sys.version, str(marshal.version)]
    for name in _SOURCES:
        info = os.stat(name)
        stamp += [name, str(info.st_size), str(info.st_mtime_ns)]
    key = hashlib.sha256("\0".join(stamp).encode()).hexdigest()[:16]
    return cache_dir() / f"lemminflect-{key}.marshal"


_SEPARATORS = frozenset(";=/")


def _encode(table: dict[str, dict[str, tuple[str, ...]]]) -> dict[str, str]:
    """{"fixed": {"VERB": ("fix",), "ADJ": ("fixed",)}} → {"fixed": "VERB=fix;ADJ=fixed"}:
    flat strings unmarshal four times faster than the nested dicts."""
    return {w: ";".join(f"{k}={'/'.join(v)}" for k, v in e.items()) for w, e in table.items()}


def _decode(text: str) -> dict[str, tuple[str, ...]]:
    return {k: tuple(v.split("/")) for k, _, v in (part.partition("=") for part in text.split(";"))}


class _Table:
    """A lemminflect lookup table whose entries are decoded when first asked for; the
    library only ever calls `get` on it."""

    __slots__ = ("_decoded", "_raw")

    def __init__(self, raw: dict[str, str]) -> None:
        self._raw = raw
        self._decoded: dict[str, dict[str, tuple[str, ...]]] = {}

    def get(self, word: str, default: object = None) -> object:
        found = self._decoded.get(word)
        if found is None:
            text = self._raw.get(word)
            if text is None:
                return default
            found = self._decoded[word] = _decode(text)
        return found

    def __contains__(self, word: object) -> bool:
        return word in self._raw

    def __getitem__(self, word: str) -> dict[str, tuple[str, ...]]:
        found = self.get(word)
        if found is None:
            raise KeyError(word)
        return found  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(self._raw)


def _encodable(table: dict[str, dict[str, tuple[str, ...]]]) -> bool:
    """True when every entry survives `_encode` and `_decode` unchanged."""
    return all(
        e and all(k and v and not (_SEPARATORS & set(k + "".join(v))) for k, v in e.items())
        for e in table.values()
    )


def _read(path: Path) -> tuple[dict[str, str], dict[str, str]] | None:
    try:
        tables = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(tables, tuple) and len(tables) == 2):
        return None
    return tables


def _write(path: Path, tables: tuple[dict[str, str], dict[str, str]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as out:
            out.write(marshal.dumps(tables))
        os.replace(out.name, path)  # atomic: a concurrent reader sees the old file or the new
    except OSError:
        return


@cache
def load() -> bool:
    """Give lemminflect its lemma and inflection tables, from the fast copy when there is
    one (else from its own files, writing the copy for next time). Idempotent; True when
    the tables came from the copy."""
    lemmatizer, inflections = Lemmatizer(), Inflections()
    try:
        path = _cache_file()
    except OSError:
        return False
    tables = _read(path)
    if tables is not None:
        lemmatizer.lemma_dict, inflections.infl_dict = _Table(tables[0]), _Table(tables[1])
        return True
    # The library's own lazy loaders read its files; keep what they built.
    lemmas, forms = lemmatizer._getLemmaDict(), inflections._getInflDict()
    if _encodable(lemmas) and _encodable(forms):
        _write(path, (_encode(lemmas), _encode(forms)))
    return False


# ---------------------------------------------------------------- lookups


def all_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect.getAllLemmas, its tables loaded by `load`."""
    load()
    found: dict[str, tuple[str, ...]] = lemminflect.getAllLemmas(word)
    return found


def all_lemmas_oov(word: str, upos: str) -> dict[str, tuple[str, ...]]:
    """lemminflect.getAllLemmasOOV (its rules for a word the lexicon lacks)."""
    load()
    found: dict[str, tuple[str, ...]] = lemminflect.getAllLemmasOOV(word, upos=upos)
    return found


def lemma(word: str, upos: str) -> tuple[str, ...]:
    """lemminflect.getLemma."""
    load()
    found: tuple[str, ...] = lemminflect.getLemma(word, upos=upos)
    return found


def all_inflections(lemma_: str, upos: str) -> dict[str, tuple[str, ...]]:
    """lemminflect.getAllInflections, else getAllInflectionsOOV when the lexicon lacks it."""
    load()
    found: dict[str, tuple[str, ...]] = lemminflect.getAllInflections(
        lemma_, upos=upos
    ) or lemminflect.getAllInflectionsOOV(lemma_, upos=upos)
    return found


def inflection(lemma_: str, tag: str) -> tuple[str, ...]:
    """lemminflect.getInflection, with its rules for a lemma the lexicon lacks."""
    load()
    found: tuple[str, ...] = lemminflect.getInflection(lemma_, tag=tag, inflect_oov=True)
    return found
