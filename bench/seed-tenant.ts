import type { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { type WorkspaceId, workspaceIdOf } from '@/common/auth/workspace-id';
import { generateTokenValue, hashToken } from '@/modules/workspaces/token-format';

/** A workspace, an admin user and a read-write token written straight into a benchmark's database. */
export async function seedBenchTenant(
  db: Client,
  slug: string,
): Promise<{ workspaceId: WorkspaceId; token: string }> {
  const workspaceId = workspaceIdOf(uuidv7());
  const user = uuidv7();
  const token = generateTokenValue();
  await db.query(`INSERT INTO workspaces (id, slug, name) VALUES ($1, $2, 'Benchmark')`, [workspaceId, slug]);
  await db.query(
    `INSERT INTO users (id, workspace_id, email, name, role) VALUES ($1, $2, 'bench@example.test', 'Bench', 'admin')`,
    [user, workspaceId],
  );
  await db.query(
    `INSERT INTO api_tokens (id, workspace_id, user_id, name, token_hash, last_four, scopes)
     VALUES ($1, $2, $3, 'bench', $4, $5, '{read,write}')`,
    [uuidv7(), workspaceId, user, hashToken(token), token.slice(-4)],
  );
  return { workspaceId, token };
}
