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

# --- latency corpus (bench/voice-latency.ts, test/support/voice-providers*.ts) ---------------------------------------
# A caller's side of a phone call: complete questions, questions with a pause after an incomplete phrase,
# backchannels, interruptions, and noise 10 dB under the speech level. 8 kHz 16-bit mono, telephone band, silences
# trimmed; corpus.json lists each file with its kind and transcript (paused ones: both phrases, where the pause starts
# and how long it is). Deterministic: same espeak-ng voices, fixed texts, sox in repeatable mode (-R).
VOICES=(en-us en-us+f3 en-gb+m3 en-us+f2 en-gb-scotland+m1 en-029+f4)
LAT="$OUT/latency"
rm -rf "$LAT"
mkdir -p "$LAT"
entries=()
nvoice=0

# speak <out.wav> <text>: one phrase in the next voice, telephone band, silences trimmed, peak at -6 dBFS.
speak() {
  local voice=${VOICES[$((nvoice % ${#VOICES[@]}))]}
  espeak-ng -v "$voice" -s 165 -w "$TMP/raw.wav" "$2"
  sox -R "$TMP/raw.wav" -r 8000 -c 1 -b 16 "$1" sinc 300-3400 \
    silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse gain -n -6
}
ms() { echo $(($(soxi -s "$1") / 8)); }
json() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
# entry <id> <kind> <text> [extra json]
entry() {
  entries+=("{\"file\": \"latency/$1.wav\", \"kind\": \"$2\", \"text\": \"$(json "$3")\", \"duration_ms\": $(ms "$LAT/$1.wav")${4:-}}")
  nvoice=$((nvoice + 1))
}

# phrases <kind> <text>...: <kind>-01.wav, <kind>-02.wav, ... (hyphens spoken as spaces: "uh-huh").
phrases() {
  local kind=$1 i=0 text id
  shift
  for text in "$@"; do
    i=$((i + 1))
    id=$(printf '%s-%02d' "$kind" "$i")
    speak "$LAT/$id.wav" "${text//-/ }"
    entry "$id" "$kind" "$text"
  done
}

phrases question \
  "What time do you open tomorrow?" \
  "Can I change my delivery address?" \
  "How much is the monthly plan?" \
  "Do you ship to Canada?" \
  "Where is my order right now?" \
  "Can I speak to someone about my bill?" \
  "Is the store on Main Street open on Sundays?" \
  "How long does a refund usually take?"

# first phrase | second phrase | pause in ms
paused=(
  "I need to cancel|the order.|800"
  "My number is four five|six seven.|700"
  "I would like to book|a table for two.|900"
  "Can you tell me|when my package arrives?|600"
  "I was charged twice for|the same order.|1000"
  "The account is under|my husband's name.|750"
  "I want to move my appointment to|next Friday.|850"
  "My zip code is nine four|one zero three.|550"
)
for i in "${!paused[@]}"; do
  IFS='|' read -r first second pause <<<"${paused[$i]}"
  id=$(printf 'paused-%02d' $((i + 1)))
  speak "$TMP/first.wav" "$first"
  speak "$TMP/second.wav" "$second"
  sox -R "$TMP/first.wav" "$TMP/gap.wav" pad 0 "$(awk -v p="$pause" 'BEGIN {printf "%.3f", p / 1000}')"
  sox -R "$TMP/gap.wav" "$TMP/second.wav" "$LAT/$id.wav"
  entry "$id" paused "$first $second" ", \"parts\": [\"$(json "$first")\", \"$(json "$second")\"], \"pause_start_ms\": $(ms "$TMP/first.wav"), \"pause_ms\": $pause"
done

phrases backchannel "uh-huh" "yeah" "okay" "mm-hmm" "right" "sure"

phrases interruption \
  "Wait, stop, that's not what I asked." \
  "No no, I meant the other one." \
  "Hold on, that's wrong." \
  "Sorry, can I stop you there?" \
  "No, I said Tuesday, not Thursday." \
  "Wait wait, go back."

# Noise 10 dB under the mean RMS level of the speech above: steady pink noise, and babble (five voices saying
# different things at once, each looped to the length).
rms() { sox "$1" -n stats 2>&1 | awk '/RMS lev dB/ {print $4}'; }
speech_db=$(for f in "$LAT"/*.wav; do rms "$f"; done | awk '{s += $1} END {printf "%.2f", s / NR}')
target_db=$(awk -v s="$speech_db" 'BEGIN {printf "%.2f", s - 10}')
# level <in> <out>: gain so that the file's RMS level is target_db.
level() { sox -R "$1" "$2" gain "$(awk -v t="$target_db" -v r="$(rms "$1")" 'BEGIN {printf "%.2f", t - r}')"; }
sox -R -n -r 8000 -c 1 -b 16 "$TMP/pink.wav" synth 4 pinknoise sinc 300-3400
level "$TMP/pink.wav" "$LAT/noise-pink.wav"
entry noise-pink noise "" ", \"noise\": \"pink\", \"level_db\": $target_db, \"speech_level_db\": $speech_db"
babble=(
  "The weather has been lovely this week and we went to the beach twice."
  "I told him the meeting was moved to three but he never listens to me."
  "Could you pass the salt and the pepper please, thank you so much."
  "We are thinking about painting the kitchen a pale shade of green."
  "The train was late again this morning so I missed the first lesson."
)
mix=()
for i in "${!babble[@]}"; do
  speak "$TMP/talker.wav" "${babble[$i]}"
  nvoice=$((nvoice + 1))
  sox -R "$TMP/talker.wav" "$TMP/talker-$i.wav" pad "0.$((i * 17 % 10))" repeat 2 trim 0 4
  mix+=("$TMP/talker-$i.wav")
done
sox -R -m "${mix[@]}" "$TMP/babble.wav"
level "$TMP/babble.wav" "$LAT/noise-babble.wav"
entry noise-babble noise "" ", \"noise\": \"babble\", \"level_db\": $target_db, \"speech_level_db\": $speech_db"

{
  echo '{'
  echo '  "format": {"sample_rate": 8000, "channels": 1, "bits": 16},'
  echo '  "entries": ['
  for i in "${!entries[@]}"; do
    sep=,
    [ "$i" -eq $((${#entries[@]} - 1)) ] && sep=
    echo "    ${entries[$i]}$sep"
  done
  echo '  ]'
  echo '}'
} >"$OUT/corpus.json"
echo "latency corpus: ${#entries[@]} files, $(du -sk "$LAT" | cut -f1) kB, speech at $speech_db dB RMS, noise at $target_db dB"
# --- end of latency corpus ------------------------------------------------------------------------------------------
