import { performance } from 'node:perf_hooks';
import { FRAME_MS } from './audio';

/** How far ahead of real time frames may be sent: little, so that a barge-in `clear` cuts the agent quickly. */
export const AHEAD_MS = 60;
/** A frame sent this far behind its schedule is late. */
export const LATE_MS = 40;

type Item = { frame: Buffer; sent?: (at: number) => void } | { mark: string };

/** Counters every player adds to (the voice benchmark reads them). */
export const playerStats = { framesSent: 0, framesLate: 0 };

/**
 * Sends the agent's audio as 20 ms frames paced to real time (at most AHEAD_MS ahead), with a `mark` after each
 * reply. The timers here pace audio on an open socket; they are not product timers and die with the socket.
 */
export class FramePlayer {
  private readonly queue: Item[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private held = false;
  /** Called with the time the first frame after an idle period went out. */
  onFirstFrame: ((at: number) => void) | null = null;

  constructor(
    private readonly sendFrame: (frame: Buffer) => void,
    private readonly sendMark: (name: string) => void,
  ) {}

  /** Queues frames; `sent` is called when the first of them goes out. */
  enqueue(frames: Buffer[], sent?: (at: number) => void): void {
    frames.forEach((frame, i) => this.queue.push(i === 0 && sent ? { frame, sent } : { frame }));
    this.pump();
  }

  mark(name: string): void {
    this.queue.push({ mark: name });
    this.pump();
  }

  /** Frames still to send. */
  busy(): boolean {
    return this.queue.some((i) => 'frame' in i);
  }

  clear(): void {
    this.queue.length = 0;
    this.held = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops sending, keeping what is queued (the caller may be interrupting); `release` goes on from there. */
  hold(): void {
    this.held = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.pump();
  }

  /** Whether sending is held. */
  get holding(): boolean {
    return this.held;
  }

  private pump(): void {
    if (this.timer || this.held) return;
    const now = performance.now();
    // After a pause the schedule starts again from now.
    if (this.next < now - FRAME_MS) {
      this.next = now;
      if (this.queue.some((i) => 'frame' in i)) this.onFirstFrame?.(now);
    }
    while (this.queue.length && this.next <= now + AHEAD_MS) {
      const item = this.queue.shift()!;
      if ('mark' in item) {
        this.sendMark(item.mark);
        continue;
      }
      if (now - this.next > LATE_MS) playerStats.framesLate += 1;
      playerStats.framesSent += 1;
      this.sendFrame(item.frame);
      item.sent?.(performance.now());
      this.next += FRAME_MS;
    }
    if (!this.queue.length) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.pump();
      },
      Math.max(1, this.next - AHEAD_MS - now),
    );
  }
}
