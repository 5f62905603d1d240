"""The README stays true: CI runs its test command, its examples run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_ci_runs_the_readme_test_command():
    bash = _blocks("bash")
    test_cmd = bash[1].strip()  # the second block of the README is the test command
    assert "pytest" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text()
    assert "dmlsched bench" in bash[0]


def test_property_test_example_runs():
    code = next(b for b in _blocks("python") if "hare_instances" in b)
    code = code.replace("max_examples=50", "max_examples=3")
    ns: dict = {}
    exec("import dmlsched\n" + code, ns)  # noqa: S102 - our own README
    ns["test_list_queyranne_within_bound"]()
