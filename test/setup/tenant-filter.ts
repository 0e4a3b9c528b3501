import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { currentSweep, inOwnedSave } from '@/common/persistence/sweep';
import {
  checkStatement,
  normalizeSql,
  TenantTables,
  Verdict,
} from '@/common/persistence/tenant-statement-check';
import { tenantCheckDir, TenantViolation } from './tenant-filter-report';

/**
 * Every statement an e2e file sends through `pg` (TypeORM's and hand-written, the app's and its workers') is
 * judged by the tenant-filter rule; the unscoped ones are written to a file of this worker, and the global
 * teardown fails the run listing them.
 */
const dir = tenantCheckDir();
const tenant: TenantTables = {
  tables: new Set((process.env.CAP_TENANT_TABLES ?? '').split(',').filter(Boolean)),
  recordsSchema: 'knowledge_data',
};
const scopedDataSources = new Set<string>();
const plainVerdicts = new Map<string, Verdict>();
const reported = new Set<string>();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 80);

const root = path.resolve(__dirname, '../..') + path.sep;
const onDisk = new Map<string, boolean>();

/** A frame of this project's own code (source maps also name library files `src/...`: those are not on disk here). */
function projectFrame(frame: string): string | undefined {
  const file = /\(?([^\s()]+?):\d+:\d+\)?$/.exec(frame)?.[1];
  if (!file) return undefined;
  const rel = file.startsWith(root) ? file.slice(root.length) : file;
  if (!/^(src|test)\//.test(rel) || rel.includes('tenant-filter')) return undefined;
  if (!onDisk.has(rel)) onDisk.set(rel, fs.existsSync(root + rel));
  return onDisk.get(rel) ? frame.replace(root, '') : undefined;
}

interface CallSite {
  /** Sent by the application (or by no identifiable caller), so judged. */
  app: boolean;
  migration: boolean;
  frames: string[];
}

/**
 * Who sent the statement. The application's frames when there are any; a test's own SQL (a fixture) either shows
 * a test frame or enters through DataSource/EntityManager.query with the caller lost; anything else is judged,
 * with the library frames as the only clue.
 */
function callSite(stack: string): CallSite {
  const lines = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''));
  const own = lines.map(projectFrame).filter((f): f is string => !!f);
  const app = own.filter((f) => / \(?src\//.test(` ${f}`));
  const migration = app.some((f) => f.includes('src/database/'));
  if (app.length) return { app: true, migration, frames: app.slice(0, 4) };
  const raw = lines.some((l) => /^(DataSource|EntityManager)\.query /.test(l));
  if (own.length || raw) return { app: false, migration, frames: own.slice(0, 4) };
  const library = lines.filter((l) => !l.includes('tenant-filter') && !l.startsWith('node:')).slice(0, 4);
  return { app: true, migration, frames: library.map((l) => `${l} (no application frame)`) };
}

/** Ids found in the parameters and rows of a workspace-filtered statement on data_sources. */
function noteDataSources(values: unknown, rows?: unknown): void {
  const text = JSON.stringify([values ?? null, rows ?? null]);
  for (const id of text.match(UUID) ?? []) scopedDataSources.add(id.toLowerCase());
}

/** The statement on one line, a long select list elided so that FROM and WHERE show. */
function forReport(sql: string): string {
  return normalizeSql(sql)
    .replace(/^select (.{120,}?) from /, 'select … from ')
    .slice(0, 600);
}

function testFile(): string {
  try {
    return expect.getState().testPath ?? '';
  } catch {
    return '';
  }
}

function record(violation: TenantViolation): void {
  const key = `${violation.sql}\n${violation.site.join('\n')}`;
  if (reported.has(key)) return;
  reported.add(key);
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, `${process.pid}.jsonl`), JSON.stringify(violation) + '\n');
}

type Query = (this: Client, ...args: unknown[]) => unknown;
const proto = Client.prototype as unknown as { query: Query; __tenantChecked?: boolean };
if (!proto.__tenantChecked && tenant.tables.size && process.env.CAP_TENANT_CHECK !== 'off') {
  proto.__tenantChecked = true;
  const original = proto.query;
  proto.query = function (this: Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; values?: unknown } | undefined;
    const sql = typeof config === 'string' ? config : config?.text;
    if (typeof sql !== 'string') return original.apply(this, args);
    const values = Array.isArray(args[1]) ? args[1] : typeof config === 'object' ? config?.values : undefined;
    // The same texts come back with new parameters: a text that passes on its own passes in any context.
    let verdict = plainVerdicts.get(sql);
    if (!verdict) plainVerdicts.set(sql, (verdict = checkStatement(sql, tenant)));
    if (!verdict.ok)
      verdict = checkStatement(sql, tenant, {
        sweep: currentSweep(),
        ownedSave: inOwnedSave(),
        scopedDataSources,
      });
    const readsSources =
      verdict.ok &&
      ['filtered', 'insert', 'owned save'].includes(verdict.why) &&
      verdict.tenantTables.includes('data_sources');
    if (readsSources) noteDataSources(values);
    const site = verdict.ok ? undefined : callSite(new Error().stack ?? '');
    // Migrations rewrite every workspace's rows by design; they run once per database, before any tenant.
    if (!verdict.ok && site && !site.migration) {
      record({
        sql: forReport(sql),
        reason: verdict.reason,
        site: site.frames,
        fromTest: !site.app,
        file: testFile(),
      });
    }
    if (!readsSources) return original.apply(this, args);
    const callback = args.findIndex((a) => typeof a === 'function');
    if (callback >= 0) {
      const done = args[callback] as (err: unknown, res?: { rows?: unknown }) => void;
      args[callback] = (err: unknown, res?: { rows?: unknown }) => {
        if (!err) noteDataSources(undefined, res?.rows);
        done(err, res);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise)
      return result.then((res: { rows?: unknown }) => (noteDataSources(undefined, res?.rows), res));
    return result;
  };
}
