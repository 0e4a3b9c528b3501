import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * Lints each source, as if it were the file at its path, with the module-boundary blocks alone
 * (eslint.boundaries.mjs, no type information: fast) in one ESLint process. Answers, per file, the import paths
 * refused; any other message (a parse error, another rule) is answered whole, so it fails the comparison.
 */
function refused(files: Record<string, string>): Record<string, string[]> {
  const script = `
    const { ESLint } = require('eslint');
    const files = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd(), overrideConfigFile: 'eslint.boundaries.mjs' });
      const out = {};
      for (const [file, code] of Object.entries(files)) {
        const [result] = await eslint.lintText(code, { filePath: file });
        out[file] = result.messages.map((m) => m.ruleId + ': ' + m.message);
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(2); });`;
  const run = spawnSync(process.execPath, ['-e', script], {
    cwd: root,
    input: JSON.stringify(files),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`eslint did not run: ${run.stderr}`);
  const out = JSON.parse(run.stdout) as Record<string, string[]>;
  return Object.fromEntries(
    Object.entries(out).map(([file, messages]) => [
      file,
      messages.map((m) => /^no-restricted-imports: '([^']+)' import is restricted/.exec(m)?.[1] ?? m),
    ]),
  );
}

/** The `no-restricted-imports` options the given config gives the file. */
function optionsFor(file: string, config?: string): unknown {
  const args = [path.join(root, 'node_modules/eslint/bin/eslint.js'), '--print-config', file];
  if (config) args.push('--no-config-lookup', '--config', config);
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`eslint --print-config failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { rules: Record<string, unknown> }).rules['no-restricted-imports'];
}

const imports = (...paths: string[]) =>
  paths.map((p, i) => `import * as m${i} from '${p}';\nexport const x${i} = m${i};\n`).join('');

/**
 * No module imports another module's repositories (`*.repository`, `*.repositories`) or SQL helper files (`*-sql`,
 * `*.sql`): it uses that module's services or its public.ts. Checked on fixture sources linted under paths in the
 * modules (nothing is written to the tree).
 */
describe('module boundaries (ESLint)', () => {
  it("refuses another module's repositories and SQL helpers, by alias or by a relative path", () => {
    expect(
      refused({
        'src/modules/voice/twilio-hooks-fixture.ts': imports(
          '@/modules/calls/calls.repository',
          '@/modules/calls/calls.repository.ts',
          '@/modules/agents/settings/settings.repository',
          '@/modules/messaging/messaging.repositories',
          '@/modules/knowledge/knowledge-search.sql',
          '@/modules/blacklist/blacklist-sql',
          '../calls/calls.repository',
        ),
        'src/modules/web-calls/deep/er/fixture.ts': imports('../../../events/outbox.repository'),
        'src/cli/fixture.ts': imports(
          '@/modules/logs/action-logs.repository',
          '../modules/calls/calls.repository',
        ),
        'src/common/persistence/fixture.ts': imports('@/modules/contacts/contacts.repository'),
        'src/modules/fixture.ts': imports('./calls/calls.repository'),
      }),
    ).toEqual({
      'src/modules/voice/twilio-hooks-fixture.ts': [
        '@/modules/calls/calls.repository',
        '@/modules/calls/calls.repository.ts',
        '@/modules/agents/settings/settings.repository',
        '@/modules/messaging/messaging.repositories',
        '@/modules/knowledge/knowledge-search.sql',
        '@/modules/blacklist/blacklist-sql',
        '../calls/calls.repository',
      ],
      'src/modules/web-calls/deep/er/fixture.ts': ['../../../events/outbox.repository'],
      'src/cli/fixture.ts': ['@/modules/logs/action-logs.repository', '../modules/calls/calls.repository'],
      'src/common/persistence/fixture.ts': ['@/modules/contacts/contacts.repository'],
      'src/modules/fixture.ts': ['./calls/calls.repository'],
    });
  });

  it("lets a module import its own repositories, and another module's services and public.ts", () => {
    expect(
      refused({
        'src/modules/calls/sub/fixture.ts': imports(
          '@/modules/calls/calls.repository',
          '../calls.repository',
          './local.repository',
          '@/modules/conversations/public',
          '@/modules/calls/api/calls.service',
        ),
        'src/modules/voice/fixture.ts': imports(
          '@/modules/calls/api/calls.service',
          '@/modules/events/public',
          '@/modules/blacklist/public',
          '@/modules/conversations/dto/message-view.response',
          '@/common/persistence/workspace-scoped.repository',
        ),
      }),
    ).toEqual({ 'src/modules/calls/sub/fixture.ts': [], 'src/modules/voice/fixture.ts': [] });
  });

  it("is the project's configuration for every module's files", () => {
    for (const file of ['src/modules/voice/twilio-hooks.service.ts', 'src/cli/admin.ts'])
      expect(optionsFor(file)).toEqual(optionsFor(file, 'eslint.boundaries.mjs'));
    expect(optionsFor('src/modules/voice/twilio-hooks.service.ts')).not.toEqual(
      optionsFor('src/modules/calls/api/calls.service.ts'),
    );
  }, 60_000);
});
