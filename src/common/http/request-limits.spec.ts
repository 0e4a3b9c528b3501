import { describeParseError, jsonDepthExceeds, wellFormed } from './request-limits';

describe('JSON depth from raw bytes', () => {
  const depth = (text: string, max: number) => jsonDepthExceeds(Buffer.from(text), max);

  it('counts objects and arrays, not brackets inside strings or escaped quotes', () => {
    expect(depth('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(depth('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(depth('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(depth('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(depth('{"a\\\\":[[1]]}', 2)).toBe(true);
    expect(depth('{"ü😀":[1]}', 2)).toBe(false);
  });
});

describe('body parser failures', () => {
  it.each([
    [{ type: 'entity.too.large' }, 413, 'Request body larger than 1mb'],
    [{ type: 'entity.parse.failed' }, 400, 'Malformed JSON in request body'],
    [{ type: 'request.size.invalid' }, 400, 'Content-Length does not match the body received'],
    [{ type: 'request.aborted' }, 400, 'Request body was not received in full'],
    [{ code: 'Z_DATA_ERROR' }, 400, 'Content-Encoding gzip does not match the body: it is not gzip data'],
    [new Error('anything else'), 400, 'Request body could not be read'],
  ])('%p is %d: %s', (err, status, message) => {
    const problem = describeParseError(err, 'gzip');
    expect([problem.status, problem.message]).toEqual([status, message]);
  });
});

describe('wellFormed', () => {
  it('turns lone surrogates into U+FFFD at any depth and keeps pairs', () => {
    expect(wellFormed({ a: ['x\ud800y', { '\udc00': '😀' }] })).toEqual({
      a: ['x\ufffdy', { '\ufffd': '😀' }],
    });
  });
});
