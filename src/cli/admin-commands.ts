import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Command, InvalidArgumentError } from 'commander';
import { AppConfig } from '@/config/app.config';
import { ConfigModule } from '@/config/config.module';
import { RedisModule } from '@/common/redis/redis.module';
import { dataSourceOptions } from '@/database/data-source';
import { TOKEN_SCOPES, TokenScope } from '@/modules/workspaces/api-token.entity';
import { PRICE_FIELDS, PriceField, PriceTable } from '@/modules/workspaces/prices';
import { PricesService } from '@/modules/workspaces/prices.service';
import { TokensService } from '@/modules/workspaces/tokens.service';
import { USER_ROLES, UserRole } from '@/modules/workspaces/user.entity';
import { EXPORT_POLICIES, ExportPolicy } from '@/modules/workspaces/workspace.entity';
import { WorkspacesModule } from '@/modules/workspaces/workspaces.module';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';

export interface AdminServices {
  workspaces: WorkspacesService;
  tokens: TokensService;
  prices: PricesService;
  config: AppConfig;
}

/** Only what the commands need: the database and the workspaces module (no HTTP, no queues). */
export async function openAdminContext(
  config: AppConfig,
): Promise<{ services: AdminServices; close(): Promise<void> }> {
  @Module({
    imports: [
      ConfigModule.forRoot(config),
      TypeOrmModule.forRoot({ ...dataSourceOptions(config.database.url), autoLoadEntities: true }),
      // A token revocation is published to every API process (TokenCache).
      RedisModule,
      WorkspacesModule,
    ],
  })
  class AdminModule {}
  const app: INestApplicationContext = await NestFactory.createApplicationContext(AdminModule, {
    logger: ['error'],
  });
  return {
    services: {
      workspaces: app.get(WorkspacesService),
      tokens: app.get(TokensService),
      prices: app.get(PricesService),
      config,
    },
    close: () => app.close(),
  };
}

