import { EventEmitter } from 'node:events';
import { PcmResampler, REALTIME_RATE } from './pcm-resampler';
import { ConnectFailure, RealtimeConnection } from './realtime-stt.connection';
import { Ledger, Segment } from './realtime-stt.ledger';
import type { ServerEvent } from './realtime-stt.protocol';
import { SpeechError, SttStream, SttStreamEvents } from './speech.port';

/** Why a stream fell back: the session refused, the service unreachable at open, or lost for longer than allowed. */
export type FallbackCause = 'refused' | 'unreachable' | 'lost';

/** What a stream needs from its provider: how to connect, its bounds, and where to report. */
export interface StreamContext {
  connect(timeoutMs: number): Promise<RealtimeConnection>;
  serverVad: boolean;
  limits: RealtimeSttLimits;
  /** The connection came back after a loss. */
  reconnected(): void;
  /** A reconnect under way (the message never holds the key). */
  warn(message: string): void;
  /** The stream fell back: logged once, counted by cause. */
  fellBack(cause: FallbackCause, message: string): void;
  /** The service failed the stream (a commit timed out, a segment failed, an error event, the fallback): counted. */
  failed(err: SpeechError): void;
  /** The stream is over (closed or fallen back), once. */
  ended(): void;
  /** Audio sent to the service (resent audio too), in milliseconds, at each commit and at the end. */
  used(ms: number): void;
}

export interface RealtimeSttLimits {
  /** How long opening, or coming back after a loss, may try before the stream falls back (5 s). */
  connectWithinMs: number;
  /** How long a commit waits for its words (10 s). */
  finalTimeoutMs: number;
  /** The audio kept to send again after a reconnect (60 s): older audio of an unanswered turn is lost. */
  maxRetainedMs: number;
  /** A ping this often (10 s); a connection that missed answering one is taken as lost. */
  keepAliveMs: number;
}

export const REALTIME_STT_LIMITS: RealtimeSttLimits = {
  connectWithinMs: 5_000,
  finalTimeoutMs: 10_000,
  maxRetainedMs: 60_000,
  keepAliveMs: 10_000,
};

/** Less than this the service refuses to commit (OpenAI: 100 ms); such a remainder is cleared instead. */
const MIN_COMMIT_SAMPLES = REALTIME_RATE / 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One connection's view of the audio: where it began and how far it was sent, its pending commits. */
interface Link {
  conn: RealtimeConnection;
  base: number;
  sent: number;
  /** Where the service's buffer was last cut (a commit or clear we sent, or its own pause). */
  cut: number;
  commits: Map<string, Segment>;
  /** Items the service cut at its pauses: `input_audio_buffer.speech_stopped`, by item id. */
  pauses: Map<string, number>;
  /** Where the service last cut at a pause it heard on this connection (-1: never). */
  lastPause: number;
  speaking: boolean;
}

/** A speech-to-text stream over the OpenAI Realtime API in transcription mode (see SttStream). */
export class RealtimeSttStream extends EventEmitter implements SttStream {
  private readonly resampler: PcmResampler;
  private readonly ledger = new Ledger();
  /** Audio kept for a reconnect: 24 kHz PCM pieces from `start` (sample position). */
  private readonly retained: Array<{ start: number; pcm: Buffer }> = [];
  private written = 0;
  private link: Link | null = null;
  private state: 'connecting' | 'live' | 'over' = 'connecting';
  private commitSeq = 0;
  /** Samples sent and not yet reported as used. */
  private unreported = 0;

  constructor(
    private readonly ctx: StreamContext,
    sampleRate: 8000 | 16000 | 24000,
  ) {
    super();
    this.resampler = new PcmResampler(sampleRate);
  }

  /** Connects the first time: rejects (SpeechError `fallback`) when it cannot within the bound. */
  async start(): Promise<void> {
    await this.connectWithin('could not open');
  }

  push(samples: Int16Array): void {
    if (this.state === 'over' || !samples.length) return;
    const pcm = this.resampler.push(samples);
    this.retained.push({ start: this.written, pcm });
    this.written += pcm.length / 2;
    this.trimRetained();
    if (this.link) this.append(this.link, pcm);
  }

  commit(): Promise<string> {
    if (this.state === 'over')
      return Promise.reject(new SpeechError('Realtime speech to text is closed', 'fallback'));
    return new Promise<string>((resolve, reject) => {
      const segment = this.ledger.close(this.written, { resolve, reject });
      segment.timer = setTimeout(() => {
        this.ledger.drop(segment);
        reject(this.failure(`no transcript within ${this.ctx.limits.finalTimeoutMs} ms`, 'timeout'));
        this.settle();
      }, this.ctx.limits.finalTimeoutMs);
      if (!segment.acked && this.link) this.sendCommit(this.link, segment);
      this.reportUse();
      this.settle();
    });
  }

