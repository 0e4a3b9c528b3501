import { classifyBySimilarity, LOCAL_MATCH_THRESHOLD, normalizeText } from './similarity-classifier';

const billing = {
  id: 'billing',
  description: 'billing',
  examples: ['I have a question about my invoice', 'talk to billing'],
};
const support = {
  id: 'support',
  description: 'technical support',
  examples: ['my internet is not working', 'the router keeps disconnecting'],
};

describe('similarity classifier', () => {
  it('normalizes case, accents and punctuation', () => {
    expect(normalizeText('  Héllo, WORLD!! ')).toBe('hello world');
  });

  it('scores identical phrasing 1', () => {
    const [b] = classifyBySimilarity('talk to billing', [billing]);
    expect(b.score).toBe(1);
    expect(b.matched).toBe(true);
  });

  it('matches a paraphrase of an example above the threshold and prefers the right candidate', () => {
    const [b, s] = classifyBySimilarity('My internet connection is not working', [billing, support]);
    expect(s.score).toBeGreaterThanOrEqual(LOCAL_MATCH_THRESHOLD);
    expect(s.matched).toBe(true);
    expect(b.matched).toBe(false);
    expect(s.score).toBeGreaterThan(b.score);
  });

  it('does not match an unrelated sentence', () => {
    const scores = classifyBySimilarity('what time do you open tomorrow', [billing, support]);
    expect(scores.every((s) => !s.matched)).toBe(true);
  });

  it('gives 0 to a candidate without examples and to an empty utterance', () => {
    expect(classifyBySimilarity('hello', [{ id: 'x', description: '', examples: [] }])[0].score).toBe(0);
    expect(classifyBySimilarity('', [billing])[0].score).toBe(0);
  });
});
