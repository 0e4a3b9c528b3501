import * as api from '@opentelemetry/api';
import { otlpProtocol, propagatorFrom } from './trace-sdk';

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
});
