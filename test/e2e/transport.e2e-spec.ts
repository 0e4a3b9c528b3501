import * as https from 'node:https';
import { generate } from 'selfsigned';
import { TestTenant } from '../factories/workspace.factory';
import { TestApp } from '../setup/test-app';
import { plainRequest } from '../support/http';
import { handshake } from '../support/tls-client';
import { useTestApp } from '../setup/suite';

describe('transport: HTTPS only, TLS 1.2 or newer', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  it('accepts TLS 1.2 and TLS 1.3', async () => {
    await expect(handshake(suite.app.port, 'TLSv1.2')).resolves.toEqual({ ok: true, protocol: 'TLSv1.2' });
    await expect(handshake(suite.app.port, 'TLSv1.3')).resolves.toEqual({ ok: true, protocol: 'TLSv1.3' });
  });

  it('refuses TLS 1.1 with a protocol-version alert (a client that can speak 1.1)', async () => {
    const refused = await handshake(suite.app.port, 'TLSv1.1');
    expect(refused.ok).toBe(false);
    expect(refused.code).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');

    // Control: the same client does complete TLS 1.1 with a server that allows it.
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 });
    const lenient = https.createServer({
      key: pems.private,
      cert: pems.cert,
      minVersion: 'TLSv1',
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
    await new Promise<void>((r) => lenient.listen(0, '127.0.0.1', r));
    const port = (lenient.address() as { port: number }).port;
    await expect(handshake(port, 'TLSv1.1')).resolves.toEqual({ ok: true, protocol: 'TLSv1.1' });
    await new Promise((r) => lenient.close(r));
  });

  it('answers plain HTTP on the TLS port with 403 HTTPS_REQUIRED before looking at the token', async () => {
    const res = await plainRequest(suite.app.port, '/api/v1/me', {
      Host: suite.tenant.host,
      Authorization: 'Bearer nonsense',
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual({
      success: false,
      message: 'HTTPS is required',
      error: { code: 'HTTPS_REQUIRED', details: expect.any(String) },
    });
  });

  it('answers 403 HTTPS_REQUIRED to plain HTTP whatever the method', async () => {
    for (const method of ['DELETE', 'PATCH', 'OPTIONS', 'POST']) {
      const res = await plainRequest(suite.app.port, '/api/v1/agents', { Host: suite.tenant.host }, method);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('HTTPS_REQUIRED');
    }
  });

  it('serves a certificate for localhost and *.localhost', async () => {
    const cert = await new Promise<string>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: suite.app.port,
          path: '/health',
          servername: 'acme.localhost',
          rejectUnauthorized: false,
        },
        (res) => {
          const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
          res.resume();
          resolve(peer.subjectaltname ?? '');
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(cert).toContain('DNS:localhost');
    expect(cert).toContain('DNS:*.localhost');
  });
});

describe('transport: TRUST_PROXY behind a TLS-terminating proxy', () => {
  const suite = useTestApp({ env: { TRUST_PROXY: 'true' }, tenants: ['tenant'] });
  let app: TestApp;
  let tenant: TestTenant;

  beforeAll(() => {
    ({ app, tenant } = suite);
  });

  it('serves requests whose X-Forwarded-Proto is https', async () => {
    const res = await plainRequest(app.port, '/api/v1/me', {
      Host: tenant.host,
      Authorization: `Bearer ${tenant.token}`,
      'X-Forwarded-Proto': 'https',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.workspace.slug).toBe(tenant.slug);
  });

  it('answers 403 HTTPS_REQUIRED when X-Forwarded-Proto is http or missing, before the token', async () => {
    for (const headers of [{ 'X-Forwarded-Proto': 'http' }, {}] as Record<string, string>[]) {
      const res = await plainRequest(app.port, '/api/v1/me', { Host: tenant.host, ...headers });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('HTTPS_REQUIRED');
    }
  });

  it('lets health probes through without the header', async () => {
    const res = await plainRequest(app.port, '/health');
    expect(res.status).toBe(200);
  });
});
