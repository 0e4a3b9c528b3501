import { Inject, Injectable, Logger } from '@nestjs/common';
import { MetaMessaging } from '@/providers/messaging/meta.messaging';
import { SPEECH_TO_TEXT, SpeechToText } from '@/providers/speech/speech.port';
import type { InboundItem } from './inbound-queue';

/** File extensions speech services recognise, by the media's MIME type (parameters such as `codecs` ignored). */
const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
};

/**
 * The words of an inbound WhatsApp voice note: the media file from the Graph API, then speech to text. Null when
 * speech to text is not configured, the message is not a Meta audio message, or the download or transcription
 * fails or hears nothing; the message then stays `[audio]` and gets no reply.
 */
@Injectable()
export class VoiceNotes {
  private readonly logger = new Logger(VoiceNotes.name);

  constructor(
    @Inject(SPEECH_TO_TEXT) private readonly stt: SpeechToText,
    private readonly meta: MetaMessaging,
  ) {}

  async transcribe(item: InboundItem): Promise<string | null> {
    if (!item.audioId || item.provider !== 'meta' || !this.stt.configured || !this.meta.configured)
      return null;
    try {
      const media = await this.meta.downloadMedia(item.audioId);
      const type = media.mimeType.split(';')[0].trim().toLowerCase();
      const text = await this.stt.transcribe(media.bytes, {
        language: null,
        file: { name: `voice-note.${EXTENSIONS[type] ?? 'ogg'}`, type },
      });
      return text.trim() || null;
    } catch (err) {
      this.logger.warn(
        { err: (err as Error).message, providerMessageId: item.providerMessageId },
        'voice note not transcribed',
      );
      return null;
    }
  }
}
