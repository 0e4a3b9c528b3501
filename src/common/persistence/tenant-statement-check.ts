import { SWEEP_KINDS, SweepKind } from './sweep';

/**
 * The tenant-filter rule, checked on every statement the test suite sends to PostgreSQL: a statement that reads
 * or changes a tenant table (one with a `workspace_id` column) must filter on `workspace_id`, unless it runs in a
 * named sweep. The check reads SQL text, not a parse tree: it is meant to catch a forgotten filter in the SQL this
 * code base writes (TypeORM's and hand-written), and to say where it came from.
 */
export interface TenantTables {
  /** Tables of the public schema with a `workspace_id` column, lower case. */
  tables: ReadonlySet<string>;
  /** Schema whose every table is a per-data-source records table, named after its data source. */
  recordsSchema: string;
}

export interface StatementContext {
  sweep?: SweepKind;
  /** Inside a TypeORM save of entities whose workspace the repository checked (see runAsOwnedSave). */
  ownedSave?: boolean;
  /** Data-source ids read through a workspace-filtered statement; their records tables count as scoped. */
  scopedDataSources?: ReadonlySet<string>;
}

export type Verdict =
  | {
      ok: true;
      tenantTables: string[];
      why: 'no tenant table' | 'filtered' | 'insert' | 'sweep' | 'ddl' | 'owned save';
    }
  | { ok: false; tenantTables: string[]; reason: string };

const SWEEP_COMMENT = /\/\*\s*sweep:([a-z]+)\s*\*\//i;
const NON_ROW =
  /^(begin|start|commit|rollback|savepoint|release|set|show|reset|listen|unlisten|notify|discard|deallocate|prepare transaction)\b/;
const DDL = /^(create|alter|drop|comment|grant|revoke|analyze|vacuum|reindex|cluster|lock)\b/;
const TABLE_REF =
  /\b(?:from|join|update|into|table|copy|using)\s+(?:only\s+)?([a-z_][\w$]*(?:\.[a-z_][\w$]*)?)/g;
const PREDICATE_LEFT =
  /(?:\bwhere|\band|\bor|\bon|\()\s*(?:[a-z_][\w$]*\.)?workspace_id\s*(?:=|in\b|is not distinct from)/;
const PREDICATE_RIGHT = /(?:=|\bin\s*\()\s*(?:[a-z_][\w$]*\.)?workspace_id\b/;

/** SQL without comments, string literals and identifier quotes, lower case, on one line. */
export function normalizeSql(sql: string): string {
  return sql
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/\$([a-z_]*)\$[\s\S]*?\$\1\$/gi, "''")
    .replace(/"((?:[^"]|"")*)"/g, (_, name: string) => name.replace(/""/g, '"'))
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The tables a normalized statement names after FROM, JOIN, UPDATE, INTO, TABLE, COPY or USING. */
export function referencedTables(normalized: string): string[] {
  const found = new Set<string>();
  for (const m of normalized.matchAll(TABLE_REF)) found.add(m[1].replace(/^public\./, ''));
  return [...found];
}

/** The data-source uuid a records table is named after (`r_<uuid hex>_<random hex>`). */
export function recordsTableSource(table: string): string | undefined {
  const m = /^r_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})_[0-9a-f]{8}$/.exec(table);
  return m ? m.slice(1).join('-') : undefined;
}

function isPlainInsert(normalized: string, table: string): boolean {
  const m = /^insert into ([a-z_][\w$.]*)(?: as [\w$]+| [\w$]+)? ?\(([^)]*)\) ?(.*)$/.exec(normalized);
  if (!m || m[1].replace(/^public\./, '') !== table) return false;
  const columns = m[2].split(',').map((c) => c.trim());
  return columns.includes('workspace_id') && !/\bselect\b/.test(m[3].replace(/\breturning\b.*$/, ''));
}

/** Judges one statement (one text sent to the server; several statements in one text are judged together). */
export function checkStatement(sql: string, tenant: TenantTables, context: StatementContext = {}): Verdict {
  const tagged = SWEEP_COMMENT.exec(sql)?.[1]?.toLowerCase() as SweepKind | undefined;
  const sweep = context.sweep ?? (tagged && SWEEP_KINDS.includes(tagged) ? tagged : undefined);
  const normalized = normalizeSql(sql);
  const tables = referencedTables(normalized);
  const prefix = `${tenant.recordsSchema}.`;
  const records = tables.filter((t) => t.startsWith(prefix));
  const tenantTables = [...tables.filter((t) => tenant.tables.has(t)), ...records];
  if (tenantTables.length === 0 || NON_ROW.test(normalized))
    return { ok: true, tenantTables, why: 'no tenant table' };
  if (sweep) return { ok: true, tenantTables, why: 'sweep' };
  if (context.ownedSave && !records.length) return { ok: true, tenantTables, why: 'owned save' };
  // A new records table holds nobody's rows yet; every later statement on it is judged.
  if (/^create table /.test(normalized) && records.length === tenantTables.length)
    return { ok: true, tenantTables, why: 'ddl' };
  for (const table of records) {
    const source = recordsTableSource(table.slice(prefix.length));
    if (!source || !context.scopedDataSources?.has(source))
      return {
        ok: false,
        tenantTables,
        reason: `records table ${table} was not reached through a workspace-filtered read of its data source`,
      };
  }
  const shared = tenantTables.filter((t) => !t.startsWith(prefix));
  if (shared.length === 0) return { ok: true, tenantTables, why: 'filtered' };
  if (DDL.test(normalized)) return { ok: true, tenantTables, why: 'ddl' };
  if (shared.length === 1 && isPlainInsert(normalized, shared[0]))
    return { ok: true, tenantTables, why: 'insert' };
  if (PREDICATE_LEFT.test(normalized) || PREDICATE_RIGHT.test(normalized))
    return { ok: true, tenantTables, why: 'filtered' };
  return { ok: false, tenantTables, reason: `no workspace_id filter on ${shared.join(', ')}` };
}
