import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** One statement on a tenant table without a workspace filter, as recorded by tenant-filter.ts. */
export interface TenantViolation {
  sql: string;
  reason: string;
  /** Calling frames, innermost first (application frames when there are any). */
  site: string[];
  /** Sent by the test itself (a fixture poking the database), not by the application. */
  fromTest: boolean;
  file: string;
}

export function tenantCheckDir(): string {
  return path.join(os.tmpdir(), `cap-tenant-check-${process.env.CAP_TEST_RUN ?? 'local'}`);
}

/** The recorded violations of the run, one entry per statement and site. */
export function readViolations(): TenantViolation[] {
  const dir = tenantCheckDir();
  if (!fs.existsSync(dir)) return [];
  const seen = new Map<string, TenantViolation>();
  for (const file of fs.readdirSync(dir))
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean)) {
      const v = JSON.parse(line) as TenantViolation;
      seen.set(`${v.sql}\n${v.site.join('\n')}`, v);
    }
  return [...seen.values()];
}

/** The failure message: each statement, why, and where it was sent from. */
export function describeViolations(list: TenantViolation[]): string {
  const lines = [`${list.length} statement(s) on tenant tables without a workspace_id filter:`];
  for (const v of list) {
    lines.push('', `  ${v.reason}`, `  SQL: ${v.sql}`);
    for (const frame of v.site.length ? v.site : ['(no application frame on the stack)'])
      lines.push(`    at ${frame}`);
    lines.push(`  during ${path.basename(v.file)}`);
  }
  return lines.join('\n');
}
