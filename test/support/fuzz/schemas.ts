import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type Schema = Record<string, any>;

/**
 * An OpenAPI 3.0 schema as JSON Schema for ajv: `nullable: true` admits null (in the type list, the enum, or
 * around a composed schema that has no type of its own). Shared and circular sub-schemas convert once.
 */
export function toJsonSchema(schema: Schema, seen = new WeakMap<object, Schema>()): Schema {
  if (!schema || typeof schema !== 'object') return schema;
  const done = seen.get(schema);
  if (done) return done;
  const out: Schema = {};
  seen.set(schema, out);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key === 'xml') continue;
    if (key === 'properties' || key === 'patternProperties')
      out[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([k, v]) => [k, toJsonSchema(v as Schema, seen)]),
      );
    else if (key === 'items' || key === 'additionalProperties' || key === 'not')
      out[key] = typeof value === 'object' ? toJsonSchema(value as Schema, seen) : value;
    else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf')
      out[key] = (value as Schema[]).map((v) => toJsonSchema(v, seen));
    else out[key] = value;
  }
  if (schema.nullable === true) {
    if (out.allOf || out.anyOf || out.oneOf) {
      // OpenAPI 3.0 lets `nullable` admit null around a composed schema; JSON Schema says it with anyOf.
      const inner = { ...out };
      for (const k of Object.keys(out)) delete out[k];
      out.anyOf = [inner, { type: 'null' }];
      return out;
    }
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** One ajv for the run: formats checked, OpenAPI's descriptive keywords tolerated. */
export function responseValidator(): (schema: Schema) => ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  ajv.addFormat('float', true);
  ajv.addFormat('double', true);
  ajv.addFormat('phone', true);
  const cache = new WeakMap<object, ValidateFunction>();
  return (schema) => {
    let fn = cache.get(schema);
    if (!fn) {
      fn = ajv.compile(toJsonSchema(schema));
      cache.set(schema, fn);
    }
    return fn;
  };
}
