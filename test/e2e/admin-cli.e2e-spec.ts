import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { registerAdminCommands } from '@/cli/admin-commands';
import { PricesService } from '@/modules/workspaces/prices.service';
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
        prices: suite.app.get(PricesService),
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
    expect(created.slice(2)).toEqual([
      `try it: curl -k https://${slug}.localhost:${suite.app.config.port}/api/v1/me -H "Authorization: Bearer ${token}"`,
      `other clients (Node's fetch, Python, wget) need the name in /etc/hosts: 127.0.0.1 ${slug}.localhost`,
    ]);
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

  it('runs as `npm run admin` beside the database, once per command, with its exit code', async () => {
    const slug = uniqueSlug('cli');
    await run('workspace:create', slug);
    // One process (through ts-node when the build is missing or stale: slow): it finds the workspace taken.
    const bad = await promisify(execFile)(process.execPath, ['scripts/admin.js', 'workspace:create', slug], {
      cwd: path.resolve(__dirname, '../..'),
      env: process.env,
      timeout: 150_000,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('CONFLICT') });
    expect((bad as { stderr: string }).stderr.match(/CONFLICT/g)).toHaveLength(1);
  }, 160_000);

  it('runs the build when it is newer than every source, else the sources, and never both', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-launcher-'));
    try {
      const write = (file: string, text: string, at: Date) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
        fs.utimesSync(path.join(root, file), at, at);
      };
      const real = path.resolve(__dirname, '../..');
      fs.mkdirSync(path.join(root, 'scripts'));
      fs.copyFileSync(path.join(real, 'scripts/admin.js'), path.join(root, 'scripts/admin.js'));
      fs.symlinkSync(path.join(real, 'node_modules'), path.join(root, 'node_modules'));
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs' } }), new Date());
      const old = new Date(Date.now() - 60_000);
      const program = (from: string) =>
        `process.stdout.write('${from} ' + process.argv.slice(2).join(' ') + '\\n'); process.exitCode = Number(process.argv[3] ?? 0);`;
      write('src/cli/admin.ts', program('sources'), old);
      const run = () =>
        promisify(execFile)(process.execPath, ['scripts/admin.js', 'cmd', '3'], { cwd: root }).catch(
          (e: { code: number; stdout: string; stderr: string }) => e,
        );

      // No build: the sources, with a note saying why it is slow.
      expect(await run()).toMatchObject({
        code: 3,
        stdout: 'sources cmd 3\n',
        stderr: expect.stringContaining('ts-node'),
      });
      // A build newer than the sources: the build, and a failing command is not run again.
      write('dist/cli/admin.js', program('build'), new Date());
      expect(await run()).toMatchObject({ code: 3, stdout: 'build cmd 3\n', stderr: '' });
      // A source changed after the build: the sources again.
      write('src/modules/x.ts', 'export {};', new Date(Date.now() + 60_000));
      expect(await run()).toMatchObject({ code: 3, stdout: 'sources cmd 3\n' });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
