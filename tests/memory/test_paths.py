"""One data folder whatever the current directory (``memory/storage/paths.py``).

Each case runs a fresh Python in another folder, as a user's shell would: the
default is resolved at import.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
WHERE = (
    "import json; from aimind_memory.memory.storage.paths import data_dir, default_database_url; "
    "print(json.dumps([str(data_dir()), default_database_url()]))"
)
SECRET = "from aimind_memory.memory.session import load_secret; load_secret()"


def _run(code: str, cwd: Path, env: dict[str, str], pythonpath: Path | None = None) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AIMIND_")}
    clean.pop("PYTHONPATH", None)
    clean.pop("XDG_DATA_HOME", None)
    if pythonpath is not None:
        clean["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _where(cwd: Path, env: dict[str, str], pythonpath: Path | None = None) -> tuple[Path, str]:
    folder, url = json.loads(_run(WHERE, cwd, env, pythonpath).splitlines()[-1])
    return Path(folder), url


def test_the_default_is_the_checkouts_data_folder_from_any_directory(tmp_path: Path) -> None:
    for cwd in (tmp_path, Path("/")):
        folder, url = _where(cwd, {})
        assert folder == REPO_ROOT / ".aimind"
        assert url == f"sqlite:///{REPO_ROOT / '.aimind' / 'aimind.sqlite'}"
    assert list(tmp_path.iterdir()) == []


def test_aimind_data_dir_overrides_and_holds_the_dev_secret(tmp_path: Path) -> None:
    start = tmp_path / "start"
    start.mkdir()
    data = tmp_path / "data"
    assert _where(start, {"AIMIND_DATA_DIR": str(data)}) == (
        data,
        f"sqlite:///{data / 'aimind.sqlite'}",
    )
    # A relative folder is taken from where the process started.
    assert _where(start, {"AIMIND_DATA_DIR": "rel"})[0] == start / "rel"
    # The dev secret goes there too, whatever the current folder.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _run(SECRET, elsewhere, {"AIMIND_DATA_DIR": str(data)})
    assert (data / "session-secret").is_file()
    assert list(elsewhere.iterdir()) == []


def test_an_installed_package_uses_the_users_data_folder(tmp_path: Path) -> None:
    """Outside a checkout (a wheel in site-packages) there is no project folder to use."""
    site = tmp_path / "site"
    package = site / "aimind_memory"  # laid out as the wheel installs it
    (package / "memory").mkdir(parents=True)
    for init in ("", "memory"):
        (package / init / "__init__.py").write_text("")
    # where AIMIND_DATA_DIR is declared and read, and what they import
    for module in ("errors", "config/settings", "config/limits", "storage/paths"):
        installed = package / "memory" / f"{module}.py"
        installed.parent.mkdir(exist_ok=True)
        (installed.parent / "__init__.py").touch()
        shutil.copy(REPO_ROOT / "memory" / f"{module}.py", installed)
    xdg = tmp_path / "xdg"
    assert _where(tmp_path, {"XDG_DATA_HOME": str(xdg)}, site)[0] == xdg / "aimind"
    home = tmp_path / "home"
    assert _where(tmp_path, {"HOME": str(home)}, site)[0] == home / ".local/share/aimind"
