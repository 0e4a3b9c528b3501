import { getSchemaPath, OpenAPIObject } from '@nestjs/swagger';
import type { ExampleObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_STATUS, ErrorCode } from '@/common/errors/error-codes';
import { errorExample, ShortErrorBodyDto } from './api-response.decorator';
import { METHODS } from './openapi-conventions';

// The examples of the document: error examples in the short body where routes answer it, and every repeated
// example and header kept once under `components`.

/** Routes answering the short error body `{success, message, data: []}` show their examples in that form. */
export function shortErrorExamples(document: OpenAPIObject): void {
  const ref = getSchemaPath(ShortErrorBodyDto);
  const short = (message: unknown) => ({ success: false, message: String(message), data: [] });
  for (const item of Object.values(document.paths))
    for (const method of METHODS)
      for (const [status, answer] of Object.entries(item[method]?.responses ?? {})) {
        const media = (answer as ResponseObject).content?.['application/json'];
        if (!media || (media.schema as { $ref?: string } | undefined)?.$ref !== ref) continue;
        const general = Object.entries(media.examples ?? {}) as [string, ExampleObject][];
        const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
          (c) => ERROR_STATUS[c] === Number(status),
        );
        const examples = general.length
          ? general.map(([name, e]) => [
              name,
              e.summary,
              (e.value as { message?: string } | undefined)?.message,
            ])
          : code
            ? [[code, (answer as ResponseObject).description, errorExample(code).value.message]]
            : [];
        media.examples = Object.fromEntries(
          examples.map(([name, summary, message]) => [name, { summary, value: short(message) }]),
        );
      }
}

/**
 * Error examples and headers repeat on every operation: each distinct one is kept once under `components` and
 * referenced, which keeps the document (and Swagger UI's load) small.
 */
export function shareExamplesAndHeaders(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const shared = { examples: (components.examples ??= {}), headers: (components.headers ??= {}) };
  const names = new Map<string, string>();
  const share = (kind: 'examples' | 'headers', name: string, value: object) => {
    const key = `${kind}:${JSON.stringify(value)}`;
    let target = names.get(key);
    if (!target) {
      target = name;
      for (let i = 2; target in shared[kind]; i++) target = `${name}_${i}`;
      (shared[kind] as Record<string, object>)[target] = value;
      names.set(key, target);
    }
    return { $ref: `#/components/${kind}/${target}` };
  };
  for (const item of Object.values(document.paths))
    for (const method of METHODS)
      for (const answer of Object.values(item[method]?.responses ?? {}) as ResponseObject[]) {
        for (const [name, header] of Object.entries(answer.headers ?? {}))
          answer.headers![name] = '$ref' in header ? header : share('headers', name, header);
        for (const media of Object.values(answer.content ?? {}))
          for (const [name, example] of Object.entries(media.examples ?? {}))
            media.examples![name] = '$ref' in example ? example : share('examples', name, example);
      }
}
