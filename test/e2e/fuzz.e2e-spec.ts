import SwaggerParser from '@apidevtools/swagger-parser';
import * as https from 'node:https';
import request from 'supertest';
import type { Response } from 'supertest';
import { ADMIN_KEY } from '../setup/test-app';
import { createAgent } from '../factories/agent.factory';
import { createContact } from '../factories/contact.factory';
import {
  bodyProperties,
  HOSTILE_VALUES,
  nested,
  nestedText,
  Random,
  validValue,
} from '../support/fuzz/generate';
import { responseValidator, Schema } from '../support/fuzz/schemas';
import { useTestApp } from '../setup/suite';

/**
 * Schema-driven fuzzing of every operation of the served document, so a route is fuzzed the day it is added:
 * a valid request built from the documented examples, then mutations of its body, headers, path ids and query
 * string. Any 5xx, any status the operation does not declare, and any JSON answer that does not validate
 * against its declared schema is a finding. The seed is fixed and the count per operation bounded.
 */
const SEED = 20261126;
const METHODS = ['post', 'get', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];
const WITH_BODY = new Set<Method>(['post', 'put', 'patch']);
/** Body fields given wrong values per operation. */
const FIELD_MUTATIONS = 8;

interface Operation {
  method: Method;
  template: string;
  op: Schema;
}

interface Case {
  label: string;
  path: string;
  headers?: Record<string, string>;
  /** Raw body text or bytes; a value is sent as JSON. */
  raw?: string | Buffer;
  json?: unknown;
}

