import { INestApplication } from '@nestjs/common';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  ExampleObject,
  HeaderObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AppConfig } from '@/config/app.config';
import { ERROR_STATUS, ErrorCode } from '@/common/errors/error-codes';
import {
  documentPipelineAnswers,
  errorAnswer,
  errorExample,
  INTERNAL_TAG,
  ShortErrorBodyDto,
} from './api-response.decorator';
import { documentValidationLimits } from './validation-schema';

/** Every tag, in the order Swagger UI lists them; operators' routes come last. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Workspace', description: 'The workspace of the base address and the calling token.' },
  { name: 'Agents', description: 'Conversational agents: create, configure, read, delete.' },
  {
    name: 'Agent knowledge and rules',
    description: 'Guidelines, notes, training, procedures, intents, webhooks and rules held by one agent.',
  },
  {
    name: 'Agent channels',
    description: 'Which numbers, WhatsApp senders and Messenger pages an agent serves.',
  },
  { name: 'Evaluation and memorize settings', description: 'Workspace defaults and per-agent overrides.' },
  { name: 'Flow catalog', description: 'Agents a flow can use.' },
  {
    name: 'Calls',
    description: 'Phone and WhatsApp calls: placing, reading, the live feed, live actions and the sandbox.',
  },
  { name: 'Conversations', description: 'Text conversations with an agent and their messages.' },
  { name: 'Sessions', description: 'Sessions of conversations; each ends with an evaluation.' },
  { name: 'Evaluations', description: 'Evaluation records written at the end of each session.' },
  { name: 'Contacts', description: 'Contacts, their tags, custom fields and pipeline stages.' },
  {
    name: 'Scheduling',
    description: 'Availability types, schedules, appointments and appointment requests.',
  },
  { name: 'Data', description: 'Knowledge data sources: tables, imports, assignment to agents and search.' },
  { name: 'Analytics', description: 'Message export and aggregates of sessions, evaluations and calls.' },
  { name: 'Phone numbers', description: 'Numbers the workspace owns and the channels they serve.' },
  {
    name: 'SIP',
    description:
      'PBX extension connectors (forwards to extensions), SIP trunks and the external numbers they carry.',
  },
  { name: 'Messaging', description: 'SMS sending, messages with their delivery status, the SMS sandbox.' },
  {
    name: 'WhatsApp',
    description: 'WhatsApp templates, template settings, template and text sends, the sandbox.',
  },
  {
    name: 'Blacklist',
    description: 'The do-not-contact list checked before every outbound call and message.',
  },
  { name: 'Webhooks', description: 'Workspace webhooks, their signing secrets and the delivery log.' },
  {
    name: 'Automation flows',
    description: 'Flows of a trigger and action steps, their versions, executions and step tests.',
  },
  {
    name: 'Provider hooks',
    description:
      "Calls from Twilio, Meta and outside systems (flow webhook triggers): no token and no tenant host, authenticated by the provider's signature or a secret URL.",
  },
  { name: 'Transcriptions', description: 'Recorded calls turned into timed transcripts, with optional QA.' },
  {
    name: 'Logs',
    description: 'The API request log and the action log (task attempts, flows, intent calls).',
  },
  { name: 'Languages', description: 'Languages agents can speak and report in.' },
  { name: 'Pools', description: 'Contact pools (FIFO, LIFO, Parallel) and their members.' },
  { name: 'Rules', description: 'Reusable contact policies: calling window, retries, daily and total caps.' },
  {
    name: 'Campaigns',
    description: 'Outbound campaigns over pools: definition, pools, rule and transitions.',
  },
  {
    name: 'Tasks',
    description: 'Scheduled outbound calls and WhatsApp templates, standalone or from campaigns.',
  },
  { name: 'Listings', description: 'A campaign over one FIFO pool, made with its contacts in one request.' },
  { name: 'Health', description: 'Liveness and readiness for load balancers; no tenant, no token.' },
  {
    name: INTERNAL_TAG,
    description: 'Operators only: workspaces, users, tokens and policies, behind ADMIN_API_KEY.',
  },
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The public base address of a tenant: the configured domain and port (none behind a TLS proxy or on 443). */
export function tenantServerUrl(config: AppConfig): string {
  const port = config.trustProxy || config.port === 443 ? '' : `:${config.port}`;
  return `https://{tenant}.${config.serviceDomain}${port}`;
}

/**
 * Swagger UI is served on every host of the service domain (the apex included) while tenant routes live on
 * `<tenant>.<domain>`: "Try it out" is cross-origin, so those origins may call the API with a bearer token.
 */
