import { Controller, Get, Inject, Module } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { LANGUAGE_CODES, languageNames } from '@/common/validation/languages';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { TranscriptionModule } from '@/providers/transcription/transcription.module';
import { TRANSCRIPTION, TranscriptionPort } from '@/providers/transcription/transcription.port';

export class LanguageResponse {
  @ApiProperty({ example: 'pt', description: 'BCP 47' }) code!: string;
  @ApiProperty({ example: 'Portuguese' }) name!: string;
  @ApiProperty({ example: 'português' }) native_name!: string;
  @ApiProperty({ description: 'speech to text is configured' }) stt!: boolean;
  @ApiProperty({ description: 'text to speech is configured' }) tts!: boolean;
}

/** §15.5: the fixed list of languages (not paginated), with whether speech ports are configured. */
@ApiTags('Languages')
@Controller('api/v1/languages')
export class LanguagesController {
  private readonly list: Array<Omit<LanguageResponse, 'stt' | 'tts'>> = LANGUAGE_CODES.map((code) => ({
    code,
    ...languageNames(code),
  }));

  constructor(
    @Inject(TRANSCRIPTION) private readonly stt: TranscriptionPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Languages agents speak and report in (the transcription model’s list)' })
  @ApiEnvelope(LanguageResponse, { isArray: true })
  languages(): LanguageResponse[] {
    const stt = this.stt.configured;
    // Text to speech defaults to the language model's address (§17).
    const tts = !!this.config.llm.baseUrl;
    return this.list.map((l) => ({ ...l, stt, tts }));
  }
}

@Module({ imports: [TranscriptionModule], controllers: [LanguagesController] })
export class LanguagesModule {}
