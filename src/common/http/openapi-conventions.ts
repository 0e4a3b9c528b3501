import type {
  HeaderObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { OpenAPIObject } from '@nestjs/swagger';
import { errorAnswer } from './api-response.decorator';

// What the generated document gets on every operation and schema by the API's conventions, which no route states
// itself: path parameter formats, rate-limit, CORS and Retry-After headers, 500/503 answers, uuid and date-time
// formats, and the real type of nullable properties.

/** The operations of a path item, as the passes over the document visit them. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Path parameters named `uuid` or `...Uuid` go through the UUID pipe; `slug` is a workspace slug. */
export function finishOperation(path: string, op: OperationObject): void {
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

/** The API's naming convention: `uuid` and `*_uuid` are UUIDs, `*_at` are ISO 8601 instants. */
export function conventionalFormats(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {}) as SchemaObject[])
    for (const [name, property] of Object.entries(schema.properties ?? {}) as [string, SchemaObject][]) {
      if (property.type !== 'string' || property.format || property.pattern || property.enum) continue;
      if (name === 'uuid' || name.endsWith('_uuid'))
        Object.assign(property, { format: 'uuid', maxLength: property.maxLength ?? 36 });
      else if (name.endsWith('_at'))
        Object.assign(property, { format: 'date-time', maxLength: property.maxLength ?? 35 });
    }
}

/**
 * A property typed `string | null` reflects as `Object`, so Nest writes `type: object`: the real type comes from
 * what the property declares (format, length, enum, example). Declaring `type` on such a property is clearer.
 */
export function typeNullables(document: OpenAPIObject): void {
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