function oneOf<T extends string>(values: readonly T[], what: string) {
  return (value: string): T => {
    if (!values.includes(value as T))
      throw new InvalidArgumentError(`${what} must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function scopesArg(value: string): TokenScope[] {
  const list = value.split(',').map((s) => s.trim());
  list.forEach((s) => oneOf(TOKEN_SCOPES, 'scopes')(s));
  return list as TokenScope[];
}

/** A workspace's base address, as clients reach it (behind a proxy, the proxy's https port). */
function baseAddress(config: AppConfig, slug: string): string {
  const port = config.trustProxy || config.port === 443 ? '' : `:${config.port}`;
  return `https://${slug}.${config.serviceDomain}${port}`;
}

/**
 * A first request with the token, ready to paste: `-k` for the generated development certificate, and how clients
 * other than curl and browsers (which resolve every *.localhost to loopback themselves) find the host.
 */
function tryIt(config: AppConfig, slug: string, token: string): string[] {
  const insecure = config.trustProxy || config.tls.certFile ? '' : ' -k';
  const lines = [
    `try it: curl${insecure} ${baseAddress(config, slug)}/api/v1/me -H "Authorization: Bearer ${token}"`,
  ];
  if (config.serviceDomain === 'localhost')
    lines.push(
      `other clients (Node's fetch, Python, wget) need the name in /etc/hosts: 127.0.0.1 ${slug}.localhost`,
    );
  return lines;
}

/** `llm_prompt_per_1k` → `--llm-prompt-per-1k` (commander names its value `llmPromptPer1k`). */
const priceFlag = (field: PriceField) => `--${field.replace(/_/g, '-')}`;
const priceKey = (field: PriceField) => field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function priceLines(slug: string, t: PriceTable): string[] {
  return [`prices of ${slug} in ${t.currency}:`, ...PRICE_FIELDS.map((f) => `  ${f} = ${t.prices[f]}`)];
}

/** The commands, printing plain lines; the token value is printed once, at creation. */
export function registerAdminCommands(
  program: Command,
  s: AdminServices,
  print: (line: string) => void,
): void {
  program
    .command('workspace:create <slug>')
    .description('create a workspace; its base address is https://<slug>.<SERVICE_DOMAIN>')
    .option('--name <name>', 'display name')
    .action(async (slug: string, opts: { name?: string }) => {
      const ws = await s.workspaces.createWorkspace(slug, opts.name);
      print(`workspace ${ws.slug} created (${ws.id})`);
      print(`base address: ${baseAddress(s.config, ws.slug)}`);
    });

  program
    .command('user:create <slug> <email>')
    .description('add a user to a workspace')
    .option('--name <name>', 'display name')
    .option(
      '--role <role>',
      `one of ${USER_ROLES.join(', ')}`,
      oneOf(USER_ROLES, 'role'),
      'admin' as UserRole,
    )
    .action(async (slug: string, email: string, opts: { name?: string; role: UserRole }) => {
      const user = await s.workspaces.createUser(slug, { email, name: opts.name, role: opts.role });
      print(`user ${user.email} (${user.role}) created: ${user.id}`);
    });

  program
    .command('token:create <slug>')
    .description('create an API token; the value is printed once')
    .requiredOption('--user <email-or-uuid>', 'an admin or developer of the workspace')
    .option('--name <name>', 'what the token is for', 'default')
    .option('--scopes <list>', 'comma-separated: read,write', scopesArg)
    .action(async (slug: string, opts: { user: string; name: string; scopes?: TokenScope[] }) => {
      const created = await s.tokens.create(slug, { name: opts.name, user: opts.user, scopes: opts.scopes });
      print(`token ${created.record.id} "${created.record.name}" scopes=${created.record.scopes.join(',')}`);
      print(created.token);
      tryIt(s.config, slug, created.token).forEach(print);
    });

  program
    .command('token:list <slug>')
    .description('list tokens (never their values)')
    .action(async (slug: string) => {
      const tokens = await s.tokens.list(slug);
      if (!tokens.length) print('no tokens');
      for (const t of tokens) {
        const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'active';
        const used = t.lastUsedAt ? t.lastUsedAt.toISOString() : 'never';
        print(
          `${t.id}  ${t.name}  ...${t.lastFour}  scopes=${t.scopes.join(',')}  created=${t.createdAt.toISOString()}  last_used=${used}  ${state}`,
        );
      }
    });

  program
    .command('token:revoke <slug> <tokenUuid>')
    .description('revoke a token; effective on the next request')
    .action(async (slug: string, tokenUuid: string) => {
      const t = await s.tokens.revoke(slug, tokenUuid);
      print(`token ${t.id} revoked`);
    });

  program
    .command('policy:set <slug> <assignment>')
    .description(`set a policy, e.g. ANALYTICS_MESSAGES_EXPORT=masked (${EXPORT_POLICIES.join('|')})`)
    .action(async (slug: string, assignment: string) => {
      const [key, value] = assignment.split('=');
      if (key !== 'ANALYTICS_MESSAGES_EXPORT')
        throw new Error('unknown policy; known: ANALYTICS_MESSAGES_EXPORT');
      if (!EXPORT_POLICIES.includes(value as ExportPolicy))
        throw new Error(`ANALYTICS_MESSAGES_EXPORT must be one of ${EXPORT_POLICIES.join(', ')}`);
      const ws = await s.workspaces.setPolicies(slug, { ANALYTICS_MESSAGES_EXPORT: value as ExportPolicy });
      print(`policies of ${ws.slug}: ${JSON.stringify(ws.policies)}`);
    });

  const setPrices = program
    .command('price:set <slug>')
    .description(
      'set the price table that turns usage into cost (replaces the one before; a price left out is 0)',
    )
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. USD');
  for (const field of PRICE_FIELDS)
    setPrices.option(`${priceFlag(field)} <decimal>`, field.replace(/_/g, ' '));
  setPrices.action(async (slug: string, opts: Record<string, string>) => {
    const input: Partial<Record<PriceField | 'currency', unknown>> = { currency: opts.currency };
    for (const field of PRICE_FIELDS) input[field] = opts[priceKey(field)];
    priceLines(slug, await s.prices.set(slug, input)).forEach(print);
  });

  program
    .command('price:show <slug>')
    .description('print the price table of a workspace')
    .action(async (slug: string) => priceLines(slug, await s.prices.get(slug)).forEach(print));

  program
    .command('price:clear <slug>')
    .description('remove the price table: costs are null again')
    .action(async (slug: string) => {
      print((await s.prices.clear(slug)) ? `prices of ${slug} removed` : `${slug} had no prices`);
    });
}
