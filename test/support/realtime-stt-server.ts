import { createServer, IncomingMessage, Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';

/** The words a test speaks: word `i` is audio held at the level (i + 1) * 1000 (see `spokenWords`). */
export const WORDS = [
  'hello',
  'I',
  'would',
  'like',
  'to',
  'book',
  'a',
  'table',
  'for',
  'two',
  'tonight',
  'please',
  'at',
  'seven',
  'thirty',
  'thanks',
  'yes',
  'no',
  'maybe',
  'later',
  'my',
  'name',
  'is',
  'Ada',
];

/**
 * Audio of words at `rate`: each word `wordMs` long at its level, `gapMs` of silence after each (null: a silence
 * of `wordMs`). Two same words in a row need a gap between them to be heard as two.
 */
export function spokenWords(
  ids: Array<number | null>,
  options: { wordMs?: number; gapMs?: number; rate?: number } = {},
): Int16Array {
  const { wordMs = 200, gapMs = 0, rate = 8000 } = options;
  const per = (ms: number) => Math.round((ms * rate) / 1000);
  const out = new Int16Array(ids.reduce((n: number) => n + per(wordMs) + per(gapMs), 0));
  let at = 0;
  for (const id of ids) {
    out.fill(id === null ? 0 : (id + 1) * 1000, at, at + per(wordMs));
    at += per(wordMs) + per(gapMs);
  }
  return out;
}

/**
 * What a connection hears in an item's audio instead of levels (recorded speech: see CorpusEar), one per item.
 */
export interface Ear {
  /** The item's next audio: 24 kHz 16-bit little-endian PCM. */
  push(pcm: Buffer): void;
  /** The words heard so far, in order (they only grow): each new one is a delta. */
  words(): string[];
  /** The item's whole transcript, at its commit. */
  text(): string;
}

/** A commit answered (or to be): when it came, when its `completed` went out (0 until then), and what it said. */
export interface CommitRecord {
  at: number;
  answeredAt: number;
  text: string;
  /** The item's audio, ms. */
  audioMs: number;
  ear?: Ear;
  /** The socket closed before the answer went out. */
  aborted: boolean;
}

/** What one connection does; each attempt (refused ones too) takes the plan of its number, from 0. */
export interface ConnectionPlan {
  /** Answer the upgrade 401 or 403, or answer the session update with an `error` event. */
  refuse?: 401 | 403 | 'session';
  /** Close the socket abruptly once this much audio arrived on it. */
  dropAfterMs?: number;
  /** Go silent once this much audio arrived: read nothing more (pings unanswered), close nothing. */
  stallAfterMs?: number;
  /** `live` (default): each word's delta as soon as its audio ends; `committed`: deltas only after a commit. */
  deltas?: 'live' | 'committed';
  /** From a commit (or a pause) to its `completed` transcript (default 30 ms). */
  completeLatencyMs?: number;
  /** Answer commits with an `error` naming the commit's event_id (as for an empty buffer). */
  errorOnCommit?: boolean;
  /** Answer commits with `conversation.item.input_audio_transcription.failed`. */
  failTranscription?: boolean;
  /** The words of this connection (default WORDS). */
  words?: string[];
  /** Hear the items' words with this (made once per item) instead of the audio's levels. */
  ear?: () => Ear;
  /** Close the socket abruptly once this many words were heard on it (after sending their deltas). */
  dropAfterWords?: number;
  /** The transcript a commit answers, from the words heard (default: as heard). */
  final?: (heard: string) => string;
}

/** One connection as the server saw it. */
export interface SeenConnection {
  url: string;
  headers: IncomingMessage['headers'];
  /** The session update received (null until it comes). */
  session: Record<string, unknown> | null;
  /** The types of the client events, in order. */
  events: string[];
  /** Milliseconds of audio received. */
  audioMs: number;
  /** Every word heard, in order (each once). */
  heard: string[];
  /** The deltas sent and when (performance.now()). */
  deltas: { at: number; text: string }[];
  closed: boolean;
}

const RATE = 24000;
/** Runs shorter than this are the edges between words (resampling), not words. */
const MIN_WORD_SAMPLES = RATE / 100;
/** Silence after speech for the server's VAD to cut (when the session asks for it). */
const VAD_SILENCE_SAMPLES = (RATE * 300) / 1000;

/** An item being heard: the words so far and the run of level now going on (or its ear). */
interface Heard {
  id: string;
  words: string[];
  level: number;
  run: number;
  silence: number;
  speaking: boolean;
  ear?: Ear;
  /** Its audio so far, in samples. */
  samples: number;
}

/**
 * A real local WebSocket server speaking the OpenAI Realtime API in transcription mode (current `session.update`
 * of type `transcription`, and the beta `transcription_session.update`), scriptable per connection. It hears the
 * words of `spokenWords` audio: a word ends when the level changes, and is a delta at once (`live`) or after the
 * commit; `completed` answers every word of the committed audio once.
 */
export class RealtimeSttServer {
  readonly connections: SeenConnection[] = [];
  /** Every commit (and server VAD pause) of every connection, in order. */
  readonly commits: CommitRecord[] = [];
  /** Told of each commit as it comes (its record is completed when answered). */
  onCommit?: (record: CommitRecord) => void;
  plan: (n: number) => ConnectionPlan = () => ({});
  private attempts = 0;
  private readonly sockets = new Set<WebSocket>();

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {}

  static async start(): Promise<RealtimeSttServer> {
    const server = createServer((_req, res) => res.writeHead(404).end());
    const wss = new WebSocketServer({ noServer: true });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new RealtimeSttServer(
      server,
      wss,
      `ws://127.0.0.1:${port}/v1/realtime?intent=transcription`,
    );
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      self.upgrade(req, socket, head),
    );
    return self;
  }

  reset(): void {
    this.connections.length = 0;
    this.commits.length = 0;
    this.attempts = 0;
    this.plan = () => ({});
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.wss.close(() => r()));
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const plan = this.plan(this.attempts++);
    const seen: SeenConnection = {
      url: req.url ?? '',
      headers: req.headers,
      session: null,
      events: [],
      audioMs: 0,
      heard: [],
      deltas: [],
      closed: false,
    };
    this.connections.push(seen);
    if (plan.refuse === 401 || plan.refuse === 403) {
      seen.closed = true;
      socket.end(`HTTP/1.1 ${plan.refuse} ${plan.refuse === 401 ? 'Unauthorized' : 'Forbidden'}\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      ws.on('close', () => {
        seen.closed = true;
        this.sockets.delete(ws);
      });
      new Session(ws, plan, seen, (record) => {
        this.commits.push(record);
        this.onCommit?.(record);
      }).begin();
    });
  }
}

/** One connection's conversation. */
class Session {
  private beta = false;
  private vad = false;
  private items = 0;
  private received = 0;
  private current: Heard;
  private readonly words: string[];

  constructor(
    private readonly ws: WebSocket,
    private readonly plan: ConnectionPlan,
    private readonly seen: SeenConnection,
    private readonly committed: (record: CommitRecord) => void,
  ) {
    this.words = plan.words ?? WORDS;
    this.current = this.newItem();
  }

  begin(): void {
    this.ws.on('message', (raw: WebSocket.RawData) => this.onMessage(JSON.parse((raw as Buffer).toString())));
    this.send({ type: 'session.created', session: { type: 'transcription' } });
  }

  private send(event: Record<string, unknown>, afterMs = 0, sent?: () => void): void {
    const go = () => {
      sent?.();
      if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(event));
    };
    if (afterMs > 0) setTimeout(go, afterMs).unref();
    else go();
  }

  private newItem(): Heard {
    return {
      id: `item_${++this.items}`,
      words: [],
      level: 0,
      run: 0,
      silence: 0,
      speaking: false,
      ear: this.plan.ear?.(),
      samples: 0,
    };
  }

  private onMessage(e: {
    type: string;
    event_id?: string;
    audio?: string;
    session?: Record<string, any>;
  }): void {
    this.seen.events.push(e.type);
    switch (e.type) {
      case 'session.update':
      case 'transcription_session.update': {
        this.seen.session = e.session ?? {};
        this.beta = e.type === 'transcription_session.update';
        const turn = this.beta ? e.session?.turn_detection : e.session?.audio?.input?.turn_detection;
        this.vad = turn?.type === 'server_vad';
        if (this.plan.refuse === 'session')
          return this.send({
            type: 'error',
            error: { type: 'invalid_request_error', code: 'invalid_session', message: 'Session refused' },
          });
        return this.send({
          type: this.beta ? 'transcription_session.updated' : 'session.updated',
          session: e.session,
        });
      }
      case 'input_audio_buffer.append':
        return this.onAudio(Buffer.from(e.audio ?? '', 'base64'));
      case 'input_audio_buffer.commit':
        return this.commit(e.event_id);
      case 'input_audio_buffer.clear':
        this.current = this.newItem();
        return this.send({ type: 'input_audio_buffer.cleared' });
    }
  }

  private onAudio(pcm: Buffer): void {
    const samples = pcm.length >> 1;
    this.received += samples;
    this.seen.audioMs = (this.received * 1000) / RATE;
    this.current.samples += samples;
    const ear = this.current.ear;
    if (ear) {
      ear.push(pcm);
      for (const word of ear.words().slice(this.current.words.length)) this.word(word);
    } else for (let i = 0; i < samples; i++) this.hear(Math.round(pcm.readInt16LE(i * 2) / 1000));
    if (this.plan.dropAfterWords !== undefined && this.seen.heard.length >= this.plan.dropAfterWords)
      this.ws.terminate();
    if (this.plan.dropAfterMs !== undefined && this.seen.audioMs >= this.plan.dropAfterMs)
      this.ws.terminate();
    if (
      this.plan.stallAfterMs !== undefined &&
      this.seen.audioMs >= this.plan.stallAfterMs &&
      !this.ws.isPaused
    ) {
      this.ws.pause();
      this.ws.removeAllListeners('message');
    }
  }

  /** One sample's level: a run of one level is a word (or silence), ended by the next level. */
  private hear(level: number): void {
    const h = this.current;
    if (level === h.level) h.run++;
    else {
      this.endRun();
      h.level = level;
      h.run = 1;
    }
    if (level === 0) h.silence++;
    else {
      h.silence = 0;
      if (!h.speaking && this.vad && h.run === MIN_WORD_SAMPLES) {
        h.speaking = true;
        this.send({ type: 'input_audio_buffer.speech_started', item_id: h.id });
      }
    }
    if (this.vad && h.speaking && h.silence === VAD_SILENCE_SAMPLES) this.pause();
  }

  private endRun(): void {
    const h = this.current;
    if (h.level <= 0 || h.run < MIN_WORD_SAMPLES) return;
    this.word(this.words[h.level - 1] ?? `w${h.level - 1}`);
    h.run = 0;
  }

  /** A word heard in the current item: its delta at once (`live`). */
  private word(word: string): void {
    const h = this.current;
    h.words.push(word);
    this.seen.heard.push(word);
    if ((this.plan.deltas ?? 'live') !== 'live') return;
    const delta = h.words.length > 1 ? ` ${word}` : word;
    this.seen.deltas.push({ at: performance.now(), text: delta });
    this.send({
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: h.id,
      content_index: 0,
      delta,
    });
  }

  /** The server's VAD heard a pause: it cuts the item where the silence reached its length. */
  private pause(): void {
    const h = this.current;
    const audioEndMs = Math.round((this.received * 1000) / RATE);
    this.send({ type: 'input_audio_buffer.speech_stopped', item_id: h.id, audio_end_ms: audioEndMs });
    this.answer(h);
  }

  private commit(eventId: string | undefined): void {
    const h = this.current;
    if (this.plan.errorOnCommit)
      return this.send({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          code: 'input_audio_buffer_commit_empty',
          message: 'buffer too small',
          event_id: eventId,
        },
      });
    if (!h.ear) this.endRun();
    this.answer(h);
  }

  /** Commits the item heard so far: `committed`, its deltas (when not live), then `completed` (or `failed`). */
  private answer(h: Heard): void {
    this.current = this.newItem();
    this.send({ type: 'input_audio_buffer.committed', item_id: h.id, previous_item_id: null });
    const latency = this.plan.completeLatencyMs ?? 30;
    const heard = h.ear ? h.ear.text() : h.words.join(' ');
    const transcript = this.plan.final ? this.plan.final(heard) : heard;
    const record: CommitRecord = {
      at: performance.now(),
      answeredAt: 0,
      text: transcript,
      audioMs: (h.samples * 1000) / RATE,
      ear: h.ear,
      aborted: false,
    };
    this.committed(record);
    const answered = () => {
      if (this.ws.readyState === WebSocket.OPEN) record.answeredAt = performance.now();
      else record.aborted = true;
    };
    if (this.plan.failTranscription)
      return this.send(
        {
          type: 'conversation.item.input_audio_transcription.failed',
          item_id: h.id,
          content_index: 0,
          error: { type: 'transcription_error', message: 'audio unreadable' },
        },
        latency,
        answered,
      );
    if (this.plan.deltas === 'committed')
      transcript.split(' ').forEach((w, i) =>
        this.send({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: h.id,
          content_index: 0,
          delta: i ? ` ${w}` : w,
        }),
      );
    this.send(
      {
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: h.id,
        content_index: 0,
        transcript,
      },
      latency,
      answered,
    );
  }
}
