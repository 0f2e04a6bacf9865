"""The family index: ``import palaestra`` lists every family and registers every Gymnasium id
without importing a family module, and the committed index matches what discovery finds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import palaestra
from palaestra import registry
from palaestra.envs.registration import GAME_NAMES

REFRESH = "stale generators/index.json: run `palaestra dev refresh --catalog` and commit it"


def _fresh_python(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line, which is returned."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_committed_index_matches_discovery() -> None:
    stored = json.loads(registry.INDEX_PATH.read_text())
    built = registry.build_index()
    assert stored["modules"] == built["modules"], REFRESH
    assert stored["families"] == built["families"], REFRESH


def test_module_files_are_the_modules_discovery_imports() -> None:
    # the cheap file listing that decides whether the index is fresh is pkgutil's walk, exactly
    assert registry.module_files() == registry.family_module_names()
    assert "palaestra.generators.puzzles.sudoku" in registry.module_files()
    assert not [name for name in registry.module_files() if name.rsplit(".", 1)[-1].startswith("_")]


def test_import_loads_no_family_module_and_keeps_every_id_and_name() -> None:
    seen = _fresh_python(
        "import json, sys, gymnasium, palaestra\n"
        "from palaestra import registry\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('palaestra.generators.')"
        " or m.split('.')[0] in ('sympy', 'networkx', 'z3'))\n"
        "ids = sorted(i for i in gymnasium.registry if i.startswith('palaestra/'))\n"
        "lazy = {d: palaestra.families(d) for d in registry.DOMAINS}\n"
        "names = palaestra.families()\n"
        "loaded_after_listing = [m for m in sys.modules if m.startswith('palaestra.generators.')]\n"
        "registry.discover()\n"
        "print(json.dumps({'loaded': loaded, 'ids': ids, 'names': names, 'lazy': lazy,"
        " 'after_listing': loaded_after_listing,"
        " 'discovered': palaestra.families(), 'eager': {d: palaestra.families(d) for d in registry.DOMAINS},"
        " 'ids_after': sorted(i for i in gymnasium.registry if i.startswith('palaestra/'))}))"
    )
    assert seen["loaded"] == []
    assert seen["after_listing"] == []  # listing the families imports none either
    assert seen["names"] == seen["discovered"] and len(seen["names"]) > 50
    assert seen["lazy"] == seen["eager"]
    assert seen["ids"] == seen["ids_after"]  # importing every module adds no id
    for name in seen["names"]:
        assert registry.env_id_for(name) in seen["ids"]


def test_using_a_family_imports_its_module_only() -> None:
    seen = _fresh_python(
        "import json, sys, palaestra\n"
        "task = palaestra.make_task('sudoku', seed=1, level=2)\n"
        "ok = palaestra.verify(task, palaestra.get('sudoku').impl.reference_response(task)).correct\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('palaestra.generators.')"
        " and not m.rsplit('.', 1)[-1].startswith('_'))\n"
        "print(json.dumps({'ok': ok, 'loaded': loaded}))"
    )
    assert seen["ok"]
    assert "palaestra.generators.puzzles.sudoku" in seen["loaded"]
    families = set(json.loads(registry.INDEX_PATH.read_text())["families"])
    other_families = [m for m in seen["loaded"] if m.rsplit(".", 1)[-1] in families - {"sudoku"}]
    assert other_families == []


def test_interactive_families_get_the_interactive_env() -> None:
    import gymnasium

    for name in palaestra.families():
        entry = gymnasium.spec(registry.env_id_for(name)).entry_point
        expected = "InteractiveEnv" if palaestra.get(name).impl.interactive else "TaskEnv"
        assert entry.endswith(expected), (name, entry)


def test_a_stale_index_falls_back_to_importing_everything(tmp_path: Path) -> None:
    stale = json.loads(registry.INDEX_PATH.read_text())
    stale["modules"] = stale["modules"][:-1]  # as if a family file were added without a refresh
    del stale["families"]["sudoku"]
    path = tmp_path / "index.json"
    path.write_text(json.dumps(stale))
    seen = _fresh_python(
        "import json, sys\n"
        "from pathlib import Path\n"
        "import palaestra.registry as r\n"  # imports palaestra (index read), then re-read the stale one
        f"r.INDEX_PATH = Path({str(path)!r}); r._index_cache = r._NOT_READ\n"
        "print(json.dumps({'index': r._index(), 'sudoku': 'sudoku' in r.families()}))"
    )
    assert seen == {"index": None, "sudoku": True}


def test_an_unreadable_index_reads_as_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.json"
    path.write_text("{not json")
    monkeypatch.setattr(registry, "INDEX_PATH", path)
    monkeypatch.setattr(registry, "_index_cache", registry._NOT_READ)
    assert registry._index() is None
    monkeypatch.setattr(registry, "INDEX_PATH", tmp_path / "missing.json")
    monkeypatch.setattr(registry, "_index_cache", registry._NOT_READ)
    assert registry._index() is None


def test_unknown_names_still_name_the_valid_families() -> None:
    with pytest.raises(ValueError, match="valid families: .*sudoku"):
        palaestra.get("no_such_family")
    with pytest.raises(ValueError, match="unknown family"):
        palaestra.get(["not", "a", "name"])  # type: ignore[arg-type]


def test_the_game_ids_name_every_game() -> None:
    from palaestra.envs.games import GAMES

    assert sorted(GAMES) == sorted(GAME_NAMES)
