import type { ChildProcess } from 'node:child_process';
import * as https from 'node:https';

export type Body = { data?: any };

/**
 * A client of one API replica over HTTPS, as a workspace's token (tenant host `bench.localhost`): answers the JSON
 * body of a 2xx, rejects on anything else with the status and the body.
 */
export function apiClient(agent: https.Agent, base: string, token: string) {
  return (method: string, p: string, body?: unknown): Promise<Body> => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string | number> = {
      Host: 'bench.localhost',
      Authorization: `Bearer ${token}`,
    };
    if (payload)
      Object.assign(headers, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(payload),
      });
    return new Promise((resolve, reject) => {
      const req = https.request(`${base}${p}`, { method, agent, headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          (res.statusCode ?? 500) < 300
            ? resolve(JSON.parse(text || '{}') as Body)
            : reject(new Error(`${method} ${p}: ${res.statusCode} ${text}`)),
        );
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
}

/** Asks a forked replica (test/support/api-process) to stop, and kills it if it has not within 15 s. */
export function stopReplica(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.send('stop');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}
