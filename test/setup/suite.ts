import * as os from 'node:os';
import * as path from 'node:path';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { dropDatabase, isolatedDatabase } from '../support/isolated-database';
import { startTestApp, TestApp } from './test-app';

/** A local server a suite starts before its app (a model, a receiver, a site): anything that can be closed. */
export interface Closable {
  close(): unknown;
}

type Env = Record<string, string>;

/**
 * What a suite's tests reach: the app, each server started for it by name, one workspace per tenant name given (a
 * second proves isolation), and `databaseUrl` when the suite asked for a database of its own.
 */
export type Suite<N extends string, S extends Record<string, Closable> = Record<never, Closable>> = {
  app: TestApp;
  databaseUrl: string;
} & S &
  Record<N, TestTenant>;

export interface SuiteOptions<N extends string, S extends Record<string, Closable>> {
  /** Servers started (in this order) before the app and closed after it; the suite exposes each by its key. */
  servers?: { [K in keyof S]: () => Promise<S[K]> };
  /**
   * A database of its own (`isolatedDatabase(tag)`), for suites whose background workers must not share the run's
   * database: created before the app, its URL given to the app as `DATABASE_URL`, dropped after the app stops.
   */
  database?: string;
  /**
   * A storage directory of its own (this name under the run's), for suites that check which files are left behind:
   * the uploads another suite has in flight meanwhile are not theirs.
   */
  storage?: string;
  /** Configuration overrides (see startTestApp); a function is called once the servers and database are up. */
  env?: Env | ((started: S & { databaseUrl: string }) => Env | Promise<Env>);
  tenants?: readonly N[];
  captureLogs?: boolean;
}

/**
 * The shared start of an e2e suite: before the tests, the servers, the suite's own database when asked, one app
 * (with `env` overrides) and a workspace with its token for each name in `tenants`, made in that order; after
 * them, the app closed, then the servers, then the database dropped. The fields are filled in `beforeAll`, so tests
 * read them as `suite.app`, `suite.t`, `suite.llm`, never copy them at load time.
 */
export function useTestApp<
  N extends string = never,
  S extends Record<string, Closable> = Record<never, Closable>,
>(options: SuiteOptions<N, S> = {}): Suite<N, S> {
  const suite = {} as Suite<N, S>;
  const fields = suite as unknown as Record<string, unknown>;
  const started: Closable[] = [];
  beforeAll(async () => {
    for (const [name, start] of Object.entries(options.servers ?? {}) as [
      string,
      () => Promise<Closable>,
    ][]) {
      const server = await start();
      started.push(server);
      fields[name] = server;
    }
    if (options.database) suite.databaseUrl = await isolatedDatabase(options.database);
    const env = typeof options.env === 'function' ? await options.env(suite) : { ...options.env };
    if (options.database) env.DATABASE_URL = suite.databaseUrl;
    if (options.storage) env.STORAGE_DIR = path.join(process.env.STORAGE_DIR ?? os.tmpdir(), options.storage);
    suite.app = await startTestApp(env, { captureLogs: options.captureLogs });
    for (const name of options.tenants ?? []) fields[name] = await createTenant(suite.app);
  });
  afterAll(async () => {
    await suite.app?.close();
    for (const server of started.reverse()) await server.close();
    if (suite.databaseUrl) await dropDatabase(suite.databaseUrl);
  });
  return suite;
}
