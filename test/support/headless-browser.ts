import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The installed Chromium, if any: browser checks are run only where one is installed. */
export function findChromium(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || null;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * Headless Chromium driven over the DevTools protocol on a pipe (no extra package): every host of `domain` resolves
 * to 127.0.0.1 and the test certificate is accepted, as `curl -k --resolve` would.
 */
export class HeadlessBrowser {
  private readonly child: ChildProcess;
  private readonly profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cap-chromium-'));
  private nextId = 1;
  private buffer = '';
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(executable: string, domain: string) {
    this.child = spawn(
      executable,
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--ignore-certificate-errors',
        `--host-resolver-rules=MAP *.${domain} 127.0.0.1, MAP ${domain} 127.0.0.1`,
        '--remote-debugging-pipe',
        `--user-data-dir=${this.profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    );
    (this.child.stdio[4] as Readable).on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end: number;
      while ((end = this.buffer.indexOf('\0')) >= 0) {
        const message = JSON.parse(this.buffer.slice(0, end)) as { id?: number; result?: any; error?: any };
        this.buffer = this.buffer.slice(end + 1);
        const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
        if (!waiter) continue;
        this.pending.delete(message.id!);
        if (message.error) waiter.reject(new Error(JSON.stringify(message.error)));
        else waiter.resolve(message.result);
      }
    });
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  /** Opens `url` in a new page and waits for it to load; returns the page's session. */
  async open(url: string): Promise<string> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    await this.send('Page.navigate', { url }, sessionId);
    for (let i = 0; i < 100; i++) {
      const state = await this.evaluate(sessionId, 'location.href + " " + document.readyState');
      if (state === `${url} complete`) return sessionId;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${url} did not load`);
  }

  /** Runs an expression in the page (awaiting a promise) and returns its value. */
  async evaluate(sessionId: string, expression: string): Promise<any> {
    const { result, exceptionDetails } = await this.send(
      'Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true },
      sessionId,
    );
    if (exceptionDetails) throw new Error(JSON.stringify(exceptionDetails));
    return result.value;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
    // The browser's helper processes may still write into the profile after it exits (seconds on a busy machine):
    // retry for up to 5 s; a temporary folder left behind after that fails no test.
    await fs.promises
      .rm(this.profile, { recursive: true, force: true, maxRetries: 50, retryDelay: 100 })
      .catch(() => undefined);
  }
}
