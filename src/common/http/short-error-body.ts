import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { Observable } from 'rxjs';
import { SHORT_ERRORS_FOR } from './exceptions.filter';

/** Marks the request so that the filter answers the listed statuses with the short body `{success, message, data: []}`. */
@Injectable()
class ShortErrorBodyInterceptor implements NestInterceptor {
  constructor(private readonly statuses: (status: number) => boolean) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Record<symbol, unknown>>();
    req[SHORT_ERRORS_FOR] = (e: { status: number }) => this.statuses(e.status);
    return next.handle();
  }
}

/** The specification shows the short error body on a few routes; this names which of their answers use it. */
export const ShortErrorBody = (statuses: (status: number) => boolean): MethodDecorator & ClassDecorator =>
  applyDecorators(UseInterceptors(new ShortErrorBodyInterceptor(statuses)));
