/**
 * Whether the first words heard on an outbound call are a voicemail or call-screening greeting ("leave a message
 * after the tone", "is not available", "the person you are calling", "state your name"). Pure: phrases per language,
 * matched on normalised text (lower case, accents and punctuation dropped), every language at once since a callee's
 * greeting need not be in the agent's language. Phrases are whole words in languages written with spaces; Chinese
 * and Japanese match without spaces.
 */

const PHRASES: Record<string, string[]> = {
  en: [
    'leave a message',
    'leave your message',
    'leave me a message',
    'after the tone',
    'after the beep',
    'at the tone',
    'is not available',
    "isn't available",
    'is unavailable',
    'not available to take your call',
    "can't take your call",
    'cannot take your call',
    "can't come to the phone",
    'the person you are calling',
    "the person you're calling",
    'the number you have dialed',
    'the number you have called',
    'the subscriber you',
    'voicemail',
    'voice mail',
    'mailbox is full',
    'record your message',
    'state your name',
    'say your name',
    'record your name',
    'screening service',
  ],
  es: [
    'deje su mensaje',
    'deje un mensaje',
    'deja tu mensaje',
    'deja un mensaje',
    'después de la señal',
    'después del tono',
    'tras la señal',
    'no está disponible',
    'no se encuentra disponible',
    'la persona a la que llama',
    'el número que usted marcó',
    'el número marcado',
    'buzón de voz',
    'fuera de cobertura',
    'diga su nombre',
  ],
  fr: [
    'laissez un message',
    'laissez votre message',
    'laisser un message',
    'après le bip',
    'après le signal',
    'après la tonalité',
    "n'est pas disponible",
    'est indisponible',
    'messagerie vocale',
    'votre correspondant',
    'le numéro que vous avez composé',
    'dites votre nom',
    'répondeur',
  ],
  de: [
    'hinterlassen sie eine nachricht',
    'nachricht hinterlassen',
    'nach dem signalton',
    'nach dem piepton',
    'nach dem ton',
    'ist nicht erreichbar',
    'nicht verfügbar',
    'der gewünschte gesprächspartner',
    'der teilnehmer ist',
    'mailbox',
    'anrufbeantworter',
    'nennen sie ihren namen',
  ],
  it: [
    'lasciate un messaggio',
    'lascia un messaggio',
    'lasciare un messaggio',
    'dopo il segnale',
    'dopo il bip',
    'non è disponibile',
    'non è raggiungibile',
    'il numero da lei chiamato',
    'il cliente da lei chiamato',
    'la persona che sta chiamando',
    'segreteria telefonica',
    'dica il suo nome',
  ],
  pt: [
    'deixe sua mensagem',
    'deixe a sua mensagem',
    'deixe uma mensagem',
    'deixe seu recado',
    'deixe o seu recado',
    'após o sinal',
    'depois do sinal',
    'após o bipe',
    'não está disponível',
    'não pode atender',
    'caixa postal',
    'correio de voz',
    'a pessoa para quem você ligou',
    'o número que você ligou',
    'fora da área de cobertura',
    'diga seu nome',
  ],
  nl: [
    'laat een bericht achter',
    'spreek een bericht in',
    'spreek uw bericht in',
    'na de piep',
    'na de toon',
    'na het signaal',
    'is niet bereikbaar',
    'is niet beschikbaar',
    'voicemail',
    'zeg uw naam',
  ],
  pl: [
    'zostaw wiadomość',
    'zostawić wiadomość',
    'po sygnale',
    'po usłyszeniu sygnału',
    'jest niedostępny',
    'abonent jest niedostępny',
    'nie może teraz odebrać',
    'poczta głosowa',
    'przedstaw się',
  ],
  tr: [
    'mesaj bırakın',
    'mesajınızı bırakın',
    'sinyal sesinden sonra',
    'bip sesinden sonra',
    'ulaşılamıyor',
    'aradığınız kişiye',
    'aradığınız numara',
    'sesli mesaj',
    'adınızı söyleyin',
  ],
  sv: [
    'lämna ett meddelande',
    'efter tonen',
    'efter pipet',
    'är inte tillgänglig',
    'kan inte svara',
    'röstbrevlåda',
    'personen du söker',
    'säg ditt namn',
  ],
  da: [
    'læg en besked',
    'indtal en besked',
    'efter tonen',
    'efter bippet',
    'er ikke tilgængelig',
    'telefonsvarer',
    'sig dit navn',
  ],
  no: [
    'legg igjen en beskjed',
    'legg igjen en melding',
    'etter tonen',
    'etter pipetonen',
    'er ikke tilgjengelig',
    'talepostkasse',
    'mobilsvar',
    'si navnet ditt',
  ],
  ru: [
    'оставьте сообщение',
    'оставьте ваше сообщение',
    'после сигнала',
    'после звукового сигнала',
    'абонент недоступен',
    'абонент не может ответить',
    'аппарат абонента выключен',
    'вне зоны действия сети',
    'голосовая почта',
    'назовите себя',
    'назовите ваше имя',
  ],
  ja: [
    '発信音の後に',
    '発信音のあとに',
    'メッセージをどうぞ',
    'メッセージをお願いします',
    '電話に出ることができません',
    'おかけになった電話は',
    '電波の届かない場所',
    '留守番電話',
    'お名前をお話しください',
  ],
  zh: [
    '提示音后',
    '嘀声后',
    '请留言',
    '您拨打的电话',
    '您所拨打的',
    '暂时无法接通',
    '无人接听',
    '语音信箱',
    '不在服务区',
    '已关机',
    '请说出您的姓名',
  ],
  ar: [
    'اترك رسالة',
    'اترك رسالتك',
    'بعد سماع الصافرة',
    'بعد الصافرة',
    'بعد النغمة',
    'غير متاح',
    'الرقم المطلوب',
    'البريد الصوتي',
  ],
  hi: ['बीप के बाद', 'अपना संदेश', 'संदेश छोड़', 'आप जिस नंबर पर कॉल कर रहे हैं', 'उपलब्ध नहीं है', 'वॉइसमेल'],
};

