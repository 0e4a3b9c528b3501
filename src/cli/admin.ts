import 'reflect-metadata';
import 'dotenv/config';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { prepareRuntime } from '@/bootstrap';
import { openAdminContext, registerAdminCommands } from './admin-commands';

/** `npm run admin -- <command>`: operators' tool beside the database; needs no ADMIN_API_KEY. */
async function main(argv: string[]): Promise<void> {
  const config = await prepareRuntime(
    loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }),
    undefined,
    { redis: false }, // the commands use the database only
  );
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
