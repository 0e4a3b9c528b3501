import { performance } from 'node:perf_hooks';
import { wav } from '@/modules/voice/media/audio';

const RATE = 16000;
const BLOCK = RATE; // one second of samples per block
/** Past this (about 35 minutes) the recording keeps what it has and stops growing. */
const MAX_SAMPLES = 32 * 1024 * 1024;
/** A side that fell this far behind the clock (the caller muted, the agent silent) resumes at the clock. */
const GAP_SAMPLES = (RATE * 120) / 1000;

/**
 * A web call's recording: the caller's audio and the agent's frames mixed into one 16 kHz track, each side placed
 * on the call's clock (a pause leaves silence, jitter does not shift it), in one-second blocks.
 */
export class WebCallRecorder {
  private readonly started = performance.now();
  private readonly blocks: Int16Array[] = [];
  private readonly cursors = { caller: 0, agent: 0 };
  private length = 0;

  /** 16-bit little-endian PCM at 16 kHz from either side. */
  add(side: 'caller' | 'agent', pcm: Buffer): void {
    const n = pcm.length >> 1;
    const clock = Math.round(((performance.now() - this.started) * RATE) / 1000);
    let at = this.cursors[side];
    if (clock - n - at > GAP_SAMPLES) at = clock - n;
    if (at + n > MAX_SAMPLES) return;
    for (let i = 0; i < n; i++) {
      const p = at + i;
      const block =
        this.blocks[Math.floor(p / BLOCK)] ?? (this.blocks[Math.floor(p / BLOCK)] = new Int16Array(BLOCK));
      const mixed = block[p % BLOCK] + pcm.readInt16LE(i * 2);
      block[p % BLOCK] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed;
    }
    this.cursors[side] = at + n;
    this.length = Math.max(this.length, at + n);
  }

  get seconds(): number {
    return this.length / RATE;
  }

  /** The mixed audio as a mono 16 kHz WAV file. */
  wav(): Buffer {
    const out = new Int16Array(this.length);
    this.blocks.forEach((block, i) => {
      if (block) out.set(block.subarray(0, Math.min(BLOCK, this.length - i * BLOCK)), i * BLOCK);
    });
    return wav(out, RATE);
  }
}