/** Languages written without spaces between words: their phrases match anywhere. */
const UNSPACED = new Set(['ja', 'zh']);

/**
 * Lower case, compatibility forms (full-width to plain), Latin, Greek and Cyrillic accents and Arabic vowel marks
 * dropped, apostrophes removed (`isn't` is `isnt`), every other run of non-letters one space.
 */
export function normaliseGreeting(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\u0300-\u036f\u064b-\u065f\u0670]/g, '')
    .replace(/['’ʼ`´]/g, '')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim();
}

interface Prepared {
  language: string;
  phrase: string;
  /** The normalised phrase as looked for: padded with spaces, or without any (unspaced languages). */
  needle: string;
  unspaced: boolean;
}

const PREPARED: Prepared[] = Object.entries(PHRASES).flatMap(([language, phrases]) =>
  phrases.map((phrase) => {
    const unspaced = UNSPACED.has(language);
    const n = normaliseGreeting(phrase);
    return { language, phrase, needle: unspaced ? n.replace(/ /g, '') : ` ${n} `, unspaced };
  }),
);

export interface GreetingMatch {
  language: string;
  phrase: string;
}

/** The first voicemail or screening phrase the words hold, or null. */
export function matchVoicemailGreeting(text: string): GreetingMatch | null {
  const n = normaliseGreeting(text);
  if (!n) return null;
  const spaced = ` ${n} `;
  const compact = n.replace(/ /g, '');
  for (const p of PREPARED)
    if ((p.unspaced ? compact : spaced).includes(p.needle)) return { language: p.language, phrase: p.phrase };
  return null;
}

/** The languages with phrases (docs and tests list them). */
export const GREETING_LANGUAGES = Object.keys(PHRASES);
