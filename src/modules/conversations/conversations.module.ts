import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Conversation } from './conversation.entity';
import { Message } from './message.entity';
import { Session } from './session.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Conversation, Message, Session])],
})
export class ConversationsModule {}
