"""An lm-evaluation-harness task folder for an export (``palaestra export ... --format lm-eval``).

Written into ``OUT/lm_eval/``: ``SPLIT.jsonl`` (the split's rows: prompt text, reference answer,
task record), ``palaestra_NAME.yaml`` (a ``generate_until`` task over that file) and ``utils.py``,
whose ``process_results`` grades each generation with palaestra's verifier (metric ``acc``).
Run it with ``lm_eval --include_path OUT/lm_eval --tasks palaestra_NAME --model ...``. The YAML
names the data file by its absolute path: regenerate the folder if the export moves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from palaestra.export.config import MANIFEST
from palaestra.export.read import read_split
from palaestra.rows import row_to_task

UTILS = '''"""lm-evaluation-harness hooks written by `palaestra export --format lm-eval`."""

import palaestra


def process_results(doc, results):
    """acc: 1.0 iff palaestra's verifier accepts the generation for the row's task."""
    task = palaestra.Task.from_json(doc["task"])
    return {"acc": float(palaestra.verify(task, results[0]).correct)}
'''

TASK_YAML = """task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    {split}: {data_file}
test_split: {split}
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: []
  do_sample: false
  max_gen_toks: 2048
process_results: !function utils.process_results
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1
"""


def task_name(export_name: str) -> str:
    return "palaestra_" + re.sub(r"[^A-Za-z0-9_]+", "_", export_name).strip("_")


def write_lm_eval_task(export_dir: Path, split: str = "test") -> tuple[Path, str]:
    """Write the task folder for ``split`` of the export at ``export_dir``; returns it and the task name."""
    export_name = json.loads((export_dir / MANIFEST).read_text())["name"]
    rows = read_split(export_dir, split)
    folder = export_dir / "lm_eval"
    folder.mkdir(exist_ok=True)
    data_file = folder / f"{split}.jsonl"
    with data_file.open("w") as out:
        for row in rows:
            task = row_to_task(row)
            out.write(
                json.dumps({"prompt": task.prompt, "answer": row["answer"], "task": task.to_json()}) + "\n"
            )
    name = task_name(export_name)
    (folder / f"{name}.yaml").write_text(
        TASK_YAML.format(task=name, split=split, data_file=json.dumps(str(data_file.resolve())))
    )
    (folder / "utils.py").write_text(UTILS)
    return folder, name
