import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createVoiceActivity } from '@/modules/voice/media/vad/create-voice-activity';
import { whiteNoise } from '@/modules/voice/media/vad/synthetic-audio';
import { VadEngine, VadSampleRate, VoiceActivity } from '@/modules/voice/media/vad/voice-activity';
import { readWav } from '@/modules/voice/media/vad/wav';
import { percentile, runBench, table } from './stats';

/**
 * `npm run bench:vad`: the CPU cost of voice activity per stream. STREAMS detectors (default 50) are fed, frame by
 * frame and interleaved as the media path does, SECONDS of audio each (default 20), as fast as the process can: the
 * spoken fixture looped (test/fixtures/voice, its silences gated), and line noise at -35 dBFS (never gated: the model
 * judges every window, the worst case). Printed per engine, rate and audio: CPU ms per second of audio per stream,
 * how many real-time streams one core carries, and the p99 / max wall time of one push (the media path's own wait;
 * on a loaded machine it shows the scheduler more than the model).
 * Goal: 50 concurrent 8 kHz streams within one core, i.e. under 20 ms of CPU per stream-second.
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const FIXTURES = path.join(__dirname, '../test/fixtures/voice');

function audio(kind: 'speech' | 'noise', rate: VadSampleRate): Int16Array {
  if (kind === 'noise') return whiteNoise(rate * 4, 1000, 7);
  return readWav(fs.readFileSync(path.join(FIXTURES, `speech-${rate / 1000}k.wav`))).samples;
}

function measure(engine: VadEngine, rate: VadSampleRate, kind: 'speech' | 'noise'): string[] {
  const source = audio(kind, rate);
  const frame = rate / 50;
  const loops = Math.ceil((SECONDS * rate) / source.length);
  const frames = SECONDS * 50;
  const streams: VoiceActivity[] = Array.from({ length: STREAMS }, () =>
    createVoiceActivity({ engine, sampleRate: rate }),
  );
  // Each stream starts at its own place in the audio, as independent callers would.
  const offsets = streams.map((_, j) => Math.floor((j * source.length) / STREAMS / frame) * frame);
  const looped = new Int16Array(source.length * (loops + 1));
  for (let k = 0; k <= loops; k++) looped.set(source, k * source.length);
  const pushes: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < frames; i++)
    for (let j = 0; j < streams.length; j++) {
      const at = offsets[j] + i * frame;
      const t0 = performance.now();
      streams[j].push(looped.subarray(at, at + frame));
      pushes.push(performance.now() - t0);
    }
  const cpu = process.cpuUsage(cpu0);
  const perStreamSecond = (cpu.user + cpu.system) / 1000 / (STREAMS * SECONDS);
  pushes.sort((a, b) => a - b);
  return [
    `${streams[0].engine}${streams[0].engine === engine ? '' : ` (asked ${engine})`}`,
    `${rate / 1000} kHz`,
    kind === 'speech' ? 'spoken phrase, looped' : 'line noise (no gating)',
    perStreamSecond.toFixed(2),
    Math.floor(1000 / perStreamSecond).toString(),
    `${(percentile(pushes, 99) * 1000).toFixed(0)} / ${(pushes[pushes.length - 1] * 1000).toFixed(0)}`,
  ];
}

async function main(): Promise<void> {
  // The model is loaded, and each engine warmed up, before anything is measured.
  for (const engine of ['silero', 'energy'] as const) measure(engine, 8000, 'noise');
  const rows = [['engine', 'rate', 'audio', 'CPU ms / stream-s', 'streams / core', 'push wall p99 / max µs']];
  for (const rate of [8000, 16000] as const)
    for (const kind of ['speech', 'noise'] as const)
      for (const engine of ['silero', 'energy'] as const) rows.push(measure(engine, rate, kind));
  process.stdout.write(
    `${STREAMS} streams x ${SECONDS} s of audio each; goal: under 20 ms of CPU per 8 kHz stream-second (50 streams in one core)\n${table(rows)}\n`,
  );
  process.stdout.write(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, node ${process.version}\n`,
  );
}

runBench(main);
