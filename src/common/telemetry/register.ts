import { startTelemetry } from './start';

/**
 * Imported by the entry points right after the environment is read and before anything else: starts tracing when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, so the HTTP, PostgreSQL and Redis
 * clients are instrumented as they load. A line saying what was started, or null with tracing off.
 */
export const TELEMETRY: string | null = startTelemetry();
