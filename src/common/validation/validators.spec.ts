import { IsDefined, validateSync } from 'class-validator';
import { AppException } from '@/common/errors/app.exception';
import {
  assertPhoneNumber,
  fieldMessage,
  IsE164,
  IsHexColor,
  IsHttpsUrl,
  IsIanaTimezone,
  IsUuidValue,
  isE164,
  isHttpsUrl,
  isIanaTimezone,
  isUuid,
  phoneNumberProblem,
} from './validators';

describe('reusable validators', () => {
  it('accepts E.164 numbers that exist and rejects separators, letters and impossible numbers', () => {
    expect(isE164('+14155552671')).toBe(true);
    expect(isE164('+33612345678')).toBe(true);
    expect(isE164('+1 415 555 2671')).toBe(false);
    expect(isE164('14155552671')).toBe(false);
    expect(isE164('+1415555267a')).toBe(false);
    expect(isE164('+1234')).toBe(false);
    expect(isE164('+10000000000')).toBe(false);
    expect(isE164(14155552671)).toBe(false);
  });

  it('says why a number is refused: its shape, or the country whose plan has no such number', () => {
    expect(phoneNumberProblem('+14155552671')).toBeNull();
    expect(phoneNumberProblem('+1 415 555 2671')).toBe(
      'must be a phone number in E.164 format (+ and 8 to 15 digits)',
    );
    expect(phoneNumberProblem('+11234567890')).toBe('+11234567890 is not a valid US number');
    expect(phoneNumberProblem('+33012345678')).toBe('+33012345678 is not a valid FR number');
    expect(phoneNumberProblem('+4402071234567')).toBe(
      '+4402071234567 is not in E.164 form, which is +442071234567',
    );
    expect(phoneNumberProblem('+99912345678')).toBe(
      '+99912345678 is not a valid phone number (no country has its calling code)',
    );
    class Dto {
      @IsE164() phone_number: unknown = '+11234567890';
      @IsE164() other: unknown = '0612345678';
    }
    const messages = validateSync(new Dto()).map((e) => e.constraints?.isE164);
    expect(messages).toEqual([
      '+11234567890 is not a valid US number',
      'other must be a phone number in E.164 format (+ and 8 to 15 digits)',
    ]);
  });

  it('names the field before a rule, and before a colon for a sentence about the value', () => {
    expect(fieldMessage('to', 'must be a UUID')).toBe('to must be a UUID');
    expect(fieldMessage('config.cron', 'is not a valid cron expression')).toBe(
      'config.cron is not a valid cron expression',
    );
    expect(fieldMessage('to', '+11234567890 is not a valid US number')).toBe(
      'to: +11234567890 is not a valid US number',
    );
    expect(() => assertPhoneNumber('to', '+14155552671')).not.toThrow();
    const refused = (() => {
      try {
        assertPhoneNumber('to', '+11234567890');
      } catch (err) {
        return err as AppException;
      }
    })();
    expect(refused).toBeInstanceOf(AppException);
    expect(refused?.options.fieldErrors).toEqual([
      { code: 'INVALID_FORMAT', field: 'to', message: 'to: +11234567890 is not a valid US number' },
    ]);
  });

  it('accepts any UUID version and rejects other strings', () => {
    expect(isUuid('0190f3a2-7c1e-7a3b-8c4d-1234567890ab')).toBe(true);
    expect(isUuid('550e8400-e29b-41d4-a716-446655440000')).toBe(true);
    expect(isUuid('550e8400e29b41d4a716446655440000')).toBe(false);
    expect(isUuid('not-a-uuid')).toBe(false);
  });

  it('accepts IANA zones and rejects made-up ones', () => {
    expect(isIanaTimezone('Europe/Paris')).toBe(true);
    expect(isIanaTimezone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isIanaTimezone('UTC')).toBe(true);
    expect(isIanaTimezone('Mars/Olympus')).toBe(false);
    expect(isIanaTimezone('+02:00')).toBe(false);
  });

  it('accepts https URLs only unless plain http is allowed, and never credentials in the URL', () => {
    expect(isHttpsUrl('https://example.com/hook')).toBe(true);
    expect(isHttpsUrl('http://example.com/hook')).toBe(false);
    expect(isHttpsUrl('http://example.com/hook', true)).toBe(true);
    expect(isHttpsUrl('https://user:pw@example.com/')).toBe(false);
    expect(isHttpsUrl('ftp://example.com/')).toBe(false);
    expect(isHttpsUrl('not a url')).toBe(false);
  });

  it('exposes decorators whose constraint names drive the error codes', () => {
    class Dto {
      @IsDefined() @IsE164() phone: unknown = '+1 415';
      @IsHexColor() color: unknown = 'red';
      @IsIanaTimezone() tz: unknown = 'Nowhere/City';
      @IsHttpsUrl() url: unknown = 'http://x.test';
      @IsUuidValue() id: unknown = '123';
    }
    const errors = validateSync(new Dto());
    const byProp = Object.fromEntries(errors.map((e) => [e.property, Object.keys(e.constraints ?? {})]));
    expect(byProp).toEqual({
      phone: ['isE164'],
      color: ['isHexColor'],
      tz: ['isIanaTimezone'],
      url: ['isOutboundUrl'],
      id: ['isUuid'],
    });
  });
});
