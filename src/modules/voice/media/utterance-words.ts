import { inCallTrace } from '@/common/telemetry/call-spans';
import { SpeechError, SpeechToText, SttStream } from '@/providers/speech/speech.port';
import { wav } from './audio';
import type { SttStreamOpener } from './media-session.types';

/**
 * The words of the utterance being heard, as turn-taking reads them: a batch transcription of its audio, or the
 * running transcript of the call's speech-to-text stream (realtime mode) with a commit for its final words.
 */
export interface UtteranceWords {
  /** An utterance starts (the detector heard speech): its words so far are none. */
  begin(): void;
  /** The caller's next frame, every one in order (after `begin` for the frame that started an utterance). */
  push(pcm: Int16Array): void;
  /** The words heard so far, as they arrive, without waiting; null when they come from batch transcriptions only. */
  interim(): string | null;
  /**
   * The utterance's final words up to now ('' for none, or when the service failed: logged): a stream's open segment
   * is committed, the words being those of all the utterance's segments; in batch `audio` (the utterance so far) is
   * transcribed. `forTurn`: a turn may start on them (the call's row and history are read meanwhile).
   */
  final(audio: Int16Array, forTurn?: boolean): Promise<string>;
  /** The utterance is over (taken as a turn, or dropped): what follows is another one. */
  end(): void;
}

/** What the words of a call need from its session. */
export interface WordsHost {
  callId: string;
  /** Batch speech to text (counted in the call's usage). */
  stt: SpeechToText;
  /** The call's speech-to-text stream in realtime mode. */
  stream?: SttStreamOpener;
  language: string | null;
  /** The rate of the frames. */
  sampleRate: 8000 | 16000;
  /**
   * An utterance starts; `streamed`: its words are read from the stream as it is heard (a turn may start at its
   * pause on them, without waiting for speech to text).
   */
  began(streamed: boolean): void;
  /** A turn may start soon: the call's row and history are read ahead. */
  prepare(): void;
  failed(err: Error, what: string): void;
}

/**
 * Frames kept back from the stream between utterances: an utterance's first frames are heard before the detector
 * says it started (60 ms of speech and the frame before), and belong to its segment, not to the one before it.
 */
export const LEAD_IN_FRAMES = 10;

/** Words compared as a listener would: case, punctuation and spacing aside. */
export const sameWords = (a: string, b: string): boolean => plain(a) === plain(b);

const plain = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();

const joined = (texts: string[]): string =>
  texts
    .map((t) => t.trim())
    .filter(Boolean)
    .join(' ');

/**
 * A committed segment: its final words once answered; until then the words it showed, and those a service that
 * transcribes committed audio gives of it (deltas of a committed segment).
 */
interface Segment {
  text: string;
}

/** An utterance: read from the stream or not, its committed segments, the audio of it the stream was sent (ms). */
interface Utterance {
  streamed: boolean;
  segments: Segment[];
  sentMs: number;
}

/**
 * A call's utterance words: transcribed in batch, or read from its speech-to-text stream once one is attached. The
 * stream hears every frame; each utterance is a run of segments of its own: the audio before it is committed apart
 * when it starts (its words are no one's turn: silence, noise, a backchannel let go), and each `final` commits the
 * audio since the last one. An utterance that began before the stream was attached is heard in batch. When the stream
 * fails (it fell back for good, a commit timed out or failed), the utterance is transcribed whole in batch, the audio
 * the stream already counted not counted again; after a fallback every utterance is.
 */
export class CallWords implements UtteranceWords {
  private stream: SttStream | null = null;
  /** The utterance being heard (null between utterances). */
  private current: Utterance | null = null;
  /** Frames not yet sent to the stream (between utterances). */
  private held: Int16Array[] = [];
  /** Every segment committed and not answered yet, in order (those before an utterance too). */
  private readonly awaiting: Segment[] = [];

  constructor(private readonly host: WordsHost) {}

