import { workspaceIdOf } from '@/common/auth/workspace-id';
import { callSpeech } from '@/modules/voice/media/call-speech';
import {
  SPEECH_TO_TEXT,
  SPEECH_TO_TEXT_STREAM,
  SpeechToText,
  StreamingSpeechToText,
  TEXT_TO_SPEECH,
  TextToSpeech,
} from '@/providers/speech/speech.port';
import { twilioLine } from '../factories/twilio.factory';
import type { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { ADMIN_KEY, client, TestApp } from '../setup/test-app';
import { MediaClient } from '../support/media-client';
import { RealtimeLine } from '../support/realtime-line';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { VoiceProfile, VoiceProviders } from '../support/voice-providers';
import { CorpusEntry, VoiceCorpus } from '../support/voice-providers-corpus';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice.example.test';
const KEY = 'sk-realtime-stream-key-never-logged-7731';
const VOICE = VoiceCorpus.load();
/** A little faster than a good cloud; the stream's words as each frame is heard. */
const PROFILE: VoiceProfile = {
  name: 'spec',
  stt: { baseMs: 120, perAudioSecondMs: 50 },
  model: { firstTokenMs: 200, tokensPerSecond: 60 },
  tts: { firstByteMs: 100, realTime: 5 },
  realtimeStt: { deltaEveryMs: 20, finalMs: 100 },
};
const REPLY = 'Let me check that for you. Anything else?';
const LONG =
  'Our store opens at nine in the morning on weekdays and at ten on Saturdays. On Sundays we open at noon.';
const QUESTION = VOICE.byId('question-01'); // "What time do you open tomorrow?"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Message {
  uuid: string;
  sender: string;
  content: string;
  interrupted?: boolean;
}

