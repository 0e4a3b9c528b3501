import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import request from 'supertest';

export const TWILIO_SID = 'AC00000000000000000000000000000001';
export const TWILIO_TOKEN = 'twilio-test-auth-token';

export interface TwilioAvailableNumber {
  friendly_name: string;
  phone_number: string;
  lata: string;
  locality: string;
  rate_center: string;
  latitude: string;
  longitude: string;
  region: string;
  postal_code: string;
  iso_country: string;
  address_requirements: string;
  beta: boolean;
  capabilities: { voice: boolean; SMS: boolean; MMS: boolean; fax: boolean };
}

export interface TwilioRequest {
  method: string;
  path: string;
  form: Record<string, string | string[]>;
  authorization?: string;
}

/**
 * A real local HTTP server speaking Twilio's REST API for calls and recordings: it records every request, answers
 * like Twilio (`CA...` sids, error bodies when told to) and posts signed callbacks to the service the way Twilio
 * does: signed over the public URL (PUBLIC_BASE_URL) and delivered to where the service listens.
 */
export class TwilioServer {
  readonly requests: TwilioRequest[] = [];
  /** The next dial's answer: a Twilio error, or null for success. */
  dialError: { status: number; code: number; message: string } | null = null;
  recordings = new Map<string, Buffer>();
  deletedRecordings: string[] = [];
  private seq = 0;

