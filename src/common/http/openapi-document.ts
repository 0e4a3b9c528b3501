import { INestApplication } from '@nestjs/common';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { PathItemObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AppConfig } from '@/config/app.config';
import { documentPipelineAnswers } from './api-response.decorator';
import { conventionalFormats, finishOperation, METHODS, typeNullables } from './openapi-conventions';
import { shareExamplesAndHeaders, shortErrorExamples } from './openapi-examples';
import { TAGS } from './openapi-tags';
import { documentValidationLimits } from './validation-schema';

export { TAGS } from './openapi-tags';

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
