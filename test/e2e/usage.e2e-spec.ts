import { Command } from 'commander';
import { registerAdminCommands } from '@/cli/admin-commands';
import { PricesService } from '@/modules/workspaces/prices.service';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import { agentWithIntents, openChat } from '../factories/intent.factory';
import { twilioLine } from '../factories/twilio.factory';
import type { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { defaultAnswer, LlmAnswer, LlmCall, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { postSigned, TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC = 'https://usage.example.test';
const REPLY = 'Sure, I can help with that today. What is your order number please?';
const RANGE = 'from=2020-01-01&to=2100-01-01';

interface Usage {
  llm: { prompt_tokens: number; completion_tokens: number };
  stt_seconds: number;
  tts_characters: number;
  call_minutes: number;
  call_minutes_by_leg: { call: number; forwarded: number };
  tool_calls: number;
  cost: { amount: string; currency: string } | null;
}

/** What the local model server answered as `usage`, summed over the calls given. */
function modelUsage(calls: LlmCall[]): Usage['llm'] {
  return {
    prompt_tokens: calls.reduce((n, c) => n + (c.usage?.prompt_tokens ?? 0), 0),
    completion_tokens: calls.reduce((n, c) => n + (c.usage?.completion_tokens ?? 0), 0),
  };
}

/** Micro-units as the API writes an amount: `"0.046750"`. */
const amount = (micro: bigint) => `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`;

describe('usage per call and conversation, and its cost under a price table', () => {
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
      hooks: () => WebhookReceiver.start(),
    },
    env: (servers) => ({ ...voiceEnv(servers, PUBLIC), LLM_MODEL: 'test-model' }),
    tenants: ['t', 'other'],
  });
  const clients: MediaClient[] = [];
  const internal = () => suite.app.internal();

  const usageOf = async (t: TestTenant, path: string): Promise<Usage> =>
    (await t.http.get(path).expect(200)).body.data.usage as Usage;
  /** Waits for the recorded usage (written a moment after the work) to be what `expected` says. */
  const settled = (t: TestTenant, path: string, expected: (u: Usage) => boolean) =>
    waitFor(
      async () => {
        const u = await usageOf(t, path);
        return expected(u) ? u : undefined;
      },
      10_000,
      `usage of ${path}`,
    );

  async function admin(...args: string[]): Promise<string[]> {
    const out: string[] = [];
    const program = new Command('admin').exitOverride();
    registerAdminCommands(
      program,
      {
        workspaces: suite.app.get(WorkspacesService),
        tokens: suite.app.get(TokensService),
        prices: suite.app.get(PricesService),
        config: suite.app.config,
      },
      (line) => out.push(line),
    );
    await program.parseAsync(args, { from: 'user' });
    return out;
  }

  beforeEach(() => suite.llm.reset());

  describe('a text conversation', () => {
    let conversationId: string;
    let expected: Usage['llm'];

    it("counts the model's tokens as its server answered them and the tool calls made; no price table, no cost", async () => {
      const { t, llm, hooks } = suite;
      hooks.on('/orders', () => ({ status: 200, body: '{"status":"shipped"}' }));
      const agent = await agentWithIntents(t, [
        {
          name: 'Check order',
          key: 'check_order',
          description: 'The customer asks where their order is',
          webhook: { url: hooks.url('/orders') },
          parameters: [{ key: 'order_number', type: 'string', required: true }],
        },
      ]);
      llm.respond = (call): LlmAnswer => {
        if (call.kind !== 'reply') return defaultAnswer(call);
        if (call.messages.some((m) => m.role === 'tool'))
          return { content: 'It has shipped and arrives soon.' };
        return { toolCalls: [{ name: 'check_order', arguments: { order_number: 'A-1' } }] };
      };
      conversationId = await openChat(t, agent.agent_uuid as string);
      await t.http
        .post(`/api/v1/conversations/${conversationId}/messages`)
        .send({ content: 'Where is my order A-1 please?' })
        .expect(201);
      llm.respond = (call) => (call.kind === 'reply' ? { content: 'You are welcome.' } : defaultAnswer(call));
      await t.http
        .post(`/api/v1/conversations/${conversationId}/messages`)
        .send({ content: 'Thanks a lot' })
        .expect(201);

      expect(llm.calls.length).toBe(3);
      expected = modelUsage(llm.calls);
      expect(expected.prompt_tokens).toBeGreaterThan(0);
      const usage = await settled(
        t,
        `/api/v1/conversations/${conversationId}`,
        (u) => u.llm.prompt_tokens === expected.prompt_tokens,
      );
      expect(usage).toEqual({
        llm: expected,
        stt_seconds: 0,
        tts_characters: 0,
        call_minutes: 0,
        call_minutes_by_leg: { call: 0, forwarded: 0 },
        tool_calls: 1,
        cost: null,
      });
    });

    it('prices it with the table set through the internal API, exactly; a new table re-prices it; removed, null again', async () => {
      const { t } = suite;
      const path = `/api/v1/conversations/${conversationId}`;
      const set = await internal()
        .put(`/internal/v1/workspaces/${t.slug}/prices`)
        .send({ currency: 'usd', llm_prompt_per_1k: 0.5, llm_completion_per_1k: '1.5' })
        .expect(200);
      expect(set.body).toMatchObject({ success: true, message: 'Price table set' });
      expect(set.body.data).toEqual({
        currency: 'USD',
        llm_prompt_per_1k: '0.5',
        llm_completion_per_1k: '1.5',
        stt_per_minute: '0',
        tts_per_1k_characters: '0',
        call_per_minute: '0',
        updated_at: expect.any(String),
      });
      // 0.5 per 1,000 prompt tokens is 500 micro-units a token; 1.5 per 1,000 completion tokens, 1,500.
      const cost = BigInt(expected.prompt_tokens) * 500n + BigInt(expected.completion_tokens) * 1500n;
      expect((await usageOf(t, path)).cost).toEqual({ amount: amount(cost), currency: 'USD' });

      await internal()
        .put(`/internal/v1/workspaces/${t.slug}/prices`)
        .send({ currency: 'EUR', llm_prompt_per_1k: '0.000001', llm_completion_per_1k: 0 })
        .expect(200);
      // A thousandth of a micro-unit per token: rounded half up, once, on the whole amount.
      const tiny = (BigInt(expected.prompt_tokens) + 500n) / 1000n;
      expect((await usageOf(t, path)).cost).toEqual({ amount: amount(tiny), currency: 'EUR' });
      expect(
        (await internal().get(`/internal/v1/workspaces/${t.slug}/prices`).expect(200)).body.data,
      ).toMatchObject({
        currency: 'EUR',
        llm_prompt_per_1k: '0.000001',
      });

      await internal().delete(`/internal/v1/workspaces/${t.slug}/prices`).expect(200);
      expect((await usageOf(t, path)).cost).toBeNull();
      const gone = await internal().get(`/internal/v1/workspaces/${t.slug}/prices`).expect(404);
      expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
      await internal().delete(`/internal/v1/workspaces/${t.slug}/prices`).expect(404);
    });

    it("counts the session-end evaluation's model calls in the conversation's usage", async () => {
      const { t, llm } = suite;
      await t.http.post(`/api/v1/conversations/${conversationId}/close`).expect(200);
      await waitFor(
        async () => (llm.callsOf('evaluate').length >= 2 ? true : undefined),
        10_000,
        'evaluation',
      );
      await new Promise((r) => setTimeout(r, 300)); // every feature's answer in
      const atEnd = modelUsage(llm.calls);
      expect(atEnd.prompt_tokens).toBeGreaterThan(0);
      const total = {
        prompt_tokens: expected.prompt_tokens + atEnd.prompt_tokens,
        completion_tokens: expected.completion_tokens + atEnd.completion_tokens,
      };
      const usage = await settled(
        t,
        `/api/v1/conversations/${conversationId}`,
        (u) => u.llm.prompt_tokens === total.prompt_tokens,
      );
      expect(usage.llm).toEqual(total);
      expected = total;
    });

    it('another workspace never sees it: 404 on the conversation, nothing in its analytics', async () => {
      const { other } = suite;
      await other.http.get(`/api/v1/conversations/${conversationId}`).expect(404);
      const stats = (await other.http.get(`/api/v1/analytics/usage?${RANGE}`).expect(200)).body.data;
      expect(stats.totals).toMatchObject({
        conversations: 0,
        llm: { prompt_tokens: 0, completion_tokens: 0 },
      });
      expect(stats.by_agent).toEqual([]);
    });
  });

  it('refuses a bad price table with 422 naming each field; an unknown workspace is 404', async () => {
    const { t } = suite;
    const put = (body: Record<string, unknown>, slug = t.slug) =>
      internal().put(`/internal/v1/workspaces/${slug}/prices`).send(body);
    const missing = await put({ llm_prompt_per_1k: '1' }).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'currency' });
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'XYZ' }, 'currency'],
      [{ currency: 'US' }, 'currency'],
      [{ currency: 'USD', llm_prompt_per_1k: -1 }, 'llm_prompt_per_1k'],
      [{ currency: 'USD', stt_per_minute: '1e-3' }, 'stt_per_minute'],
      [{ currency: 'USD', tts_per_1k_characters: '0.0000000001' }, 'tts_per_1k_characters'],
      [{ currency: 'USD', call_per_minute: 'free' }, 'call_per_minute'],
      [{ currency: 'USD', llm_completion_per_1k: 1e10 }, 'llm_completion_per_1k'],
      [{ currency: 'USD', llm_completion_per_1k: true }, 'llm_completion_per_1k'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body).expect(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field });
    }
    const both = await put({ currency: 'ABC', call_per_minute: -2 }).expect(422);
    expect(both.body.message).toContain('currency');
    expect(both.body.message).toContain('call_per_minute');
    await put({ currency: 'USD' }, 'no-such-workspace-here').expect(404);
    await internal().get(`/internal/v1/workspaces/${t.slug}/prices`).expect(404);
  });

  it('the admin CLI sets, shows and clears a price table', async () => {
    const { other } = suite;
    const set = await admin(
      'price:set',
      other.slug,
      '--llm-prompt-per-1k',
      '0.0005',
      '--llm-completion-per-1k',
      '0.0015',
      '--stt-per-minute',
      '0.006',
      '--tts-per-1k-characters',
      '0.015',
      '--call-per-minute',
      '0.013',
      '--currency',
      'USD',
    );
    expect(set).toEqual([
      `prices of ${other.slug} in USD:`,
      '  llm_prompt_per_1k = 0.0005',
      '  llm_completion_per_1k = 0.0015',
      '  stt_per_minute = 0.006',
      '  tts_per_1k_characters = 0.015',
      '  call_per_minute = 0.013',
    ]);
    expect(await admin('price:show', other.slug)).toEqual(set);
    await expect(
      admin('price:set', other.slug, '--currency', 'USD', '--stt-per-minute', '-1'),
    ).rejects.toThrow('stt_per_minute must be a decimal number');
    expect(await admin('price:clear', other.slug)).toEqual([`prices of ${other.slug} removed`]);
    expect(await admin('price:clear', other.slug)).toEqual([`${other.slug} had no prices`]);
  });

  describe('a Twilio call', () => {
    let line: { agentId: string; numberId: string; number: string };
    let callId: string;
    let usage: Usage;

    it('counts streamed model tokens, speech-to-text seconds and text-to-speech characters as the servers saw them, and the minutes of both legs', async () => {
      const { t, twilio, llm, speech, app } = suite;
      line = await twilioLine(t, {
        language: 'en',
        settings: { voice: { first_message: 'Hello, thanks for calling.', end_of_turn_silence_ms: 300 } },
      });
      llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
      speech.transcripts.push('I need help with my order');
      const placed = await t.http
        .post('/api/v1/call')
        .send({ agent_uuid: line.agentId, to: '+14155550150' })
        .expect(201);
      callId = placed.body.data.uuid as string;
      const callOf = async () => (await t.http.get(`/api/v1/calls/${callId}`).expect(200)).body.data;
      const sid = (await waitFor(async () => (await callOf()).provider_call_id ?? undefined)) as string;
      const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(callId))!.form.Twiml);
      const client = await MediaClient.fromTwiml(app.url, twiml, callId, sid);
      clients.push(client);
      await waitFor(async () => (client.events('mark').length >= 1 ? true : undefined), 15_000, 'greeting');
      client.play('silence', 600);
      client.utter(400, 600);
      await waitFor(async () => (client.events('mark').length >= 2 ? true : undefined), 15_000, 'reply');

      // Forwarded to a number that answers; the other leg lasts 75 s by Twilio's count.
      await t.http
        .post(`/api/v1/calls/action/${callId}/forward`)
        .send({ number: '+14155550177' })
        .expect(200);
      const update = await waitFor(async () =>
        twilio.updates(sid).find((u) => String(u.form.Twiml ?? '').includes('<Dial')),
      );
      const dial = String(update.form.Twiml);
      const action = /<Dial action="([^"]+)"/.exec(dial)![1].replace(/&amp;/g, '&');
      const attempt = /attempt=([a-z0-9]+)/.exec(action)![1];
      client.stop();
      await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/calls/${callId}/dial-status?attempt=${attempt}`, {
        CallSid: sid,
        CallStatus: 'in-progress',
      }).expect(204);
      const ended = { CallSid: sid, DialCallStatus: 'completed', DialCallDuration: '75' };
      await postSigned(app.url, action, ended).expect(200);
      // Twilio may repeat a callback: the leg is counted once.
      await postSigned(app.url, action, ended).expect(200);
      const call = await waitFor(async () => {
        const c = await callOf();
        return c.status === 'completed' ? c : undefined;
      });
      expect(call.end_reason).toBe('forward_completed');

      const replies = llm.calls.filter((c) => c.kind === 'reply');
      expect(replies.length).toBeGreaterThanOrEqual(1);
      expect(replies.every((c) => c.stream && c.usage)).toBe(true);
      // The call's end ends its session: the evaluation's model calls count in the call too.
      await waitFor(
        async () => (llm.callsOf('evaluate').length >= 2 ? true : undefined),
        10_000,
        'evaluation',
      );
      await new Promise((r) => setTimeout(r, 300));
      const model = modelUsage(llm.calls);
      const sttMs = speech.transcriptions.reduce((n, s) => n + Math.round(s.seconds * 1000), 0);
      expect(sttMs).toBeGreaterThan(0);
      const characters = speech.speeches.reduce((n, s) => n + [...s.input].length, 0);
      usage = await settled(
        t,
        `/api/v1/calls/${callId}`,
        (u) =>
          u.call_minutes_by_leg.forwarded > 0 &&
          u.tts_characters === characters &&
          u.llm.prompt_tokens === model.prompt_tokens,
      );
      expect(usage).toEqual({
        llm: model,
        stt_seconds: sttMs / 1000,
        tts_characters: characters,
        call_minutes: Math.round(((call.duration + 75) / 60) * 100) / 100,
        call_minutes_by_leg: { call: Math.round((call.duration / 60) * 100) / 100, forwarded: 1.25 },
        tool_calls: 0,
        cost: null,
      });
      // The conversation answers the same usage as its call.
      expect(await usageOf(t, `/api/v1/conversations/${callId}`)).toEqual(usage);
      await suite.other.http.get(`/api/v1/calls/${callId}`).expect(404);
    });

    it('costs every unit under the price table, summed in /analytics/calls and /analytics/usage', async () => {
      const { t, other } = suite;
      await internal()
        .put(`/internal/v1/workspaces/${t.slug}/prices`)
        .send({
          currency: 'USD',
          llm_prompt_per_1k: '0.0005',
          llm_completion_per_1k: '0.0015',
          stt_per_minute: '0.006',
          tts_per_1k_characters: '0.015',
          call_per_minute: '0.013',
        })
        .expect(200);
      const seconds = (await t.http.get(`/api/v1/calls/${callId}`).expect(200)).body.data.duration + 75;
      // In units of 10⁻⁹ USD times 60,000 (prices per 1,000, per 60,000 ms, per 60 s), rounded half up to micro.
      const scaled =
        BigInt(usage.llm.prompt_tokens) * 500_000n * 60n +
        BigInt(usage.llm.completion_tokens) * 1_500_000n * 60n +
        BigInt(Math.round(usage.stt_seconds * 1000)) * 6_000_000n +
        BigInt(usage.tts_characters) * 15_000_000n * 60n +
        BigInt(seconds) * 13_000_000n * 1000n;
      const cost = { amount: amount((scaled + 30_000_000n) / 60_000_000n), currency: 'USD' };
      const priced = await usageOf(t, `/api/v1/calls/${callId}`);
      expect(priced).toEqual({ ...usage, cost });

      const calls = (
        await t.http.get(`/api/v1/analytics/calls?${RANGE}&agent_uuid=${line.agentId}`).expect(200)
      ).body.data;
      expect(calls.totals).toMatchObject({ count: 1, usage: priced });
      expect(calls.by_channel).toEqual([expect.objectContaining({ channel: 'phone', usage: priced })]);

      const stats = (
        await t.http.get(`/api/v1/analytics/usage?${RANGE}&agent_uuid=${line.agentId}`).expect(200)
      ).body.data;
      expect(stats.range).toMatchObject({ agent_uuid: line.agentId });
      expect(stats.totals).toEqual({ conversations: 1, ...priced });
      expect(stats.by_channel).toEqual([
        { channel: 'phone', channel_label: expect.any(String), conversations: 1, ...priced },
      ]);
      expect(stats.by_day).toEqual([
        { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), conversations: 1, ...priced },
      ]);
      expect(stats.by_agent).toEqual([
        { agent_uuid: line.agentId, agent_name: expect.any(String), conversations: 1, ...priced },
      ]);
      // The whole workspace: the call and the text conversation, by channel.
      const all = (await t.http.get(`/api/v1/analytics/usage?${RANGE}`).expect(200)).body.data;
      expect(all.by_channel.map((c: { channel: string }) => c.channel)).toEqual(['chat', 'phone']);
      expect(all.totals.conversations).toBe(2);
      expect(all.totals.tool_calls).toBe(1);

      const theirs = (await other.http.get(`/api/v1/analytics/calls?${RANGE}`).expect(200)).body.data;
      expect(theirs.totals).toMatchObject({
        count: 0,
        usage: expect.objectContaining({ tts_characters: 0 }),
      });
      expect(theirs.totals.usage.cost).toBeNull();
    });

    it('refuses bad filters on /analytics/usage with 422 naming the field', async () => {
      const cases: [string, string, string][] = [
        ['channel=fax', 'INVALID_FORMAT', 'channel'],
        ['agent_uuid=123', 'INVALID_UUID', 'agent_uuid'],
        ['timezone=Mars/Base', 'INVALID_FORMAT', 'timezone'],
        ['from=2026-03-05&to=2026-03-01', 'VALIDATION_ERROR', 'to'],
      ];
      for (const [query, code, field] of cases) {
        const res = await suite.t.http.get(`/api/v1/analytics/usage?${query}`).expect(422);
        expect(res.body.error).toMatchObject({ code, field });
      }
    });
  });
});
