import { AppException } from '@/common/errors/app.exception';
import { checkVoicemail, resolveVoicemail, storedVoicemail } from '@/modules/agents/voicemail-policy';
import { answeredByOf } from './voicemail';

const refusal = (fn: () => unknown): { field?: string; code: string } | null => {
  try {
    fn();
    return null;
  } catch (err) {
    const e = err as AppException;
    return { field: e.options.field, code: e.code };
  }
};

describe('voicemail policy', () => {
  it('checks each key and names it', () => {
    expect(refusal(() => checkVoicemail('yes', 'voicemail'))).toEqual({
      field: 'voicemail',
      code: 'INVALID_FORMAT',
    });
    expect(refusal(() => checkVoicemail({ detection: 'true' }, 'voicemail'))?.field).toBe(
      'voicemail.detection',
    );
    expect(refusal(() => checkVoicemail({ action: 'shout' }, 'settings.voice.voicemail'))?.field).toBe(
      'settings.voice.voicemail.action',
    );
    expect(refusal(() => checkVoicemail({ message: 'x'.repeat(2001) }, 'voicemail'))?.field).toBe(
      'voicemail.message',
    );
    expect(refusal(() => checkVoicemail({ retry_on_voicemail: 1 }, 'voicemail'))?.field).toBe(
      'voicemail.retry_on_voicemail',
    );
    expect(refusal(() => checkVoicemail({ action: 'leave_message', message: '  ' }, 'voicemail'))).toEqual({
      field: 'voicemail.message',
      code: 'VALIDATION_ERROR',
    });
    expect(checkVoicemail({ detection: true, other: 1 }, 'voicemail')).toEqual({ detection: true });
    expect(checkVoicemail(null, 'voicemail')).toBeNull();
    expect(storedVoicemail({ action: 'shout' })).toBeNull();
  });

  it('resolves key by key: the call, then the campaign, then the agent, then the defaults', () => {
    expect(resolveVoicemail([])).toEqual({
      detection: false,
      action: 'hang_up',
      message: null,
      retry_on_voicemail: false,
    });
    expect(
      resolveVoicemail([
        { action: 'leave_message' },
        { retry_on_voicemail: true, action: 'continue' },
        { detection: true, message: 'Call us back' },
      ]),
    ).toEqual({
      detection: true,
      action: 'leave_message',
      message: 'Call us back',
      retry_on_voicemail: true,
    });
    expect(refusal(() => resolveVoicemail([{ detection: true, action: 'leave_message' }]))).toEqual({
      field: 'voicemail.message',
      code: 'VALIDATION_ERROR',
    });
  });

  it("maps Twilio's AnsweredBy", () => {
    expect(answeredByOf('human')).toBe('human');
    for (const v of ['machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other'])
      expect(answeredByOf(v)).toBe('machine');
    expect(answeredByOf('fax')).toBe('fax');
    expect(answeredByOf('unknown')).toBe('unknown');
    expect(answeredByOf('robot')).toBeNull();
    expect(answeredByOf(undefined)).toBeNull();
  });
});