describe('voice turn-taking on streaming speech to text (settings.voice.stt_mode: realtime)', () => {
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
    env: ({ twilio, providers }) => ({
      LLM_BASE_URL: providers.url,
      STT_BASE_URL: providers.url,
      TTS_BASE_URL: providers.url,
      STT_REALTIME_URL: providers.realtimeUrl,
      STT_REALTIME_API_KEY: KEY,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
      VAD: 'silero',
      LOG_LEVEL: 'info',
    }),
    captureLogs: true,
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let twilio: TwilioServer;
  let providers: VoiceProviders;
  let streamed: { agentId: string };
  const clients: MediaClient[] = [];
  const lines: RealtimeLine[] = [];

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
  /** Places a call with the agent and plays its Media Stream in real time. */
  const connected = async (agentId = streamed.agentId) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agentId, to: '+14155550171' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(
      async () => (await t.http.get(`/api/v1/calls/${id}`)).body.data.provider_call_id ?? undefined,
    )) as string;
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await MediaClient.fromTwiml(app.url, twiml, id, sid);
    clients.push(client);
    await waitFor(async () =>
      (await t.http.get(`/api/v1/calls/${id}`)).body.data.status === 'in-progress' ? true : undefined,
    );
    const caller = new RealtimeLine(client);
    lines.push(caller);
    await sleep(300);
    return { id, client, caller };
  };
  /** When the last voiced frame of what was said went out. */
  const speechEnd = (said: { start: number }, entry: CorpusEntry) => said.start + entry.lastSpeechFrame * 20;
  const replyAfter = (caller: RealtimeLine, at: number) =>
    waitFor(async () => caller.spurts.find((s) => s.start >= at), 15_000, 'the reply heard');
  const batch = () => providers.stt.filter((s) => !s.realtime);
  /** A series of /metrics (0 when absent). */
  const metric = async (series: string) => {
    const page = (await client(app.url, 'ops.example.test', ADMIN_KEY).get('/metrics').expect(200)).text;
    const line = page.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  const sttMsOf = async (id: string) =>
    ((await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data.usage.stt_seconds as number) * 1000;

  beforeAll(async () => {
    ({ app, t, twilio, providers } = suite);
    streamed = await twilioLine(t, {
      language: 'en',
      settings: { voice: { record: false, stt_mode: 'realtime' } },
    });
  });
  // Each test's call hangs up after it: its stream closes with its session.
  afterEach(async () => {
    for (const l of lines.splice(0)) await l.stop();
    for (const c of clients.splice(0)) c.close();
    await sleep(300);
  });
  beforeEach(() => {
    providers.reset();
    providers.reply = ({ json, lastUser }) =>
      json ? { content: '{}' } : { content: /open|order|ship/i.test(lastUser) ? LONG : REPLY };
  });

  it('words arrive while the caller speaks; the turn is answered once, on the final words, counted in usage', async () => {
    providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
    const { id, caller } = await connected();
    // The call's stream is open (counted) from the start of its media.
    expect(await metric('cap_stt_realtime_sessions')).toBe(1);
    const said = await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open tomorrow?'],
      ['agent', REPLY],
    ]);
    // One stream for the call, fed while the caller spoke: words came back before the speech ended.
    expect(providers.realtime.connections).toHaveLength(1);
    const [stream] = providers.realtime.connections;
    expect(stream.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(stream.deltas.length).toBeGreaterThan(0);
    expect(stream.deltas[0].at).toBeLessThan(speechEnd(said, QUESTION));
    // Its commit's final words made the turn; nothing was transcribed in batch; the model was asked once.
    const finals = providers.stt.filter((s) => s.realtime && s.text === QUESTION.text);
    expect(finals).toHaveLength(1);
    expect(batch()).toEqual([]);
    expect(providers.chat.filter((c) => c.stream)).toHaveLength(1);
    const heard = await replyAfter(caller, said.end);
    expect(heard.start - said.end).toBeLessThan(2_000);
    // The streamed audio is the call's speech to text.
    const ms = (await waitFor(async () => ((await sttMsOf(id)) > 0 ? sttMsOf(id) : undefined))) as number;
    expect(ms).toBeGreaterThanOrEqual(QUESTION.lastSpeechFrame * 20);
  });

  it('final words that differ from those heard start the turn again on them: the stored message is the final text', async () => {
    providers.listen(() => ({ final: (heard) => heard.replace('tomorrow', 'on Sunday') }));
    providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
    const { id, caller } = await connected();
    await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open on Sunday?'],
      ['agent', REPLY],
    ]);
    const asked = providers.chat.filter((c) => c.stream);
    expect(asked.map((c) => c.lastUser)).toEqual([QUESTION.text, 'What time do you open on Sunday?']);
    // The turn started on the words heard left nothing: its request was aborted.
    expect(asked[0].aborted).toBe(true);
    expect(batch()).toEqual([]);
  });

  it('the next question is answered on the call as it is: the turn before it, and what the agent said while the caller spoke', async () => {
    // A streamed turn's call row and history are read from the start of its utterance; a read made before the turn
    // before it ended, or before the agent spoke a stored message, is not used.
    providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
    const HELLO = 'Hello, thanks for calling.';
    const SAID = 'One moment, I am opening your account.';
    const { id, client, caller } = await connected();
    const say = (message: string) =>
      t.http.post(`/api/v1/calls/action/${id}/say`).send({ message }).expect(200);
    /** The call's words (each action is recorded as a system message too) once there are `n`, the last the agent's. */
    const spoken = (n: number) =>
      waitFor(
        async () => {
          const m = (await messagesOf(id)).filter((x) => x.sender !== 'system');
          return m.length >= n && m[m.length - 1].sender === 'agent' ? m : undefined;
        },
        20_000,
        `${n} messages`,
      );
    await say(HELLO); // answered once played
    await caller.say(QUESTION);
    const first = await spoken(3);
    await waitFor(async () =>
      client.events('mark').some((m) => m.mark!.name === first[2].uuid) ? true : undefined,
    );
    const [stream] = providers.realtime.connections;
    const heard = stream.heard.length;
    const next = VOICE.byId('question-07'); // "Is the store on Main Street open on Sundays?"
    const asking = caller.say(next);
    // The utterance has begun (its first word is heard): the agent says a message while the caller goes on.
    await waitFor(async () => (stream.heard.length > heard ? true : undefined), 10_000, 'the first word');
    const said = say(SAID).then((r) => r); // sent now
    const stored = await waitFor(
      async () => ((await messagesOf(id)).some((m) => m.content === SAID) ? performance.now() : undefined),
      10_000,
      'the message stored',
    );
    await asking;
    await said;
    expect(talk(await spoken(6))).toEqual([
      ['agent', HELLO],
      ['customer', QUESTION.text],
      ['agent', REPLY],
      ['agent', SAID],
      ['customer', next.text],
      ['agent', REPLY],
    ]);
    const asked = providers.chat.filter((c) => c.stream && !c.aborted && c.lastUser === next.text);
    expect(asked).toHaveLength(1);
    // The message was stored before the turn's words were known (while the caller spoke): it is in its history.
    expect(stored).toBeLessThan(asked[0].at);
    const prompt = asked[0].messages
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => [m.role, m.content]);
    expect(prompt).toEqual([
      ['assistant', HELLO],
      ['user', QUESTION.text],
      ['assistant', REPLY],
      ['assistant', SAID],
      ['user', next.text],
    ]);
  });

  it('a question with a pause mid-sentence is answered once with all its words (the shorter default pause of realtime mode)', async () => {
    const entry = VOICE.byId('paused-05'); // "I was charged twice for" … 1 s … "the same order."
    providers.reply = ({ json, lastUser }) => ({
      content: json ? '{}' : lastUser === entry.parts![0] ? `${LONG} ${LONG}` : REPLY,
    });
    const { id, caller } = await connected();
    const said = await caller.say(entry);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', entry.text],
      ['agent', REPLY],
    ]);
    // The first half started a speculative turn at the pause, cancelled when the caller went on: nothing of it.
    const speculative = providers.chat.filter((c) => c.stream && c.lastUser === entry.parts![0]);
    expect(speculative.length).toBeGreaterThanOrEqual(1);
    expect(speculative.every((c) => c.aborted)).toBe(true);
    expect(caller.spurts.filter((s) => s.start < said.end)).toEqual([]);
    expect(batch()).toEqual([]);
  });

  it('a socket dropped mid-turn reconnects: the turn is answered once, with all its words', async () => {
    const reconnects = await metric('cap_stt_realtime_reconnects_total');
    providers.listen((n) => (n === 0 ? { dropAfterWords: 2 } : {}));
    const { id, caller } = await connected();
    await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open tomorrow?'],
      ['agent', LONG],
    ]);
    await sleep(1_000);
    expect((await messagesOf(id)).filter((m) => m.sender === 'customer')).toHaveLength(1);
    expect(providers.realtime.connections).toHaveLength(2);
    expect(providers.realtime.connections[0].closed).toBe(true);
    expect(await metric('cap_stt_realtime_reconnects_total')).toBe(reconnects + 1);
    expect(batch()).toEqual([]);
    expect(providers.chat.filter((c) => c.stream && !c.aborted)).toHaveLength(1);
  });

  it('a socket dropped mid-turn and refused again falls back to batch: the turn is answered once, its audio counted once', async () => {
    providers.listen((n) => (n === 0 ? { dropAfterWords: 2 } : { refuse: 'session' }));
    const { id, caller } = await connected();
    await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open tomorrow?'],
      ['agent', LONG],
    ]);
    await sleep(1_000);
    expect((await messagesOf(id)).filter((m) => m.sender === 'customer')).toHaveLength(1);
    // The utterance so far was transcribed in batch, whole.
    expect(batch().map((s) => s.text)).toContain(QUESTION.text);
    // Usage: the audio streamed, plus the batch audio, less the part of the utterance the stream was sent already.
    const streamedMs = providers.realtime.connections[0].audioMs;
    const batchMs = batch().reduce((n, s) => n + s.audioMs, 0);
    const ms = (await waitFor(async () => {
      const now = await sttMsOf(id);
      return now >= streamedMs ? now : undefined;
    })) as number;
    expect(ms).toBeLessThanOrEqual(streamedMs + batchMs - 400);
    const lines = app.logs().filter((l) => l.includes(id));
    expect(lines.filter((l) => l.includes('fell back'))).toHaveLength(1);
  });

  it('a refused session: the call is transcribed in batch, the fallback logged once and counted', async () => {
    const series = 'cap_stt_realtime_fallbacks_total{cause="refused"}';
    const refused = await metric(series);
    providers.listen(() => ({ refuse: 'session' }));
    const { id, caller } = await connected();
    await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', 'What time do you open tomorrow?'],
      ['agent', LONG],
    ]);
    expect(batch().map((s) => s.text)).toContain(QUESTION.text);
    expect(providers.realtime.connections.length).toBeGreaterThanOrEqual(1);
    expect(providers.realtime.connections.every((c) => c.audioMs === 0)).toBe(true);
    expect(await metric(series)).toBe(refused + 1);
    expect(await metric('cap_stt_realtime_sessions')).toBe(0);
    const lines = app.logs().filter((l) => l.includes(id));
    expect(lines.filter((l) => l.includes('fell back'))).toHaveLength(1);
  });

  it('a backchannel over the reply does not stop it, judged from the words heard; nothing is transcribed in batch', async () => {
    const { id, client, caller } = await connected();
    const asked = await caller.say(VOICE.byId('question-04'));
    const reply = await replyAfter(caller, asked.end);
    await sleep(Math.max(0, reply.start + 1000 - performance.now()));
    const uhHuh = VOICE.byId('backchannel-01');
    await caller.say(uhHuh);
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
    // Heard on the stream and judged by its words.
    expect(providers.realtime.connections[0].heard).toContain('uh-huh');
    expect(batch()).toEqual([]);
  });

  it('an interruption over the reply cuts it as soon as its words are heard, before they are final', async () => {
    const { id, client, caller } = await connected();
    const asked = await caller.say(VOICE.byId('question-05'));
    const reply = await replyAfter(caller, asked.end);
    await sleep(Math.max(0, reply.start + 1000 - performance.now()));
    const entry = VOICE.byId('interruption-02'); // "No no, I meant the other one."
    const cut = caller.say(entry);
    const startedAt = performance.now();
    const clear = (await waitFor(
      async () => client.receivedAt[client.received.findIndex((m) => m.event === 'clear')],
      10_000,
      'clear',
    )) as number;
    expect(clear - startedAt).toBeLessThan(1_500);
    await cut;
    const messages = await messagesUntil(id, 4);
    expect(talk(messages)).toEqual([
      ['customer', 'Where is my order right now?'],
      ['agent', LONG],
      ['customer', entry.text],
      ['agent', REPLY],
    ]);
    expect(messages[1].interrupted).toBe(true);
    // Cut on the running words: before the final words of any commit of the interruption's audio were sent (a
    // commit may be asked for at about the same moment as the cut: the pause and the words that judge the
    // interruption can come together).
    const commits = providers.stt.filter((s) => s.realtime && s.heard.some((h) => h.entry === entry));
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.every((s) => s.answeredAt > 0)).toBe(true);
    expect(clear).toBeLessThan(Math.min(...commits.map((s) => s.answeredAt)));
    expect(batch()).toEqual([]);
  });

  it('fixed endpointing commits the stream at the utterance end and answers its final words', async () => {
    const fixed = await twilioLine(t, {
      language: 'en',
      settings: { voice: { record: false, stt_mode: 'realtime', endpointing: { mode: 'fixed' } } },
    });
    providers.reply = ({ json }) => ({ content: json ? '{}' : REPLY });
    const { id, caller } = await connected(fixed.agentId);
    await caller.say(QUESTION);
    const messages = await messagesUntil(id, 2);
    expect(talk(messages)).toEqual([
      ['customer', QUESTION.text],
      ['agent', REPLY],
    ]);
    expect(providers.stt.filter((s) => s.realtime && s.text === QUESTION.text)).toHaveLength(1);
    expect(batch()).toEqual([]);
  });

  it('at the workspace call limit no further stream opens (the call is transcribed in batch)', async () => {
    const W_LIMIT = workspaceIdOf('w-limit');
    const ports = {
      stt: app.get<SpeechToText>(SPEECH_TO_TEXT),
      tts: app.get<TextToSpeech>(TEXT_TO_SPEECH),
      stream: app.get<StreamingSpeechToText>(SPEECH_TO_TEXT_STREAM),
    };
    const scope = { report: () => undefined };
    const speech = (callId: string) =>
      callSpeech(scope, ports, { workspaceId: W_LIMIT, callId, mode: 'realtime', callLimit: 1 }).sttStream!;
    const signal = new AbortController().signal;
    const first = await speech('c-1').open({ sampleRate: 8000, language: 'en', signal });
    expect(first).not.toBeNull();
    expect(await speech('c-2').open({ sampleRate: 8000, language: 'en', signal })).toBeNull();
    expect(ports.stream.openSessions(W_LIMIT)).toBe(1);
    first!.close();
    const next = await speech('c-2').open({ sampleRate: 8000, language: 'en', signal });
    expect(next).not.toBeNull();
    next!.close();
    expect(providers.realtime.connections).toHaveLength(2);
    const batchOnly = callSpeech(scope, ports, {
      workspaceId: W_LIMIT,
      callId: 'c-3',
      mode: 'batch',
      callLimit: 1,
    });
    expect(batchOnly.sttStream).toBeUndefined();
  });

  it('nothing of the API key reaches the logs', () => {
    const lines = app.logs();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(KEY);
  });
});