describe('Fuzz: every operation of the served document', () => {
  // Operator routes act on another workspace, so revoking its tokens leaves the fuzzing token alive.
  const suite = useTestApp({
    env: { RATE_LIMIT_PER_MINUTE: '1000000' },
    captureLogs: true,
    tenants: ['tenant', 'other'],
  });
  let doc: Schema;
  const validatorFor = responseValidator();
  // One pooled TLS connection instead of a handshake per request: most of the fuzzing time otherwise.
  const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const random = new Random(SEED);

  beforeAll(async () => {
    const served = await request(suite.app.url)
      .get('/docs/openapi.json')
      .disableTLSCerts()
      .set('Host', 'localhost');
    doc = (await SwaggerParser.dereference(served.body)) as Schema;
    // A few resources, so that ids resolve and answers carry real data.
    const agent = await createAgent(suite.tenant, { name: 'Fuzzed agent' });
    for (const c of ['guidelines', 'notes', 'training', 'procedures', 'intents'])
      await suite.tenant.http
        .post(`/api/v1/agents/${agent.agent_uuid}/${c}`)
        .send(c === 'procedures' || c === 'intents' ? { name: 'One' } : { content: 'One' });
    await createContact(suite.tenant, {});
    await suite.tenant.http
      .post('/api/v1/data/import/copypaste')
      .send({ name: 'Notes', text: 'Opening hours' });
  });
  afterAll(() => keepAlive.destroy());

  function send(method: Method, c: Case): Promise<Response> {
    const internal = c.path.startsWith('/internal/');
    const host = internal ? 'ops.example.test' : c.path.startsWith('/api/') ? suite.tenant.host : 'localhost';
    const agent = request(suite.app.url);
    let req = agent[method](c.path)
      .agent(keepAlive)
      .disableTLSCerts()
      .set('Host', host)
      .ok(() => true);
    if (internal || c.path.startsWith('/api/'))
      req = req.set('Authorization', `Bearer ${internal ? ADMIN_KEY : suite.tenant.token}`);
    // The answer is read as text: the check parses it, so a body that is not JSON is seen as such.
    req = req.buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    for (const [k, v] of Object.entries(c.headers ?? {})) req = req.set(k, v);
    if (c.raw !== undefined) return req.send(c.raw as string);
    if (c.json !== undefined) return req.type('application/json').send(JSON.stringify(c.json));
    return req;
  }

  const fill = (segments: string[], values: Record<string, string>) =>
    segments.map((s) => (/^\{.+\}$/.test(s) ? encodeURIComponent(values[s.slice(1, -1)]) : s)).join('/');

  const listed = new Map<string, string | null>();
  /** The id of the first item listed at `path` (under `key` of its data when given), read once a run. */
  async function firstId(path: string, key: string | null): Promise<string | null> {
    const cacheKey = `${path} ${key}`;
    if (!listed.has(cacheKey)) listed.set(cacheKey, await readFirstId(path, key));
    return listed.get(cacheKey)!;
  }

  async function readFirstId(path: string, key: string | null): Promise<string | null> {
    if (!path.startsWith('/api/')) return null;
    const res = await send('get', { label: 'resolve', path });
    if (res.status !== 200) return null;
    const data = (JSON.parse(res.body as string) as { data?: any }).data;
    const list = key ? data?.[key] : (data?.items ?? data);
    const item = Array.isArray(list) ? list[0] : null;
    if (!item || typeof item !== 'object') return null;
    const idKey = 'uuid' in item ? 'uuid' : Object.keys(item).find((k) => k.endsWith('_uuid'));
    return idKey && typeof item[idKey] === 'string' ? item[idKey] : null;
  }

  /** Path parameters from the listing above them, else a fresh UUID; slugs name the other workspace. */
  async function resolveParams(template: string): Promise<Record<string, string>> {
    const segments = template.split('/');
    const values: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const m = /^\{(.+)\}$/.exec(segments[i]);
      if (!m) continue;
      if (m[1] === 'slug') {
        values.slug = suite.other.slug;
        continue;
      }
      let id = await firstId(fill(segments.slice(0, i), values), null);
      if (!id && i >= 2)
        id = await firstId(fill(segments.slice(0, i - 1), values), segments[i - 1].replace(/-/g, '_'));
      values[m[1]] = id ?? random.uuid();
    }
    return values;
  }

  function queryOf(params: Schema[], override: Record<string, string> = {}): string {
    const pairs: string[] = [];
    for (const p of params) {
      if (p.in !== 'query' || p.name in override) continue;
      if (!p.required && !random.chance(0.4)) continue;
      const v = validValue(p.schema, random);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        pairs.push(`${p.name}=${encodeURIComponent(String(v))}`);
    }
    for (const [k, v] of Object.entries(override)) pairs.push(`${k}=${v}`);
    return pairs.length ? `?${pairs.join('&')}` : '';
  }

  function casesFor(o: Operation, values: Record<string, string>): Case[] {
    const segments = o.template.split('/');
    const params: Schema[] = o.op.parameters ?? [];
    const path = fill(segments, values);
    const media: Schema | undefined = o.op.requestBody?.content?.['application/json'];
    const bodySchema: Schema | undefined = media?.schema;
    const body = bodySchema ? validValue(bodySchema, random) : WITH_BODY.has(o.method) ? {} : undefined;
    const cases: Case[] = [{ label: 'valid', path: path + queryOf(params), json: body }];
    // Every documented example and every alternative of a oneOf body is a valid request too.
    for (const [name, example] of Object.entries<Schema>(media?.examples ?? {}))
      cases.push({ label: `example ${name}`, path, json: example.value });
    for (const [i, alternative] of (bodySchema?.oneOf ?? []).slice(1).entries())
      cases.push({ label: `oneOf ${i + 1}`, path, json: validValue(alternative, random) });

    // Path ids that are malformed, oversized or badly percent-encoded.
    const named = segments.filter((s) => /^\{.+\}$/.test(s)).map((s) => s.slice(1, -1));
    if (named.length) {
      const target = random.pick(named);
      for (const bad of ['not-a-uuid', '%00', '%E0%A4%A', 'A'.repeat(300)])
        cases.push({
          label: `path ${target}=${bad.slice(0, 20)}`,
          path: segments
            .map((s) => (s === `{${target}}` ? bad : /^\{.+\}$/.test(s) ? values[s.slice(1, -1)] : s))
            .join('/'),
          json: body,
        });
    }

    // Query values of the wrong type, repeated, nested, with NUL.
    const query = params.filter((p) => p.in === 'query');
    if (query.length) {
      const p = random.pick(query);
      for (const bad of ['abc', '', '-1', '1e400', 'a%00b', '%zz'])
        cases.push({ label: `query ${p.name}=${bad}`, path: path + queryOf([], { [p.name]: bad }) });
      cases.push({ label: `query ${p.name} repeated`, path: `${path}?${p.name}=1&${p.name}=2` });
      cases.push({ label: `query ${p.name}[a]`, path: `${path}?${p.name}[a]=1` });
    }
    cases.push({ label: 'unknown query', path: `${path}?zz_unknown=%00&__proto__[x]=1` });

    if (!WITH_BODY.has(o.method)) {
      // A body where none is taken is ignored, whatever it holds.
      cases.push({
        label: 'malformed body on a read',
        path,
        raw: '{"a":',
        headers: { 'Content-Type': 'application/json' },
      });
      cases.push({
        label: 'deep body on a read',
        path,
        raw: nestedText(5000),
        headers: { 'Content-Type': 'application/json' },
      });
      return cases;
    }

    const json = { 'Content-Type': 'application/json' };
    const text = JSON.stringify(body ?? {});
    cases.push(
      { label: 'malformed JSON', path, raw: '{"a":', headers: json },
      { label: 'JSON array', path, raw: '[]', headers: json },
      { label: 'JSON string', path, raw: '"x"', headers: json },
      { label: 'JSON null', path, raw: 'null', headers: json },
      { label: 'empty JSON body', path, raw: '', headers: json },
      { label: 'text/plain', path, raw: text, headers: { 'Content-Type': 'text/plain' } },
      { label: 'form', path, raw: 'a=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
      { label: 'gzip not compressed', path, raw: text, headers: { ...json, 'Content-Encoding': 'gzip' } },
      { label: 'zstd', path, raw: text, headers: { ...json, 'Content-Encoding': 'zstd' } },
      { label: 'gzip, gzip', path, raw: text, headers: { ...json, 'Content-Encoding': 'gzip, gzip' } },
      { label: 'unknown encoding', path, raw: text, headers: { ...json, 'Content-Encoding': 'x-fuzz' } },
      { label: 'latin1', path, raw: text, headers: { 'Content-Type': 'application/json; charset=latin1' } },
      { label: 'utf-16', path, raw: text, headers: { 'Content-Type': 'application/json; charset=utf-16' } },
      { label: 'deep unknown field', path, raw: `{"zz":${nestedText(3000)}}`, headers: json },
      { label: 'nested 40', path, json: { ...(body as object), zz: nested(40) } },
      { label: 'unknown field', path, json: { ...(body as object), zz_unknown: 'x', __proto__x: 1 } },
      { label: 'huge Idempotency-Key', path, json: body, headers: { 'Idempotency-Key': 'k'.repeat(300) } },
    );
    const { names, required } = bodyProperties(bodySchema);
    if (required.length) {
      const drop = random.pick(required);
      const rest = { ...(body as Record<string, unknown>) };
      delete rest[drop];
      cases.push({ label: `missing ${drop}`, path, json: rest });
    }
    // Each field (up to a bound) once null, once a value of the wrong type or out of range.
    for (const name of names.slice(0, FIELD_MUTATIONS)) {
      for (const value of [null, random.pick(HOSTILE_VALUES)])
        cases.push({
          label: `${name}=${JSON.stringify(value)?.slice(0, 30)}`,
          path,
          json: { ...(body as object), [name]: value },
        });
    }
    return cases;
  }

  function problemOf(o: Operation, res: Response): string | null {
    if (res.status >= 500) return `answered ${res.status}`;
    const declared = o.op.responses?.[String(res.status)] ?? o.op.responses?.default;
    if (!declared) return `answered ${res.status}, which the operation does not declare`;
    const schema: Schema | undefined = declared.content?.['application/json']?.schema;
    if (!schema || !/json/.test(String(res.headers['content-type'] ?? ''))) return null;
    let body: unknown;
    try {
      body = JSON.parse(res.body as string);
    } catch {
      return `answered ${res.status} with a body that is not JSON`;
    }
    const validate = validatorFor(schema);
    if (validate(body)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    return `answered ${res.status} not matching its schema: ${errors}`;
  }

  it('answers every request with a declared status and a body true to its schema, never a 5xx', async () => {
    const operations: Operation[] = [];
    for (const [template, item] of Object.entries<Schema>(doc.paths))
      for (const method of METHODS) if (item[method]) operations.push({ method, template, op: item[method] });
    // Creations first, so later operations find ids; deletions last.
    operations.sort((a, b) => METHODS.indexOf(a.method) - METHODS.indexOf(b.method));
    expect(operations.length).toBeGreaterThan(100);

    const findings: string[] = [];
    let sent = 0;
    for (const o of operations) {
      const values = await resolveParams(o.template);
      for (const c of casesFor(o, values)) {
        const res = await send(o.method, c);
        sent++;
        const problem = problemOf(o, res);
        if (problem)
          findings.push(
            `${o.method.toUpperCase()} ${o.template} [${c.label}] ${problem}: ${String(res.body).slice(0, 200)}`,
          );
      }
    }
    if (findings.length)
      console.log(`${findings.length} findings in ${sent} requests:\n${findings.join('\n')}`);
    expect(findings).toEqual([]);
  }, 300_000);
});
