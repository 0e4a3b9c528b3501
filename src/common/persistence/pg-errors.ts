/** PostgreSQL error codes the services turn into contract answers. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_EXCLUSION_VIOLATION = '23P01';

interface PgErrorFields {
  code?: string;
  constraint?: string;
  detail?: string;
}

/** The SQLSTATE code, constraint and detail of a driver error (TypeORM wraps it in QueryFailedError). */
export function pgError(err: unknown): PgErrorFields {
  const e = err as PgErrorFields & { driverError?: PgErrorFields };
  return {
    code: e?.code ?? e?.driverError?.code,
    constraint: e?.constraint ?? e?.driverError?.constraint,
    detail: e?.detail ?? e?.driverError?.detail,
  };
}

export function isPgError(err: unknown, code: string, constraint?: string): boolean {
  const e = pgError(err);
  return e.code === code && (constraint === undefined || e.constraint === constraint);
}
