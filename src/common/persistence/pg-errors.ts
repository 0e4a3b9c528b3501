/** PostgreSQL error codes the services turn into contract answers. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_EXCLUSION_VIOLATION = '23P01';

/** The SQLSTATE code and constraint of a driver error (TypeORM wraps it in QueryFailedError). */
export function pgError(err: unknown): { code?: string; constraint?: string } {
  const e = err as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  return { code: e?.code ?? e?.driverError?.code, constraint: e?.constraint ?? e?.driverError?.constraint };
}

export function isPgError(err: unknown, code: string, constraint?: string): boolean {
  const e = pgError(err);
  return e.code === code && (constraint === undefined || e.constraint === constraint);
}