  // ---- Number inventory (AvailablePhoneNumbers, IncomingPhoneNumbers, Addresses) ----
  /** Numbers Twilio offers, by `<country>/<Local|Mobile|TollFree>`; taken out of the list once bought. */
  available = new Map<string, TwilioAvailableNumber[]>();
  /** Numbers the account holds, by `PN...` sid. */
  incoming = new Map<string, { sid: string; phone_number: string; voice_url: string; sms_url: string }>();
  /** The next purchase's answer: a Twilio error, or null for success. */
  purchaseError: { status: number; code: number; message: string } | null = null;
  /** Pricing API: each country's `phone_number_prices` (a country absent answers 404, as Twilio does). */
  prices = new Map<string, { number_type: string; base_price: string; current_price: string }[]>();
  /** Countries whose prices answer 503 (the Pricing API down). */
  pricingDown = new Set<string>();
  /** Countries whose prices answer after this many milliseconds. */
  pricingDelayMs = new Map<string, number>();
  private numberSeq = 0;
  // ---- end of number inventory state ----

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TwilioServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const self = new TwilioServer(server, `http://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void self.handle(req, res));
    return self;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  dials(): TwilioRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/Calls\.json$/.test(r.path));
  }

  updates(sid?: string): TwilioRequest[] {
    return this.requests.filter(
      (r) => r.method === 'POST' && /\/Calls\/CA[^/]+\.json$/.test(r.path) && (!sid || r.path.includes(sid)),
    );
  }

  // ---- SIP (trunks, SIP domains, extensions) -------------------------------------------------------------
  /** Dials over a SIP trunk: `To` is a SIP address; the form keeps `SipAuthUsername`/`SipAuthPassword`. */
  sipDials(): TwilioRequest[] {
    return this.dials().filter((d) => String(d.form.To).startsWith('sip:'));
  }

  /** Call updates whose TwiML bridges to a SIP address (`<Dial><Sip>`: a forward to an extension). */
  sipForwards(sid?: string): TwilioRequest[] {
    return this.updates(sid).filter((u) => String(u.form.Twiml ?? '').includes('<Sip'));
  }
  // ---- end SIP ------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const params = new URLSearchParams(Buffer.concat(chunks).toString());
    const form: Record<string, string | string[]> = {};
    for (const key of new Set(params.keys())) {
      const all = params.getAll(key);
      form[key] = all.length > 1 ? all : all[0];
    }
    const path = (req.url ?? '').split('?')[0];
    this.requests.push({ method: req.method ?? '', path, form, authorization: req.headers.authorization });
    const expected = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== expected) return json(401, { code: 20003, message: 'Authenticate' });
    const base = `/2010-04-01/Accounts/${TWILIO_SID}`;
    if (req.method === 'POST' && path === `${base}/Calls.json`) {
      if (this.dialError) {
        const e = this.dialError;
        this.dialError = null;
        return json(e.status, { code: e.code, message: e.message, status: e.status });
      }
      this.seq += 1;
      const sid = `CA${String(this.seq).padStart(32, '0')}`;
      return json(201, { sid, status: 'queued', to: form.To, from: form.From });
    }
    const priced = /^\/v1\/PhoneNumbers\/Countries\/([A-Z]{2})$/.exec(path);
    if (req.method === 'GET' && priced) {
      if (this.pricingDown.has(priced[1]))
        return json(503, { code: 20503, message: 'Service Unavailable', status: 503 });
      const delay = this.pricingDelayMs.get(priced[1]);
      const prices = this.prices.get(priced[1]);
      if (delay && prices)
        return void setTimeout(
          () => json(200, { iso_country: priced[1], phone_number_prices: prices, price_unit: 'USD' }),
          delay,
        );
      if (!prices)
        return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      return json(200, {
        country: priced[1],
        iso_country: priced[1],
        phone_number_prices: prices,
        price_unit: 'USD',
        url: `https://pricing.twilio.com${path}`,
      });
    }
    if (path.startsWith(`${base}/AvailablePhoneNumbers/`) || /\/(IncomingPhoneNumbers|Addresses)/.test(path))
      return this.handleNumbers(req.method ?? '', req.url ?? '', path, base, form, json);
    const update = new RegExp(`^${base}/Calls/(CA[0-9a-f]+)\\.json$`).exec(path);
    if (req.method === 'POST' && update)
      return json(200, { sid: update[1], status: form.Status ?? 'in-progress' });
    const rec = new RegExp(`^${base}/Recordings/(RE[0-9a-f]+)\\.(wav|json)$`).exec(path);
    if (rec && req.method === 'GET' && rec[2] === 'wav') {
      const wav = this.recordings.get(rec[1]);
      if (!wav) return json(404, { code: 20404, message: 'not found' });
      return void res.writeHead(200, { 'content-type': 'audio/x-wav' }).end(wav);
    }
    if (rec && req.method === 'DELETE') {
      this.deletedRecordings.push(rec[1]);
      return void res.writeHead(204).end();
    }
    json(404, { code: 20404, message: 'not found' });
  }

  // ---- Number inventory ----
  /** Offers numbers in `<country>/<Local|Mobile|TollFree>` as Twilio's AvailablePhoneNumbers lists them. */
  offer(
    country: string,
    list: 'Local' | 'Mobile' | 'TollFree',
    numbers: string[],
    addressRequirements = 'none',
  ) {
    this.available.set(
      `${country}/${list}`,
      numbers.map((n) => ({
        friendly_name: n,
        phone_number: n,
        lata: '722',
        locality: 'Hoboken',
        rate_center: 'HOBOKEN',
        latitude: '40.7439',
        longitude: '-74.0323',
        region: 'NJ',
        postal_code: '07030',
        iso_country: country,
        address_requirements: addressRequirements,
        beta: false,
        capabilities: { voice: true, SMS: true, MMS: true, fax: false },
      })),
    );
  }

  numberRequests(): TwilioRequest[] {
    return this.requests.filter((r) => /AvailablePhoneNumbers|IncomingPhoneNumbers|Addresses/.test(r.path));
  }

  pricingRequests(): TwilioRequest[] {
    return this.requests.filter((r) => r.path.startsWith('/v1/PhoneNumbers/'));
  }

  private handleNumbers(
    method: string,
    url: string,
    path: string,
    base: string,
    form: Record<string, string | string[]>,
    json: (status: number, body: unknown) => void,
  ): void {
    const search = new RegExp(
      `^${base}/AvailablePhoneNumbers/([A-Z]{2})/(Local|Mobile|TollFree)\\.json$`,
    ).exec(path);
    if (method === 'GET' && search) {
      const query = new URL(url, 'http://twilio').searchParams;
      const contains = query.get('Contains') ?? '';
      const size = Number(query.get('PageSize') ?? 50);
      const listed = (this.available.get(`${search[1]}/${search[2]}`) ?? []).filter(
        (n) => !contains || n.phone_number.includes(contains),
      );
      return json(200, {
        available_phone_numbers: listed.slice(0, size),
        end: Math.min(size, listed.length) - 1,
        first_page_uri: path,
        next_page_uri: null,
        page: 0,
        page_size: size,
        previous_page_uri: null,
        start: 0,
        uri: url,
      });
    }
    if (method === 'POST' && path === `${base}/Addresses.json`) {
      this.numberSeq += 1;
      return json(201, {
        sid: `AD${String(this.numberSeq).padStart(32, '0')}`,
        customer_name: form.CustomerName,
        street: form.Street,
        city: form.City,
        region: form.Region,
        postal_code: form.PostalCode,
        iso_country: form.IsoCountry,
      });
    }
    if (method === 'POST' && path === `${base}/IncomingPhoneNumbers.json`) {
      if (this.purchaseError) {
        const e = this.purchaseError;
        this.purchaseError = null;
        return json(e.status, { code: e.code, message: e.message, more_info: '', status: e.status });
      }
      const wanted = String(form.PhoneNumber ?? '');
      const list = [...this.available.values()].find((l) => l.some((n) => n.phone_number === wanted));
      if (!list)
        return json(400, {
          code: 21422,
          message: 'PhoneNumber requested is not available',
          more_info: 'https://www.twilio.com/docs/errors/21422',
          status: 400,
        });
      list.splice(
        list.findIndex((n) => n.phone_number === wanted),
        1,
      );
      this.numberSeq += 1;
      const sid = `PN${String(this.numberSeq).padStart(32, '0')}`;
      const record = {
        sid,
        phone_number: wanted,
        voice_url: String(form.VoiceUrl),
        sms_url: String(form.SmsUrl),
      };
      this.incoming.set(sid, record);
      return json(201, {
        ...record,
        account_sid: TWILIO_SID,
        friendly_name: wanted,
        status: 'in-use',
        address_sid: form.AddressSid ?? null,
        bundle_sid: form.BundleSid ?? null,
        capabilities: { voice: true, sms: true, mms: true, fax: false },
      });
    }
    const one = new RegExp(`^${base}/IncomingPhoneNumbers/(PN[0-9a-f]+)\\.json$`).exec(path);
    if (method === 'DELETE' && one) {
      if (!this.incoming.delete(one[1]))
        return json(404, {
          code: 20404,
          message: `The requested resource ${path} was not found`,
          more_info: 'https://www.twilio.com/docs/errors/20404',
          status: 404,
        });
      return json(204, '');
    }
    json(404, { code: 20404, message: 'not found', status: 404 });
  }
  // ---- end of number inventory ----

  recordingUrl(sid: string): string {
    return `${this.url}/2010-04-01/Accounts/${TWILIO_SID}/Recordings/${sid}`;
  }
}

/** Posts a form to the service as Twilio does: signed over the public URL, sent to the listening address. */
export function postSigned(
  appUrl: string,
  publicUrl: string,
  form: Record<string, string>,
  options: { signature?: string | null; token?: string } = {},
): request.Test {
  const u = new URL(publicUrl);
  const signature =
    options.signature === undefined
      ? getExpectedTwilioSignature(options.token ?? TWILIO_TOKEN, publicUrl, form)
      : options.signature;
  const req = request(appUrl).post(`${u.pathname}${u.search}`).disableTLSCerts().type('form').send(form);
  return signature === null ? req : req.set('X-Twilio-Signature', signature);
}
