#!/usr/bin/env bash
# Regenerates the voice test fixtures under test/fixtures/voice from text, with espeak-ng and sox (Debian packages
# espeak-ng and sox). The files are committed; tests only read them.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=test/fixtures/voice
mkdir -p "$OUT"
command -v espeak-ng >/dev/null && command -v sox >/dev/null || {
  echo "needs espeak-ng and sox: apt-get install -y espeak-ng sox" >&2
  exit 1
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Every sox run repeatable (same dither and noise on every run): regenerating leaves the files byte for byte.
export SOX_OPTS=-R

# --- voice activity (src/modules/voice/media/vad) ------------------------------------------------------------------
# speech-8k.wav / speech-16k.wav: 0.5 s of silence, one spoken phrase, 0.5 s of silence; 16-bit mono PCM. The 8 kHz
# one went through telephone band (300-3400 Hz) and a µ-law round trip, as a call's audio does.
espeak-ng -v en-us -s 150 -w "$TMP/phrase.wav" "Hello, I would like to book a table."
sox "$TMP/phrase.wav" -r 16000 -c 1 -b 16 "$OUT/speech-16k.wav" pad 0.5 0.5
sox "$TMP/phrase.wav" -r 8000 -c 1 -e u-law "$TMP/phone.wav" sinc 300-3400 pad 0.5 0.5
sox "$TMP/phone.wav" -e signed-integer -b 16 "$OUT/speech-8k.wav"
# --- end of voice activity ------------------------------------------------------------------------------------------
