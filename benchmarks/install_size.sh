#!/usr/bin/env bash
# Base install size of dmlsched: a fresh venv, `pip install SRC` (no extras), then
# the size of its site-packages and the largest packages in it.
#   bash benchmarks/install_size.sh [SRC=.] [VENV=$(mktemp -d)/venv]
set -euo pipefail
SRC=${1:-.}
VENV=${2:-$(mktemp -d)/venv}
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
"$VENV/bin/pip" install -q "$SRC" 2>&1 | grep -v "^WARNING: Location" || true
SP=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# pip, setuptools and wheel come with any venv: not counted
echo "site-packages (without pip/setuptools/wheel): $(du -sm --exclude='pip' --exclude='pip-*' --exclude='setuptools*' --exclude='wheel*' --exclude='_distutils_hack' "$SP" | cut -f1) MB"
echo "distributions: $("$VENV/bin/pip" list --format=freeze 2>/dev/null | grep -v -E '^(pip|setuptools|wheel)==' | tr '\n' ' ')"
echo "largest:"
du -sm "$SP"/* | sort -rn | head -8 | sed "s|$SP/||"
