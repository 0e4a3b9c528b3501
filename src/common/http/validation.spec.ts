import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsNotEmpty, IsString, ValidateNested } from 'class-validator';
import { AppException } from '@/common/errors/app.exception';
import { IsUuidValue } from '@/common/validation/validators';
import { createValidationPipe, UuidParamPipe } from './validation';

class Step {
  @IsInt() order!: number;
  @IsUuidValue() intent_uuid!: string;
}
class Body {
  @IsDefined() @IsNotEmpty() @IsString() name!: string;
  @ValidateNested({ each: true }) @Type(() => Step) steps!: Step[];
}

async function validate(value: unknown): Promise<AppException> {
  try {
    await createValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (e) {
    return e as AppException;
  }
  throw new Error('expected a validation failure');
}

describe('validation pipe', () => {
  it('maps a missing field to VALIDATION_ERROR and names it', async () => {
    const e = await validate({ steps: [] });
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.options.field).toBe('name');
    expect(e.status).toBe(422);
    expect(e.options.fieldErrors?.[0].message).toBe('name is required');
  });

  it('says a missing nested field is required, by its path', async () => {
    class Item {
      @IsDefined() label!: string;
    }
    class Wrapper {
      @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
    }
    const e = await createValidationPipe()
      .transform({ items: [{ label: 'a' }, {}] }, { type: 'body', metatype: Wrapper })
      .catch((err: AppException) => err);
    expect((e as AppException).options.fieldErrors).toEqual([
      { code: 'VALIDATION_ERROR', field: 'items.1.label', message: 'items.1.label is required' },
    ]);
  });

  it('names nested fields with dotted paths and maps codes per constraint', async () => {
    const e = await validate({
      name: 'x',
      steps: [
        { order: 1, intent_uuid: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab' },
        { order: 'one', intent_uuid: 'nope' },
      ],
    });
    expect(e.options.fieldErrors).toEqual([
      { code: 'INVALID_FORMAT', field: 'steps.1.order', message: 'steps.1.order must be an integer number' },
      { code: 'INVALID_UUID', field: 'steps.1.intent_uuid', message: 'steps.1.intent_uuid must be a UUID' },
    ]);
    expect(e.message).toBe('steps.1.order must be an integer number | steps.1.intent_uuid must be a UUID');
    expect(e.options.field).toBe('steps.1.order');
  });

  it('strips unknown keys', async () => {
    const out = (await createValidationPipe().transform(
      { name: 'a', steps: [], extra: 1 },
      { type: 'body', metatype: Body },
    )) as Record<string, unknown>;
    expect(out).toEqual({ name: 'a', steps: [] });
  });

  it('answers INVALID_UUID naming the path parameter', () => {
    const pipe = new UuidParamPipe();
    expect(pipe.transform('0190F3A2-7C1E-7A3B-8C4D-1234567890AB', { type: 'param', data: 'ruleUuid' })).toBe(
      '0190f3a2-7c1e-7a3b-8c4d-1234567890ab',
    );
    try {
      pipe.transform('123', { type: 'param', data: 'ruleUuid' });
      throw new Error('no error');
    } catch (e) {
      expect((e as AppException).code).toBe('INVALID_UUID');
      expect((e as AppException).options.field).toBe('ruleUuid');
    }
  });
});
