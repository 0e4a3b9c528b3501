import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AttributeValue = string | number | boolean | null | AttributeValue[];

/** A span as an OTLP/HTTP JSON export carries it, decoded: ids in hex, times in epoch milliseconds. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  start: number;
  end: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  links: { traceId: string; spanId: string }[];
  scope: string;
  resource: Record<string, AttributeValue>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

function valueOf(v: OtlpValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}

const attributesOf = (list: OtlpKeyValue[] = []): Record<string, AttributeValue> =>
  Object.fromEntries(list.map((kv) => [kv.key, valueOf(kv.value)]));

/** OTLP/JSON ids are hex; a base64 one (protobuf's JSON mapping) is converted. */
const hex = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]*$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

const ms = (nanos: string | number): number => Number(BigInt(nanos) / 1_000_000n);

/**
 * A local OTLP/HTTP receiver for traces (`POST /v1/traces`, JSON, gzip or not), as a collector answers: it decodes
 * every export into `spans` and keeps each request's body as it came (`bodies`), for checks of what left the process.
 * With `keep: false` (a benchmark's long run) it only counts them.
 */
export class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly bodies: string[] = [];
  /** Requests that were not a JSON trace export (their content type). */
  readonly refused: string[] = [];
  /** Spans and bytes received in all. */
  received = 0;
  /** Spans received by name (kept even when the spans are not). */
  readonly names = new Map<string, number>();
  bytes = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly keep: boolean,
  ) {}

  static async start(options: { keep?: boolean } = {}): Promise<OtlpReceiver> {
    const server = http.createServer();
    const receiver = new OtlpReceiver(server, options.keep ?? true);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ExportedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  named(name: string): ExportedSpan[] {
    return this.spans.filter((s) => s.name === name);
  }

  /** The span's children, in start order. */
  children(span: ExportedSpan): ExportedSpan[] {
    return this.spans
      .filter((s) => s.traceId === span.traceId && s.parentSpanId === span.spanId)
      .sort((a, b) => a.start - b.start);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        this.refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415).end();
        return;
      }
      const body = raw.toString('utf8');
      this.bytes += raw.length;
      if (this.keep) this.bodies.push(body);
      const exported = JSON.parse(body) as OtlpExport;
      for (const rs of exported.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) {
            this.received += 1;
            this.names.set(s.name, (this.names.get(s.name) ?? 0) + 1);
            if (!this.keep) continue;
            this.spans.push({
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: hex(s.parentSpanId),
              name: s.name,
              kind: s.kind ?? 0,
              start: ms(s.startTimeUnixNano),
              end: ms(s.endTimeUnixNano),
              attributes: attributesOf(s.attributes),
              status: { code: s.status?.code ?? 0, message: s.status?.message },
              links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
              scope: ss.scope?.name ?? '',
              resource,
            });
          }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }
}
