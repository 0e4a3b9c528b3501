import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  mixin,
  NestInterceptor,
  Optional,
  Type,
} from '@nestjs/common';
import { AnyFilesInterceptor, MulterModuleOptions } from '@nestjs/platform-express';
import { MULTER_MODULE_OPTIONS } from '@nestjs/platform-express/multer/files.constants';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { AppException } from '@/common/errors/app.exception';

const TAKEN = Symbol('cap:single-file-taken');

type UploadRequest = Request & { [TAKEN]?: boolean; file?: Express.Multer.File; files?: unknown };

/**
 * The upload of a route taking one file in the form field `field`: that file is stored (multer's storage and limits
 * of the module); a file under any other field name is read past and dropped, as unknown fields are ignored, so a
 * missing file is the handler's 422 naming `field`. A second file in `field` is 422 INVALID_FORMAT. The stored file
 * is `req.file`, as with `FileInterceptor`, for the idempotency interceptor and the handler.
 */
export function SingleFileInterceptor(field: string): Type<NestInterceptor> {
  @Injectable()
  class SingleFile implements NestInterceptor {
    private readonly upload: NestInterceptor;

    constructor(@Optional() @Inject(MULTER_MODULE_OPTIONS) options: MulterModuleOptions = {}) {
      const Upload = AnyFilesInterceptor({
        // Dropped files count as files to busboy: the parts limit still bounds the request.
        limits: { ...options.limits, files: undefined },
        fileFilter: (req: UploadRequest, file, accept) => {
          if (file.fieldname !== field) return accept(null, false);
          if (req[TAKEN]) return accept(AppException.invalid(field, `${field} must be a single file`), false);
          req[TAKEN] = true;
          accept(null, true);
        },
      });
      this.upload = new Upload(options);
    }

    intercept(
      context: ExecutionContext,
      next: CallHandler,
    ): Observable<unknown> | Promise<Observable<unknown>> {
      const req = context.switchToHttp().getRequest<UploadRequest>();
      return this.upload.intercept(context, {
        handle: () => {
          const files = Array.isArray(req.files) ? (req.files as Express.Multer.File[]) : [];
          req.file = files.find((f) => f.fieldname === field);
          req.files = undefined;
          return next.handle();
        },
      });
    }
  }
  return mixin(SingleFile);
}
