#!/usr/bin/env bash
# Set up .venv and run the main job on the bundled samples: follow the rendered game
# video, referee it (the missed Quarto is spoken), then read one photo and ask the coach.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v espeak-ng >/dev/null 2>&1 || ! command -v aplay >/dev/null 2>&1; then
  echo "Installing espeak-ng and alsa-utils (speech engine and audio player)..."
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng alsa-utils >/dev/null; } \
    || echo "Could not install espeak-ng: announcements will be shown as text only."
fi
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e .
out=demo-output
mkdir -p "$out"
rm -f "$out/events.jsonl"
echo
echo "== watch: following samples/game01.mp4 (a rendered game in which a Quarto goes unclaimed)"
.venv/bin/quarto-assist watch samples/game01.mp4 --no-window --events "$out/events.jsonl" \
  --record "$out/game.txt" --speech-wav "$out/speech"
echo
echo "== events written to $out/events.jsonl:"
cat "$out/events.jsonl"
echo
echo "== analyze: samples/wood-round-black-white.jpg (overlay in $out/overlay.png)"
.venv/bin/quarto-assist analyze samples/wood-round-black-white.jpg --overlay "$out/overlay.png" || echo "(analyze exit code $?: see the message above)"
echo
echo "== suggest: the coach on a position from the middle of a game"
.venv/bin/quarto-assist suggest "0.3./..../..A./F... 5"
