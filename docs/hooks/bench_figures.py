"""The benchmark charts on the results page, straight from ``bench/results/``.

``python -m bench`` writes its charts beside its JSON in ``bench/results/`` and the page
``docs/benchmarks/results.md`` that links them as ``../../bench/results/<name>.png`` (so
the page shows them read as a plain file, outside the site too). This hook serves each
chart in the built site beside the page, at ``results/<name>.png``, and points the page's
links there, so the charts are never copied into ``docs/`` (and never drift from the run
that made them).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
SITE_FOLDER = "benchmarks/results"
PAGE = "benchmarks/results.md"
PAGE_LINK = "](../../bench/results/"
"""How the results page links a chart from ``docs/benchmarks/`` (``bench/report.py``)."""


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for chart in sorted(RESULTS.glob("*.png")):
        files.append(File.generated(config, f"{SITE_FOLDER}/{chart.name}", abs_src_path=str(chart)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    return markdown.replace(PAGE_LINK, "](results/")
