import { createHash } from 'node:crypto';
import request from 'supertest';
import type { Test } from 'supertest';
import { loadConfig, AppConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { loadOrCreateTlsMaterial } from '@/common/http/tls';
import { urlPolicy } from '@/common/validation/validators';
import { startApi, StartedApi } from '@/bootstrap';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  api: StartedApi;
  config: AppConfig;
  url: string;
  port: number;
  get<T>(token: unknown): T;
  /** A request to the tenant's host, with the token when given. */
  http(host: string, token?: string): TenantClient;
  /** A request to the internal module with the admin key. */
  internal(): TenantClient;
  /** Every log line written so far (only with `captureLogs`). */
  logs(): string[];
  close(): Promise<void>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type TenantClient = Record<Method, (path: string) => Test>;

export function client(url: string, host: string, auth?: string): TenantClient {
  const make = (method: Method) => (path: string) => {
    const req = request(url)[method](path).disableTLSCerts().set('Host', host);
    return auth ? req.set('Authorization', `Bearer ${auth}`) : req;
  };
  return {
    get: make('get'),
    post: make('post'),
    put: make('put'),
    patch: make('patch'),
    delete: make('delete'),
  };
}

/**
 * Apps of every suite share Redis, so a job may run in any of them: apps with another configuration get queues of
 * their own (a prefix derived from the overrides), while apps with the same overrides still share queues and limits.
 */
function redisPrefixFor(env: Record<string, string>): string {
  const base = process.env.REDIS_PREFIX ?? 'cap-test';
  const keys = Object.keys(env).sort();
  if (!keys.length) return base;
  const digest = createHash('sha256')
    .update(JSON.stringify(keys.map((k) => [k, env[k]])))
    .digest('hex');
  return `${base}-${digest.slice(0, 10)}`;
}

/**
 * Boots the real service (same bootstrap as `npm start`: TLS, pipeline, workers) on a free port of 127.0.0.1,
 * against the run's database and Redis.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { captureLogs?: boolean } = {},
): Promise<TestApp> {
  const config = resolveEncryptionKey(
    loadConfig({ ...process.env, PORT: '0', REDIS_PREFIX: redisPrefixFor(env), ...env }),
  );
  urlPolicy.allowHttp = config.network.allowPrivateTargets;
  const tls = config.trustProxy ? undefined : await loadOrCreateTlsMaterial(config);
  const lines: string[] = [];
  const logDestination = options.captureLogs ? { write: (line: string) => void lines.push(line) } : undefined;
  const api = await startApi(config, { host: '127.0.0.1', tls, logDestination });
  const scheme = config.trustProxy ? 'http' : 'https';
  const url = `${scheme}://127.0.0.1:${api.server.port}`;
  return {
    api,
    config,
    url,
    port: api.server.port,
    get: <T>(token: unknown) => api.app.get(token as never) as T,
    http: (host, token) => client(url, host, token),
    internal: () => client(url, 'ops.example.test', ADMIN_KEY),
    logs: () => [...lines],
    close: () => api.stop(),
  };
}
