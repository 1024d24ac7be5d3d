"""The benchmark charts on the results page, straight from ``bench/results/``.

``python -m bench`` writes its charts beside its JSON in ``bench/results/`` and the page
``docs/benchmarks/results.md`` that shows them as ``results/<name>.png``. This hook serves
each chart at that address in the built site, so the charts are never copied into
``docs/`` by hand (and never drift from the run that made them).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
SITE_FOLDER = "benchmarks/results"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for chart in sorted(RESULTS.glob("*.png")):
        files.append(File.generated(config, f"{SITE_FOLDER}/{chart.name}", abs_src_path=str(chart)))
    return files
