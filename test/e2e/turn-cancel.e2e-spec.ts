import { DataSource } from 'typeorm';
import { ConversationTurnsService, TurnCancelled, TurnEvent, TurnRuntime } from '@/modules/runtime/public';
import * as mediaSession from '@/modules/voice/media/media-session';
import type { TurnTiming } from '@/modules/voice/media/media-session';
import { MediaOpener } from '@/modules/voice/media/media-opener';
import { MediaSessions } from '@/modules/voice/media/media-sessions';
import { createAgent } from '../factories/agent.factory';
import { agentWithIntents, openChat } from '../factories/intent.factory';
import { twilioLine } from '../factories/twilio.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { defaultAnswer, LlmAnswer, LlmCall, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC = 'https://voice.example.test';
const REPLY = 'Sure, I can help with that today. What is your order number please?';
/** The chunks the model server streams REPLY in (a few words each). */
const REPLY_CHUNKS = REPLY.match(/\S+\s*/g)!.length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cancellable turns: a speculative turn leaves nothing behind until its commit', () => {
  // Declared before the suite start so the media clients close before the app does.
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
      hooks: () => WebhookReceiver.start(),
    },
    env: (servers) => voiceEnv(servers, PUBLIC),
  });
  const clients: MediaClient[] = [];
  let db: DataSource;
  let turns: ConversationTurnsService;
  let runtime: TurnRuntime;

  beforeAll(() => {
    db = suite.app.get<DataSource>(DataSource);
    turns = suite.app.get(ConversationTurnsService);
    runtime = suite.app.get(TurnRuntime);
  });
  beforeEach(() => suite.llm.reset());
  const sessions = () => suite.app.get<MediaSessions>(MediaSessions);
  const opener = () => suite.app.get<MediaOpener>(MediaOpener);

  /** The reply requests answer `answer`; the other model calls their defaults. */
  const replies = (answer: (call: LlmCall) => LlmAnswer) => {
    suite.llm.respond = (call) => (call.kind === 'reply' ? answer(call) : defaultAnswer(call));
  };
  const replyCall = (n = 1) =>
    waitFor(async () => suite.llm.callsOf('reply')[n - 1], 10_000, `reply request ${n}`);
  /** Everything a turn writes, in the tenant's workspace since `since`. */
  const traces = async (tenant: TestTenant, since: Date) => {
    const count = async (sql: string) =>
      Number(((await db.query(sql, [tenant.workspaceId, since])) as { n: string }[])[0].n);
    return {
      messages: await count(
        'SELECT count(*) AS n FROM messages WHERE workspace_id = $1 AND created_at >= $2',
      ),
      sessions: await count(
        'SELECT count(*) AS n FROM sessions WHERE workspace_id = $1 AND started_at >= $2',
      ),
      events: await count(
        'SELECT count(*) AS n FROM outbox_events WHERE workspace_id = $1 AND created_at >= $2',
      ),
      actions: await count(
        'SELECT count(*) AS n FROM action_logs WHERE workspace_id = $1 AND created_at >= $2',
      ),
    };
  };
  const nothing = { messages: 0, sessions: 0, events: 0, actions: 0 };
  const dbNow = async () => ((await db.query('SELECT now() AS at')) as { at: Date }[])[0].at;
  const messagesOf = async (tenant: TestTenant, id: string) =>
    (await tenant.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data
      .items as { uuid: string; sender: string; message_type: string; content: string }[];
  /**
   * A speculative turn of `tenant` on `conversation`: committed by `commit()`, cancelled by `cancel()`, its streamed
   * reply collected in `deltas`. `turn` is the takeTurn answer (a cancelled turn's rejection is handled).
   */
  const speculative = (tenant: TestTenant, conversation: string, text: string) => {
    let commit!: () => void;
    const committed = new Promise<void>((r) => (commit = r));
    const controller = new AbortController();
    const deltas: string[] = [];
    const turn = turns.takeTurn(tenant.workspaceId, conversation, text, {
      live: { onDelta: (d) => deltas.push(d), signal: controller.signal, commit: committed },
    });
    turn.catch(() => undefined);
    return { turn, deltas, commit, cancel: () => controller.abort() };
  };

  describe('text conversations', () => {
    let tenant: TestTenant;
    let agentId: string;
    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      agentId = (await createAgent(tenant, { name: 'Olivia' })).agent_uuid as string;
    });

    it('a turn cancelled while the model streams stores nothing, calls no tool, and the model sees its connection closed', async () => {
      replies(() => ({ content: 'One two three four five six seven eight', chunkDelayMs: 150 }));
      const conversation = await openChat(tenant, agentId);
      const since = await dbNow();
      const { turn, deltas, cancel } = speculative(tenant, conversation, 'Hello there');
      const call = await replyCall();
      await waitFor(async () => (call.chunksSent >= 2 ? true : undefined), 10_000, 'the stream under way');
      cancel();

      await expect(turn).rejects.toBeInstanceOf(TurnCancelled);
      await waitFor(async () => (call.closedEarly ? true : undefined), 5_000, 'connection closed');
      expect(call.stream).toBe(true);
      expect(call.chunksSent).toBeLessThan(8);
      expect(deltas).toEqual([]);
      await sleep(300);
      expect(await traces(tenant, since)).toEqual(nothing);
      expect(await messagesOf(tenant, conversation)).toEqual([]);
      expect(suite.llm.callsOf('reply')).toHaveLength(1);
      // The conversation takes its next turn as usual.
      replies(() => ({ content: REPLY }));
      const next = await turns.takeTurn(tenant.workspaceId, conversation, 'Hello again');
      expect(next.reply?.content).toBe(REPLY);
    });

    it("the runtime's event stream: aborted before its commit it ends with TurnCancelled, nothing stored and the model's request closed; committed it reports the messages and the text in order", async () => {
      /** The events of a speculative turn through TurnRuntime, read as they come (`done` once the stream ends). */
      const stream = (conversation: string, text: string) => {
        let commit!: () => void;
        const committed = new Promise<void>((r) => (commit = r));
        const controller = new AbortController();
        const events: TurnEvent[] = [];
        const done = (async () => {
          for await (const e of runtime.takeTurn(
            { workspaceId: tenant.workspaceId, conversationId: conversation, content: text },
            { signal: controller.signal, commit: committed, deltas: true },
          ))
            events.push(e);
        })();
        done.catch(() => undefined);
        return { events, done, commit, abort: () => controller.abort() };
      };

      replies(() => ({ content: 'One two three four five six seven eight', chunkDelayMs: 150 }));
      const cancelled = await openChat(tenant, agentId);
      const since = await dbNow();
      const first = stream(cancelled, 'Hello there');
      const call = await replyCall();
      await waitFor(async () => (call.chunksSent >= 2 ? true : undefined), 10_000, 'the stream under way');
      first.abort();
      await expect(first.done).rejects.toBeInstanceOf(TurnCancelled);
      await waitFor(async () => (call.closedEarly ? true : undefined), 5_000, 'connection closed');
      expect(first.events).toEqual([]);
      await sleep(300);
      expect(await traces(tenant, since)).toEqual(nothing);

      replies(() => ({ content: REPLY, chunkDelayMs: 10 }));
      const conversation = await openChat(tenant, agentId);
      const second = stream(conversation, 'Where is my order?');
      const reply = await replyCall(2);
      await waitFor(async () => (reply.chunksSent >= 2 ? true : undefined), 10_000, 'the stream under way');
      expect(second.events).toEqual([]);
      second.commit();
      await second.done;
      const kinds = second.events.map((e) => (e.type === 'message' ? `message ${e.message.sender}` : e.type));
      expect(kinds.filter((k) => k !== 'text')).toEqual(['message customer', 'message agent', 'end']);
      expect(kinds.indexOf('text')).toBeGreaterThanOrEqual(0);
      expect(kinds.lastIndexOf('text')).toBeLessThan(kinds.indexOf('message agent'));
      const texts = second.events.flatMap((e) => (e.type === 'text' ? [e.delta] : []));
      expect(texts.join('')).toBe(REPLY);
      const end = second.events.at(-1) as TurnEvent & { type: 'end' };
      const stored = await messagesOf(tenant, conversation);
      expect(stored.map((m) => m.uuid)).toEqual([end.turn.message.uuid, end.turn.reply!.uuid]);
      expect(end.turn.reply?.content).toBe(REPLY);
    });

    it('a speculative turn committed stores one customer message and one reply, the same as a normal turn; its reply is held until the commit', async () => {
      replies(() => ({ content: REPLY, chunkDelayMs: 10 }));
      const normal = await turns.takeTurn(
        tenant.workspaceId,
        await openChat(tenant, agentId),
        'Where is my order?',
      );
      const conversation = await openChat(tenant, agentId);
      const { turn, deltas, commit, cancel } = speculative(tenant, conversation, 'Where is my order?');
      const call = await replyCall(2);
      // The model has answered in full; nothing is stored or streamed before the commit.
      await waitFor(
        async () => (call.chunksSent === REPLY_CHUNKS ? true : undefined),
        10_000,
        'the whole stream',
      );
      await sleep(100);
      expect(deltas).toEqual([]);
      expect(await messagesOf(tenant, conversation)).toEqual([]);

      commit();
      const answered = await turn;
      expect(answered.reply?.content).toBe(normal.reply?.content);
      expect(answered.message.content).toBe('Where is my order?');
      expect(deltas.join('')).toBe(REPLY);
      const stored = await messagesOf(tenant, conversation);
      expect(stored.map((m) => [m.sender, m.content])).toEqual([
        ['customer', 'Where is my order?'],
        ['agent', REPLY],
      ]);
      expect(stored.map((m) => m.uuid)).toEqual([answered.message.uuid, answered.reply!.uuid]);
      // The model was asked the same as for the normal turn.
      const [first, second] = suite.llm.callsOf('reply');
      expect(second.messages.slice(-1)).toEqual(first.messages.slice(-1));
      // A cancel after the commit changes nothing.
      cancel();
      expect(await messagesOf(tenant, conversation)).toHaveLength(2);
    });

    it('a guard that matches a speculative turn acts only once committed: cancelled, the conversation stays open and nothing is said', async () => {
      const guarded = await createAgent(tenant, { name: 'Guarded' });
      await tenant.http
        .post(`/api/v1/agents/${guarded.agent_uuid}/guard-rules`)
        .send({
          name: 'Stop',
          when_condition: 'The customer asks to stop',
          example_phrases: ['stop talking to me'],
          then_action: 'end_conversation',
          say_before_end: 'Goodbye then.',
        })
        .expect(201);
      // The model matches every candidate: the guard fires.
      suite.llm.respond = (call) => {
        if (call.kind !== 'classify') return defaultAnswer(call);
        const { candidates } = JSON.parse(call.messages[1].content) as { candidates: { id: string }[] };
        return { content: JSON.stringify({ scores: candidates.map((c) => ({ id: c.id, score: 1 })) }) };
      };
      const conversation = await openChat(tenant, guarded.agent_uuid as string);
      const since = await dbNow();
      const { turn, cancel } = speculative(tenant, conversation, 'stop talking to me');
      await waitFor(async () => suite.llm.callsOf('classify')[0], 10_000, 'the rules evaluated');
      await sleep(200);
      cancel();
      await expect(turn).rejects.toBeInstanceOf(TurnCancelled);
      await sleep(200);
      expect(await traces(tenant, since)).toEqual(nothing);
      const open = await tenant.http.get(`/api/v1/conversations/${conversation}`).expect(200);
      expect(open.body.data.status).not.toBe('closed');
      // Committed, the same turn acts: the guard's words, then the conversation closed.
      const acted = await turns.takeTurn(tenant.workspaceId, conversation, 'stop talking to me');
      expect(acted.action).toMatchObject({ kind: 'guard', type: 'end_conversation' });
      expect(acted.reply?.content).toBe('Goodbye then.');
    });
  });

  describe('tools', () => {
    let tenant: TestTenant;
    let agentId: string;
    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      const agent = await agentWithIntents(tenant, [
        {
          name: 'Check order',
          key: 'check_order',
          description: 'The customer asks where their order is',
          webhook: { url: suite.hooks.url('/orders'), auth_token: 'tok_secret' },
          parameters: [{ key: 'order_number', type: 'string', required: true }],
        },
      ]);
      agentId = agent.agent_uuid as string;
      suite.hooks.on('/orders', () => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'shipped' }),
      }));
    });
    const toolThenReply = (call: LlmCall): LlmAnswer =>
      call.messages.some((m) => m.role === 'tool')
        ? { content: 'Your order has shipped.' }
        : { toolCalls: [{ name: 'check_order', arguments: { order_number: 'A-1' } }] };

    it('the model calls a tool before the commit, then the turn is cancelled: no tool runs, nothing is stored', async () => {
      replies(toolThenReply);
      const conversation = await openChat(tenant, agentId);
      const since = await dbNow();
      const { turn, cancel } = speculative(tenant, conversation, 'Where is order A-1?');
      await replyCall();
      await sleep(300); // the model's tool call is in; the loop waits for the commit
      cancel();
      await expect(turn).rejects.toBeInstanceOf(TurnCancelled);
      await sleep(300);
      expect(suite.hooks.at('/orders')).toHaveLength(0);
      expect(suite.llm.callsOf('reply')).toHaveLength(1);
      expect(await traces(tenant, since)).toEqual(nothing);
    });

    it('the model calls a tool before the commit: it runs once committed, then the reply is stored', async () => {
      replies(toolThenReply);
      const conversation = await openChat(tenant, agentId);
      const { turn, commit } = speculative(tenant, conversation, 'Where is order A-1?');
      await replyCall();
      await sleep(300);
      expect(suite.hooks.at('/orders')).toHaveLength(0);
      commit();
      const answered = await turn;
      expect(answered.reply?.content).toBe('Your order has shipped.');
      expect(suite.hooks.at('/orders')).toHaveLength(1);
      const stored = await messagesOf(tenant, conversation);
      expect(stored.map((m) => [m.sender, m.message_type])).toEqual([
        ['customer', 'text'],
        ['system', 'tool'],
        ['agent', 'text'],
      ]);
    });
  });

  describe('voice calls', () => {
    let tenant: TestTenant;
    let line: { agentId: string };
    beforeAll(async () => {
      tenant = await createTenant(suite.app);
      line = await twilioLine(tenant, {
        language: 'en',
        settings: { voice: { end_of_turn_silence_ms: 300 } },
      });
    });
    afterEach(() => (opener().onTurnTiming = undefined));

    /** Places a call and connects a Media Streams client as Twilio would. */
    const connected = async () => {
      const res = await tenant.http
        .post('/api/v1/call')
        .send({ agent_uuid: line.agentId, to: '+14155550160' })
        .expect(201);
      const id = res.body.data.uuid as string;
      const sid = (await waitFor(
        async () => (await tenant.http.get(`/api/v1/calls/${id}`)).body.data.provider_call_id ?? undefined,
      )) as string;
      const twiml = String(suite.twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
      const client = await MediaClient.fromTwiml(suite.app.url, twiml, id, sid);
      clients.push(client);
      const session = await waitFor(async () => sessions().session(id), 10_000, 'session');
      await waitFor(async () =>
        (await tenant.http.get(`/api/v1/calls/${id}`)).body.data.status === 'in-progress' ? true : undefined,
      );
      return { id, client, session };
    };

    it("a media session's speculative turn cancelled leaves no message and nothing spoken, and aborts the model request; committed, it is stored and spoken", async () => {
      replies(() => ({ content: REPLY, delayMs: 1_500 }));
      const { id, client, session } = await connected();
      const since = await dbNow();
      const cancelled = session.startTurn('I need help with my order', { speculative: true });
      const call = await replyCall();
      cancelled.cancel();
      expect(await cancelled.done).toBe('cancelled');
      await waitFor(async () => (call.closedEarly ? true : undefined), 5_000, 'connection closed');
      await sleep(300);
      expect(await messagesOf(tenant, id)).toEqual([]);
      expect((await traces(tenant, since)).messages).toBe(0);
      expect(client.events('media')).toHaveLength(0);

      replies(() => ({ content: REPLY, chunkDelayMs: 10 }));
      const committed = session.startTurn('I need help with my order', { speculative: true });
      await replyCall(2);
      await sleep(200);
      expect(await messagesOf(tenant, id)).toEqual([]);
      expect(client.events('media')).toHaveLength(0);
      committed.commit();
      expect(await committed.done).toBe('answered');
      const stored = await messagesOf(tenant, id);
      expect(stored.map((m) => [m.sender, m.content])).toEqual([
        ['customer', 'I need help with my order'],
        ['agent', REPLY],
      ]);
      await waitFor(
        async () => (client.events('mark').some((m) => m.mark!.name === stored[1].uuid) ? true : undefined),
        15_000,
        'the reply spoken',
      );
      expect(client.events('media').length).toBeGreaterThan(10);
    });

    it('a turn cancelled while it waits for the turn before it never reaches the model', async () => {
      replies(() => ({ content: REPLY, chunkDelayMs: 10 }));
      const { id, session } = await connected();
      const first = session.startTurn('First question');
      const second = session.startTurn('Second question', { speculative: true });
      second.cancel();
      expect(await first.done).toBe('answered');
      expect(await second.done).toBe('cancelled');
      expect(suite.llm.callsOf('reply')).toHaveLength(1);
      expect((await messagesOf(tenant, id)).map((m) => m.content)).toEqual(['First question', REPLY]);
    });

    it('each turn gives its timing to the observer once; the module keeps no list of them', async () => {
      expect(Object.keys(mediaSession)).not.toContain('turnTimings');
      const timings: TurnTiming[] = [];
      opener().onTurnTiming = (t) => timings.push(t);
      replies(() => ({ content: 'Sure.' }));
      const turnsPlayed = 3;
      suite.speech.transcripts.push(...Array.from({ length: turnsPlayed }, (_, i) => `Question ${i + 1}`));
      const { client } = await connected();
      for (let i = 1; i <= turnsPlayed; i++) {
        client.play('silence', 400);
        client.utter(400, 600);
        await waitFor(
          async () => (client.events('mark').length >= i ? true : undefined),
          15_000,
          `reply ${i}`,
        );
      }
      await waitFor(async () => (timings.length >= turnsPlayed ? true : undefined), 5_000, 'timings');
      await sleep(200);
      expect(timings).toHaveLength(turnsPlayed);
      for (const t of timings) {
        expect(t.firstFrameAt).toBeGreaterThan(t.speechEndAt);
        expect(t.sttDoneAt).toBeGreaterThanOrEqual(t.sttSentAt);
        expect(t.firstDeltaAt).toBeGreaterThan(0);
      }
    });
  });
});
