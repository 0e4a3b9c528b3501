import { defaultBackchannels, onlyBackchannels, turnEnding } from './end-of-turn';
import { TURN_WORDS } from './turn-words';

describe('turnEnding', () => {
  it.each([
    ['What time do you open tomorrow?', 'punctuation'],
    ['I need to cancel the order.', 'punctuation'],
    ['Where are you calling from?', 'punctuation'],
    ['No no, I meant the other one.', 'punctuation'],
    ['yes', 'closer'],
    ['No thanks', 'closer'],
  ])('%s reads as finished (%s)', (text, reason) => {
    expect(turnEnding(text, 'en')).toEqual({ complete: true, reason });
  });

  it.each([
    ['I need to cancel', 'no-punctuation'],
    ['The account is under', 'preposition'],
    ['I was charged twice for.', 'preposition'],
    ['I would like the', 'open-word'],
    ['Can I speak to someone and', 'open-word'],
    ['It is my, um', 'open-word'],
    ['My number is four five', 'number'],
    ['My number is four five six seven.', 'number'],
    ['The code is 4455.', 'number'],
    ['So I was thinking...', 'trailing-off'],
    ['Well,', 'trailing-off'],
    ['', 'empty'],
  ])('%s reads as not finished (%s)', (text, reason) => {
    expect(turnEnding(text, 'en')).toEqual({ complete: false, reason });
  });

  it('uses the lists of the language, English when it has none', () => {
    expect(turnEnding('Quiero cambiar la dirección de', 'es').complete).toBe(false);
    expect(turnEnding('Quiero cambiar la dirección.', 'es').complete).toBe(true);
    expect(turnEnding('Ich möchte den Termin für', 'de').complete).toBe(false);
    expect(turnEnding('Ich komme mit.', 'de').complete).toBe(true);
    expect(turnEnding('I want the', 'xx').complete).toBe(false);
    expect(turnEnding('明日は何時に開きますか？', 'ja').complete).toBe(true);
    expect(turnEnding('注文をキャンセルしたいんですけど', 'ja').complete).toBe(false);
    expect(turnEnding('我想取消订单。', 'zh').complete).toBe(true);
    expect(turnEnding('我的号码是一三', 'zh')).toEqual({ complete: false, reason: 'number' });
  });

  it('has lists for each language it knows', () => {
    for (const lists of Object.values(TURN_WORDS))
      for (const key of ['open', 'prepositions', 'numbers', 'closers', 'backchannels'] as const)
        expect(lists[key].split('|').every((w) => w.trim() === w && w === w.toLowerCase() && w !== '')).toBe(
          true,
        );
  });
});

describe('onlyBackchannels', () => {
  const en = defaultBackchannels('en');
  it.each(['uh-huh', 'Uh huh.', 'Mm-hmm', 'Yeah, okay.', 'right right', 'I see.'])(
    '%s is a backchannel',
    (t) => expect(onlyBackchannels(t, en, 'en')).toBe(true),
  );
  it.each(['', 'Wait', 'No no, I meant the other one.', 'Yeah but no', 'okay stop'])('%s is not', (t) =>
    expect(onlyBackchannels(t, en, 'en')).toBe(false),
  );
  it('takes the given words instead of the defaults, and languages without spaces', () => {
    expect(onlyBackchannels('sure', ['uh huh'], 'en')).toBe(false);
    expect(onlyBackchannels('Vale, vale.', defaultBackchannels('es'), 'es')).toBe(true);
    expect(onlyBackchannels('はい、はい。', defaultBackchannels('ja'), 'ja')).toBe(true);
    expect(onlyBackchannels('はい、待ってください', defaultBackchannels('ja'), 'ja')).toBe(false);
  });
});