  interim(): string {
    return this.ledger.openShown;
  }

  close(): void {
    this.end(new SpeechError('Realtime speech to text was closed', 'aborted'));
  }

  override on<E extends keyof SttStreamEvents>(event: E, listener: SttStreamEvents[E]): this {
    return super.on(event, listener);
  }

  override off<E extends keyof SttStreamEvents>(event: E, listener: SttStreamEvents[E]): this {
    return super.off(event, listener);
  }

  /** Falls back for good: pending commits reject, `fallback` is emitted, the connection closes. */
  private fallBack(reason: string, cause: FallbackCause): SpeechError {
    const err = new SpeechError(`Realtime speech to text fell back to batch: ${reason}`, 'fallback');
    if (this.state === 'over') return err;
    this.ctx.fellBack(cause, err.message);
    this.ctx.failed(err);
    this.end(err);
    this.emit('fallback', err);
    return err;
  }

  /** An error of the service, counted. */
  private failure(message: string, kind: 'timeout' | 'invalid_response'): SpeechError {
    const err = new SpeechError(message, kind);
    this.ctx.failed(err);
    return err;
  }

  private end(err: SpeechError): void {
    if (this.state === 'over') return;
    this.state = 'over';
    this.link?.conn.close();
    this.link = null;
    for (const s of this.ledger.closing.splice(0)) {
      clearTimeout(s.timer);
      s.reject(err);
    }
    this.retained.length = 0;
    this.reportUse();
    this.ctx.ended();
  }

  private reportUse(): void {
    if (this.unreported) this.ctx.used(Math.round((this.unreported * 1000) / REALTIME_RATE));
    this.unreported = 0;
  }

  /** Tries to connect until the bound, backing off; a refusal or the bound passed falls back (and throws). */
  private async connectWithin(what: string): Promise<void> {
    const until = Date.now() + this.ctx.limits.connectWithinMs;
    let last = 'no attempt';
    let cause: FallbackCause = this.state === 'connecting' ? 'unreachable' : 'lost';
    for (let attempt = 0; !this.over(); attempt++) {
      const left = until - Date.now();
      if (left <= 0) break;
      try {
        const conn = await this.ctx.connect(left);
        if (this.over()) return conn.close();
        return this.attach(conn);
      } catch (err) {
        last = (err as Error).message;
        if (err instanceof ConnectFailure && err.refused) {
          cause = 'refused';
          break;
        }
        await sleep(Math.min(100 * 2 ** attempt, 1000, Math.max(0, until - Date.now())));
      }
    }
    if (this.over()) throw new SpeechError('Realtime speech to text was closed', 'aborted');
    throw this.fallBack(`${what}: ${last}`, cause);
  }

  private over(): boolean {
    return this.state === 'over';
  }

  /** Takes a new connection and sends it again what the service has not answered, commits where they were. */
  private attach(conn: RealtimeConnection): void {
    const from = this.ledger.resumeAt();
    const link: Link = {
      conn,
      base: from,
      sent: from,
      cut: from,
      commits: new Map(),
      pauses: new Map(),
      lastPause: -1,
      speaking: false,
    };
    this.link = link;
    this.state = 'live';
    conn.on('event', (e) => this.onEvent(link, e));
    conn.on('lost', (why) => this.onLost(link, why));
    for (const s of this.ledger.closing) {
      if (s.acked) continue;
      this.sendRetained(link, s.end);
      this.sendCommit(link, s);
    }
    this.sendRetained(link, this.written);
    this.settle();
  }

  private onLost(link: Link, why: string): void {
    if (this.link !== link || this.state === 'over') return;
    this.link = null;
    link.conn.close();
    this.ctx.warn(`Realtime speech to text connection lost (${why}), reconnecting`);
    this.connectWithin('lost and could not reconnect').then(
      () => this.ctx.reconnected(),
      () => undefined, // fallen back: reported through the event
    );
  }

  private sendRetained(link: Link, until: number): void {
    for (const { start, pcm } of this.retained) {
      const end = start + pcm.length / 2;
      if (end <= link.sent || start >= until) continue;
      // Audio dropped past the kept length: the service's clock skips it too.
      if (start > link.sent) {
        link.base += start - link.sent;
        link.sent = start;
      }
      this.append(link, pcm.subarray((link.sent - start) * 2, (Math.min(until, end) - start) * 2));
    }
  }

