import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { wav } from '@/modules/voice/media/audio';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';
import { findChromium } from '../support/headless-browser';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { SpeechServer } from '../support/speech-server';
import { readWav } from '../support/voice-providers-corpus';
import { waitFor } from '../support/wait';
import { webCallEnv } from '../support/web-call-client';

/* The functions below run in the page (puppeteer serialises them): its globals, typed as far as they are read. */
interface PageElement {
  disabled?: boolean;
  textContent: string | null;
}
declare const document: {
  getElementById(id: string): PageElement;
  querySelectorAll(selector: string): PageElement[];
};
declare const window: Record<string, any>;
type HTMLButtonElement = PageElement;

const PUBLIC = 'https://calls.example.test';
const GREETING = 'Hi, this is the store assistant.';
const HEARD = 'What time do you open tomorrow?';
const REPLY = 'We open at nine tomorrow morning.';
const SPEECH = path.resolve(__dirname, '../fixtures/voice/speech-16k.wav');

/**
 * The microphone Chromium's fake capture plays (in a loop): silence, the generated speech, silence, as a 48 kHz
 * 16-bit PCM mono WAV (linear interpolation from the fixture's rate).
 */
function fakeMicrophone(dir: string): string {
  const { rate, samples } = readWav(fs.readFileSync(SPEECH))!;
  const out = 48000;
  const speech = Math.floor((samples.length * out) / rate);
  const lead = out * 1.5;
  const pcm = new Int16Array(lead + speech + out * 4);
  for (let i = 0; i < speech; i++) {
    const x = (i * rate) / out;
    const j = Math.floor(x);
    const a = samples[j] ?? 0;
    const b = samples[j + 1] ?? a;
    pcm[lead + i] = Math.round(a + (b - a) * (x - j));
  }
  const file = path.join(dir, 'caller.wav');
  fs.writeFileSync(file, wav(pcm, out));
  return file;
}

