#!/usr/bin/env bash
# Runs a scenegen tool in the renderer's own venv, niced, from the repository root:
#   scenegen/render.sh dataset --out data/renders/v1 --count 300 --seed 1
#   scenegen/render.sh game --out data/games/game02.mp4 --seed 2
#   scenegen/render.sh samples --set testdata --out tests/data
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="$root/scenegen/.venv/bin/python"
if [ ! -x "$py" ]; then
    echo "ERROR scenegen/.venv is missing: run scenegen/setup.sh first" >&2
    exit 2
fi
tool="${1:-}"
case "$tool" in
    dataset|game|samples|contact_sheet) shift ;;
    *) echo "usage: scenegen/render.sh dataset|game|samples|contact_sheet [options] (see docs/scenegen.md)" >&2; exit 2 ;;
esac
cd "$root"
exec nice -n 10 "$py" -m "scenegen.$tool" "$@"
