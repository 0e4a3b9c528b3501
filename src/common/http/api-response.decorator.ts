import { applyDecorators, HttpCode, Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiHeader,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
  OpenAPIObject,
} from '@nestjs/swagger';
import type {
  OperationObject,
  ResponseObject,
  ResponsesObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode, ERROR_STATUS } from '@/common/errors/error-codes';
import { MAX_PER_PAGE } from './pagination';

/** The tag of the operators' module, listed last. */
export const INTERNAL_TAG = 'Internal (operators)';

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export class ErrorDetail {
  @ApiProperty({ enum: ERROR_CODES, example: 'INVALID_FORMAT' }) code!: string;
  @ApiProperty({ example: 'phone_number must be a phone number in E.164 format', maxLength: 2000 })
  details!: string;
  @ApiPropertyOptional({
    example: 'phone_number',
    description: 'validation errors only; the first failing field',
    maxLength: 200,
  })
  field?: string;
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 60,
    example: 12,
    description: 'rate limit only; seconds to wait',
  })
  retryAfter?: number;
}

export class ErrorBody {
  @ApiProperty({ enum: [false], example: false }) success!: boolean;
  @ApiProperty({ example: 'phone_number must be a phone number in E.164 format', maxLength: 2000 })
  message!: string;
  @ApiProperty({ type: ErrorDetail }) error!: ErrorDetail;
}

export class ShortErrorBodyDto {
  @ApiProperty({ enum: [false], example: false }) success!: boolean;
  @ApiProperty({ example: 'name should not be empty | file is required', maxLength: 2000 }) message!: string;
  @ApiProperty({ type: 'array', items: {}, maxItems: 0, example: [] }) data!: unknown[];
}

export class PaginationDto {
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) per_page!: number;
  @ApiProperty({ example: 57 }) total!: number;
  @ApiProperty({ example: 3 }) total_pages!: number;
}

const IDEMPOTENCY_KEY_DESCRIPTION =
  'Up to 255 characters; the same key and body within 24 hours answers the first answer again';

const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: 255 } as const;

const DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'Malformed JSON or wrong content type',
  MISSING_AUTH_TOKEN: 'No Authorization header',
  INTERNAL_SERVER_ERROR: 'An unexpected failure; the request can be retried',
  SERVICE_UNAVAILABLE: 'A dependency (database or Redis) is unavailable; retry later',
  INVALID_AUTH_TOKEN: 'Malformed, unknown or revoked token',
  FORBIDDEN: 'The token lacks the scope for this method',
  RESOURCE_NOT_FOUND: 'Nothing with this identifier in this workspace (or unknown workspace)',
  CONFLICT: 'The current state forbids the operation',
  PURCHASE_LIMIT_REACHED:
    'The workspace holds PHONE_NUMBER_PURCHASE_LIMIT bought numbers; details: {limit, current}',
  VALIDATION_ERROR: 'A required field is missing or empty; error.field names it',
  INVALID_FORMAT: 'A field has the wrong type, enum value or format; error.field names it',
  INVALID_UUID: 'A malformed UUID; error.field names the parameter',
  RATE_LIMIT_EXCEEDED: 'Over 1000 requests in the rolling minute; see Retry-After',
  PAYLOAD_TOO_LARGE: 'Body over the size limit',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used with another body',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still running',
};

/** One realistic body per code, so each status shows its own codes in Swagger UI. */
const EXAMPLES: Partial<Record<ErrorCode, { message: string; field?: string; retryAfter?: number }>> = {
  BAD_REQUEST: { message: 'Malformed JSON body' },
  MISSING_AUTH_TOKEN: { message: 'Missing Authorization header' },
  INVALID_AUTH_TOKEN: { message: 'Invalid or revoked API token' },
  FORBIDDEN: { message: 'The token lacks the write scope' },
  RESOURCE_NOT_FOUND: { message: 'Agent not found' },
  CONFLICT: { message: 'The current state does not allow this operation' },
  WEBHOOK_LIMIT_REACHED: { message: 'An agent has at most 10 webhooks' },
  PURCHASE_LIMIT_REACHED: { message: 'The workspace has bought 10 of its 10 numbers' },
  PROVIDER_ERROR: { message: 'Twilio refused the purchase: This number is not available' },
  PAYLOAD_TOO_LARGE: { message: 'Request body is larger than 1mb' },
  VALIDATION_ERROR: { message: 'name should not be empty', field: 'name' },
  INVALID_FORMAT: { message: 'phone_number must be a phone number in E.164 format', field: 'phone_number' },
  INVALID_UUID: { message: 'uuid must be a UUID', field: 'uuid' },
  IDEMPOTENCY_KEY_REUSED: { message: 'This Idempotency-Key was used with another request body' },
  IDEMPOTENCY_KEY_IN_USE: { message: 'A request with this Idempotency-Key is still running' },
  RATE_LIMIT_EXCEEDED: {
    message: 'Rate limit of 1000 requests per minute exceeded; retry in 12 s',
    retryAfter: 12,
  },
  INTERNAL_SERVER_ERROR: { message: 'An unexpected error occurred' },
  SERVICE_UNAVAILABLE: { message: 'Service unavailable' },
};

