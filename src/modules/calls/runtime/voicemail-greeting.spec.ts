import { GREETING_LANGUAGES, matchVoicemailGreeting, normaliseGreeting } from './voicemail-greeting';

/** Per language: greetings of voicemail boxes and call screeners, and first words of people who picked up. */
const CASES: Record<string, { machine: string[]; human: string[] }> = {
  en: {
    machine: [
      "Hi, you've reached Sam. I can't take your call right now, please leave a message after the tone.",
      'The person you are calling is not available. At the tone, please record your message.',
      'The number you have dialed is not available.',
      "Hi, the person you're calling is using a screening service. Go ahead and say your name and why you're calling.",
      'Please state your name after the beep.',
      'The mailbox is full.',
    ],
    human: ['Hello?', 'Yes, this is Sam speaking.', "Hi, who's this?", 'Sorry, I am busy, call me later.'],
  },
  es: {
    machine: [
      'Hola, soy Ana. En este momento no estoy disponible, deje su mensaje después de la señal.',
      'El número que usted marcó no se encuentra disponible.',
      'Buzón de voz de Carlos.',
      'El teléfono móvil al que llama está apagado o fuera de cobertura.',
    ],
    human: ['¿Diga?', 'Hola, sí, soy Ana.', '¿Quién es?'],
  },
  fr: {
    machine: [
      'Bonjour, vous êtes bien chez Marie, laissez un message après le bip.',
      "Votre correspondant n'est pas disponible pour le moment.",
      'Vous êtes sur la messagerie vocale de Paul.',
    ],
    human: ['Allô ?', 'Oui, c’est Marie, je vous écoute.', 'Qui est à l’appareil ?'],
  },
  de: {
    machine: [
      'Hallo, hier ist die Mailbox von Jonas. Bitte hinterlassen Sie eine Nachricht nach dem Signalton.',
      'Der gewünschte Gesprächspartner ist zurzeit nicht erreichbar.',
      'Der Teilnehmer ist vorübergehend nicht verfügbar.',
    ],
    human: ['Ja, hallo?', 'Müller am Apparat.', 'Wer ist da bitte?'],
  },
  it: {
    machine: [
      'Ciao, sono Luca, lasciate un messaggio dopo il segnale acustico.',
      'Il cliente da lei chiamato non è raggiungibile.',
      'Risponde la segreteria telefonica del numero.',
    ],
    human: ['Pronto?', 'Sì, sono Luca, mi dica.', 'Chi parla?'],
  },
  pt: {
    machine: [
      'Olá, aqui é o João. Deixe sua mensagem após o sinal.',
      'A pessoa para quem você ligou não está disponível.',
      'Sua chamada está sendo encaminhada para a caixa postal.',
    ],
    human: ['Alô?', 'Sim, é o João, pode falar.', 'Quem fala?'],
  },
  nl: {
    machine: [
      'Hallo, u spreekt met de voicemail van Emma. Spreek een bericht in na de piep.',
      'Het nummer dat u belt is niet bereikbaar.',
    ],
    human: ['Hallo, met Emma.', 'Ja, wie is dit?'],
  },
  pl: {
    machine: [
      'Cześć, tu Kasia, zostaw wiadomość po sygnale.',
      'Abonent jest niedostępny, proszę zadzwonić później.',
      'Poczta głosowa numeru.',
    ],
    human: ['Halo?', 'Tak, słucham, tu Kasia.'],
  },
  tr: {
    machine: [
      'Merhaba, ben Ayşe. Lütfen bip sesinden sonra mesaj bırakın.',
      'Aradığınız kişiye şu anda ulaşılamıyor.',
    ],
    human: ['Alo?', 'Evet, buyurun, Ayşe ben.'],
  },
  sv: {
    machine: [
      'Hej, du har kommit till Eriks röstbrevlåda. Lämna ett meddelande efter tonen.',
      'Personen du söker kan inte svara just nu.',
    ],
    human: ['Hallå?', 'Ja, det är Erik.'],
  },
  da: {
    machine: [
      'Hej, det er Mads. Læg en besked efter tonen.',
      'Nummeret er ikke tilgængeligt, telefonsvarer.',
    ],
    human: ['Hallo?', 'Ja, det er Mads.'],
  },
  no: {
    machine: [
      'Hei, du har kommet til Ola. Legg igjen en beskjed etter tonen.',
      'Du har kommet til mobilsvar.',
    ],
    human: ['Hallo?', 'Ja, det er Ola.'],
  },
  ru: {
    machine: [
      'Здравствуйте, оставьте сообщение после сигнала.',
      'Аппарат абонента выключен или находится вне зоны действия сети.',
      'Абонент недоступен.',
    ],
    human: ['Алло?', 'Да, слушаю вас.'],
  },
  ja: {
    machine: [
      'ただいま電話に出ることができません。発信音の後にメッセージをどうぞ。',
      'おかけになった電話は電波の届かない場所にあるか電源が入っていないため、かかりません。',
    ],
    human: ['もしもし？', 'はい、田中です。'],
  },
  zh: {
    machine: ['您拨打的电话暂时无法接通，请稍后再拨。', '请在提示音后留言。', '您好，这里是语音信箱。'],
    human: ['喂，你好？', '你好，我是王明。'],
  },
  ar: {
    machine: ['الرقم المطلوب غير متاح حاليا', 'من فضلك اترك رسالة بعد سماع الصافرة'],
    human: ['ألو؟', 'نعم، تفضل.'],
  },
  hi: {
    machine: ['आप जिस नंबर पर कॉल कर रहे हैं वह अभी उपलब्ध नहीं है', 'कृपया बीप के बाद अपना संदेश रिकॉर्ड करें'],
    human: ['हैलो?', 'हाँ, बोलिए।'],
  },
};

describe('voicemail greeting matcher', () => {
  it('covers every language it has phrases for', () => {
    expect(Object.keys(CASES).sort()).toEqual([...GREETING_LANGUAGES].sort());
  });

  for (const [language, { machine, human }] of Object.entries(CASES)) {
    it(`${language}: greetings of machines and screeners match, people picking up do not`, () => {
      for (const text of machine) {
        const hit = matchVoicemailGreeting(text);
        expect({ text, hit: !!hit }).toEqual({ text, hit: true });
      }
      for (const text of human)
        expect({ text, hit: matchVoicemailGreeting(text) }).toEqual({ text, hit: null });
    });
  }

  it('names the language and the phrase heard', () => {
    expect(matchVoicemailGreeting('Please leave a message after the tone')).toEqual({
      language: 'en',
      phrase: 'leave a message',
    });
    expect(matchVoicemailGreeting('DEJE SU MENSAJE DESPUES DE LA SENAL')).toEqual({
      language: 'es',
      phrase: 'deje su mensaje',
    });
  });

  it('normalises case, accents, apostrophes and punctuation; matches whole words only', () => {
    expect(normaliseGreeting("  N'EST   pas — disponible!! ")).toBe('nest pas disponible');
    expect(normaliseGreeting('Ｖｏｉｃｅｍａｉｌ')).toBe('voicemail');
    expect(matchVoicemailGreeting('Isn’t available')).not.toBeNull();
    // "mailbox" is a phrase, "mailboxes" is another word.
    expect(matchVoicemailGreeting('We sell mailboxes')).toBeNull();
    expect(matchVoicemailGreeting('')).toBeNull();
    expect(matchVoicemailGreeting('   ...  ')).toBeNull();
  });
});
