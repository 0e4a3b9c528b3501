import { buildFeatureMessages, parseFeatureAnswer } from './evaluation-prompt';

const boolean = {
  enabled: true,
  description: 'Did it work?',
  prompt: 'The customer got a refund',
  type: 'boolean' as const,
};

describe('evaluation prompts and answers', () => {
  it("puts the feature's description and prompt in the instruction and the transcript in the material", () => {
    const [system, user] = buildFeatureMessages(
      'success_evaluation_prompt',
      boolean,
      [
        { sender: 'customer', content: 'I want a refund' },
        { sender: 'agent', content: 'Done' },
      ],
      'en',
    );
    expect(system.content).toContain('Did it work?');
    expect(system.content).toContain('Criterion: The customer got a refund');
    expect(system.content).toContain('"value": true or false');
    expect(user.content).toBe('Transcript:\nCustomer: I want a refund\nAgent: Done');
  });

  it('asks text features for the report language', () => {
    const [system] = buildFeatureMessages(
      'summary_prompt',
      { enabled: true, description: 'Summarise', type: 'text' },
      [],
      'fr',
    );
    expect(system.content).toContain('in this language: fr');
  });

  it('parses each type and refuses answers of the wrong shape', () => {
    expect(parseFeatureAnswer('{"value": true, "reason": "ok"}', boolean)).toEqual({
      value: true,
      reason: 'ok',
      score: null,
      label: null,
    });
    expect(parseFeatureAnswer('{"value": "maybe"}', boolean)).toEqual({
      error: 'value must be true or false',
    });
    expect(parseFeatureAnswer('not json', boolean)).toEqual({ error: 'the model answer is not JSON' });
    expect(parseFeatureAnswer('[1]', boolean)).toEqual({ error: 'the model answer is not a JSON object' });
    const score = { enabled: true, description: 'Rate', type: 'score' as const };
    expect(parseFeatureAnswer('{"value": 7.5}', score)).toMatchObject({ value: 7.5, score: 7.5 });
    expect(parseFeatureAnswer('{"value": 11}', score)).toEqual({
      error: 'value must be a number from 0 to 10',
    });
    const label = { enabled: true, description: 'Mood', type: 'label' as const, labels: ['happy', 'angry'] };
    expect(parseFeatureAnswer('{"value": "Angry"}', label)).toMatchObject({ value: 'angry', label: 'angry' });
    expect(parseFeatureAnswer('{"value": "sad"}', label)).toEqual({
      error: 'value must be one of happy, angry',
    });
    const text = { enabled: true, description: 'Summary', type: 'text' as const };
    expect(parseFeatureAnswer('{"value": " A summary. "}', text)).toMatchObject({ value: 'A summary.' });
    expect(parseFeatureAnswer('{"value": ""}', text)).toEqual({ error: 'value must be a non-empty string' });
  });
});