export function errorExample(code: ErrorCode): { summary: string; value: Record<string, unknown> } {
  const e = EXAMPLES[code] ?? { message: DESCRIPTIONS[code] ?? code };
  const error: Record<string, unknown> = { code, details: e.message };
  if (e.field !== undefined) error.field = e.field;
  if (e.retryAfter !== undefined) error.retryAfter = e.retryAfter;
  return { summary: DESCRIPTIONS[code] ?? code, value: { success: false, message: e.message, error } };
}

const describe = (codes: ErrorCode[]) => codes.map((c) => `${c}: ${DESCRIPTIONS[c] ?? c}`).join('; ');

/** The answer of one or more codes sharing a status: the general error body with one example per code. */
export function errorAnswer(...codes: ErrorCode[]): ResponseObject {
  return {
    description: describe(codes),
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorBody) },
        examples: Object.fromEntries(codes.map((c) => [c, errorExample(c)])),
      },
    },
  };
}

/** Documents error answers by code, grouped by status, with the general error body and an example per code. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ErrorBody),
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: describe(list),
        type: ErrorBody,
        examples: Object.fromEntries(list.map((c) => [c, errorExample(c)])),
      }),
    ),
  );
}

/** The errors every tenant route can answer. */
export const TENANT_ERRORS: ErrorCode[] = [
  'MISSING_AUTH_TOKEN',
  'INVALID_AUTH_TOKEN',
  'FORBIDDEN',
  'RESOURCE_NOT_FOUND',
  'RATE_LIMIT_EXCEEDED',
];

interface EnvelopeOptions {
  status?: number;
  description?: string;
  isArray?: boolean;
  paginated?: boolean;
  nullable?: boolean;
  errors?: ErrorCode[];
  idempotent?: boolean;
  /** false for routes outside the tenant API (the internal module). */
  tenant?: boolean;
}

/**
 * One decorator per route: the success envelope `{success, message, data}` around `type`, the HTTP status, the
 * bearer scheme and the error answers.
 */
export function ApiEnvelope(type: Type<unknown> | null, options: EnvelopeOptions = {}): MethodDecorator {
  const status = options.status ?? 200;
  const item = type
    ? { $ref: getSchemaPath(type) }
    : { type: 'object', nullable: true, enum: [null], description: 'always null', example: null };
  const data = options.paginated
    ? {
        type: 'object',
        properties: {
          items: { type: 'array', items: item, maxItems: MAX_PER_PAGE },
          pagination: { $ref: getSchemaPath(PaginationDto) },
        },
      }
    : options.isArray
      ? { type: 'array', items: item }
      : options.nullable
        ? { ...item, nullable: true }
        : item;
  const decorators = [
    HttpCode(status),
    ApiBearerAuth(),
    ApiExtraModels(...([type, PaginationDto, ErrorBody].filter(Boolean) as Type<unknown>[])),
    ApiResponse({
      status,
      description: options.description ?? 'Success',
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: {
          success: { type: 'boolean', enum: [true], example: true },
          message: { type: 'string', maxLength: 2000, example: status === 201 ? 'Created' : 'OK' },
          data,
        },
      },
    }),
    ApiErrors(
      ...(options.tenant === false
        ? (['MISSING_AUTH_TOKEN', 'INVALID_AUTH_TOKEN'] as ErrorCode[])
        : TENANT_ERRORS),
      ...(options.errors ?? []),
    ),
  ];
  if (options.idempotent !== false && options.tenant !== false && status === 201)
    decorators.push(
      ApiHeader({
        name: 'Idempotency-Key',
        required: false,
        description: IDEMPOTENCY_KEY_DESCRIPTION,
        schema: IDEMPOTENCY_KEY_SCHEMA,
      }),
    );
  return applyDecorators(...decorators);
}

/** Adds error codes to an operation's answers, merged into the description when the status is already there. */
function addErrors(responses: ResponsesObject, codes: ErrorCode[]): void {
  for (const code of codes) {
    const status = String(ERROR_STATUS[code]);
    const line = `${code}: ${DESCRIPTIONS[code] ?? code}`;
    const existing = responses[status] as ResponseObject | undefined;
    if (!existing) responses[status] = errorAnswer(code);
    else if (!existing.description.includes(code)) {
      existing.description = `${existing.description}; ${line}`;
      const media = existing.content?.['application/json'];
      if (media) media.examples = { ...media.examples, [code]: errorExample(code) };
    }
  }
}

/**
 * What the shared pipeline answers on every tenant route, whatever the route declares: a JSON body can be
 * malformed or too large, and every POST takes an Idempotency-Key with its two refusals.
 */
export function documentPipelineAnswers(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of ['post', 'put', 'patch'] as const) {
      const op: OperationObject | undefined = item[method];
      if (!op) continue;
      const codes: ErrorCode[] = ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE'];
      if (method === 'post') {
        codes.push('IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE');
        op.parameters ??= [];
        if (!op.parameters.some((p) => 'name' in p && p.in === 'header' && p.name === 'Idempotency-Key'))
          op.parameters.push({
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: IDEMPOTENCY_KEY_DESCRIPTION,
            schema: IDEMPOTENCY_KEY_SCHEMA,
          });
      }
      addErrors(op.responses, codes);
    }
  }
}
