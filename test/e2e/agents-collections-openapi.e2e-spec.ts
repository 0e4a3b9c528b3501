import * as fs from 'node:fs';
import * as path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '@/app.module';
import { loadConfig } from '@/config/app.config';
import { buildOpenApiDocument } from '@/common/http/openapi-document';

const FIXTURE = path.join(__dirname, '../fixtures/agent-collections-openapi.json');
/** The collection routes; an intent's action (`/intents/{intentUuid}/event...`) belongs to the intents module. */
const COLLECTIONS =
  /^\/api\/v1\/agents\/\{uuid\}\/(guidelines|notes|training|procedures|intents|webhooks|routing-rules|guard-rules)(\/|$)(?!.*\/event(\/|$))/;

/** Schemas every route shares: the error body's code list grows with each new module. */
const SHARED = new Set(['ErrorBody']);

/** The collection routes and every schema they reach, so a change of their shape shows as a diff. */
function collectionPart(doc: any): { paths: Record<string, unknown>; schemas: Record<string, unknown> } {
  const paths = Object.fromEntries(
    Object.entries(doc.paths as Record<string, unknown>)
      .filter(([p]) => COLLECTIONS.test(p))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const schemas: Record<string, unknown> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        const name = v.slice('#/components/schemas/'.length);
        if (!(name in schemas) && !SHARED.has(name)) {
          schemas[name] = doc.components.schemas[name];
          visit(schemas[name]);
        }
      } else visit(v);
    }
  };
  visit(paths);
  return {
    paths,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
}

describe('The OpenAPI document of the agent collections', () => {
  it('keeps every collection route, body, answer and schema as recorded', async () => {
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
    const app = await NestFactory.create(AppModule.register({ config, workers: false }), {
      preview: true,
      logger: false,
    });
    const part = collectionPart(buildOpenApiDocument(app, config));
    await app.close();
    // Recording a deliberate change: RECORD_OPENAPI=1 writes the fixture anew.
    if (process.env.RECORD_OPENAPI === '1') fs.writeFileSync(FIXTURE, `${JSON.stringify(part, null, 2)}\n`);
    const recorded = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
    expect(Object.values(part.paths).flatMap((item) => Object.keys(item as object))).toHaveLength(33);
    expect(part).toEqual(recorded);
  });
});
