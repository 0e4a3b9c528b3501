import { AppException } from '@/common/errors/app.exception';
import { checkBodyParams, fillBody, renderTokens, SAMPLE_CONTEXT, templateBody } from './template-text';

describe('template text', () => {
  it('reads the one BODY and counts placeholders without gaps', () => {
    expect(templateBody([{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ({{1}})' }])).toEqual({
      content: 'Hi {{1}}, order {{2}} ({{1}})',
      parameterCount: 2,
    });
    expect(() => templateBody([{ type: 'BODY', text: 'Hi {{2}}' }])).toThrow(AppException);
    expect(() => templateBody([{ type: 'HEADER', text: 'x' }])).toThrow(AppException);
    expect(() =>
      templateBody([
        { type: 'BODY', text: 'a' },
        { type: 'body', text: 'b' },
      ]),
    ).toThrow(AppException);
  });

  it('fills values and tokens', () => {
    expect(fillBody('Hi {{1}}, {{2}}', ['Ada', 'A-1'])).toBe('Hi Ada, A-1');
    const ctx = { contact: { name: 'Ada' }, custom: { plan: 'pro' }, variables: {} };
    expect(renderTokens('{{contact.name}}/{{custom.plan}}/{{variables.x}}', ctx)).toBe('Ada/pro/');
    expect(renderTokens('{{custom.plan}}', SAMPLE_CONTEXT)).toBe('[plan]');
  });

  it('needs every placeholder', () => {
    expect(checkBodyParams({ '1': 'a', '2': 'b' }, 2)).toEqual(['a', 'b']);
    expect(() => checkBodyParams({ '1': 'a' }, 2)).toThrow(/params.body.2/);
  });
});
