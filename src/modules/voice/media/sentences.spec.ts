import { SentenceSplitter } from './sentences';

/** Streams `text` in pieces of `size` characters, as a model does; answers every phrase, the flush's last. */
function stream(text: string, size = 3, splitter = new SentenceSplitter()): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...splitter.push(text.slice(i, i + size)));
  return [...out, ...splitter.flush()];
}

describe('SentenceSplitter', () => {
  it('sends the first phrase at a clause end once it has four words', () => {
    const s = new SentenceSplitter();
    expect(s.push('Sure, I can check ')).toEqual([]);
    expect(s.push('that for you, just ')).toEqual(['Sure, I can check that for you,']);
    expect(s.push('give me a moment, please. ')).toEqual(['just give me a moment, please.']);
  });

  it.each([
    ['a semicolon', 'Your order has shipped; it arrives on Monday.', 'Your order has shipped;'],
    ['a colon', 'Here are your three options: email, phone or chat.', 'Here are your three options:'],
    ['a dash', 'That is a great question — let me look it up.', 'That is a great question —'],
    ['a spaced hyphen', 'That is a great question - let me look it up.', 'That is a great question -'],
  ])('takes %s as a clause end for the first phrase', (_name, text, first) => {
    expect(stream(text)[0]).toBe(first);
  });

  it('sends a first phrase shorter than four words with the rest of its sentence', () => {
    expect(stream('Okay, got it. What else can I do?')).toEqual(['Okay, got it.', 'What else can I do?']);
  });

  it('cuts later phrases at sentence ends only, not at their commas', () => {
    expect(
      stream('Well, let me see now, the store opens at nine, closes at five, and on Sunday it is shut.'),
    ).toEqual([
      'Well, let me see now,',
      'the store opens at nine, closes at five, and on Sunday it is shut.',
    ]);
  });

  it('cuts a later clause longer than twenty words at its comma', () => {
    const long =
      'We have several plans that differ in price and in the number of minutes and messages that they include every month,';
    expect(stream(`Here is what we offer, in a few words. ${long} so pick one. Thanks for waiting!`)).toEqual(
      ['Here is what we offer,', 'in a few words.', long, 'so pick one.', 'Thanks for waiting!'],
    );
  });

  it('never cuts inside numbers or times, however the text is streamed', () => {
    const text = 'The total comes to 1,000 dollars, or 3.5 percent, payable at 10:30 tomorrow. Is that fine?';
    for (const size of [1, 2, 5, 7, 100])
      expect(stream(text, size)).toEqual([
        'The total comes to 1,000 dollars,',
        'or 3.5 percent, payable at 10:30 tomorrow.',
        'Is that fine?',
      ]);
  });

  it('never ends a sentence at a title, an initial or a Latin abbreviation', () => {
    expect(
      stream('I booked you with Dr. Smith and J. Brown. Bring ID, e.g. a passport, i.e. photo ID.', 4),
    ).toEqual(['I booked you with Dr. Smith and J. Brown.', 'Bring ID, e.g. a passport, i.e. photo ID.']);
    expect(stream('Take fresh fruit e.g., apples or pears.')).toEqual([
      'Take fresh fruit e.g., apples or pears.',
    ]);
  });

  it('ends a sentence at "a.m." only when a capital follows', () => {
    expect(stream('We open tomorrow at 9 a.m. on the dot. See you then!')).toEqual([
      'We open tomorrow at 9 a.m. on the dot.',
      'See you then!',
    ]);
    const s = new SentenceSplitter();
    expect(s.push('We open tomorrow at 9 a.m. ')).toEqual([]);
    expect(s.push('See you')).toEqual(['We open tomorrow at 9 a.m.']);
  });

  it('keeps the sentence-only cuts when asked', () => {
    expect(
      stream(
        'Sure, I can check that for you, just a moment. Done.',
        3,
        new SentenceSplitter({ clauses: false }),
      ),
    ).toEqual(['Sure, I can check that for you, just a moment.', 'Done.']);
    expect(
      stream('Sure, I can check that for you. Done, all good.', 3, new SentenceSplitter({ clauses: false })),
    ).toEqual(['Sure, I can check that for you.', 'Done, all good.']);
  });

  it('cuts at line breaks and keeps closing quotes with their sentence', () => {
    expect(stream('He said "we are open." Then he left.\nAnything else?')).toEqual([
      'He said "we are open."',
      'Then he left.',
      'Anything else?',
    ]);
  });
});

describe('SentenceSplitter as the model streams', () => {
  it('sends a sentence that ends after a word at once, without waiting for what follows', () => {
    const s = new SentenceSplitter();
    expect(s.push('Let me check ticket 1001 for you.')).toEqual(['Let me check ticket 1001 for you.']);
    expect(s.push(' Anything else?')).toEqual(['Anything else?']);
  });

  it('still waits after a number, an abbreviation or an open quote', () => {
    const s = new SentenceSplitter();
    expect(s.push('The total is 1.')).toEqual([]);
    expect(s.push('5 percent. I booked Dr.')).toEqual(['The total is 1.5 percent.']);
    expect(s.push(' Smith at 9 a.m.')).toEqual([]);
    expect(s.push(' He said "we are open.')).toEqual(['I booked Dr. Smith at 9 a.m.']);
    expect(s.push('" Bye.')).toEqual(['He said "we are open."']);
  });
});
