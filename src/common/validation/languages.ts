import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * The languages of the transcription model (Whisper's list), as BCP 47 primary tags (Whisper's `jw` is `jv` here).
 * Agents speak and report in these; a tag with a region or script (`pt-BR`) counts by its primary tag.
 */
export const LANGUAGE_CODES = [
  'en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi', 'fi',
  'vi', 'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la', 'mi', 'ml',
  'cy', 'sk', 'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy', 'ne', 'mn', 'bs',
  'kk', 'sq', 'sw', 'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be', 'tg', 'sd', 'gu', 'am',
  'yi', 'lo', 'uz', 'fo', 'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl', 'mg', 'as', 'tt', 'haw', 'ln',
  'ha', 'ba', 'jv', 'su', 'yue',
] as const; // prettier-ignore

const CODES: ReadonlySet<string> = new Set(LANGUAGE_CODES);
const TAG = /^([a-zA-Z]{2,3})(-[A-Za-z0-9]{2,8})*$/;

/** Whether `value` is a BCP 47 tag whose primary language is one of LANGUAGE_CODES. */
export function isSupportedLanguage(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 35) return false;
  const m = TAG.exec(value);
  return !!m && CODES.has(m[1].toLowerCase());
}

export const SUPPORTED_LANGUAGE_MESSAGE =
  'must be a supported language code (GET /api/v1/languages), such as en or pt-BR';

/** A supported language code (null and undefined pass: pair with IsOptional as usual). */
export function IsSupportedLanguage(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isSupportedLanguage',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property ${SUPPORTED_LANGUAGE_MESSAGE}`, ...options },
      validator: { validate: (v: unknown) => v === null || v === undefined || isSupportedLanguage(v) },
    });
}

/** English and native names of a code, from the runtime's CLDR data. */
export function languageNames(code: string): { name: string; native_name: string } {
  const of = (locale: string) => {
    try {
      return new Intl.DisplayNames([locale], { type: 'language' }).of(code) ?? code;
    } catch {
      return code;
    }
  };
  return { name: of('en'), native_name: of(code) };
}
