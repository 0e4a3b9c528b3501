import { validateSync } from 'class-validator';
import { MetadataField, VariablesField } from './context-fields';

/** Where @nestjs/swagger keeps a property's schema (as common/http/validation-schema.ts reads it). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

class Body {
  @VariablesField()
  variables?: Record<string, unknown>;
  @MetadataField()
  metadata?: Record<string, unknown>;
}

const problems = (value: object) =>
  validateSync(Object.assign(new Body(), value)).map((e) => [e.property, Object.keys(e.constraints ?? {})]);

describe('variables and metadata fields', () => {
  it('may be left out, not sent as null; an object only', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ variables: { order: '42' }, metadata: { source: 'site', n: 1 } })).toEqual([]);
    expect(problems({ variables: null, metadata: null })).toEqual([
      ['variables', ['isObject']],
      ['metadata', ['isObject']],
    ]);
    expect(problems({ variables: 'order=42', metadata: [1] })).toEqual([
      ['variables', ['isObject']],
      ['metadata', ['isObject']],
    ]);
  });

  it('are documented as optional objects: variables of strings up to 500 characters, metadata of anything', () => {
    const property = (name: string) =>
      Reflect.getMetadata(API_MODEL_PROPERTIES, Body.prototype, name) as unknown;
    expect(property('variables')).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 500 },
      required: false,
    });
    expect(property('metadata')).toMatchObject({
      type: 'object',
      additionalProperties: true,
      required: false,
    });
  });
});
