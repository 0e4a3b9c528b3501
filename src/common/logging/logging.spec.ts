import pino from 'pino';
import { Writable } from 'node:stream';
import { REDACT } from './logging.module';

describe('log redaction', () => {
  it('never writes the Authorization header, cookies or secrets', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ redact: { paths: REDACT, censor: '[redacted]' } }, sink);
    logger.info({
      req: { headers: { authorization: 'Bearer cap_secretvalue', cookie: 'sid=1', host: 'a.localhost' } },
      webhook: { secret_key: 'whsec_abc', url: 'https://x.test' },
    });
    const out = lines.join('');
    expect(out).not.toContain('cap_secretvalue');
    expect(out).not.toContain('whsec_abc');
    expect(out).not.toContain('sid=1');
    expect(out).toContain('a.localhost');
    expect(out).toContain('[redacted]');
  });
});
