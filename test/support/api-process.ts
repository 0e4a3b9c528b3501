import { loadConfig } from '@/config/app.config';
import { resolveEncryptionKey } from '@/common/crypto/encryption-key';
import { loadOrCreateTlsMaterial } from '@/common/http/tls';
import { urlPolicy } from '@/common/validation/validators';
import { startApi } from '@/bootstrap';

/**
 * A second API replica in its own OS process (forked by `startApiProcess`): the same bootstrap as `npm start`,
 * against the run's database and Redis prefix. Sends its port over IPC; stops on any IPC message.
 */
async function main(): Promise<void> {
  const config = resolveEncryptionKey(loadConfig({ ...process.env, PORT: '0' }));
  urlPolicy.allowHttp = config.network.allowPrivateTargets;
  const api = await startApi(config, { host: '127.0.0.1', tls: await loadOrCreateTlsMaterial(config) });
  process.send?.({ port: api.server.port });
  process.on('message', () => void api.stop().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
