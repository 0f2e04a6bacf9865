"""Reproducible Hugging Face dataset export: ``palaestra export --config MIX.yaml --out DIR``.

A *mixture config* lists families x levels (or knob grids) x counts per split, a base seed and a
dataset version::

    name: arith-mix
    seed: 1234
    version: 1
    splits: [test, train]        # priority order for deduplication (earlier splits claim first)
    format: plain                # or "chat": `prompt` starts with a system turn (system_prompt)
    mixture:
      - family: expression
        levels: [1, 2, 3]        # an int, a list, "2-7" or "all"
        counts: {train: 1000, test: 100}   # per cell (each level x knob combination)
      - family: expression
        knobs: {digits: [2, 3], operands: {low: 2, high: 4}}   # lists/ranges become a grid
        counts: {train: 50}

How the export stays honest:

* **Seeds** -- candidate ``i`` of a cell in split number ``s`` gets the task seed
  ``s * 2**58 + h`` where ``h < 2**58`` is drawn from ``SeedSequence((base seed, version, cell,
  i[, draw]))``: splits use disjoint seed ranges by construction, and any row is reachable by index.
* **One split** -- a training split (``train``, ``train_*``) holds only content on the training
  side of palaestra's one train/held-out split (:func:`palaestra.rows.is_test_content`, by family
  and prompt), every other split only held-out content: a candidate whose content lies on the
  other side is redrawn from the next seed of its own stream, deterministically. Trainers and the
  self-play loop hold out the same problems that an export's test split holds.
* **Deduplication** -- a task's key is ``family/canonical_hash`` (``task.id`` when the family has no
  canonical form). Cells are visited in a fixed order (split priority, entry, cell); a candidate is
  kept only if no earlier kept row has its key, so no task appears twice in a split or in two
  splits. Short cells draw more candidates until the counts are met; duplicates are reported. A
  cell that cannot reach its count (its level has fewer distinct tasks) fails fast.
* **Reproducibility** -- the result is defined by that sequential rule alone; generation runs in
  parallel chunks whose boundaries do not depend on the number of processes, so shards are
  byte-identical and the fingerprint is the same for any ``--num-proc`` or engine.
* **Crash safety** -- work happens in ``.<out>.palaestra-partial/`` next to the output: every chunk
  and shard is written to a temp file and renamed, a rerun reuses what exists, and the finished
  dataset appears at ``--out`` by one atomic rename with its manifest (``palaestra_export.json``)
  already inside. A folder without that manifest is never a palaestra dataset.

Output layout (both loaders work)::

    DIR/README.md                  dataset card (mixture table, seeds, calibration, loading snippet)
    DIR/palaestra_export.json      manifest: config, counts, duplicates, shard sha256, fingerprint
    DIR/data/<split>-00000-of-000NN.parquet    -> load_dataset("parquet", data_files=...) / the Hub
    DIR/dataset_dict.json, DIR/<split>/*.arrow -> datasets.load_from_disk(DIR), with --arrow-copy only
"""

from __future__ import annotations

from palaestra.export.card import dataset_card
from palaestra.export.cli import add_cli
from palaestra.export.config import (
    DEFAULT_SYSTEM_PROMPT,
    FORMAT_VERSION,
    MANIFEST,
    MAX_SPLITS,
    SPLIT_BITS,
    SPLIT_REDRAWS,
    Cell,
    MixtureConfig,
    Unit,
    is_training_split,
    plan_units,
)
from palaestra.export.hub import push_to_hub
from palaestra.export.jobs import START_METHOD, WORKER_DIED, GenerationError, LocalEngine, RayEngine
from palaestra.export.read import read_split
from palaestra.export.verify import VerifyReport, verify_dataset
from palaestra.export.writer import ExportResult, export

__all__ = [
    "Cell",
    "DEFAULT_SYSTEM_PROMPT",
    "ExportResult",
    "FORMAT_VERSION",
    "GenerationError",
    "LocalEngine",
    "MANIFEST",
    "MAX_SPLITS",
    "MixtureConfig",
    "RayEngine",
    "SPLIT_BITS",
    "SPLIT_REDRAWS",
    "START_METHOD",
    "Unit",
    "VerifyReport",
    "WORKER_DIED",
    "add_cli",
    "dataset_card",
    "export",
    "is_training_split",
    "plan_units",
    "push_to_hub",
    "read_split",
    "verify_dataset",
]
