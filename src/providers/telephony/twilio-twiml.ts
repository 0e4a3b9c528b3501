import { twiml } from 'twilio';

/** The URLs Twilio calls for a call, all under PUBLIC_BASE_URL. */
export class TwilioUrls {
  constructor(private readonly base: string) {}

  hook(callId: string, what: string, query?: Record<string, string>): string {
    const q = query ? `?${new URLSearchParams(query).toString()}` : '';
    return `${this.base}/hooks/v1/twilio/calls/${callId}/${what}${q}`;
  }

  inbound(): string {
    return `${this.base}/hooks/v1/twilio/voice/inbound`;
  }

  media(callId: string): string {
    return `wss://${new URL(this.base).host}/hooks/v1/twilio/media/${callId}`;
  }
}

function connectStream(
  response: twiml.VoiceResponse,
  urls: TwilioUrls,
  callId: string,
  token: string,
): string {
  const stream = response.connect().stream({ url: urls.media(callId) });
  stream.parameter({ name: 'token', value: token });
  return response.toString();
}

/** `<Connect><Stream>` to the call's media socket with its token. */
export function streamTwiml(urls: TwilioUrls, callId: string, token: string): string {
  return connectStream(new twiml.VoiceResponse(), urls, callId, token);
}

/** `<Play digits>` (keys pressed on the line, `w` half a second's pause), then the media stream again. */
export function digitsTwiml(urls: TwilioUrls, callId: string, token: string, digits: string): string {
  const response = new twiml.VoiceResponse();
  response.play({ digits });
  return connectStream(response, urls, callId, token);
}

/** Something said, then the call ends (an unserved number, a refused call). */
export function sayAndHangUp(text: string): string {
  const response = new twiml.VoiceResponse();
  response.say(text);
  response.hangup();
  return response.toString();
}

/** `<Reject/>`: the call is refused before it is answered (the caller hears it as not answered, no charge). */
export function reject(): string {
  const response = new twiml.VoiceResponse();
  response.reject();
  return response.toString();
}

export function rejectBusy(): string {
  const response = new twiml.VoiceResponse();
  response.reject({ reason: 'busy' });
  return response.toString();
}

export function sayOnly(text: string): string {
  const response = new twiml.VoiceResponse();
  response.say(text);
  return response.toString();
}

export function emptyTwiml(): string {
  return new twiml.VoiceResponse().toString();
}

/** `<Dial>` of a number (with a whisper URL) or a SIP address; the action reports the outcome. */
export function dialTwiml(
  urls: TwilioUrls,
  callId: string,
  attempt: string,
  target: { number?: string; sip?: { uri: string; username?: string | null; password?: string | null } },
  whisper: string | null,
  timeoutSeconds: number,
): string {
  const response = new twiml.VoiceResponse();
  const dial = response.dial({
    action: urls.hook(callId, 'dial', { attempt }),
    timeout: timeoutSeconds,
  });
  const answered = {
    statusCallback: urls.hook(callId, 'dial-status', { attempt }),
    statusCallbackEvent: ['answered' as const],
  };
  if (target.number)
    dial.number(
      { ...answered, ...(whisper ? { url: urls.hook(callId, 'whisper', { text: whisper }) } : {}) },
      target.number,
    );
  else if (target.sip) {
    const { uri, username, password } = target.sip;
    dial.sip({ ...answered, ...(username ? { username } : {}), ...(password ? { password } : {}) }, uri);
  }
  return response.toString();
}

export function hangUp(): string {
  const response = new twiml.VoiceResponse();
  response.hangup();
  return response.toString();
}
