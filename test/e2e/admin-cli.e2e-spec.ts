import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { registerAdminCommands } from '@/cli/admin-commands';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import { uniqueSlug } from '../factories/workspace.factory';
import { client } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

describe('admin CLI', () => {
  const suite = useTestApp();

  async function run(...args: string[]): Promise<string[]> {
    const out: string[] = [];
    const program = new Command('admin').exitOverride();
    registerAdminCommands(
      program,
      {
        workspaces: suite.app.get(WorkspacesService),
        tokens: suite.app.get(TokensService),
        config: suite.app.config,
      },
      (line) => out.push(line),
    );
    await program.parseAsync(args, { from: 'user' });
    return out;
  }

  it('creates a workspace, a user and a token that works; lists and revokes it; sets a policy', async () => {
    const slug = uniqueSlug('cli');
    expect((await run('workspace:create', slug, '--name', 'CLI Co'))[0]).toMatch(
      new RegExp(`^workspace ${slug} created`),
    );
    expect((await run('user:create', slug, 'ops@cli.test', '--role', 'developer'))[0]).toMatch(
      /^user ops@cli.test \(developer\) created/,
    );
    const created = await run(
      'token:create',
      slug,
      '--user',
      'ops@cli.test',
      '--name',
      'laptop',
      '--scopes',
      'read',
    );
    const token = created[1];
    expect(token).toMatch(/^cap_[0-9A-Za-z]{38}$/);
    const tokenId = /^token (\S+)/.exec(created[0])![1];

    const me = await client(suite.app.url, `${slug}.localhost`, token).get('/api/v1/me').expect(200);
    expect(me.body.data.token).toEqual({ uuid: tokenId, name: 'laptop', scopes: ['read'] });

    const list = await run('token:list', slug);
    expect(list).toHaveLength(1);
    expect(list[0]).toContain(tokenId);
    expect(list[0]).toContain(`...${token.slice(-4)}`);
    expect(list[0]).not.toContain(token);

    await run('token:revoke', slug, tokenId);
    await client(suite.app.url, `${slug}.localhost`, token).get('/api/v1/me').expect(401);

    expect((await run('policy:set', slug, 'ANALYTICS_MESSAGES_EXPORT=disabled'))[0]).toContain(
      '"ANALYTICS_MESSAGES_EXPORT":"disabled"',
    );
    await expect(run('policy:set', slug, 'ANALYTICS_MESSAGES_EXPORT=open')).rejects.toThrow(
      'must be one of raw, masked, disabled',
    );
  });

  it('refuses a token for a member', async () => {
    const slug = uniqueSlug('cli');
    await run('workspace:create', slug);
    await run('user:create', slug, 'm@cli.test', '--role', 'member');
    await expect(run('token:create', slug, '--user', 'm@cli.test')).rejects.toThrow('admin or developer');
  });

  it('runs as `npm run admin` beside the database', async () => {
    const slug = uniqueSlug('cli');
    const root = path.resolve(__dirname, '../..');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        'tsconfig-paths/register',
        'src/cli/admin.ts',
        'workspace:create',
        slug,
      ],
      { cwd: root, env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' }, timeout: 60_000 },
    );
    expect(stdout).toContain(`workspace ${slug} created`);
    expect(stdout).toContain(`https://${slug}.localhost:`);
    const bad = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        'tsconfig-paths/register',
        'src/cli/admin.ts',
        'workspace:create',
        slug,
      ],
      { cwd: root, env: process.env, timeout: 60_000 },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('CONFLICT') });
  }, 60_000);
});
