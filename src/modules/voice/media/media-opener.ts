import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { Call } from '@/modules/calls/call.entity';
import { CallInstance } from '@/modules/calls/runtime/call-instance';
import { CallLifecycle } from '@/modules/calls/runtime/call-lifecycle.service';
import { CallRuntime } from '@/modules/calls/runtime/call-runtime.service';
import { CallsService } from '@/modules/calls/api/calls.service';
import { AgentContextReader } from '@/modules/conversations/agent-context';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { TurnLatencyService } from '@/modules/conversations/turn-latency.service';
import { UsageRecorder } from '@/modules/usage/usage-recorder';
import {
  SPEECH_TO_TEXT,
  SPEECH_TO_TEXT_STREAM,
  SpeechToText,
  StreamingSpeechToText,
  sttModeOf,
  TEXT_TO_SPEECH,
  TextToSpeech,
} from '@/providers/speech/speech.port';
import { callSpeech } from './call-speech';
import { MediaSession, TurnTiming } from './media-session';
import { MediaSessions } from './media-sessions';
import type { StreamLink } from './stream-link';
import type { MediaTransport } from './transport';
import { sileroModel } from './vad';
import { voiceSettings } from './voice-settings';

/**
 * Opens a call's media session on its transport (a Twilio stream, a browser's socket), with the agent's voice
 * settings and the services it speaks through: the session is held here and this process owns the call from then
 * on. `answer` then answers the call.
 */
@Injectable()
export class MediaOpener implements OnModuleInit {
  /** Given to the sessions opened from now on: each turn's timing (the voice benchmark sets it). */
  onTurnTiming?: (timing: TurnTiming) => void;
  /** Counts the speech services' usage for the call each session serves. */
  @Inject(UsageRecorder) private readonly usage!: UsageRecorder;
  /** Speech to text while the caller speaks (realtime mode). */
  @Inject(SPEECH_TO_TEXT_STREAM) private readonly sttStream!: StreamingSpeechToText;
  /** Stores each reply's turn timing. */
  @Inject(TurnLatencyService) private readonly turnLatency!: TurnLatencyService;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SPEECH_TO_TEXT) private readonly stt: SpeechToText,
    @Inject(TEXT_TO_SPEECH) private readonly tts: TextToSpeech,
    private readonly sessions: MediaSessions,
    private readonly calls: CallsService,
    private readonly runtime: CallRuntime,
    private readonly lifecycle: CallLifecycle,
    private readonly agents: AgentContextReader,
    private readonly conversations: ConversationsService,
    private readonly instance: CallInstance,
  ) {}

  onModuleInit(): void {
    // The voice activity model loads once, before the first call needs it (a missing file is logged once).
    if (this.config.vad.engine === 'silero') sileroModel(this.config.vad.modelPath);
  }

  /**
   * The call's session on `transport` (sending through `link` on a Twilio stream), registered and the call claimed
   * for this process. A failure once it is registered lets it go again: the caller's socket closes on it.
   */
  async open(call: Call, transport: MediaTransport, link?: StreamLink): Promise<MediaSession> {
    const session = await this.newSession(call, transport);
    this.sessions.register(call.id, session, link);
    try {
      await this.calls.claimOwner(call.workspaceId, call.id, call.ownerId, this.instance.id);
    } catch (err) {
      this.sessions.drop(call.id, session);
      throw err;
    }
    return session;
  }

  /**
   * The call of an opened session is answered (`detail` goes to its provider log): the agent's first message and the
   * speech kept for it are spoken (resolves once they were played).
   */
  async answer(call: Call, session: MediaSession, detail: Record<string, unknown>): Promise<void> {
    if (call.status !== 'in-progress')
      await this.lifecycle.providerEvent(call.workspaceId, call.id, { status: 'in-progress', detail });
    await this.sessions.flushPending(session);
  }

  /** A call's media session on its transport, with the agent's voice settings and the services it speaks through. */
  private async newSession(call: Call, transport: MediaTransport): Promise<MediaSession> {
    const { workspaceId, id: callId } = call;
    const agent = await this.agents.agent(workspaceId, call.agentId!);
    const speech = callSpeech(
      this.usage.scope(workspaceId, callId),
      { stt: this.stt, tts: this.tts, stream: this.sttStream },
      {
        workspaceId,
        callId,
        mode: sttModeOf(agent.settings?.voice, this.config.speech.stt.mode),
        callLimit: this.config.limits.maxConcurrentCalls,
      },
    );
    // The endpointing defaults are the call's mode's: realtime when its words come from a stream.
    const settings = voiceSettings(agent, speech.sttStream ? 'realtime' : 'batch');
    return new MediaSession(workspaceId, callId, transport, settings, {
      ...speech,
      runtime: this.runtime,
      interrupted: (id) => this.conversations.markInterrupted(workspaceId, id),
      onTurnTiming: this.onTurnTiming,
      latency: (id, latency) => void this.turnLatency.record(workspaceId, id, latency),
      vad: this.config.vad,
    });
  }
}
