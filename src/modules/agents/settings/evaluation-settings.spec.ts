import { AppException } from '@/common/errors/app.exception';
import { factoryEvaluationSettings, mergeEvaluationSettings } from './evaluation-settings';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return [(e as AppException).code, (e as AppException).options.field];
  }
  return null;
};

describe('evaluation settings merge', () => {
  it('merges sessionization and features key by key, leaving the rest', () => {
    const out = mergeEvaluationSettings(factoryEvaluationSettings(), {
      sessionization: { timeout_minutes: 10 },
      text: { success_evaluation_prompt: { prompt: 'Was a demo booked?' } },
    });
    expect(out.sessionization.timeout_minutes).toBe(10);
    expect(out.text.success_evaluation_prompt).toMatchObject({
      enabled: true,
      type: 'boolean',
      prompt: 'Was a demo booked?',
    });
    expect(out.voice).toEqual(factoryEvaluationSettings().voice);
    expect(out.report_language).toBe('en');
  });

  it('adds custom features of each type and removes one set to null', () => {
    const out = mergeEvaluationSettings(factoryEvaluationSettings(), {
      voice: {
        politeness: { type: 'score', description: 'How polite was the agent (0 to 10)?' },
        sentiment: { type: 'label', labels: ['positive', 'neutral', 'negative'] },
        summary_prompt: null,
      },
    });
    expect(out.voice.politeness).toEqual({
      type: 'score',
      description: 'How polite was the agent (0 to 10)?',
      enabled: true,
    });
    expect(out.voice.sentiment.labels).toEqual(['positive', 'neutral', 'negative']);
    expect(out.voice.summary_prompt).toBeUndefined();
  });

  it('rejects bad values naming the field', () => {
    const base = factoryEvaluationSettings();
    expect(fieldOf(() => mergeEvaluationSettings(base, { is_active: 'yes' }))).toEqual([
      'INVALID_FORMAT',
      'is_active',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { sessionization: { timeout_minutes: 0 } }))).toEqual([
      'INVALID_FORMAT',
      'sessionization.timeout_minutes',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { report_language: 'English!' }))).toEqual([
      'INVALID_FORMAT',
      'report_language',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { text: { x: { type: 'stars' } } }))).toEqual([
      'INVALID_FORMAT',
      'text.x.type',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { text: { mood: { description: 'd' } } }))).toEqual([
      'VALIDATION_ERROR',
      'text.mood.type',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { text: { mood: { type: 'label' } } }))).toEqual([
      'VALIDATION_ERROR',
      'text.mood.labels',
    ]);
    expect(fieldOf(() => mergeEvaluationSettings(base, { voice: { 'Bad Key': { type: 'text' } } }))).toEqual([
      'INVALID_FORMAT',
      'voice.Bad Key',
    ]);
  });
});
