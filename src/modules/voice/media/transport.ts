/** How a media session reaches the far end: Twilio Media Streams and the browser's WebSocket are two of these. */
export interface MediaTransport {
  readonly kind: 'twilio' | 'web';
  /** Sample rate of the PCM the session receives (8000 for Twilio, 16000 for web) and of the frames it sends back. */
  readonly sampleRate: 8000 | 16000;
  /** One 20 ms frame of the agent's audio in the transport's codec (µ-law 8 kHz for Twilio, 16-bit PCM 16 kHz for web). */
  sendAudio(frame: Buffer): void;
  /** A named mark after the audio sent so far; the far end echoes it back through `MediaSession.mark(name)` once played. */
  sendMark(name: string): void;
  /** Drops the agent's audio queued at the far end (barge-in). */
  clear(): void;
  /** Optional small JSON events for a page (transcript, status, turn timings); Twilio ignores them. */
  event?(e: { type: string } & Record<string, unknown>): void;
}