export function docsCorsOptions(config: AppConfig): CorsOptions {
  const domain = config.serviceDomain;
  return {
    origin: (origin: string | undefined, done: (err: Error | null, allow?: boolean) => void) => {
      if (!origin) return done(null, false);
      let host: string;
      try {
        const url = new URL(origin);
        if (url.protocol !== 'https:') return done(null, false);
        host = url.hostname.toLowerCase();
      } catch {
        return done(null, false);
      }
      done(null, host === domain || host.endsWith(`.${domain}`));
    },
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
    maxAge: 600,
  };
}

/** The document served at /docs/openapi.json and linted by `npm run lint:openapi`. */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  documentValidationLimits();
  const environment = config.nodeEnv === 'production' ? 'production' : 'local development';
  const options = new DocumentBuilder()
    .setTitle('Conversational Agent Platform API')
    .setDescription(
      'Multi-tenant API for configuring AI agents and reading their results. Every tenant route lives under ' +
        '`https://<tenant>.<service-domain>/api/v1` and needs `Authorization: Bearer <token>`. Errors use ' +
        '`{success: false, message, error: {code, details, field?, retryAfter?}}`.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'An opaque API token (`cap_...`) issued by an operator; not a JWT.',
    })
    .build();
  const document = SwaggerModule.createDocument(app, options, {
    operationIdFactory: (c, m) => `${c.replace(/Controller$/, '')}_${m}`,
  });
  finishDocument(document, config, environment);
  return document;
}

/** The one pass over the generated document for what Nest cannot say per route. */
function finishDocument(document: OpenAPIObject, config: AppConfig, environment: string): void {
  document.servers = [
    {
      url: tenantServerUrl(config),
      description: `Tenant base address (${environment})`,
      variables: { tenant: { default: 'demo', description: 'workspace slug' } },
      ...{ 'x-internal': false },
    },
  ];
  const bearer = document.components?.securitySchemes?.bearer as { bearerFormat?: string } | undefined;
  if (bearer) delete bearer.bearerFormat; // Nest's default; the tokens are opaque
  documentPipelineAnswers(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) finishOperation(path, op);
    }
  }
  typeNullables(document);
  conventionalFormats(document);
  shortErrorExamples(document);
  shareExamplesAndHeaders(document);
  // Operators' routes last, the tags in the table's order.
  const order = (path: string, item: PathItemObject) => {
    const tag = METHODS.map((m) => item[m]?.tags?.[0]).find(Boolean) ?? '';
    const i = TAGS.findIndex((t) => t.name === tag);
    return i < 0 ? TAGS.length : i;
  };
  document.paths = Object.fromEntries(
    Object.entries(document.paths)
      .map(([path, item], i) => ({ path, item, i, rank: order(path, item) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ path, item }) => [path, item]),
  );
  const used = new Set(
    Object.values(document.paths).flatMap((item) => METHODS.flatMap((m) => item[m]?.tags ?? [])),
  );
  document.tags = [
    ...TAGS.filter((t) => used.has(t.name)),
    ...[...used].filter((t) => !TAGS.some((x) => x.name === t)).map((name) => ({ name })),
  ];
}

/** Path parameters named `uuid` or `...Uuid` go through the UUID pipe; `slug` is a workspace slug. */
function finishOperation(path: string, op: OperationObject): void {
  for (const p of (op.parameters ?? []) as ParameterObject[]) {
    if (p.in !== 'path') continue;
    const schema = (p.schema ?? {}) as SchemaObject;
    if (/(^uuid|Uuid)$/.test(p.name)) p.schema = { type: 'string', format: 'uuid', maxLength: 36 };
    else if (p.name === 'slug')
      p.schema = { type: 'string', maxLength: 63, pattern: '^[a-z0-9](-?[a-z0-9])*$' };
    else if (schema.type === 'string' && schema.maxLength === undefined)
      p.schema = { ...schema, maxLength: 255 };
  }
  // Only tenant routes are counted; operators' and health routes send no rate-limit headers.
  const limited = path.startsWith('/api/');
  for (const [status, answer] of Object.entries(op.responses)) {
    const response = answer as ResponseObject;
    if (limited && /^[24]/.test(status)) response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
    response.headers = { ...response.headers, 'Access-Control-Allow-Origin': CORS_ORIGIN };
    if (status === '429') response.headers = { ...response.headers, 'Retry-After': RETRY_AFTER };
  }
  for (const status of ['500', '503'] as const) {
    op.responses[status] ??= errorAnswer(status === '500' ? 'INTERNAL_SERVER_ERROR' : 'SERVICE_UNAVAILABLE');
  }
}

/**
 * Error examples and headers repeat on every operation: each distinct one is kept once under `components` and
 * referenced, which keeps the document (and Swagger UI's load) small.
 */
