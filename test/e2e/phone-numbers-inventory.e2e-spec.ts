import { createAgent } from '../factories/agent.factory';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { postSigned, TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://numbers.example.test';
const LIMIT = 3;

interface Offer {
  number: string;
  country_code: string;
  type: string;
  requirements?: { address: string; documents: string[] };
  monthly_fee?: { amount: string; currency: string } | null;
}

describe('phone numbers: inventory search, purchase and release; channel settings', () => {
  describe('sandbox inventory', () => {
    const suite = useTestApp({
      env: { PHONE_NUMBER_PURCHASE_LIMIT: String(LIMIT), SANDBOX_ANSWER_DELAY_MS: '100' },
      tenants: ['t', 'other'],
    });
    let app: TestApp;
    let t: TestTenant;
    let other: TestTenant;

    const search = async (tenant: TestTenant, query: string) => {
      const res = await tenant.http.get(`/api/v1/phone-numbers/search?${query}`).expect(200);
      return res.body.data as Offer[];
    };
    const buy = (tenant: TestTenant, offer: Offer, extra: Record<string, unknown> = {}) =>
      tenant.http
        .post('/api/v1/phone-numbers/purchase')
        .send({ number: offer.number, country_code: offer.country_code, type: offer.type, ...extra });

    beforeAll(() => {
      ({ app, t, other } = suite);
    });

    it('searches a deterministic inventory by country, type and digits, at most 50', async () => {
      const first = await search(t, 'country_code=US&type=local&limit=5');
      expect(first).toHaveLength(5);
      expect(await search(t, 'country_code=US&type=local&limit=5')).toEqual(first);
      expect(first[0]).toEqual({
        number: expect.stringMatching(/^\+1\d{10}$/),
        country_code: 'US',
        type: 'local',
        locality: null,
        region: null,
        capabilities: { call: true, sms: true, whatsapp: false, whatsapp_call: false },
        monthly_fee: { amount: '1.15', currency: 'USD' },
        requirements: { address: 'none', documents: [] },
      });
      const digits = first[2].number.slice(-4);
      const matching = await search(t, `country_code=US&type=local&contains=${digits}`);
      expect(matching.length).toBeGreaterThan(0);
      expect(matching.every((o) => o.number.includes(digits))).toBe(true);
      expect(await search(t, 'country_code=US&type=local&limit=50')).toHaveLength(50);
      // Other countries and types: libphonenumber says what each number is.
      const gb = await search(t, 'country_code=GB&type=mobile&limit=3');
      expect(gb.map((o) => o.number.slice(0, 4))).toEqual(['+447', '+447', '+447']);
      expect(gb[0].requirements).toEqual({ address: 'any', documents: [] });
      const tollFree = await search(t, 'country_code=US&type=toll_free&limit=2');
      expect(tollFree[0].number).toMatch(/^\+18\d\d/);
      expect(tollFree[0].monthly_fee).toEqual({ amount: '2.15', currency: 'USD' });
    });

    it.each([
      ['type=local', 'country_code'],
      ['country_code=usa', 'country_code'],
      ['country_code=XX', 'country_code'],
      ['country_code=US&type=satellite', 'type'],
      ['country_code=US&limit=51', 'limit'],
      ['country_code=US&limit=0', 'limit'],
      ['country_code=US&contains=abc', 'contains'],
    ])('search rejects %s on %s', async (query, field) => {
      const res = await t.http.get(`/api/v1/phone-numbers/search?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.error.field).toBe(field);
    });

    it('answers the requirements of a country and type', async () => {
      const res = await t.http.get('/api/v1/phone-numbers/search/requirements?country_code=GB&type=local');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        country_code: 'GB',
        type: 'local',
        provider: 'sandbox',
        address: 'local',
        documents: [],
      });
      const us = await t.http.get('/api/v1/phone-numbers/search/requirements?country_code=US').expect(200);
      expect(us.body.data).toMatchObject({ type: 'local', address: 'none', documents: [] });
      const bad = await t.http.get('/api/v1/phone-numbers/search/requirements?country_code=ZZ');
      expect(bad.status).toBe(422);
    });

    it('buys a number (source purchased), which no one can buy again, and releases it with its bindings', async () => {
      const [offer] = await search(t, 'country_code=US&type=local&limit=1');
      const res = await buy(t, offer);
      expect(res.status).toBe(201);
      const n = res.body.data;
      expect(n).toMatchObject({
        number: offer.number,
        provider: 'sandbox',
        status: 'active',
        country_code: 'US',
        type: 'local',
        source: 'purchased',
        is_external: false,
        capabilities: { call: true, sms: true, whatsapp: false, whatsapp_call: false },
        monthly_fee: { amount: '1.15', currency: 'USD' },
      });
      expect((await t.http.get(`/api/v1/phone-numbers/${n.uuid}`).expect(200)).body.data).toEqual(n);
      // Gone from the inventory; owned: 409 for this workspace and any other.
      expect((await search(t, 'country_code=US&type=local&limit=50')).map((o) => o.number)).not.toContain(
        offer.number,
      );
      expect((await search(other, 'country_code=US&type=local&limit=50')).map((o) => o.number)).not.toContain(
        offer.number,
      );
      for (const tenant of [t, other]) {
        const again = await buy(tenant, offer);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
      }

      // Bound to an agent, then released: the binding goes with it.
      const agent = await createAgent(t);
      await t.http
        .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
        .send({ phone_number_uuid: n.uuid, channels: ['call'] })
        .expect(201);
      // Another workspace can neither release nor detect it.
      expect((await other.http.post(`/api/v1/phone-numbers/${n.uuid}/release`)).status).toBe(404);
      const released = await t.http.post(`/api/v1/phone-numbers/${n.uuid}/release`);
      expect(released.status).toBe(200);
      expect(released.body.data).toMatchObject({ uuid: n.uuid, number: offer.number, status: 'released' });
      expect((await t.http.get(`/api/v1/phone-numbers/${n.uuid}`)).status).toBe(404);
      const view = await t.http.get(`/api/v1/agents/${agent.agent_uuid}`).expect(200);
      expect(JSON.stringify(view.body.data)).not.toContain(offer.number);
      expect((await t.http.post(`/api/v1/phone-numbers/${n.uuid}/release`)).status).toBe(404);
      // Back in the inventory.
      expect((await search(other, 'country_code=US&type=local&limit=50')).map((o) => o.number)).toContain(
        offer.number,
      );
    });

    it('releases only purchased numbers', async () => {
      const registered = await t.http
        .post('/api/v1/phone-numbers')
        .send({ number: sandboxDestination(), provider: 'sandbox' })
        .expect(201);
      expect(registered.body.data.source).toBe('registered');
      const res = await t.http.post(`/api/v1/phone-numbers/${registered.body.data.uuid}/release`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect((await t.http.post(`/api/v1/phone-numbers/${MISSING}/release`)).status).toBe(404);
      expect((await t.http.post('/api/v1/phone-numbers/not-a-uuid/release')).status).toBe(422);
    });

    it('checks the requirements of the sandbox before buying', async () => {
      const [local] = await search(t, 'country_code=GB&type=local&limit=1');
      const none = await buy(t, local);
      expect(none.status).toBe(422);
      expect(none.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'address' });
      const address = {
        customer_name: 'Acme Ltd',
        street: '1 Main Street',
        city: 'Paris',
        postal_code: '75001',
        country_code: 'FR',
      };
      const foreign = await buy(t, local, { address });
      expect(foreign.status).toBe(422);
      expect(foreign.body.error.field).toBe('address.country_code');
      const incomplete = await buy(t, local, { address: { ...address, street: undefined } });
      expect(incomplete.status).toBe(422);
      expect(incomplete.body.error.field).toBe('address.street');
      const [tollFree] = await search(t, 'country_code=GB&type=toll_free&limit=1');
      const noBundle = await buy(t, tollFree, { address });
      expect(noBundle.status).toBe(422);
      expect(noBundle.body.error.field).toBe('requirements.bundle_sid');
      // A number the inventory does not offer, or of another country.
      const unknown = await buy(t, { number: '+14155550123', country_code: 'US', type: 'local' });
      expect(unknown.status).toBe(409);
      const mismatch = await buy(t, { number: local.number, country_code: 'US', type: 'local' });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.error.field).toBe('number');
      const noType = await t.http
        .post('/api/v1/phone-numbers/purchase')
        .send({ number: local.number, country_code: 'GB' });
      expect(noType.status).toBe(422);
      expect(noType.body.error.field).toBe('type');
    });

    it('stops at PHONE_NUMBER_PURCHASE_LIMIT: two purchases racing for the last slot, one 201 and one 403', async () => {
      const buyer = await createTenant(app);
      const offers = await search(buyer, 'country_code=US&type=mobile&limit=10');
      for (const offer of offers.slice(0, LIMIT - 1)) expect((await buy(buyer, offer)).status).toBe(201);
      const race = await Promise.all([buy(buyer, offers[LIMIT - 1]), buy(buyer, offers[LIMIT])]);
      expect(race.map((r) => r.status).sort()).toEqual([201, 403]);
      const refused = race.find((r) => r.status === 403)!;
      expect(refused.body.error.code).toBe('PURCHASE_LIMIT_REACHED');
      expect(JSON.parse(refused.body.error.details)).toEqual({ limit: LIMIT, current: LIMIT });
      const after = await buy(buyer, offers[LIMIT + 1]);
      expect(after.status).toBe(403);
      // Registered numbers do not count; the other workspace has its own limit.
      await buyer.http.post('/api/v1/phone-numbers').send({ number: sandboxDestination() }).expect(201);
      expect((await buy(other, offers[LIMIT + 2])).status).toBe(201);
      // Releasing one frees a slot.
      const list = await buyer.http.get('/api/v1/phone-numbers?per_page=50').expect(200);
      const bought = list.body.data.items.filter((n: { source: string }) => n.source === 'purchased');
      expect(bought).toHaveLength(LIMIT);
      await buyer.http.post(`/api/v1/phone-numbers/${bought[0].uuid}/release`).expect(200);
      expect((await buy(buyer, offers[LIMIT + 3])).status).toBe(201);
    });

    it('answers a repeated purchase with the same Idempotency-Key once', async () => {
      const buyer = await createTenant(app);
      const [offer] = await search(buyer, 'country_code=CA&type=local&limit=1');
      const send = () =>
        buyer.http
          .post('/api/v1/phone-numbers/purchase')
          .set('Idempotency-Key', 'buy-once')
          .send({ number: offer.number, country_code: 'CA', type: 'local' });
      const first = await send();
      expect(first.status).toBe(201);
      const second = await send();
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      const list = await buyer.http.get('/api/v1/phone-numbers').expect(200);
      expect(list.body.data.items).toHaveLength(1);
    });

    describe('channel settings', () => {
      it.each([
        [{ voice: { channel_limit: 0 } }, 'channel_settings.voice.channel_limit'],
        [{ voice: { channel_limit: 2.5 } }, 'channel_settings.voice.channel_limit'],
        [{ voice: { enabled: 'no' } }, 'channel_settings.voice.enabled'],
        [{ voice: { whitelisted_destinations: [] } }, 'channel_settings.voice.whitelisted_destinations'],
        [{ voice: { whitelisted_destinations: ['us'] } }, 'channel_settings.voice.whitelisted_destinations'],
        [{ voice: { whitelisted_destinations: 'US' } }, 'channel_settings.voice.whitelisted_destinations'],
        [
          { voice: { whitelisted_destinations: ['US', 'XX'] } },
          'channel_settings.voice.whitelisted_destinations.1',
        ],
        [{ sms: { enabled: 'yes' } }, 'channel_settings.sms.enabled'],
        [{ inbound: { channel_limit: 1001 } }, 'channel_settings.inbound.channel_limit'],
        [{ inbound: 'off' }, 'channel_settings.inbound'],
      ])('PATCH rejects channel_settings %j on %s', async (settings, field) => {
        const line = await sandboxLine(t);
        const res = await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: settings });
        expect(res.status).toBe(422);
        expect(res.body.error.field).toBe(field);
      });

      it('merges a PATCH into the settings, shows them in the number and its snapshot, and null restores a default', async () => {
        const line = await sandboxLine(t);
        const patch = (settings: unknown) =>
          t.http.patch(`/api/v1/phone-numbers/${line.numberId}`).send({ channel_settings: settings });
        const first = await patch({ voice: { channel_limit: 4, whitelisted_destinations: ['US', 'GB'] } });
        expect(first.status).toBe(200);
        expect(first.body.data.channel_settings).toEqual({
          voice: { enabled: true, channel_limit: 4, whitelisted_destinations: ['US', 'GB'] },
          sms: { enabled: true },
          inbound: { enabled: true, channel_limit: 50 },
        });
        const second = await patch({ sms: { enabled: false }, inbound: { channel_limit: 2 } });
        expect(second.body.data.channel_settings).toEqual({
          voice: { enabled: true, channel_limit: 4, whitelisted_destinations: ['US', 'GB'] },
          sms: { enabled: false },
          inbound: { enabled: true, channel_limit: 2 },
        });
        const snapshot = await t.http.get(`/api/v1/phone-numbers/${line.numberId}/channels`).expect(200);
        expect(snapshot.body.data.channels.call).toMatchObject({
          enabled: true,
          channel_limit: 4,
          whitelisted_destinations: ['US', 'GB'],
        });
        expect(snapshot.body.data.channels.inbound).toEqual({ enabled: true, channel_limit: 2 });
        const reset = await patch({ voice: { whitelisted_destinations: null }, inbound: null });
        expect(reset.body.data.channel_settings).toEqual({
          voice: { enabled: true, channel_limit: 4, whitelisted_destinations: ['US'] },
          sms: { enabled: false },
          inbound: { enabled: true, channel_limit: 50 },
        });
        // Another workspace can neither change nor read them.
        const foreign = await other.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { voice: { enabled: false } } });
        expect(foreign.status).toBe(404);
        expect((await other.http.get(`/api/v1/phone-numbers/${line.numberId}/channels`)).status).toBe(404);
        const mine = await t.http.get(`/api/v1/phone-numbers/${line.numberId}`).expect(200);
        expect(mine.body.data.channel_settings.voice.enabled).toBe(true);
      });

      it('refuses calls to countries not whitelisted and from numbers whose voice is off', async () => {
        const line = await sandboxLine(t);
        const call = (to: string) => t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to });
        const abroad = await call('+447400123456');
        expect(abroad.status).toBe(409);
        expect(abroad.body.error.code).toBe('CONFLICT');
        expect(abroad.body.message).toContain('GB');
        expect((await call(sandboxDestination())).status).toBe(201);
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { voice: { whitelisted_destinations: ['US', 'GB'] } } })
          .expect(200);
        expect((await call('+447400123456')).status).toBe(201);
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { voice: { enabled: false } } })
          .expect(200);
        const off = await call(sandboxDestination());
        expect(off.status).toBe(409);
        expect(off.body.message).toContain('voice.enabled');
        const snapshot = await t.http.get(`/api/v1/phone-numbers/${line.numberId}/channels`).expect(200);
        expect(snapshot.body.data.channels.call.enabled).toBe(false);
      });

      it('voice.channel_limit caps the live calls of the number', async () => {
        const line = await sandboxLine(t);
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { voice: { channel_limit: 1 } } })
          .expect(200);
        const call = () =>
          t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: sandboxDestination('0009') });
        expect((await call()).status).toBe(201);
        const second = await call();
        expect(second.status).toBe(429);
        expect(second.body.error.code).toBe('CONCURRENCY_LIMIT_EXCEEDED');
        expect(second.body.message).toContain(line.number);
      });

      it('inbound.enabled false refuses simulated inbound calls; inbound.channel_limit caps them', async () => {
        const line = await sandboxLine(t);
        const inbound = () =>
          t.http.post('/api/v1/calls/simulate-inbound').send({ to: line.number, from: sandboxDestination() });
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { inbound: { enabled: false } } })
          .expect(200);
        const refused = await inbound();
        expect(refused.status).toBe(409);
        expect(refused.body.message).toContain('inbound.enabled');
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { inbound: { enabled: true, channel_limit: 1 } } })
          .expect(200);
        expect((await inbound()).status).toBe(201);
        const full = await inbound();
        expect(full.status).toBe(429);
      });

      it('sms.enabled false refuses SMS from the number', async () => {
        const line = await sandboxLine(t);
        await t.http
          .post(`/api/v1/agents/${line.agentId}/phone-numbers`)
          .send({ phone_number_uuid: line.numberId, channels: ['sms'] })
          .expect(201);
        const send = () =>
          t.http
            .post('/api/v1/sms/send')
            .send({ agent_uuid: line.agentId, to: sandboxDestination(), body: 'Hi' });
        expect((await send()).status).toBe(201);
        await t.http
          .patch(`/api/v1/phone-numbers/${line.numberId}`)
          .send({ channel_settings: { sms: { enabled: false } } })
          .expect(200);
        const off = await send();
        expect(off.status).toBe(409);
        expect(off.body.message).toContain('sms.enabled');
      });
    });
  });

  describe('Twilio inventory', () => {
    let twilio: TwilioServer;
    let app: TestApp;
    let t: TestTenant;
    let other: TestTenant;
    const offered = ['+12015550141', '+12015550142', '+12015550143', '+12015550144'];
    const suite = useTestApp({
      servers: {
        twilio: async () => {
          const server = await TwilioServer.start();
          server.offer('US', 'Local', offered);
          server.offer('US', 'TollFree', ['+18005550100'], 'any');
          server.offer('GB', 'Local', ['+442079460000']);
          server.prices.set('US', [
            { number_type: 'local', base_price: '1.15', current_price: '1.15' },
            { number_type: 'toll free', base_price: '2.15', current_price: '2.00' },
          ]);
          return server;
        },
      },
      env: ({ twilio }) => ({
        TWILIO_ACCOUNT_SID: TWILIO_SID,
        TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
        TWILIO_API_URL: twilio.url,
        TWILIO_PRICING_URL: twilio.url,
        PUBLIC_BASE_URL: PUBLIC,
      }),
      tenants: ['t', 'other'],
    });

    beforeAll(() => {
      ({ twilio, app, t, other } = suite);
    });

    const basic = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;

    it("searches Twilio's AvailablePhoneNumbers with basic auth", async () => {
      const res = await t.http.get(
        '/api/v1/phone-numbers/search?country_code=US&type=local&contains=555014&limit=2',
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        {
          number: offered[0],
          country_code: 'US',
          type: 'local',
          locality: 'Hoboken',
          region: 'NJ',
          capabilities: { call: true, sms: true, whatsapp: false, whatsapp_call: false },
          monthly_fee: { amount: '1.15', currency: 'USD' },
          requirements: { address: 'none', documents: [] },
        },
        expect.objectContaining({ number: offered[1], monthly_fee: { amount: '1.15', currency: 'USD' } }),
      ]);
      const request = twilio.numberRequests().at(-1)!;
      expect(request.method).toBe('GET');
      expect(request.path).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/AvailablePhoneNumbers/US/Local.json`);
      expect(request.authorization).toBe(basic);
      const requirements = await t.http
        .get('/api/v1/phone-numbers/search/requirements?country_code=US&type=toll_free')
        .expect(200);
      expect(requirements.body.data).toEqual({
        country_code: 'US',
        type: 'toll_free',
        provider: 'twilio',
        address: 'any',
        documents: [],
      });
      expect(twilio.numberRequests().at(-1)!.path).toMatch(/AvailablePhoneNumbers\/US\/TollFree\.json$/);
    });

    it("prices numbers from Twilio's Pricing API (current price), read once per country; no price is null", async () => {
      const tollFree = await t.http
        .get('/api/v1/phone-numbers/search?country_code=US&type=toll_free')
        .expect(200);
      expect(tollFree.body.data[0].monthly_fee).toEqual({ amount: '2.00', currency: 'USD' });
      // US prices were read by the search before: kept, not asked again.
      expect(twilio.pricingRequests().filter((r) => r.path.endsWith('/US'))).toHaveLength(1);
      expect(twilio.pricingRequests()[0].authorization).toBe(basic);
      // No mobile price in the US list, and no price list at all for GB (404): offered without a price.
      twilio.offer('US', 'Mobile', ['+12015550190']);
      const mobile = await t.http.get('/api/v1/phone-numbers/search?country_code=US&type=mobile').expect(200);
      expect(mobile.body.data[0]).toMatchObject({ number: '+12015550190', monthly_fee: null });
      const gbSearch = () =>
        t.http.get('/api/v1/phone-numbers/search?country_code=GB&type=local').expect(200);
      expect((await gbSearch()).body.data[0]).toMatchObject({ number: '+442079460000', monthly_fee: null });
      expect(twilio.pricingRequests().filter((r) => r.path.endsWith('/GB'))).toHaveLength(1);
      // Twilio's answer that GB has no prices is kept like any other.
      await gbSearch();
      expect(twilio.pricingRequests().filter((r) => r.path.endsWith('/GB'))).toHaveLength(1);
      // The Pricing API down (503): offered without a price, and not asked again on every search meanwhile.
      const ca = () => t.http.get('/api/v1/phone-numbers/search?country_code=CA&type=local').expect(200);
      twilio.offer('CA', 'Local', ['+16135550100']);
      twilio.pricingDown.add('CA');
      expect((await ca()).body.data[0].monthly_fee).toBeNull();
      twilio.pricingDown.delete('CA');
      twilio.prices.set('CA', [{ number_type: 'local', base_price: '1.15', current_price: '1.15' }]);
      expect((await ca()).body.data[0].monthly_fee).toBeNull();
      expect(twilio.pricingRequests().filter((r) => r.path.endsWith('/CA'))).toHaveLength(1);
      // A slow Pricing API does not hold a search up: answered without the price, which a later search shows.
      const mx = () => t.http.get('/api/v1/phone-numbers/search?country_code=MX&type=local').expect(200);
      twilio.offer('MX', 'Local', ['+525512345678']);
      twilio.prices.set('MX', [{ number_type: 'local', base_price: '2.50', current_price: '2.50' }]);
      twilio.pricingDelayMs.set('MX', 4_500);
      expect((await mx()).body.data[0].monthly_fee).toBeNull();
      await waitFor(
        async () => ((await mx()).body.data[0].monthly_fee?.amount === '2.50' ? true : undefined),
        10_000,
        'the late price kept',
      );
      expect(twilio.pricingRequests().filter((r) => r.path.endsWith('/MX'))).toHaveLength(1);
    });

    it('buys through IncomingPhoneNumbers with our hooks, and releases with DELETE', async () => {
      const res = await t.http
        .post('/api/v1/phone-numbers/purchase')
        .send({ number: offered[0], country_code: 'US', type: 'local' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        number: offered[0],
        provider: 'twilio',
        source: 'purchased',
        monthly_fee: { amount: '1.15', currency: 'USD' },
        capabilities: { call: true, sms: true },
      });
      const post = twilio
        .numberRequests()
        .find((r) => r.method === 'POST' && /IncomingPhoneNumbers\.json$/.test(r.path))!;
      expect(post.authorization).toBe(basic);
      expect(post.form).toMatchObject({
        PhoneNumber: offered[0],
        VoiceUrl: `${PUBLIC}/hooks/v1/twilio/voice/inbound`,
        VoiceMethod: 'POST',
        SmsUrl: `${PUBLIC}/hooks/v1/twilio/sms/inbound`,
        SmsMethod: 'POST',
      });
      expect(twilio.incoming.size).toBe(1);
      const [sid] = [...twilio.incoming.keys()];

      // Bought: an inbound call on it reaches the hook; with inbound off, Twilio is told to reject it.
      await t.http
        .patch(`/api/v1/phone-numbers/${res.body.data.uuid}`)
        .send({ channel_settings: { inbound: { enabled: false } } })
        .expect(200);
      const rejected = await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, {
        CallSid: `CA${'4'.repeat(32)}`,
        From: '+14155550999',
        To: offered[0],
      }).expect(200);
      expect(rejected.text).toContain('<Reject/>');
      expect((await t.http.get('/api/v1/calls?direction=Inbound').expect(200)).body.data.items).toHaveLength(
        0,
      );

      expect((await other.http.post(`/api/v1/phone-numbers/${res.body.data.uuid}/release`)).status).toBe(404);
      const released = await t.http.post(`/api/v1/phone-numbers/${res.body.data.uuid}/release`).expect(200);
      expect(released.body.data.status).toBe('released');
      const del = twilio.numberRequests().at(-1)!;
      expect(del.method).toBe('DELETE');
      expect(del.path).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/IncomingPhoneNumbers/${sid}.json`);
      expect(twilio.incoming.size).toBe(0);
    });

    it("answers Twilio's refusal as 502 PROVIDER_ERROR with its code and message, and stores nothing", async () => {
      twilio.purchaseError = { status: 400, code: 21631, message: 'Phone Number Requires an Address' };
      const res = await t.http
        .post('/api/v1/phone-numbers/purchase')
        .send({ number: offered[1], country_code: 'US', type: 'local' });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('PROVIDER_ERROR');
      expect(JSON.parse(res.body.error.details)).toEqual({
        code: 21631,
        message: 'Phone Number Requires an Address',
      });
      const gone = await t.http
        .post('/api/v1/phone-numbers/purchase')
        .send({ number: '+12015550199', country_code: 'US', type: 'local' });
      expect(gone.status).toBe(502);
      expect(JSON.parse(gone.body.error.details)).toMatchObject({ code: 21422 });
      const list = await t.http.get('/api/v1/phone-numbers').expect(200);
      expect(list.body.data.items).toHaveLength(0);
    });

    it('creates a Twilio Address from the address given and buys with its AddressSid and the bundle', async () => {
      const res = await t.http.post('/api/v1/phone-numbers/purchase').send({
        number: offered[2],
        country_code: 'US',
        type: 'local',
        address: {
          customer_name: 'Acme Inc',
          street: '1 River Street',
          city: 'Hoboken',
          region: 'NJ',
          postal_code: '07030',
          country_code: 'US',
        },
        requirements: { bundle_sid: 'BU00000000000000000000000000000001' },
      });
      expect(res.status).toBe(201);
      const address = twilio.numberRequests().find((r) => /Addresses\.json$/.test(r.path))!;
      expect(address.form).toMatchObject({ CustomerName: 'Acme Inc', IsoCountry: 'US', PostalCode: '07030' });
      const post = twilio
        .numberRequests()
        .filter((r) => r.method === 'POST' && /IncomingPhoneNumbers\.json$/.test(r.path))
        .at(-1)!;
      expect(post.form).toMatchObject({
        PhoneNumber: offered[2],
        AddressSid: expect.stringMatching(/^AD/),
        BundleSid: 'BU00000000000000000000000000000001',
      });
    });
  });
});
