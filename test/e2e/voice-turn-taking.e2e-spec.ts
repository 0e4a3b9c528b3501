import { DataSource } from 'typeorm';
import { twilioLine } from '../factories/twilio.factory';
import type { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import type { TestApp } from '../setup/test-app';
import { ApiProcess, startApiProcess } from '../support/api-process-client';
import { MediaClient } from '../support/media-client';
import { RealtimeLine, tone } from '../support/realtime-line';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { VoiceProfile, VoiceProviders } from '../support/voice-providers';
import { VoiceCorpus } from '../support/voice-providers-corpus';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice.example.test';
const VOICE = VoiceCorpus.load();
/** Providers a little faster than a good cloud, so that the spec runs quickly. */
const PROFILE: VoiceProfile = {
  name: 'spec',
  stt: { baseMs: 120, perAudioSecondMs: 50 },
  model: { firstTokenMs: 200, tokensPerSecond: 60 },
  tts: { firstByteMs: 100, realTime: 5 },
};
const REPLY = 'Let me check that for you. Anything else?';
const LONG =
  'Our store opens at nine in the morning on weekdays and at ten on Saturdays. On Sundays we open at noon.';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Message {
  uuid: string;
  sender: string;
  content: string;
  interrupted?: boolean;
  latency: Record<string, number | null> | null;
}

describe('voice turn-taking: smart endpointing, speculative turns, backchannels and interruptions', () => {
  // Declared before the suite start so the lines stop before the app does.
  afterAll(async () => {
    for (const l of lines) await l.stop();
    clients.forEach((c) => c.close());
  });
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      providers: () => VoiceProviders.start(VOICE, PROFILE),
    },
    env: ({ twilio, providers }) => env(twilio, providers),
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let twilio: TwilioServer;
  let providers: VoiceProviders;
  let db: DataSource;
  let line: { agentId: string };
  const clients: MediaClient[] = [];
  const lines: RealtimeLine[] = [];

  function env(tw: TwilioServer, p: VoiceProviders): Record<string, string> {
    return {
      LLM_BASE_URL: p.url,
      STT_BASE_URL: p.url,
      TTS_BASE_URL: p.url,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: tw.url,
      PUBLIC_BASE_URL: PUBLIC,
      VAD: 'silero',
    };
  }

  const messagesOf = async (id: string) =>
    (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data
      .items as Message[];
  const talk = (messages: Message[]) => messages.map((m) => [m.sender, m.content]);
  /** Waits until the call has `n` messages, the last one the agent's. */
  const messagesUntil = (id: string, n: number) =>
    waitFor(
      async () => {
        const m = await messagesOf(id);
        return m.length >= n && m[m.length - 1].sender === 'agent' ? m : undefined;
      },
      20_000,
      `${n} messages`,
    );
  /** Places a call and plays its Media Stream in real time from `url` (the app, or a replica). */
  const connected = async (url = app.url) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550170' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(
      async () => (await t.http.get(`/api/v1/calls/${id}`)).body.data.provider_call_id ?? undefined,
    )) as string;
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await MediaClient.fromTwiml(url, twiml, id, sid);
    clients.push(client);
    await waitFor(async () =>
      (await t.http.get(`/api/v1/calls/${id}`)).body.data.status === 'in-progress' ? true : undefined,
    );
    const caller = new RealtimeLine(client);
    lines.push(caller);
    await sleep(300);
    return { id, client, caller };
  };
  /** The agent's audio started after `at` (the reply to what was said then). */
  const replyAfter = (caller: RealtimeLine, at: number) =>
    waitFor(async () => caller.spurts.find((s) => s.start >= at), 15_000, 'the reply heard');

  beforeAll(async () => {
    ({ app, t, twilio, providers } = suite);
    db = app.get<DataSource>(DataSource);
    line = await twilioLine(t, { language: 'en', settings: { voice: { record: false } } });
  });
  beforeEach(() => {
    providers.reset();
    providers.reply = ({ json, lastUser }) =>
      json ? { content: '{}' } : { content: /open|order|ship/i.test(lastUser) ? LONG : REPLY };
  });

  it('a finished question is answered once, soon, with its timing stored on the reply', async () => {
    providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
    const { id, client, caller } = await connected();
    const said = await caller.say(VOICE.byId('question-01'));
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open tomorrow?'],
      ['agent', REPLY],
    ]);
    await waitFor(async () =>
      client.events('mark').some((m) => m.mark!.name === messages[1].uuid) ? true : undefined,
    );
    expect(providers.chat.filter((c) => c.stream && c.lastUser === messages[0].content)).toHaveLength(1);
    // Smart endpointing: the reply starts well before a fixed 700 ms silence plus the providers would allow.
    const heard = await replyAfter(caller, said.end);
    expect(heard.start - said.end).toBeLessThan(2_000);

    const latency = (await waitFor(
      async () => (await messagesOf(id))[1].latency ?? undefined,
      10_000,
      'latency',
    )) as Record<string, number>;
    for (const key of [
      'endpoint_ms',
      'stt_ms',
      'model_first_token_ms',
      'tts_first_audio_ms',
      'voice_to_voice_ms',
    ])
      expect(latency[key]).toEqual(expect.any(Number));
    expect(latency.stt_ms).toBeGreaterThanOrEqual(PROFILE.stt.baseMs);
    expect(latency.model_first_token_ms).toBeGreaterThanOrEqual(PROFILE.model.firstTokenMs);
    expect(latency.tts_first_audio_ms).toBeGreaterThanOrEqual(PROFILE.tts.firstByteMs);
    expect(latency.voice_to_voice_ms).toBeGreaterThan(latency.endpoint_ms);
    expect(messages[0].latency).toBeNull();
  });

  it('a question with a pause mid-sentence is answered once with all its words; the reply started on its first half leaves nothing', async () => {
    const entry = VOICE.byId('paused-05'); // "I was charged twice for" … 1 s … "the same order."
    // A long answer to the first half: still streaming when the caller goes on.
    providers.reply = ({ json, lastUser }) => ({
      content: json ? '{}' : lastUser === entry.parts![0] ? `${LONG} ${LONG}` : REPLY,
    });
    const since = ((await db.query('SELECT now() AS at')) as { at: Date }[])[0].at;
    const { id, caller } = await connected();
    const said = await caller.say(entry);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'I was charged twice for the same order.'],
      ['agent', REPLY],
    ]);
    // The first half was transcribed at the pause and the model asked (speculatively), then cancelled.
    const speculative = providers.chat.filter((c) => c.stream && c.lastUser === entry.parts![0]);
    expect(speculative.length).toBeGreaterThanOrEqual(1);
    expect(speculative.every((c) => c.aborted)).toBe(true);
    // Nothing of it: no message, no event naming it, no tool call; no agent audio before the caller finished.
    expect(caller.spurts.filter((s) => s.start < said.end)).toEqual([]);
    const events = (await db.query(
      'SELECT data::text AS p FROM outbox_events WHERE workspace_id = $1 AND created_at >= $2',
      [t.workspaceId, since],
    )) as { p: string }[];
    expect(events.length).toBeGreaterThan(0);
    expect(events.some((e) => e.p.includes(`"${entry.parts![0]}"`))).toBe(false);
    const tools = (await db.query(
      'SELECT count(*)::int AS n FROM action_logs WHERE workspace_id = $1 AND created_at >= $2',
      [t.workspaceId, since],
    )) as { n: number }[];
    expect(tools[0].n).toBe(0);
  });

  it('a backchannel over the reply does not stop it and is no turn', async () => {
    const { id, client, caller } = await connected();
    const asked = await caller.say(VOICE.byId('question-04'));
    const reply = await replyAfter(caller, asked.end);
    await sleep(Math.max(0, reply.start + 1000 - performance.now()));
    await caller.say(VOICE.byId('backchannel-01')); // "uh-huh"
    const messages = await messagesUntil(id, 2);
    await waitFor(
      async () => (client.events('mark').some((m) => m.mark!.name === messages[1].uuid) ? true : undefined),
      20_000,
      'the whole reply played',
    );
    await sleep(500);
    expect(client.events('clear')).toEqual([]);
    const after = await messagesOf(id);
    expect(talk(after)).toEqual([
      ['customer', 'Do you ship to Canada?'],
      ['agent', LONG],
    ]);
    expect(after[1].interrupted).toBeFalsy();
    // It was heard and judged by its words.
    expect(providers.stt.some((s) => s.text === 'uh-huh')).toBe(true);
  });

  it('an interruption over the reply cuts it quickly (clear), marks it interrupted and is answered', async () => {
    const { id, client, caller } = await connected();
    const asked = await caller.say(VOICE.byId('question-05'));
    const reply = await replyAfter(caller, asked.end);
    await sleep(Math.max(0, reply.start + 1000 - performance.now()));
    const cut = caller.say(VOICE.byId('interruption-02')); // "No no, I meant the other one."
    const startedAt = performance.now();
    const clear = await waitFor(
      async () => client.receivedAt[client.received.findIndex((m) => m.event === 'clear')],
      10_000,
      'clear',
    );
    expect(clear - startedAt).toBeLessThan(1_500);
    await cut;
    const messages = await messagesUntil(id, 4);
    expect(talk(messages)).toEqual([
      ['customer', 'Where is my order right now?'],
      ['agent', LONG],
      ['customer', 'No no, I meant the other one.'],
      ['agent', REPLY],
    ]);
    expect(messages[1].interrupted).toBe(true);
    expect(messages[3].interrupted).toBeFalsy();
  });

  it('noise alone makes no turn and no transcription; neither does a tone, which is no voice', async () => {
    const { id, caller } = await connected();
    await caller.say(VOICE.byId('noise-babble'));
    await caller.say(VOICE.byId('noise-pink'));
    await caller.say(tone(600));
    await sleep(2_500);
    expect(providers.stt).toEqual([]);
    expect(providers.chat.filter((c) => c.stream)).toEqual([]);
    expect(await messagesOf(id)).toEqual([]);
  });

  it('settings.voice turn-taking keys are checked when an agent is saved: 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ endpointing: 'smart' }, 'settings.voice.endpointing', 'INVALID_FORMAT'],
      [{ endpointing: { mode: 'eager' } }, 'settings.voice.endpointing.mode', 'INVALID_FORMAT'],
      [
        { endpointing: { min_silence_ms: 10 } },
        'settings.voice.endpointing.min_silence_ms',
        'INVALID_FORMAT',
      ],
      [
        { endpointing: { max_silence_ms: 250.5 } },
        'settings.voice.endpointing.max_silence_ms',
        'INVALID_FORMAT',
      ],
      [
        { endpointing: { min_silence_ms: 800, max_silence_ms: 500 } },
        'settings.voice.endpointing.max_silence_ms',
        'VALIDATION_ERROR',
      ],
      [
        { interruption: { min_speech_ms: -1 } },
        'settings.voice.interruption.min_speech_ms',
        'INVALID_FORMAT',
      ],
      [
        { interruption: { ignore_words: 'yeah' } },
        'settings.voice.interruption.ignore_words',
        'INVALID_FORMAT',
      ],
      [
        { interruption: { ignore_words: ['yeah', ' '] } },
        'settings.voice.interruption.ignore_words.1',
        'INVALID_FORMAT',
      ],
      [{ stream_speech: 'yes' }, 'settings.voice.stream_speech', 'INVALID_FORMAT'],
    ];
    for (const [voice, field, code] of cases) {
      const created = await t.http.post('/api/v1/agents').send({ name: 'Checked', settings: { voice } });
      expect([created.status, created.body.error]).toEqual([422, expect.objectContaining({ code, field })]);
      const patched = await t.http.patch(`/api/v1/agents/${line.agentId}`).send({ settings: { voice } });
      expect([patched.status, patched.body.error]).toEqual([422, expect.objectContaining({ code, field })]);
    }
    const voice = {
      endpointing: { mode: 'smart', min_silence_ms: 250, max_silence_ms: 1200 },
      interruption: { min_speech_ms: 400, ignore_words: ['uh huh', 'sure'] },
      stream_speech: true,
    };
    const ok = await t.http.post('/api/v1/agents').send({ name: 'Checked', settings: { voice } }).expect(201);
    expect(ok.body.data.settings.voice).toEqual(voice);
  });

  describe('without the voice activity model (VAD_MODEL_PATH names a missing file)', () => {
    let replica: ApiProcess | undefined;
    let call: Awaited<ReturnType<typeof connected>> | undefined;
    beforeAll(async () => {
      replica = await startApiProcess({
        DATABASE_URL: app.config.database.url,
        REDIS_PREFIX: app.config.redis.prefix,
        STORAGE_DIR: app.config.storageDir,
        ENCRYPTION_KEY: app.config.auth.encryptionKey!,
        ...env(twilio, providers),
        VAD_MODEL_PATH: '/nonexistent/silero_vad.onnx',
        LOG_LEVEL: 'silent',
      });
    }, 180_000);
    afterAll(async () => {
      await call?.caller.stop();
      call?.client.close();
      await replica?.stop();
    }, 60_000);

    it('the energy detector takes the turns: a tone is heard, a question answered', async () => {
      providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
      call = await connected(replica!.url);
      const { id, caller } = call;
      // Only an energy detector takes a tone for speech (the main app's Silero model does not: see above).
      await caller.say(tone(600));
      await waitFor(async () => (providers.stt.length ? true : undefined), 10_000, 'the tone transcribed');
      await sleep(2_500);
      const before = (await messagesOf(id)).length;
      await caller.say(VOICE.byId('question-03'));
      const messages = await messagesUntil(id, before + 2);
      expect(talk(messages.slice(before))).toEqual([
        ['customer', 'How much is the monthly plan?'],
        ['agent', REPLY],
      ]);
    });
  });
});
