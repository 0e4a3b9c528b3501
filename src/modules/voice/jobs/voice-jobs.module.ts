import { Module } from '@nestjs/common';
import { CallsModule } from '@/modules/calls/calls.module';
import { VoiceProcessor } from './voice.processor';

/** The voice processors, loaded only where workers run. */
@Module({ imports: [CallsModule], providers: [VoiceProcessor] })
export class VoiceJobsModule {}
