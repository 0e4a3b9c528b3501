import * as fs from 'node:fs';
import * as path from 'node:path';
import { generate } from 'selfsigned';
import type { AppConfig } from '@/config/app.config';

export interface TlsMaterial {
  key: string;
  cert: string;
}

/**
 * The configured certificate, or (development) a self-signed one for localhost and *.localhost generated on first
 * start and kept under STORAGE_DIR/tls so restarts keep it.
 */
export async function loadOrCreateTlsMaterial(
  config: AppConfig,
  log: (line: string) => void = () => undefined,
): Promise<TlsMaterial> {
  if (config.tls.certFile && config.tls.keyFile) {
    return {
      cert: fs.readFileSync(config.tls.certFile, 'utf8'),
      key: fs.readFileSync(config.tls.keyFile, 'utf8'),
    };
  }
  const dir = path.join(config.storageDir, 'tls');
  const certFile = path.join(dir, 'localhost.crt');
  const keyFile = path.join(dir, 'localhost.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
  }
  const domains = [
    ...new Set(['localhost', '*.localhost', config.serviceDomain, `*.${config.serviceDomain}`]),
  ];
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...domains.map((value) => ({ type: 2 as const, value })),
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile, pems.cert, { mode: 0o644 });
  log(`self-signed certificate for ${domains.join(', ')} generated in ${dir}`);
  return { cert: pems.cert, key: pems.private };
}
