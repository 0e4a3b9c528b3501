/**
 * Word lists for smart endpointing and backchannels, per language (ISO 639-1), as speech-to-text writes them (lower
 * case, hyphens read as spaces), each a list of words or phrases separated by `|`. Languages written without spaces
 * (ja, zh) are matched as the text's ending.
 * - `open`: words an utterance does not end on when it is finished: articles, conjunctions, possessives, fillers;
 * - `prepositions`: the same, except at the end of a question ("Where are you calling from?");
 * - `numbers`: number words, so that a number read out in groups is waited for (digits count in every language);
 * - `closers`: short answers complete without punctuation ("yes", "no thanks");
 * - `backchannels`: what a listener says without taking the turn (`settings.voice.interruption.ignore_words`).
 */
export interface TurnWordLists {
  open: string;
  prepositions: string;
  numbers: string;
  closers: string;
  backchannels: string;
}

export const TURN_WORDS: Record<string, TurnWordLists> = {
  en: {
    open: "a|an|the|and|or|but|because|if|than|although|unless|whether|nor|plus|my|your|his|its|our|their|um|uh|erm|er|hmm|i'm|it's",
    prepositions:
      'to|for|of|at|with|from|about|into|onto|under|between|until|during|within|towards|toward|via|per',
    numbers:
      'zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|double|triple',
    closers:
      'yes|no|yeah|yep|nope|okay|ok|sure|thanks|thank you|please|bye|goodbye|correct|right|exactly|hello|hi|no thanks|yes please',
    backchannels:
      'uh huh|mm hmm|mhm|mm|hmm|yeah|yes|yep|yup|okay|ok|right|sure|i see|got it|alright|all right|cool|great|oh|ah|uh|um|aha|true|okay yeah|yeah yeah|right right',
  },
  es: {
    open: 'el|la|los|las|un|unos|unas|y|e|o|u|pero|porque|que|si|cuando|aunque|mi|mis|tu|tus|su|sus|nuestro|nuestra|eh|em|pues',
    prepositions: 'a|al|de|del|en|con|por|para|sin|sobre|entre|hasta|desde|hacia|contra|tras',
    numbers:
      'cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|veinte|treinta|cuarenta|cincuenta|cien|ciento|mil',
    closers: 'sí|si|no|vale|gracias|claro|adiós|adios|correcto|hola|por favor|no gracias',
    backchannels: 'sí|ajá|aja|vale|claro|ya|bueno|mhm|mm|ok|okey|de acuerdo|entiendo|exacto|eh|sí sí',
  },
  fr: {
    open: 'le|la|les|des|du|et|ou|mais|donc|car|que|quand|mon|ma|mes|ton|ta|tes|son|sa|ses|notre|votre|ce|cette|euh|ben|bah',
    prepositions: 'à|au|aux|de|en|dans|sur|sous|avec|pour|par|sans|chez|entre|vers|depuis|pendant',
    numbers:
      'zéro|un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|vingt|trente|quarante|cinquante|soixante|cent|mille',
    closers: "oui|non|d'accord|merci|ok|exactement|au revoir|bonjour|s'il vous plaît|non merci",
    backchannels:
      "oui|ouais|d'accord|ok|hm|mhm|mm|ah|oh|voilà|je vois|bien sûr|exactement|euh|ah bon|oui oui",
  },
  de: {
    open: 'und|oder|aber|weil|dass|wenn|ob|als|mein|meine|meinen|meinem|dein|deine|unser|unsere|äh|ähm|öh',
    prepositions: 'für|von|vom|zum|zur|beim|im|am|zwischen|ohne|gegen|seit',
    numbers:
      'null|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|zwanzig|dreißig|vierzig|fünfzig|hundert|tausend',
    closers: 'ja|nein|genau|danke|okay|ok|bitte|tschüss|richtig|hallo|nein danke',
    backchannels: 'ja|mhm|mm|hm|okay|ok|genau|aha|ach so|stimmt|richtig|klar|gut|alles klar|äh|ja ja',
  },
  it: {
    open: 'il|lo|la|i|gli|le|un|e|o|ma|perché|che|se|quando|ehm|eh|cioè',
    prepositions: 'a|al|alla|di|del|della|da|dal|in|nel|nella|con|per|tra|fra|senza|verso',
    numbers:
      'zero|uno|due|tre|quattro|cinque|sei|sette|otto|nove|dieci|venti|trenta|quaranta|cinquanta|cento|mille',
    closers: 'sì|si|no|grazie|va bene|ok|certo|esatto|ciao|arrivederci|per favore|no grazie',
    backchannels: 'sì|si|certo|ok|va bene|mhm|mm|ah|esatto|capisco|giusto|già|eh|sì sì',
  },
  pt: {
    open: 'o|a|os|as|e|ou|mas|porque|que|se|quando|eh|hum',
    prepositions: 'de|do|da|dos|das|em|no|na|nas|com|por|pelo|pela|para|pra|sem|sobre|entre|desde|ao|à',
    numbers:
      'zero|um|uma|dois|duas|três|quatro|cinco|seis|sete|oito|nove|dez|vinte|trinta|quarenta|cinquenta|cem|cento|mil|meia',
    closers: 'sim|não|nao|obrigado|obrigada|ok|certo|claro|tchau|olá|por favor|não obrigado',
    backchannels: 'sim|aham|uhum|hum|ok|certo|claro|tá|ta|entendi|pois é|isso|é|sim sim',
  },
  nl: {
    open: 'de|het|een|en|of|maar|want|omdat|dat|als|mijn|jouw|zijn|haar|onze|hun|eh|uh|ehm',
    prepositions: 'naar|van|met|tussen|zonder|tegen|tot|sinds',
    numbers:
      'nul|een|twee|drie|vier|vijf|zes|zeven|acht|negen|tien|twintig|dertig|veertig|vijftig|honderd|duizend',
    closers: 'ja|nee|oké|ok|dank je|bedankt|klopt|precies|doei|dag|alsjeblieft|nee dank je',
    backchannels: 'ja|mhm|hm|oké|ok|precies|klopt|juist|ah|o|zeker|goed|ja ja',
  },
  pl: {
    open: 'i|a|oraz|lub|albo|ale|bo|że|żeby|jeśli|gdy|yyy|eee',
    prepositions: 'do|na|w|we|z|ze|o|od|przez|dla|bez|przy|pod|nad|przed|między',
    numbers:
      'zero|jeden|dwa|trzy|cztery|pięć|sześć|siedem|osiem|dziewięć|dziesięć|dwadzieścia|trzydzieści|sto|tysiąc',
    closers: 'tak|nie|dobrze|dziękuję|dzięki|ok|okej|proszę|dokładnie|cześć|nie dziękuję',
    backchannels: 'tak|mhm|aha|no|ok|okej|dobrze|jasne|rozumiem|właśnie|no tak|tak tak',
  },
  tr: {
    open: 've|veya|ya|da|ama|fakat|çünkü|ki|eğer|ııı|eee',
    prepositions: 'için|ile|gibi|kadar',
    numbers: 'sıfır|bir|iki|üç|dört|beş|altı|yedi|sekiz|dokuz|on|yirmi|otuz|kırk|elli|yüz|bin',
    closers: 'evet|hayır|tamam|teşekkürler|sağ olun|lütfen|görüşürüz|merhaba|doğru',
    backchannels: 'evet|hı hı|hıhı|tamam|anladım|peki|doğru|aynen|hmm|he',
  },
  sv: {
    open: 'och|eller|men|att|eftersom|min|mitt|mina|din|hans|hennes|vår|deras|öh|eh|alltså',
    prepositions: 'från|mellan|utan|hos',
    numbers: 'noll|ett|en|två|tre|fyra|fem|sex|sju|åtta|nio|tio|tjugo|trettio|hundra|tusen',
    closers: 'ja|nej|okej|ok|tack|precis|hej då|hej|snälla|stämmer|nej tack',
    backchannels: 'ja|mm|mhm|okej|ok|precis|visst|jaha|just det|absolut|aa|ja ja',
  },
  da: {
    open: 'og|eller|men|fordi|at|hvis|min|mit|mine|din|hans|hendes|vores|deres|øh|æh|altså',
    prepositions: 'fra|mellem|uden|hos',
    numbers: 'nul|en|et|to|tre|fire|fem|seks|syv|otte|ni|ti|tyve|tredive|hundrede|tusind',
    closers: 'ja|nej|okay|ok|tak|præcis|farvel|hej|korrekt|nej tak',
    backchannels: 'ja|mm|mhm|okay|ok|præcis|nå|netop|klart|jo|ja ja',
  },
  no: {
    open: 'og|eller|men|fordi|at|hvis|min|mitt|mine|din|hans|hennes|vår|deres|eh|øh|altså',
    prepositions: 'fra|mellom|uten|hos',
    numbers: 'null|en|ett|to|tre|fire|fem|seks|sju|syv|åtte|ni|ti|tjue|tretti|hundre|tusen',
    closers: 'ja|nei|ok|okei|takk|nettopp|ha det|hei|stemmer|nei takk',
    backchannels: 'ja|mm|mhm|ok|okei|nettopp|akkurat|jaha|skjønner|klart|ja ja',
  },
  ru: {
    open: 'и|а|но|или|чтобы|потому что|если|хотя|э|эм|ну|типа',
    prepositions: 'в|во|на|к|ко|с|со|о|об|от|до|по|для|без|у|из|под|над|между|через|про|при',
    numbers:
      'ноль|один|одна|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|двадцать|тридцать|сто|тысяча',
    closers: 'да|нет|хорошо|спасибо|ладно|конечно|пожалуйста|до свидания|привет|верно|нет спасибо',
    backchannels: 'да|ага|угу|ну да|хорошо|ладно|понятно|ясно|конечно|так|м|мм|ок|да да',
  },
  ar: {
    open: 'و|أو|لكن|لأن|أن|إن|إذا|عندما|الذي|التي|اه|ام',
    prepositions: 'في|من|إلى|الى|على|عن|مع|حتى|بين|عند',
    numbers: 'صفر|واحد|اثنان|اثنين|ثلاثة|أربعة|خمسة|ستة|سبعة|ثمانية|تسعة|عشرة|عشرين|مئة|مائة|ألف',
    closers: 'نعم|لا|حسنا|شكرا|تمام|مع السلامة|أهلا|من فضلك|صحيح',
    backchannels: 'نعم|أيوه|اه|آه|ايوه|تمام|حسنا|طيب|صح|مم|فاهم|أكيد',
  },
  hi: {
    open: 'और|या|लेकिन|क्योंकि|कि|अगर|जब|मेरा|मेरी|मेरे|अं|उम',
    prepositions: 'में|पर|से|को|का|की|के|तक|लिए',
    numbers: 'शून्य|एक|दो|तीन|चार|पांच|पाँच|छह|सात|आठ|नौ|दस|बीस|सौ|हज़ार',
    closers: 'हां|हाँ|नहीं|ठीक है|धन्यवाद|शुक्रिया|जी|नमस्ते|अलविदा|सही',
    backchannels: 'हां|हाँ|जी|जी हां|अच्छा|ठीक है|हम्म|हूं|सही|बिल्कुल|ओके',
  },
  ja: {
    open: 'けど|けれど|ので|が|を|えーと|えっと|あの',
    prepositions: 'へ|まで|より',
    numbers: 'ゼロ|零|一|二|三|四|五|六|七|八|九|十|百|千',
    closers: 'はい|いいえ|ありがとう|ありがとうございます|お願いします|そうです|さようなら',
    backchannels: 'はい|ええ|うん|なるほど|そうですね|そうですか|へえ|ああ|はいはい|ふーん',
  },
  zh: {
    open: '和|跟|或者|但是|可是|因为|所以|如果|那个|呃|然后',
    prepositions: '从|给|把|向|为了',
    numbers: '零|一|二|两|三|四|五|六|七|八|九|十|百|千|万|幺',
    closers: '是|是的|对|对的|好|好的|不|不是|谢谢|再见|没有',
    backchannels: '嗯|对|好|好的|是|是的|哦|啊|嗯嗯|明白|没错|行',
  },
};

/** Languages written without spaces between words: the lists are matched as the text's ending. */
export const UNSPACED = new Set(['ja', 'zh']);
