import { startSite, waitFor } from '../factories/knowledge.factory';
import { useTestApp } from '../setup/suite';

const html = (title: string, body: string) =>
  [
    200,
    { 'content-type': 'text/html; charset=utf-8' },
    `<html><head><title>${title}</title><style>.x{}</style></head><body>${body}<script>var secret = 1;</script></body></html>`,
  ] as [number, Record<string, string>, string];

describe('Knowledge: website imports', () => {
  const suite = useTestApp({
    servers: {
      site: () =>
        startSite({
          '/robots.txt': [200, { 'content-type': 'text/plain' }, 'User-agent: *\nDisallow: /private\n'],
          '/': html(
            'Home',
            '<h1>Welcome</h1><p>Our shop sells lamps.</p><a href="/about">About</a> <a href="/private/x">P</a> <a href="https://elsewhere.example/">Out</a> <a href="/moved">Moved</a>',
          ),
          '/about': html('About', '<p>Founded in 1999.</p><a href="/deep">Deep</a>'),
          '/deep': html('Deep', '<p>Deep page text.</p><a href="/deeper">Deeper</a>'),
          '/deeper': html('Deeper', '<p>Too deep.</p>'),
          '/private/x': html('Private', '<p>Hidden.</p>'),
          '/moved': [301, { location: '/about' }, ''],
          '/many': html('Many', Array.from({ length: 20 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ')),
          ...Object.fromEntries(
            Array.from({ length: 20 }, (_, i) => [`/p${i}`, html(`P${i}`, `<p>Page ${i}</p>`)]),
          ),
        }),
    },
    env: { CRAWL_MAX_PAGES: '5' },
    tenants: ['tenant'],
  });

  const records = async (uuid: string) =>
    (await suite.tenant.http.get(`/api/v1/data/${uuid}/records?per_page=100`)).body.data.items.map(
      (r: { data: Record<string, unknown> }) => r.data,
    ) as { content: string; source: string }[];

  it('crawls the same site to the depth asked, obeying robots.txt, as readable text', async () => {
    const res = await suite.tenant.http
      .post('/api/v1/data/import/website')
      .send({ name: 'Shop', url: `${suite.site.url}/`, depth: 1 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      type: 'website',
      status: 0,
      process: 'queued',
      path_url: `${suite.site.url}/`,
    });
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 2, error: null });
    const rows = await records(res.body.data.uuid);
    const sources = rows.map((r) => r.source);
    expect(sources).toContain(`${suite.site.url}/`);
    expect(sources).toContain(`${suite.site.url}/about`);
    expect(sources.some((s) => s.includes('/deep'))).toBe(false);
    expect(sources.some((s) => s.includes('/private'))).toBe(false);
    expect(suite.site.hits).not.toContain('/private/x');
    const home = rows.find((r) => r.source === `${suite.site.url}/`)!;
    expect(home.content).toContain('Our shop sells lamps.');
    expect(home.content).not.toContain('secret');
    expect(home.content).not.toContain('.x{}');
  });

  it('crawls only the start page at depth 0, and stops at CRAWL_MAX_PAGES', async () => {
    const zero = await suite.tenant.http
      .post('/api/v1/data/import/website')
      .send({ name: 'One', url: `${suite.site.url}/`, depth: 0 });
    const done = await waitFor(suite.tenant, zero.body.data.uuid);
    expect((await records(zero.body.data.uuid)).map((r) => r.source)).toEqual([`${suite.site.url}/`]);
    expect(done.status).toBe(2);
    const many = await suite.tenant.http
      .post('/api/v1/data/import/website')
      .send({ name: 'Many', url: `${suite.site.url}/many`, depth: 3 });
    await waitFor(suite.tenant, many.body.data.uuid);
    expect(new Set((await records(many.body.data.uuid)).map((r) => r.source)).size).toBe(5);
  });

  it('fails with the reason when the start page cannot be read', async () => {
    const res = await suite.tenant.http
      .post('/api/v1/data/import/website')
      .send({ name: 'Gone', url: `${suite.site.url}/missing` });
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, process: 'failed', records_count: 0 });
    expect(done.error).toMatch(/HTTP 404/);
  });

  it('validates the body with the short error body', async () => {
    for (const body of [
      { name: 'x', url: 'not a url' },
      { name: 'x', url: `${suite.site.url}/`, depth: 4 },
      { url: `${suite.site.url}/` },
    ]) {
      const res = await suite.tenant.http.post('/api/v1/data/import/website').send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, message: expect.any(String), data: [] });
    }
  });
});
