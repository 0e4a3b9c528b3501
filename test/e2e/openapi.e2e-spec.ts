import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import * as path from 'node:path';
import request from 'supertest';
import * as ts from 'typescript';
import { ERROR_STATUS } from '@/common/errors/error-codes';
import { findChromium, HeadlessBrowser } from '../support/headless-browser';
import { client } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

const DOMAIN = 'cap.example.test';
const chromium = findChromium();
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** An example or header given by `$ref` into `components`, or inline. */
const deref = (doc: any, node: any): any =>
  node?.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
    : node;

/** JSON pointer segment. */
const seg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

describe('The OpenAPI document, Swagger UI and a client generated from the document', () => {
  let port: number;
  const suite = useTestApp({
    env: async () => {
      port = await freePort();
      return { SERVICE_DOMAIN: DOMAIN, PORT: String(port) };
    },
    tenants: ['tenant'],
  });
  let doc: any;
  let host: string;
  let docsOrigin: string;
  const operations: { path: string; method: string; op: any }[] = [];

  beforeAll(async () => {
    host = `${suite.tenant.slug}.${DOMAIN}`;
    docsOrigin = `https://${DOMAIN}:${port}`;
    doc = (await client(suite.app.url, DOMAIN).get('/docs/openapi.json').expect(200)).body;
    for (const [p, item] of Object.entries<any>(doc.paths))
      for (const method of METHODS) if (item[method]) operations.push({ path: p, method, op: item[method] });
  });

  it('serves Swagger UI on the apex host with a server entry built from the configured domain and port', async () => {
    const ui = await client(suite.app.url, DOMAIN).get('/docs/').expect(200);
    expect(ui.text).toContain('swagger-ui');
    expect(doc.servers).toEqual([
      expect.objectContaining({
        url: `https://{tenant}.${DOMAIN}:${port}`,
        variables: { tenant: expect.objectContaining({ default: expect.any(String) }) },
      }),
    ]);
    expect(doc.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    expect(doc.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
  });

  it('validates every example against its own schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true, discriminator: false });
    addFormats(ajv);
    const widen = (node: any): any => {
      if (Array.isArray(node)) return node.map(widen);
      if (!node || typeof node !== 'object') return node;
      const out: any = {};
      for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : widen(v);
      // OAS 3.0 `nullable: true` is JSON Schema's `type: [T, "null"]`.
      delete out.nullable;
      if (node.nullable === true) {
        if (node.type) out.type = [node.type, 'null'];
        if (node.enum && !node.enum.includes(null)) out.enum = [...node.enum, null];
        if (node.allOf || node.$ref) return { anyOf: [{ type: 'null' }, out] };
      }
      return out;
    };
    ajv.addSchema({ ...widen(doc), $id: 'openapi.json' });
    const failures: string[] = [];
    const compiled = new Map<string, ValidateFunction>();
    let checked = 0;
    const check = (pointer: string, value: unknown, where: string) => {
      const validate = compiled.get(pointer) ?? ajv.getSchema(`openapi.json#${pointer}`);
      if (validate) compiled.set(pointer, validate);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      checked++;
      if (!validate(value)) failures.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    const walk = (node: any, pointer: string) => {
      if (!node || typeof node !== 'object') return;
      if (!Array.isArray(node)) {
        const isMedia = 'schema' in node && ('example' in node || 'examples' in node);
        if (isMedia) {
          if ('example' in node) check(`${pointer}/schema`, node.example, `${pointer}/example`);
          for (const [k, e] of Object.entries<any>(node.examples ?? {})) {
            const example = deref(doc, e);
            expect({ at: `${pointer}/examples/${k}`, value: 'value' in example }).toEqual({
              at: `${pointer}/examples/${k}`,
              value: true,
            });
            check(`${pointer}/schema`, example.value, `${pointer}/examples/${k}`);
          }
        } else if (
          'example' in node &&
          (node.type || node.$ref || node.allOf || node.properties || node.enum)
        ) {
          check(pointer, node.example, `${pointer}/example`);
        }
      }
      for (const [k, v] of Object.entries(node))
        if (k !== 'example' && k !== 'examples') walk(v, `${pointer}/${seg(k)}`);
    };
    walk(doc.paths, '/paths');
    walk(doc.components.schemas, '/components/schemas');
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(500);
    // The validator does refuse a body that breaks the schema.
    expect(ajv.getSchema('openapi.json#/components/schemas/ErrorBody')!({ success: true, message: 1 })).toBe(
      false,
    );
  });

  it('gives each error status its own examples, whose codes answer with that status', () => {
    let statuses = 0;
    for (const { path: p, method, op } of operations) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const media = answer.content?.['application/json'];
        if (!media?.examples) continue;
        statuses++;
        for (const [name, ref] of Object.entries<any>(media.examples)) {
          const example = deref(doc, ref);
          const code = example.value?.error?.code ?? name;
          expect({
            at: `${method} ${p} ${status}`,
            code,
            status: ERROR_STATUS[code as keyof typeof ERROR_STATUS],
          }).toEqual({
            at: `${method} ${p} ${status}`,
            code,
            status: Number(status),
          });
        }
      }
    }
    expect(statuses).toBeGreaterThan(500);
    const unauthorized = doc.paths['/api/v1/me'].get.responses['401'].content['application/json'].examples;
    expect(Object.keys(unauthorized).sort()).toEqual(['INVALID_AUTH_TOKEN', 'MISSING_AUTH_TOKEN']);
    expect(deref(doc, unauthorized.MISSING_AUTH_TOKEN).value.error).toEqual({
      code: 'MISSING_AUTH_TOKEN',
      details: expect.any(String),
    });
  });

  it('declares rate-limit headers, Retry-After, Idempotency-Key, 500 and 503 on tenant routes', () => {
    for (const { path: p, method, op } of operations.filter((o) => o.path.startsWith('/api/'))) {
      const at = `${method} ${p}`;
      for (const [status, answer] of Object.entries<any>(op.responses))
        if (/^[24]/.test(status))
          expect({ at, status, headers: Object.keys(answer.headers ?? {}) }).toEqual({
            at,
            status,
            headers: expect.arrayContaining([
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
            ]),
          });
      const retryAfter = deref(doc, op.responses['429']?.headers?.['Retry-After']);
      expect({ at, retryAfter: retryAfter?.schema?.type }).toEqual({ at, retryAfter: 'integer' });
      expect({ at, has500: !!op.responses['500'], has503: !!op.responses['503'] }).toEqual({
        at,
        has500: true,
        has503: true,
      });
      if (method === 'post')
        expect({
          at,
          key: op.parameters?.some((x: any) => x.name === 'Idempotency-Key' && x.in === 'header'),
        }).toEqual({ at, key: true });
    }
  });

  it('types nullable fields, declares UUID path parameters, tags with descriptions, internal routes last', () => {
    const untyped: string[] = [];
    const walk = (node: any, at: string) => {
      if (!node || typeof node !== 'object') return;
      if (node.nullable === true && node.type === 'object' && !node.properties && !node.enum && !node.allOf)
        if (node.additionalProperties === undefined) untyped.push(at);
      for (const [k, v] of Object.entries(node))
        if (k !== 'example' && k !== 'examples') walk(v, `${at}.${k}`);
    };
    walk(doc.components.schemas, 'schemas');
    walk(doc.paths, 'paths');
    expect(untyped).toEqual([]);
    expect(doc.components.schemas.AgentResponse.properties.description).toEqual(
      expect.objectContaining({ type: 'string', nullable: true }),
    );

    for (const { path: p, op } of operations)
      for (const param of op.parameters ?? [])
        if (param.in === 'path' && /uuid$/i.test(param.name))
          expect({ p, name: param.name, schema: param.schema }).toEqual({
            p,
            name: param.name,
            schema: expect.objectContaining({ type: 'string', format: 'uuid' }),
          });

    const defined = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    for (const { op } of operations) for (const tag of op.tags) expect(defined.get(tag)).toBeTruthy();
    expect(doc.tags[doc.tags.length - 1].name).toBe('Internal (operators)');
    const paths = Object.keys(doc.paths);
    const firstInternal = paths.findIndex((p) => p.startsWith('/internal/'));
    expect(paths.slice(firstInternal).every((p) => p.startsWith('/internal/'))).toBe(true);
    expect(doc.paths['/health'].get.tags).toEqual(['Health']);
    expect(doc.paths['/health/ready'].get.responses['503']).toBeDefined();

    const summaries = operations.map((o) => o.op.summary as string);
    expect(summaries).toContain('Create a tag');
    expect(summaries).toContain('Add an intent');
    expect(summaries.filter((s) => /\d$|\ba [aeio]/.test(s))).toEqual([]);
  });

  it('carries the validators limits into the schemas: lengths, formats and list sizes', () => {
    const agent = doc.components.schemas.CreateAgentDto.properties;
    expect(agent.name.maxLength).toBe(200);
    const query = doc.paths['/api/v1/conversations'].get.parameters.find((p: any) => p.name === 'agent_uuid');
    expect(query.schema).toEqual(expect.objectContaining({ format: 'uuid', maxLength: 36 }));
    expect(doc.components.schemas.BindPhoneNumberDto.properties.channels.maxItems).toBe(4);
    // Only @MaxLength(5000) and @IsOutboundUrl() say these; the @ApiProperty gives an example alone.
    expect(doc.components.schemas.WebsiteImportDto.properties.description.maxLength).toBe(5000);
    expect(doc.components.schemas.WebsiteImportDto.properties.url).toEqual(
      expect.objectContaining({ format: 'uri', maxLength: 2048 }),
    );
  });

  const options = (p: string) => request(suite.app.url).options(p).disableTLSCerts().set('Host', host);

  it('answers a preflight from the docs origin, and a cross-origin call works; other origins get no grant', async () => {
    const preflight = await options('/api/v1/me')
      .set('Origin', docsOrigin)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(docsOrigin);
    expect(preflight.headers['access-control-allow-headers'].toLowerCase()).toContain('authorization');
    expect(preflight.headers['access-control-allow-headers'].toLowerCase()).toContain('idempotency-key');

    const call = await client(suite.app.url, host, suite.tenant.token)
      .get('/api/v1/me')
      .set('Origin', docsOrigin)
      .expect(200);
    expect(call.headers['access-control-allow-origin']).toBe(docsOrigin);
    expect(call.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    expect(call.body.data.workspace.slug).toBe(suite.tenant.slug);

    const foreign = await options('/api/v1/me')
      .set('Origin', 'https://evil.example.com')
      .set('Access-Control-Request-Method', 'GET');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await client(suite.app.url, host, suite.tenant.token)
      .get('/api/v1/me')
      .set('Origin', `http://${DOMAIN}:${port}`)
      .expect(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  // Needs Chromium (`.ci/run` installs it when missing): without one the test fails, it is never skipped.
  it('makes "Try it out" calls from Swagger UI in a real browser', async () => {
    if (!chromium) throw new Error('Chromium is not installed (apt-get install chromium)');
    const browser = new HeadlessBrowser(chromium, DOMAIN);
    try {
      const page = await browser.open(`${docsOrigin}/docs/`);
      // The call Swagger UI makes: the document's server with the tenant filled in, the token as a bearer header.
      const answer = await browser.evaluate(
        page,
        `(async () => {
          await new Promise((resolve) => { const wait = () => window.ui ? resolve() : setTimeout(wait, 50); wait(); });
          const doc = await (await fetch('/docs/openapi.json')).json();
          const base = doc.servers[0].url.replace('{tenant}', ${JSON.stringify(suite.tenant.slug)});
          const res = await fetch(base + '/api/v1/me', { headers: { Authorization: 'Bearer ${suite.tenant.token}' } });
          const body = await res.json();
          return { status: res.status, slug: body.data.workspace.slug, remaining: res.headers.get('X-RateLimit-Remaining') };
        })()`,
      );
      expect(answer).toEqual({
        status: 200,
        slug: suite.tenant.slug,
        remaining: expect.stringMatching(/^\d+$/),
      });
      const refused = await browser.evaluate(
        page,
        `fetch('https://${suite.tenant.slug}.${DOMAIN}:${port}/api/v1/me', { headers: { Authorization: 'Bearer x' }, mode: 'cors' })
          .then((r) => r.status)`,
      );
      expect(refused).toBe(401);
    } finally {
      await browser.close();
    }
  }, 60_000);

  // Generating and type-checking the client takes several seconds, more on a busy machine.
  it('generates a typed client from the document that compiles and makes the README first call', async () => {
    const dir = fs.mkdtempSync(path.join(__dirname, '..', '.generated-client-'));
    try {
      // The generator's own CLI (it is an ES module): the served document in, TypeScript types out.
      fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
      execFileSync(process.execPath, [
        path.resolve(__dirname, '../../node_modules/openapi-typescript/bin/cli.js'),
        path.join(dir, 'openapi.json'),
        '--output',
        path.join(dir, 'openapi.d.ts'),
      ]);
      fs.writeFileSync(
        path.join(dir, 'read-me.ts'),
        [
          "import createClient from 'openapi-fetch';",
          "import type { paths } from './openapi';",
          '',
          'export async function readMe(baseUrl: string, token: string, fetcher: typeof fetch) {',
          '  const api = createClient<paths>({ baseUrl, fetch: fetcher });',
          "  const { data, error, response } = await api.GET('/api/v1/me', {",
          '    headers: { Authorization: `Bearer ${token}` },',
          '  });',
          '  if (error) throw new Error(`${response.status} ${error.error.code}`);',
          '  const slug: string = data.data.workspace.slug;',
          '  return { slug, remaining: response.headers.get("X-RateLimit-Remaining") };',
          '}',
          '',
        ].join('\n'),
      );
      const program = ts.createProgram([path.join(dir, 'read-me.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        esModuleInterop: true,
        skipLibCheck: true,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);

      // The base address is the document's server with the tenant filled in; the fetch reaches the test server.
      const baseUrl = doc.servers[0].url.replace('{tenant}', suite.tenant.slug);
      const fetcher = tlsFetch(suite.app.port);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { readMe } = require(path.join(dir, 'read-me.ts')) as {
        readMe: (
          b: string,
          t: string,
          f: typeof fetch,
        ) => Promise<{ slug: string; remaining: string | null }>;
      };
      const me = await readMe(baseUrl, suite.tenant.token, fetcher);
      expect(me.slug).toBe(suite.tenant.slug);
      expect(Number(me.remaining)).toBeGreaterThan(0);
      await expect(readMe(baseUrl, 'cap_invalid', fetcher)).rejects.toThrow(/401 INVALID_AUTH_TOKEN/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/**
 * A fetch for the generated client that resolves every host to the test server and accepts its self-signed
 * certificate, as `curl -k --resolve` would.
 */
function tlsFetch(port: number): typeof fetch {
  return (async (input: Request) => {
    const url = new URL(input.url);
    const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
    const headers = Object.fromEntries(input.headers.entries());
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port,
          servername: url.hostname,
          path: url.pathname + url.search,
          method: input.method,
          headers: { ...headers, host: url.host },
          rejectUnauthorized: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: h }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}
