import { Provider } from '@nestjs/common';
import { createValidationPipe } from '@/common/http/validation';
import { SendSmsDto } from '@/modules/messaging/dto/requests';
import { SendTemplateDto } from '@/modules/messaging/dto/whatsapp.dto';
import { OutboundMessagesService } from '@/modules/messaging/outbound-messages.service';
import { WhatsappTemplateSends } from '@/modules/messaging/whatsapp-template-sends';
import { CreateTaskDto } from '@/modules/outbound/setup/dto/task.dto';
import { TasksService } from '@/modules/outbound/setup/tasks.service';
import { FLOW_MESSAGING, FLOW_TASKS, FlowMessagingPort, FlowTasksPort } from './action';

/**
 * A step's resolved config goes through the very validation of the API route it stands for (same 422 errors,
 * naming the field), then to the same service: the blacklist, windows and limits apply as they do for the API.
 */
const pipe = createValidationPipe();
const checked = <T>(metatype: new () => T, body: Record<string, unknown>): Promise<T> =>
  pipe.transform(body, { type: 'body', metatype }) as Promise<T>;

export const FLOW_PORT_PROVIDERS: Provider[] = [
  {
    provide: FLOW_MESSAGING,
    inject: [OutboundMessagesService, WhatsappTemplateSends],
    useFactory: (messages: OutboundMessagesService, templates: WhatsappTemplateSends): FlowMessagingPort => ({
      sendSms: async (ws, body) => messages.sendSms(ws, await checked(SendSmsDto, body)),
      sendWhatsappTemplate: async (ws, body) => templates.send(ws, await checked(SendTemplateDto, body)),
    }),
  },
  {
    provide: FLOW_TASKS,
    inject: [TasksService],
    useFactory: (tasks: TasksService): FlowTasksPort => ({
      createTask: async (ws, body) => tasks.create(ws, await checked(CreateTaskDto, body)),
    }),
  },
];
