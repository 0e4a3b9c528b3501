import { performance } from 'node:perf_hooks';
import type { TextToSpeech } from '@/providers/speech/speech.port';
import { FrameFormat, FrameStream } from './audio';
import { FramePlayer } from './frame-player';
import type { TurnTiming, VoiceSettings } from './media-session.types';
import { SentenceSplitter } from './sentences';
import { prefetch, whole } from './speech-stream';
import type { MediaTransport } from './transport';

/** Longest wait for the far end to confirm a message was played before an action that follows it. */
export const PLAYED_WAIT_CAP_MS = 15_000;

/**
 * One reply or message being spoken: the epoch it belongs to, its stored message once known, whether any of it was
 * sent to be heard, whether it was cut.
 */
export interface Voice {
  epoch: number;
  messageId?: string;
  spoke: boolean;
  cut: boolean;
}

/** What playback tells its session. */
export interface PlaybackHooks {
  /** The first frame of a timed turn's reply went out. */
  firstFrame(timing: TurnTiming, at: number): void;
  /** The agent's audio started after an idle period. */
  speaking(): void;
  failed(err: Error, what: string): void;
}

/**
 * The agent's side of a media session: phrases synthesised as they come (streamed, or whole with `stream_speech`
 * false) and played paced to real time in the transport's codec, in order, each reply followed by a mark the far end
 * echoes once it played; `stop` cuts it all (barge-in). Phrases of an older epoch (before a cut) are dropped.
 */
export class SessionPlayback {
  private readonly player: FramePlayer;
  /** Aborted when the agent's audio is cut: the speech requests under way stop. */
  private speech = new AbortController();
  private synth: Promise<void> = Promise.resolve();
  /** Bumped on barge-in: sentences of an older epoch are dropped. */
  epoch = 0;
  private readonly marks = new Map<string, () => void>();
  /** The message whose audio is playing now (for `interrupted`). */
  speaking: string | null = null;
  private closed = false;

  constructor(
    private readonly transport: MediaTransport,
    private readonly settings: VoiceSettings,
    private readonly tts: TextToSpeech,
    private readonly hooks: PlaybackHooks,
  ) {
    this.player = new FramePlayer(
      (frame) => this.transport.sendAudio(frame),
      (name) => this.transport.sendMark(name),
    );
    this.player.onFirstFrame = () => this.hooks.speaking();
  }

  /** A new reply or message of the current epoch. */
  voice(messageId?: string): Voice {
    return { epoch: this.epoch, messageId, spoke: false, cut: false };
  }

  /** Whether the voice is still to be heard (not cut since, the session open). */
  live(voice: Voice): boolean {
    return voice.epoch === this.epoch && !this.closed;
  }

  /** The agent's audio is playing: frames to send or a mark not yet echoed. */
  playing(): boolean {
    return this.player.busy() || this.marks.size > 0;
  }

  /** Stops sending the agent's audio, keeping it. */
  hold(): void {
    this.player.hold();
  }

  release(): void {
    this.player.release();
  }

  /** The far end played up to the mark. */
  mark(name: string): void {
    const done = this.marks.get(name);
    this.marks.delete(name);
    if (this.speaking === name) this.speaking = null;
    done?.();
  }

  /** Stops the agent's audio now (barge-in, `mute`, `say` with `interrupt`). */
  stop(): void {
    this.epoch += 1;
    this.speech.abort();
    this.speech = new AbortController();
    this.player.clear();
    this.transport.clear();
    this.settleMarks();
  }

  close(): void {
    this.closed = true;
    this.speech.abort();
    this.player.clear();
    this.settleMarks();
  }

  /** The phrases of a whole text. */
  split(text: string): string[] {
    const splitter = new SentenceSplitter();
    return [...splitter.push(text), ...splitter.flush()];
  }

  /**
   * Once the voice's phrases were sent, marks its end as the message playing; resolves then (`played` false), or
   * once the far end played it (at most PLAYED_WAIT_CAP_MS). Nothing is marked for a voice cut meanwhile.
   */
  async end(voice: Voice, messageId: string, played: boolean): Promise<void> {
    await this.synth;
    if (!this.live(voice)) return;
    this.speaking = messageId;
    let heard: Promise<void> | undefined;
    if (played)
      heard = new Promise<void>((resolve) => {
        const cap = setTimeout(resolve, PLAYED_WAIT_CAP_MS);
        this.marks.set(messageId, () => {
          clearTimeout(cap);
          resolve();
        });
      });
    else this.marks.set(messageId, () => undefined);
    this.player.mark(messageId);
    await heard;
  }

  /** Waits until the phrases given so far were synthesised and queued. */
  async flushed(): Promise<void> {
    await this.synth;
  }

  /** Speaks a stored agent message (first message, `say`, a rule's words); resolves once played or cut. */
  async speak(text: string, messageId: string): Promise<void> {
    const voice = this.voice(messageId);
    for (const s of this.split(text)) this.sentence(s, voice);
    await this.end(voice, messageId, true);
  }

  /** The frames the transport takes: 8 kHz µ-law (Twilio) or 16 kHz PCM (web). */
  private get format(): FrameFormat {
    return this.transport.sampleRate === 8000 ? 'mulaw-8k' : 'pcm-16k';
  }

  /**
   * Synthesis starts at once (its audio gathered as it comes); playback keeps the order of the phrases, each
   * played from its first audio on (whole once synthesised with `stream_speech` false).
   */
  sentence(text: string, voice: Voice, timing?: TurnTiming): void {
    if (!this.live(voice)) return;
    const first = timing && !timing.firstSentenceAt ? timing : undefined;
    if (first) first.firstSentenceAt = performance.now();
    const options = { voice: this.settings.voice, speed: this.settings.speed };
    const signal = this.speech.signal;
    const audio = prefetch(
      this.settings.streamSpeech
        ? this.tts.synthesizeStream(text, options, signal)
        : whole(this.tts.synthesize(text, options, signal)),
      () => {
        if (first && !first.firstAudioAt) first.firstAudioAt = performance.now();
      },
    );
    this.synth = this.synth.then(async () => {
      const frames = new FrameStream(this.format);
      try {
        for await (const pcm of audio) {
          if (!this.live(voice)) return;
          const out = frames.push(pcm);
          if (!out.length) continue;
          const sent = first && !voice.spoke ? (at: number) => this.hooks.firstFrame(first, at) : undefined;
          if (!voice.spoke && voice.messageId) this.speaking = voice.messageId;
          voice.spoke = true;
          this.player.enqueue(out, sent);
        }
        if (this.live(voice)) this.player.enqueue(frames.flush());
      } catch (err) {
        if (!signal.aborted) this.hooks.failed(err as Error, 'speech synthesis');
      }
    });
  }

  private settleMarks(): void {
    for (const done of this.marks.values()) done();
    this.marks.clear();
  }
}
