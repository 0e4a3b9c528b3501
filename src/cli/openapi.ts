import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '@/app.module';
import { loadConfig } from '@/config/app.config';
import { buildOpenApiDocument } from '@/common/http/openapi-document';

/** Writes the OpenAPI document without a database, Redis or listener: the app is created in preview mode. */
async function main(): Promise<void> {
  const out = process.argv[2];
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(AppModule.register({ config, workers: false }), {
    preview: true,
    logger: false,
  });
  const json = JSON.stringify(buildOpenApiDocument(app, config), null, 2);
  if (out) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, json);
  } else process.stdout.write(json);
  await app.close();
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
