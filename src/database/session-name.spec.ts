import { databaseSessionName, dispatchedByWriter } from './session-name';

describe('database session names', () => {
  it('are unique per process and tell a dispatching process from one that is not', () => {
    const w = databaseSessionName(true);
    const a = databaseSessionName(false);
    expect(w).toMatch(/^agent-platform:w:[0-9a-f]{12}$/);
    expect(a).toMatch(/^agent-platform:a:[0-9a-f]{12}$/);
    expect(databaseSessionName(true)).not.toBe(w);
    // Within PostgreSQL's 63-byte limit for application_name, so the NOTIFY payload is the name as given.
    expect(Buffer.byteLength(w)).toBeLessThan(64);
  });

  it("leaves only another dispatching process's writes to that process", () => {
    const own = databaseSessionName(true);
    expect(dispatchedByWriter(databaseSessionName(true), own)).toBe(true);
    expect(dispatchedByWriter(own, own)).toBe(false);
    expect(dispatchedByWriter(databaseSessionName(false), own)).toBe(false);
    expect(dispatchedByWriter('', own)).toBe(false);
    expect(dispatchedByWriter(undefined, own)).toBe(false);
    expect(dispatchedByWriter('psql', own)).toBe(false);
  });
});