  private append(link: Link, pcm: Buffer): void {
    link.conn.send({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') });
    link.sent += pcm.length / 2;
    this.unreported += pcm.length / 2;
  }

  /**
   * Cuts the service's buffer at the segment's end. A remainder the service would refuse (under 100 ms) or that
   * holds no speech (server VAD: it cut at the pause and heard nothing since) is cleared instead.
   */
  private sendCommit(link: Link, s: Segment): void {
    const remainder = s.end - link.cut;
    const silentTail = this.ctx.serverVad && !link.speaking && link.lastPause > s.start;
    link.cut = s.end;
    if (remainder < MIN_COMMIT_SAMPLES || silentTail) {
      link.conn.send({ type: 'input_audio_buffer.clear' });
      s.acked = true;
      return;
    }
    const eventId = `commit_${++this.commitSeq}`;
    link.commits.set(eventId, s);
    link.conn.send({ type: 'input_audio_buffer.commit', event_id: eventId });
  }

  private onEvent(link: Link, e: ServerEvent): void {
    if (this.link !== link || e.kind === 'other' || e.kind === 'ready') return;
    const { ledger } = this;
    switch (e.kind) {
      case 'speech_started':
        link.speaking = true;
        break;
      case 'speech_stopped':
        link.speaking = false;
        if (e.itemId !== undefined)
          link.pauses.set(
            e.itemId,
            link.base + Math.round(((e.audioEndMs ?? Infinity) * REALTIME_RATE) / 1000),
          );
        break;
      case 'committed':
        this.onCommitted(link, e.itemId);
        break;
      case 'delta':
        ledger.item(e.itemId).text += e.text;
        break;
      case 'completed':
        Object.assign(ledger.item(e.itemId), { text: e.text, done: true });
        break;
      case 'failed':
        Object.assign(ledger.item(e.itemId), { done: true, failed: e.message });
        break;
      case 'error': {
        const s = e.eventId !== undefined ? link.commits.get(e.eventId) : undefined;
        // A commit the service would not make (an empty buffer): the segment has the words it already has.
        if (s) {
          link.commits.delete(e.eventId!);
          s.acked = true;
        } else {
          const err = this.failure(`speech service error: ${e.message}`, 'invalid_response');
          if (this.listenerCount('error')) this.emit('error', err);
        }
        break;
      }
    }
    this.settle();
  }

  /** The service cut its buffer: at a pause it heard (server VAD), else at our oldest commit. */
  private onCommitted(link: Link, itemId: string | undefined): void {
    const pause = itemId !== undefined ? link.pauses.get(itemId) : undefined;
    if (pause !== undefined) {
      const end = Math.min(pause, link.sent);
      link.cut = Math.max(link.cut, end);
      link.lastPause = end;
      return this.ledger.cut(itemId, end);
    }
    const oldest = link.commits.entries().next();
    if (oldest.done) return;
    const [eventId, segment] = oldest.value;
    link.commits.delete(eventId);
    segment.acked = true;
    this.ledger.cut(itemId, segment.end);
  }

  /** Answers the segments now complete, then gives out the new words. */
  private settle(): void {
    const { ledger } = this;
    for (const { segment, text, failed } of ledger.takeComplete()) {
      clearTimeout(segment.timer);
      if (failed)
        segment.reject(this.failure(`speech service failed the segment: ${failed}`, 'invalid_response'));
      else {
        segment.resolve(text);
        this.emit('final', text);
      }
    }
    for (const s of ledger.closing) s.shown = this.show(s.shown, ledger.heard(s), true);
    ledger.openShown = this.show(ledger.openShown, ledger.heard(null), false);
    this.trimRetained();
  }

  /** Emits the words of `heard` past those already shown; answers what is shown now. */
  private show(shown: string, heard: string, committed: boolean): string {
    if (heard.length <= shown.length) return shown;
    this.emit('delta', heard.slice(shown.length), committed);
    return heard;
  }

  /** Drops audio no reconnect will need: before the first unanswered segment, and beyond the kept length. */
  private trimRetained(): void {
    const keepFrom = Math.max(
      this.ledger.closing[0]?.start ?? this.ledger.openStart,
      this.written - (this.ctx.limits.maxRetainedMs * REALTIME_RATE) / 1000,
    );
    while (this.retained.length) {
      const first = this.retained[0];
      if (first.start + first.pcm.length / 2 > keepFrom) break;
      this.retained.shift();
    }
  }
}
