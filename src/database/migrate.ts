import 'reflect-metadata';
import { loadConfig } from '@/config/app.config';
import { migrate } from './data-source';

/** `npm run migration:run`: creates the database if missing and applies pending migrations. */
async function main(): Promise<void> {
  const config = loadConfig();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const applied = await migrate(config.database.url, [], say);
  say(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations');
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
