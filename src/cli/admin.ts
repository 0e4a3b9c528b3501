import 'reflect-metadata';
import 'dotenv/config';
import * as fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { migrate } from '@/database/data-source';
import { openAdminContext, registerAdminCommands } from './admin-commands';

/**
 * `npm run admin -- <command>`: operators' tool beside the database; needs no ADMIN_API_KEY. It prepares what the
 * commands use (the storage directory, the development encryption key, the migrated database) itself: the server's
 * bootstrap would load the whole application, half of the command's time.
 */
async function main(argv: string[]): Promise<void> {
  const loaded = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  fs.mkdirSync(loaded.storageDir, { recursive: true });
  const config = resolveEncryptionKey(loaded);
  await migrate(config.database.url);
  const ctx = await openAdminContext(config);
  const program = new Command('admin').description('Workspaces, users, tokens and policies').exitOverride();
  registerAdminCommands(program, ctx.services, (line) => process.stdout.write(`${line}\n`));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } finally {
    await ctx.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const message = err instanceof AppException ? `${err.code}: ${err.message}` : (err as Error).message;
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
});
