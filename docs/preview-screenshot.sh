#!/bin/bash
# Makes docs/preview.png: the preview page (docs/http.md) in headless Chromium at a kiosk's
# 1024×600, on a frame of Tests/Fixtures/clips/several (two QR codes and a card), with the card's
# phone number highlighted. `make screenshot`; needs the debug build and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/scannerd"
scratch="$(mktemp -d)"
trap 'kill "$daemon" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
mkdir "$scratch/clip"
cp Tests/Fixtures/clips/several/0020.jpg "$scratch/clip/0001.jpg"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" run --no-config --no-socket --source "$scratch/clip" --loop --fps 10 --http "127.0.0.1:$port" 2>"$scratch/daemon.log" &
daemon=$!
# The items are in once the card's phone number is (text needs two agreeing reads).
for _ in $(seq 100); do
    curl -s "http://127.0.0.1:$port/items" 2>/dev/null | grep -q '+442079460958' && break
    sleep 0.1
done
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$scratch/profile" \
    --window-size=1024,600 --virtual-time-budget=4000 --screenshot=docs/preview.png \
    "http://127.0.0.1:$port/#select=%2B442079460958" 2>/dev/null
echo "docs/preview.png"