  /**
   * Opens the call's stream (realtime mode): its words are read from the next utterance on. `signal` (the session
   * closing) closes it.
   */
  async listen(signal: AbortSignal): Promise<void> {
    const { stream: opener, sampleRate, language } = this.host;
    const stream = await opener?.open({ sampleRate, language, signal });
    if (!stream) return;
    if (signal.aborted) return stream.close();
    this.attach(stream);
  }

  /** The stream the call's words are read from, from the next utterance on; its fallback returns them to batch. */
  attach(stream: SttStream): void {
    this.stream = stream;
    stream.on('delta', (text, committed) => {
      if (committed && this.awaiting.length) this.awaiting[0].text += text;
    });
    stream.on('fallback', () => {
      if (this.stream !== stream) return;
      this.stream = null;
      this.held = [];
    });
  }

  begin(): void {
    const stream = this.stream;
    this.current = { streamed: stream !== null, segments: [], sentMs: 0 };
    this.host.began(stream !== null);
    if (!stream) return;
    // The audio before the utterance is a segment of its own, its words nobody's turn.
    this.commit(stream, { text: stream.interim() }).catch(() => undefined);
    for (const frame of this.held.splice(0)) this.send(stream, frame);
  }

  push(pcm: Int16Array): void {
    const stream = this.stream;
    if (!stream) return;
    if (this.current?.streamed) return this.send(stream, pcm);
    this.held.push(pcm);
    if (this.held.length > LEAD_IN_FRAMES) stream.push(this.held.shift()!);
  }

  interim(): string | null {
    const { stream, current } = this;
    if (!current?.streamed || !stream) return null;
    return joined([...current.segments.map((s) => s.text), stream.interim()]);
  }

  async final(audio: Int16Array, forTurn = false): Promise<string> {
    const { stream, current } = this;
    if (!current?.streamed || !stream) return this.batch(audio, forTurn, current);
    if (forTurn) this.host.prepare();
    const { segments } = current;
    const segment: Segment = { text: stream.interim() };
    segments.push(segment);
    try {
      segment.text = await this.commit(stream, segment);
    } catch (err) {
      if (err instanceof SpeechError && err.kind === 'aborted') return ''; // the call is over
      // Fell back, timed out or failed: the utterance so far is transcribed whole instead.
      const text = await this.batch(audio, false, current);
      segments.splice(0, segments.indexOf(segment) + 1, { text });
    }
    return joined(segments.map((s) => s.text));
  }

  end(): void {
    this.current = null;
  }

  /** The stream is closed (the session is over). */
  close(): void {
    this.stream?.close();
    this.stream = null;
    this.held = [];
  }

  /** Commits the stream's open segment: its final words. */
  private async commit(stream: SttStream, segment: Segment): Promise<string> {
    this.awaiting.push(segment);
    try {
      return await stream.commit();
    } finally {
      this.awaiting.splice(this.awaiting.indexOf(segment), 1);
    }
  }

  private send(stream: SttStream, pcm: Int16Array): void {
    stream.push(pcm);
    if (this.current) this.current.sentMs += (pcm.length * 1000) / this.host.sampleRate;
  }

  /** A batch transcription of the utterance's audio; the part the stream heard (and counted) is not counted again. */
  private batch(audio: Int16Array, forTurn: boolean, utterance: Utterance | null): Promise<string> {
    if (utterance && utterance.sentMs > 0) {
      this.host.stream?.counted(Math.min(utterance.sentMs, (audio.length * 1000) / this.host.sampleRate));
      utterance.sentMs = 0;
    }
    return this.transcribe(audio, forTurn);
  }

  /** The words of the audio in batch ('' when the service fails: the failure is logged). */
  async transcribe(audio: Int16Array, forTurn = false): Promise<string> {
    const { host } = this;
    if (forTurn) host.prepare();
    try {
      const words = () => host.stt.transcribe(wav(audio, host.sampleRate), { language: host.language });
      return await inCallTrace(host.callId, words); // the stt span in the call's trace
    } catch (err) {
      host.failed(err as Error, 'speech to text');
      return '';
    }
  }
}
