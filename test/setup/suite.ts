import { createTenant, TestTenant } from '../factories/workspace.factory';
import { startTestApp, TestApp } from './test-app';

/** What a suite's tests reach: the app, and one workspace per name given (a second proves isolation). */
export type Suite<N extends string> = { app: TestApp } & Record<N, TestTenant>;

/**
 * The shared start of an e2e suite: before the tests, one app (with `env` overrides, see startTestApp) and a
 * workspace with its token for each name in `tenants`, made in that order; after them, the app closed. The
 * fields are filled in `beforeAll`, so tests read them as `suite.app`, `suite.t`, never copy them at load time.
 */
export function useTestApp<N extends string = never>(
  options: { env?: Record<string, string>; tenants?: readonly N[]; captureLogs?: boolean } = {},
): Suite<N> {
  const suite = {} as Suite<N>;
  beforeAll(async () => {
    suite.app = await startTestApp(options.env, { captureLogs: options.captureLogs });
    for (const name of options.tenants ?? [])
      (suite as Record<N, TestTenant>)[name] = await createTenant(suite.app);
  });
  afterAll(() => suite.app?.close());
  return suite;
}