function shareExamplesAndHeaders(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const shared = { examples: (components.examples ??= {}), headers: (components.headers ??= {}) };
  const names = new Map<string, string>();
  const share = (kind: 'examples' | 'headers', name: string, value: object) => {
    const key = `${kind}:${JSON.stringify(value)}`;
    let target = names.get(key);
    if (!target) {
      target = name;
      for (let i = 2; target in shared[kind]; i++) target = `${name}_${i}`;
      (shared[kind] as Record<string, object>)[target] = value;
      names.set(key, target);
    }
    return { $ref: `#/components/${kind}/${target}` };
  };
  for (const item of Object.values(document.paths))
    for (const method of METHODS)
      for (const answer of Object.values(item[method]?.responses ?? {}) as ResponseObject[]) {
        for (const [name, header] of Object.entries(answer.headers ?? {}))
          answer.headers![name] = '$ref' in header ? header : share('headers', name, header);
        for (const media of Object.values(answer.content ?? {}))
          for (const [name, example] of Object.entries(media.examples ?? {}))
            media.examples![name] = '$ref' in example ? example : share('examples', name, example);
      }
}

/** The API's naming convention: `uuid` and `*_uuid` are UUIDs, `*_at` are ISO 8601 instants. */
function conventionalFormats(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}) as SchemaObject[])
    for (const [name, property] of Object.entries(schema.properties ?? {}) as [string, SchemaObject][]) {
      if (property.type !== 'string' || property.format || property.pattern || property.enum) continue;
      if (name === 'uuid' || name.endsWith('_uuid'))
        Object.assign(property, { format: 'uuid', maxLength: property.maxLength ?? 36 });
      else if (name.endsWith('_at'))
        Object.assign(property, { format: 'date-time', maxLength: property.maxLength ?? 35 });
    }
}

/** Routes answering the short error body `{success, message, data: []}` show their examples in that form. */
function shortErrorExamples(document: OpenAPIObject): void {
  const ref = getSchemaPath(ShortErrorBodyDto);
  const short = (message: unknown) => ({ success: false, message: String(message), data: [] });
  for (const item of Object.values(document.paths))
    for (const method of METHODS)
      for (const [status, answer] of Object.entries(item[method]?.responses ?? {})) {
        const media = (answer as ResponseObject).content?.['application/json'];
        if (!media || (media.schema as { $ref?: string } | undefined)?.$ref !== ref) continue;
        const general = Object.entries(media.examples ?? {}) as [string, ExampleObject][];
        const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
          (c) => ERROR_STATUS[c] === Number(status),
        );
        const examples = general.length
          ? general.map(([name, e]) => [
              name,
              e.summary,
              (e.value as { message?: string } | undefined)?.message,
            ])
          : code
            ? [[code, (answer as ResponseObject).description, errorExample(code).value.message]]
            : [];
        media.examples = Object.fromEntries(
          examples.map(([name, summary, message]) => [name, { summary, value: short(message) }]),
        );
      }
}

const epochSeconds = { type: 'integer', format: 'int64', minimum: 0, maximum: 99_999_999_999 } as const;
const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per rolling minute for the workspace (sent once the workspace is known)',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 1_000_000 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the rolling minute',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 },
  },
  'X-RateLimit-Reset': {
    description: 'When the oldest request of the minute leaves the window, in Unix seconds',
    schema: epochSeconds,
  },
};

const CORS_ORIGIN: HeaderObject = {
  description:
    "The caller's origin when it is the API documentation's (see docsCorsOptions); absent otherwise",
  schema: { type: 'string', format: 'uri', maxLength: 2048 },
};

const RETRY_AFTER: HeaderObject = {
  description: 'Seconds to wait before the next request is accepted',
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 60 },
};

/**
 * A property typed `string | null` reflects as `Object`, so Nest writes `type: object`: the real type comes from
 * what the property declares (format, length, enum, example). Declaring `type` on such a property is clearer.
 */
function typeNullables(document: OpenAPIObject): void {
  const fix = (schema: SchemaObject) => {
    if (schema.type !== 'object' || schema.properties || schema.additionalProperties !== undefined) return;
    if (schema.allOf || schema.oneOf || schema.anyOf) return;
    const example = schema.example as unknown;
    const sample = example ?? schema.enum?.[0] ?? schema.default;
    if (schema.format || schema.maxLength !== undefined || typeof sample === 'string') schema.type = 'string';
    else if (typeof sample === 'number') schema.type = 'number';
    else if (typeof sample === 'boolean') schema.type = 'boolean';
    else if (Array.isArray(sample)) schema.type = 'array';
  };
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const record = node as Record<string, unknown>;
    if (record.nullable === true || record.format !== undefined) fix(record as SchemaObject);
    for (const [key, value] of Object.entries(record))
      if (key !== 'example' && key !== 'examples') walk(value);
  };
  walk(document.components?.schemas);
  walk(document.paths);
}
