import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import pino from 'pino';
import { QueryFailedError } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { AllExceptionsFilter, SHORT_ERRORS_FOR } from './exceptions.filter';

function host(req: Record<string | symbol, unknown> = {}) {
  const res = {
    statusCode: 0,
    body: undefined as unknown,
    headers: {} as Record<string, string>,
    headersSent: false,
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    setHeader(name: string, value: string) {
      this.headers[name] = value;
    },
  };
  const h = {
    switchToHttp: () => ({
      getRequest: () => ({ method: 'GET', path: '/x', ...req }),
      getResponse: () => res,
    }),
  } as unknown as ArgumentsHost;
  return { h, res };
}

describe('exceptions filter', () => {
  const filter = new AllExceptionsFilter();
  beforeAll(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));

  it('turns an unknown error into a 500 that leaks no stack, SQL or message', () => {
    const { h, res } = host();
    filter.catch(
      new Error('duplicate key value violates unique constraint "users_pkey" SELECT * FROM users'),
      h,
    );
    expect(res.statusCode).toBe(500);
    expect(res.body).toEqual({
      success: false,
      message: 'An unexpected error occurred',
      error: { code: 'INTERNAL_SERVER_ERROR', details: 'An unexpected error occurred' },
    });
  });

  it('logs a failed query without its bound values or the driver detail', () => {
    const logged: unknown[] = [];
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((obj: unknown) => {
      logged.push(obj);
    });
    const driverError = Object.assign(new Error('value too long for type character varying(255)'), {
      code: '22001',
      detail: 'Key (phone_number)=(+14155550100) already exists.',
    });
    const err = new QueryFailedError(
      'INSERT INTO agent_intents (webhook) VALUES ($1)',
      ['{"auth_token":"tok_very_secret"}', '+14155550100'],
      driverError,
    );
    const { h, res } = host();
    filter.catch(err, h);
    spy.mockImplementation(() => undefined);
    expect(res.statusCode).toBe(500);
    const entry = logged[0] as { err: Error };
    const line = JSON.stringify(pino.stdSerializers.err(entry.err));
    expect(line).not.toContain('tok_very_secret');
    expect(line).not.toContain('+14155550100');
    expect(line).toContain('INSERT INTO agent_intents');
    expect(line).toContain('22001');
  });

  it('maps the router 404 to ENDPOINT_NOT_FOUND', () => {
    const { h, res } = host();
    filter.catch(new NotFoundException('Cannot GET /x'), h);
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'ENDPOINT_NOT_FOUND' } });
  });

  it('writes the rate-limit body with Retry-After equal to error.retryAfter', () => {
    const { h, res } = host();
    filter.catch(new AppException('RATE_LIMIT_EXCEEDED', 'slow down', { retryAfter: 7 }), h);
    expect(res.statusCode).toBe(429);
    expect(res.headers['Retry-After']).toBe('7');
    expect(res.body).toEqual({
      success: false,
      message: 'slow down',
      error: { code: 'RATE_LIMIT_EXCEEDED', details: 'slow down', retryAfter: 7 },
    });
  });

  it('writes the short body where the route asks for it', () => {
    const { h, res } = host({ [SHORT_ERRORS_FOR]: (e: AppException) => e.status === 422 });
    filter.catch(
      AppException.validation([
        { code: 'VALIDATION_ERROR', field: 'name', message: 'name should not be empty' },
        { code: 'VALIDATION_ERROR', field: 'file', message: 'file is required' },
      ]),
      h,
    );
    expect(res.statusCode).toBe(422);
    expect(res.body).toEqual({
      success: false,
      message: 'name should not be empty | file is required',
      data: [],
    });
  });
});
