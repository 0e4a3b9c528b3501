import { DynamicModule, Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';

/** The injection token of this process's database session name (`application_name` of its pooled connections). */
export const DATABASE_SESSION_NAME = Symbol('DATABASE_SESSION_NAME');

/** Session names of processes that dispatch the outbox themselves (they run the workers). */
const DISPATCHING = 'agent-platform:w:';

/**
 * A name for this process's database sessions, unique per process: visible in `pg_stat_activity`, and the payload
 * of the outbox NOTIFY its transactions send, so a dispatcher can tell its own writes from another's.
 */
export function databaseSessionName(dispatchesOutbox: boolean): string {
  return `${dispatchesOutbox ? DISPATCHING : 'agent-platform:a:'}${randomBytes(6).toString('hex')}`;
}

/**
 * Whether the writer of a NOTIFY dispatches its own events (a process running the workers other than this one):
 * then this process leaves them to it. Writers that do not (an API-only process, a script) are everyone's.
 */
export function dispatchedByWriter(payload: string | undefined, own: string): boolean {
  return !!payload && payload !== own && payload.startsWith(DISPATCHING);
}

/** Makes the session name injectable everywhere. */
@Module({})
export class DatabaseSessionModule {
  static forRoot(name: string): DynamicModule {
    return {
      module: DatabaseSessionModule,
      global: true,
      providers: [{ provide: DATABASE_SESSION_NAME, useValue: name }],
      exports: [DATABASE_SESSION_NAME],
    };
  }
}
