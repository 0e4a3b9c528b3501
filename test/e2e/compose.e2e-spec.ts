import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docker/compose.yaml passes the service every variable it reads: those of .env.example, and the OpenTelemetry ones
 * docs/operations.md documents (from the host's environment, empty when it has none, so tracing stays off).
 */
describe('docker/compose.yaml and .env.example', () => {
  const root = join(__dirname, '../..');
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  const compose = read('docker/compose.yaml');
  const example = read('.env.example');
  /** The variables set in the app's environment (the shared block or a service's own). */
  const passed = new Set([...compose.matchAll(/^ {4,6}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]));
  /** Each variable of .env.example, set or commented out, and whether it is set. */
  const listed = new Map(
    [...example.matchAll(/^(# )?([A-Z][A-Z0-9_]*)=/gm)].map((m) => [m[2], m[1] === undefined]),
  );
  /** The OTEL_* variables of the table in docs/operations.md (a row may name several). */
  const documented = [
    ...new Set(
      read('docs/operations.md')
        .split('\n')
        .filter((line) => line.startsWith('| `OTEL_'))
        .flatMap((line) => [...line.split('|')[1].matchAll(/`(OTEL_[A-Z_]+)`/g)].map((m) => m[1])),
    ),
  ];

  it('passes every variable of .env.example', () => {
    expect(listed.size).toBeGreaterThan(50);
    expect([...listed.keys()].filter((name) => !passed.has(name))).toEqual([]);
  });

  it('passes every documented OTEL_* variable from the host with an empty default, listed off in .env.example', () => {
    expect(documented).toEqual(
      expect.arrayContaining([
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_HEADERS',
        'OTEL_SERVICE_NAME',
        'OTEL_TRACES_SAMPLER',
        'OTEL_TRACES_SAMPLER_ARG',
        'OTEL_CAPTURE_CONTENT',
      ]),
    );
    for (const name of documented) {
      expect({ name, compose: compose.includes(`\n    ${name}: \${${name}:-}\n`) }).toEqual({
        name,
        compose: true,
      });
      // Commented out: copied as it is, .env.example turns nothing on.
      expect({ name, listed: listed.get(name) }).toEqual({ name, listed: false });
    }
  });
});
