import { AppException } from '@/common/errors/app.exception';
import { callInstructions, checkMetadata, checkVariables, fill } from './call-context';

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as AppException).options.field;
  }
  return undefined;
};

describe('call variables and metadata', () => {
  it('names the bad key', () => {
    expect(fieldOf(() => checkVariables({ 'bad-key': 'x' }))).toBe('variables.bad-key');
    expect(fieldOf(() => checkVariables({ n: 3 }))).toBe('variables.n');
    expect(fieldOf(() => checkVariables({ n: 'x'.repeat(501) }))).toBe('variables.n');
    expect(fieldOf(() => checkMetadata({ big: 'x'.repeat(9000) }))).toBe('metadata');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(fieldOf(() => checkVariables(many))).toBe('variables');
    expect(checkMetadata({ nested: { any: [1, 2] } })).toEqual({ nested: { any: [1, 2] } });
  });

  it('fills {{name}} and builds the instructions', () => {
    expect(fill('Hi {{name}}, {{missing}}', { name: 'Ada' })).toBe('Hi Ada, {{missing}}');
    expect(
      callInstructions('Be kind.', {
        prompt: { content: 'Sell to {{name}}.', overwrite: false },
        about: null,
        variables: { name: 'Ada' },
      }),
    ).toBe('Be kind.\n\nSell to Ada.\n\nCall details:\n- name: Ada');
    expect(
      callInstructions('Be kind.', {
        prompt: { content: 'Only this.', overwrite: true },
        about: 'VIP',
        variables: {},
      }),
    ).toBe('Only this.\n\nAbout the person on the call: VIP');
  });
});