describe('web calls in a real browser: the call page talks to the agent', () => {
  jest.setTimeout(120_000);
  // Declared before the suite's start, so the browser (and its call sockets) closes before the app does.
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const page of (await browser?.pages()) ?? []) await page.close().catch(() => undefined);
  });
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), speech: () => SpeechServer.start() },
    env: (servers) => webCallEnv(servers, PUBLIC),
    tenants: ['t'],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-call-browser-'));
  let browser: Browser;
  let agentId: string;

  beforeAll(async () => {
    browser = await puppeteer.launch({
      executablePath: findChromium() ?? '/usr/bin/chromium',
      headless: true,
      acceptInsecureCerts: true,
      args: [
        '--no-sandbox',
        '--disable-dev-shm-usage',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${fakeMicrophone(dir)}`,
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
    agentId = (
      await createAgent(suite.t, {
        language: 'en',
        settings: {
          // The fake microphone repeats its sentence: the agent is not interrupted by it while it speaks.
          voice: { first_message: GREETING, end_of_turn_silence_ms: 500, interruptible: false },
        },
      })
    ).agent_uuid;
    suite.llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
    for (let i = 0; i < 20; i++) suite.speech.transcripts.push(HEARD);
  });

  /** A new web call's page, opened in a new tab on the test app's address. */
  const openPage = async (viewport = { width: 1280, height: 860 }) => {
    const res = await suite.t.http.post('/api/v1/web-calls').send({ agent_uuid: agentId }).expect(201);
    const { call, page_url } = res.body.data as { call: { uuid: string }; page_url: string };
    const page = await browser.newPage();
    await page.setViewport(viewport);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(page_url.replace(PUBLIC, suite.app.url), { waitUntil: 'load' });
    await page.waitForFunction(() => !(document.getElementById('call') as HTMLButtonElement).disabled, {
      polling: 100,
    });
    return { id: call.uuid, page, errors, pageUrl: page_url.replace(PUBLIC, suite.app.url) };
  };
  const probe = (page: Page) => page.evaluate(() => (window as any).webCall);
  const callOf = async (id: string) => (await suite.t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const ended = (id: string) =>
    waitFor(
      async () => {
        const c = await callOf(id);
        return ['completed', 'canceled'].includes(c.status) ? c : undefined;
      },
      15_000,
      'call end',
    );
  const text = (page: Page, selector: string) =>
    page.$eval(selector, (el) => (el as HTMLElement).innerText.trim());

  it('starts from the page: the caller’s audio reaches STT, the model answers, the agent is heard in the page, the transcript shows; the page hangs up', async () => {
    const { id, page, errors } = await openPage();
    expect(await text(page, '#state')).toBe('Ready when you are');
    const heardBefore = suite.speech.transcriptions.length;
    await page.click('#call');
    await page.waitForFunction(() => (window as any).webCall.framesSent > 0, {
      timeout: 15_000,
      polling: 100,
    });
    await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));

    // The caller's sentence, captured by the page at 16 kHz, is transcribed; the model is asked.
    await waitFor(
      async () => (suite.speech.transcriptions.length > heardBefore ? true : undefined),
      30_000,
      'speech to text',
    );
    const heard = suite.speech.transcriptions[heardBefore];
    expect(heard.seconds).toBeGreaterThan(1);
    await waitFor(async () => (suite.llm.callsOf('reply').length ? true : undefined), 15_000, 'model');
    // The reply is played in the page: its AnalyserNode measures it, and the transcript shows both sides.
    await page.waitForFunction(
      (reply: string) =>
        [...document.querySelectorAll('.line--agent')].some((li) => li.textContent?.startsWith(reply)),
      { timeout: 20_000, polling: 100 },
      REPLY,
    );
    await page.waitForFunction(() => (window as any).webCall.agentPeak > 0.02, {
      timeout: 15_000,
      polling: 100,
    });
    const customer = await page.$$eval('.line--customer', (els) => els.map((e) => e.textContent));
    expect(customer).toContain(HEARD);
    const agent = await page.$$eval('.line--agent', (els) => els.map((e) => e.textContent));
    expect(agent[0]).toBe(GREETING);
    await page.waitForFunction(() => (window as any).webCall.turns.length > 0, {
      timeout: 15_000,
      polling: 100,
    });
    expect(await text(page, '#latency')).toMatch(/^Last reply in \d+\.\d\d s$/);
    const p = await probe(page);
    expect(p.framesReceived).toBeGreaterThan(20);
    await page.screenshot({ path: '/tmp/web-call.png' });

    await page.click('#call');
    const call = await ended(id);
    expect(call).toMatchObject({ status: 'completed', end_reason: 'customer_hangup', communication: 'web' });
    await page.waitForFunction(() => (window as any).webCall.state === 'ended', { polling: 100 });
    expect(await text(page, '#state')).toBe('You ended the call.');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a hang-up from the API ends the call in the page, which says so; on a phone-sized screen', async () => {
    const { id, page, errors } = await openPage({ width: 390, height: 844 });
    await page.click('#call');
    await page.waitForFunction(() => (window as any).webCall.framesReceived > 10, {
      timeout: 15_000,
      polling: 100,
    });
    await page.screenshot({ path: '/tmp/web-call-phone.png' });
    await suite.t.http.post(`/api/v1/calls/action/${id}/hangup`).send({ message: 'Goodbye.' }).expect(200);
    expect(await ended(id)).toMatchObject({ status: 'completed', end_reason: 'api_hangup' });
    await page.waitForFunction(() => (window as any).webCall.state === 'ended', {
      timeout: 15_000,
      polling: 100,
    });
    expect(await text(page, '#state')).toBe('The call was ended by the business.');
    expect((await probe(page)).endReason).toBe('api_hangup');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a refused microphone: the page says so and the call ends canceled with the reason', async () => {
    // A browser that asks the user (no fake permission prompt), whose user refuses the microphone to the page.
    const asking = await puppeteer.launch({
      executablePath: findChromium() ?? '/usr/bin/chromium',
      headless: true,
      acceptInsecureCerts: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--use-fake-device-for-media-stream'],
    });
    try {
      const res = await suite.t.http.post('/api/v1/web-calls').send({ agent_uuid: agentId }).expect(201);
      const id = res.body.data.call.uuid as string;
      const page = await asking.newPage();
      const cdp = await page.createCDPSession();
      await cdp.send('Browser.setPermission', {
        origin: suite.app.url,
        permission: { name: 'microphone' },
        setting: 'denied',
      });
      await page.goto((res.body.data.page_url as string).replace(PUBLIC, suite.app.url));
      await page.waitForFunction(() => !(document.getElementById('call') as HTMLButtonElement).disabled);
      await page.click('#call');
      await page.waitForFunction(() => (window as any).webCall.state === 'failed', {
        timeout: 15_000,
        polling: 100,
      });
      expect(await text(page, '#state')).toBe('Microphone access was refused.');
      expect(await ended(id)).toMatchObject({
        status: 'canceled',
        end_reason: 'canceled',
        error: { code: 'WEB_MICROPHONE_DENIED', message: 'The caller did not allow the microphone' },
      });
    } finally {
      await asking.close();
    }
  });

  it('a used or invalid link: the page says so in words before anything starts', async () => {
    const { page, id, pageUrl } = await openPage();
    expect(page.url()).not.toContain('token'); // the token left the address bar
    // The link is opened again in another tab once the first has taken the call.
    await page.click('#call');
    await page.waitForFunction(() => (window as any).webCall.framesSent > 0, {
      timeout: 15_000,
      polling: 100,
    });
    const again = await browser.newPage();
    await again.goto(pageUrl);
    await again.waitForFunction(() => (window as any).webCall.state === 'failed', { polling: 100 });
    expect(await text(again, '#state')).toBe('This call link has already been used.');
    const wrong = await browser.newPage();
    await wrong.goto(`${suite.app.url}/hooks/v1/web/calls/${id}/page#token=wct_${'x'.repeat(43)}`);
    await wrong.waitForFunction(() => (window as any).webCall.state === 'failed', { polling: 100 });
    expect(await text(wrong, '#state')).toBe('This call link is not valid.');
    await page.bringToFront();
    await page.click('#call');
    await ended(id);

    const listed = (await suite.t.http.get('/api/v1/calls?communication=web&per_page=100').expect(200)).body
      .data.items as { uuid: string; communication: string }[];
    expect(listed.map((c) => c.uuid)).toContain(id);
    expect(listed.every((c) => c.communication === 'web')).toBe(true);
  });
});
