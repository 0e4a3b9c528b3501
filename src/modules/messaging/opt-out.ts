const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const START_WORDS = new Set(['START', 'UNSTOP']);

/** `stop` for the opt-out words, `start` for those lifting it (the whole text, trimmed, any case), else null. */
export function optOutKeyword(text: string): 'stop' | 'start' | null {
  const word = text.trim().toUpperCase();
  if (STOP_WORDS.has(word)) return 'stop';
  if (START_WORDS.has(word)) return 'start';
  return null;
}
