import { Module } from '@nestjs/common';
import { AgentsModule } from '@/modules/agents/agents.module';
import { PhoneNumbersModule } from '@/modules/phone-numbers/phone-numbers.module';
import { PbxConnectorsController } from './pbx-connectors.controller';
import { PbxConnectorsService } from './pbx-connectors.service';
import { SipDirectoryModule } from './sip-directory';
import { SipTrunksController } from './sip-trunks.controller';
import { SipTrunksService } from './sip-trunks.service';

/** PBX extension connectors and SIP trunks; calls read them through SipDirectory (sip-directory.ts). */
@Module({
  imports: [SipDirectoryModule, AgentsModule, PhoneNumbersModule],
  controllers: [PbxConnectorsController, SipTrunksController],
  providers: [PbxConnectorsService, SipTrunksService],
})
export class SipModule {}
