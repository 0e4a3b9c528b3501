import * as api from '@opentelemetry/api';
import * as resources from '@opentelemetry/resources';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  batchSettings,
  detectorsFrom,
  exporterFor,
  otlpProtocol,
  propagatorFrom,
  spanLimitsFrom,
} from './trace-sdk';

describe('the trace pipeline from the environment', () => {
  it('exports OTLP/HTTP JSON unless the traces or the general protocol names protobuf or gRPC', () => {
    expect(otlpProtocol({})).toBe('http/json');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: '' })).toBe('http/json');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe('grpc');
    expect(
      otlpProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' http/protobuf ',
      }),
    ).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toBeUndefined();
  });

  it('carries W3C trace context and baggage by default, the ones OTEL_PROPAGATORS names, or none', () => {
    expect(propagatorFrom({}, api)?.fields()).toEqual(['traceparent', 'tracestate', 'baggage']);
    expect(propagatorFrom({ OTEL_PROPAGATORS: ' ' }, api)?.fields()).toEqual([
      'traceparent',
      'tracestate',
      'baggage',
    ]);
    expect(propagatorFrom({ OTEL_PROPAGATORS: 'tracecontext' }, api)?.fields()).toEqual([
      'traceparent',
      'tracestate',
    ]);
    expect(propagatorFrom({ OTEL_PROPAGATORS: 'none' }, api)).toBeNull();
    const warn = jest.spyOn(api.diag, 'warn').mockImplementation(() => undefined);
    try {
      expect(propagatorFrom({ OTEL_PROPAGATORS: 'b3,baggage' }, api)?.fields()).toEqual(['baggage']);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('"b3" is not supported'));
    } finally {
      warn.mockRestore();
    }
  });

  it("takes the batch processor's settings only above 0, the SDK's defaults otherwise", () => {
    expect(
      batchSettings({
        OTEL_BSP_SCHEDULE_DELAY: '250',
        OTEL_BSP_MAX_QUEUE_SIZE: '0',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '-1',
        OTEL_BSP_EXPORT_TIMEOUT: ' ',
      }),
    ).toEqual({
      scheduledDelayMillis: 250,
      maxQueueSize: undefined,
      maxExportBatchSize: undefined,
      exportTimeoutMillis: undefined,
    });
  });

  it('detects the environment, process and host by default; with all, the environment last so that its attributes win', () => {
    const { envDetector, hostDetector, processDetector } = resources;
    expect(detectorsFrom({}, api)).toEqual([envDetector, processDetector, hostDetector]);
    const all = detectorsFrom({ OTEL_NODE_RESOURCE_DETECTORS: 'all,none' }, api);
    expect(all).toHaveLength(5);
    expect(all[all.length - 1]).toBe(envDetector);
    expect(detectorsFrom({ OTEL_NODE_RESOURCE_DETECTORS: 'none' }, api)).toEqual([]);
    expect(detectorsFrom({ OTEL_NODE_RESOURCE_DETECTORS: 'host, env' }, api)).toEqual([
      hostDetector,
      envDetector,
    ]);
  });

  it('builds the exporter of each protocol', async () => {
    const built = [exporterFor('http/json'), exporterFor('http/protobuf'), exporterFor('grpc')];
    try {
      expect(built[0]).toBeInstanceOf(JsonExporter);
      expect(built[1]).toBeInstanceOf(ProtobufExporter);
      expect(built[2]).toBeInstanceOf(GrpcExporter);
    } finally {
      await Promise.all(built.map((e) => e.shutdown()));
    }
  });

  it("takes the environment's span limits over ours, and ours over the SDK's", () => {
    const ours = { attributeValueLengthLimit: 1024 };
    expect(spanLimitsFrom({}, ours)).toMatchObject({
      attributeValueLengthLimit: 1024,
      attributeCountLimit: undefined,
    });
    expect(
      spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096', OTEL_SPAN_EVENT_COUNT_LIMIT: '0' }, ours),
    ).toMatchObject({ attributeValueLengthLimit: 4096, eventCountLimit: 0 });
    expect(
      spanLimitsFrom(
        { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '200', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096' },
        ours,
      ).attributeValueLengthLimit,
    ).toBe(200);
    expect(
      spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'long' }, ours).attributeValueLengthLimit,
    ).toBe(1024);
  });
});
