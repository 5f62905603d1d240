"""The API reference builds from the docstrings with warnings as errors (the
README's command, into a temporary folder), and the package ships ``py.typed``."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import dmlsched

ROOT = Path(__file__).resolve().parents[1]


def _readme_docs_command() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"^```bash\n(.*?)^```", readme, flags=re.S | re.M)
    cmd = next(b.strip() for b in blocks if "sphinx" in b)
    return shlex.split(cmd)


def test_api_reference_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    cmd = _readme_docs_command()
    assert cmd[:3] == ["python", "-m", "sphinx"] and "-W" in cmd
    assert cmd[-2:] == ["docs", "docs/_build/html"]
    cmd = [sys.executable, *cmd[1:-1], str(tmp_path / "html"), "-q", "-d", str(tmp_path / "doctrees")]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    html = (tmp_path / "html" / "api.html").read_text()
    # the entry points and the kit are documented from their docstrings
    for name in ("dmlsched.solve", "dmlsched.kit.method", "dmlsched.kit.Run.result", "dmlsched.io.Reader"):
        assert f'id="{name}"' in html, name
    fam = (tmp_path / "html" / "families.html").read_text()
    assert 'id="dmlsched.problems.hare.solution.HareSchedule"' in fam
    assert "job by job, round by round" in fam and "HareInstance.task_index" in fam


def test_py_typed_is_shipped():
    assert (Path(dmlsched.__file__).parent / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'\[tool\.setuptools\.package-data\]\s*dmlsched = \["py\.typed"\]', text)
