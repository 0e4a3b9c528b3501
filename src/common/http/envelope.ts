import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';

export const RAW_RESPONSE = 'cap:raw-response';
export const RESPONSE_MESSAGE = 'cap:response-message';

/** The handler's result is sent as it is, without the success envelope (the message export). */
export const RawResponse = (): MethodDecorator => SetMetadata(RAW_RESPONSE, true);
/** The `message` of the success envelope for this route. */
export const ResponseMessage = (message: string): MethodDecorator => SetMetadata(RESPONSE_MESSAGE, message);

/** A handler may return this to choose the envelope's message at run time. */
export class Envelope<T> {
  constructor(
    readonly data: T,
    readonly message: string,
  ) {}
}

/** Wraps every result in `{success: true, message, data}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler();
    if (this.reflector.get<boolean>(RAW_RESPONSE, handler)) return next.handle();
    const fixed = this.reflector.get<string>(RESPONSE_MESSAGE, handler);
    const method = context.switchToHttp().getRequest<{ method: string }>().method;
    // A POST that creates nothing (it declares a status other than 201) answers OK.
    const code = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, handler);
    const created = method === 'POST' && (code === undefined || code === 201);
    return next.handle().pipe(
      map((result: unknown) => {
        if (result instanceof Envelope)
          return { success: true, message: result.message, data: result.data ?? null };
        const message = fixed ?? (created ? 'Created' : method === 'DELETE' ? 'Deleted' : 'OK');
        return { success: true, message, data: result ?? null };
      }),
    );
  }
}
