#!/usr/bin/env bash
# Set up a virtual environment in .venv and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
.venv/bin/python -m pytest -q "$@"
