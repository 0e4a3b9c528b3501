import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { OutboundEvents } from '../outbound-events';
import { Campaign, CampaignStatus, TaskStatus } from '../outbound.entities';
import { CampaignsRepository } from '../setup/campaigns.repository';
import { CampaignsService } from '../setup/campaigns.service';
import type { CampaignResponse } from '../setup/dto/campaign.dto';
import { TasksRepository } from '../setup/tasks.repository';
import { CampaignTasks } from './campaign-tasks';
import { OUTBOUND_TEMPLATE_SENDER, TemplateSender } from './template-sender.port';

export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';

const MOVES: Record<CampaignAction, { from: CampaignStatus[]; to: CampaignStatus }> = {
  start: { from: ['draft'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['draft', 'running', 'paused'], to: 'cancelled' },
};

/** Every campaign move under the campaign's row lock, with its tasks' moves and events in one transaction. */
@Injectable()
export class CampaignTransitions {
  constructor(
    private readonly service: CampaignsService,
    private readonly campaigns: CampaignsRepository,
    private readonly tasks: TasksRepository,
    private readonly campaignTasks: CampaignTasks,
    private readonly events: OutboundEvents,
    private readonly numbers: PhoneNumbersService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(OUTBOUND_TEMPLATE_SENDER) private readonly templates: TemplateSender,
  ) {}

  async apply(
    workspaceId: WorkspaceId,
    id: string,
    action: CampaignAction,
    tx?: Transaction,
  ): Promise<CampaignResponse> {
    const run = async (t: Transaction) => {
      const c = await this.service.lock(workspaceId, id, t);
      const move = MOVES[action];
      if (!move.from.includes(c.status)) throw AppException.conflict(`Campaign is ${c.status}`);
      const previous = c.status;
      if (action === 'start') await this.checkStartable(c, t);
      c.status = move.to;
      if (action === 'start') c.startedAt = new Date();
      if (action === 'cancel') c.endedAt = new Date();
      await this.campaigns.save(workspaceId, c, t);
      if (action === 'start') await this.campaignTasks.create(t, c);
      if (action === 'pause')
        await this.moveTasks(t, c, ['scheduled', 'pending'], 'on_hold', 'held_status = o.prev');
      if (action === 'resume') await this.moveTasks(t, c, ['on_hold'], 'held', 'held_status = NULL');
      if (action === 'cancel')
        await this.moveTasks(
          t,
          c,
          ['scheduled', 'pending', 'on_hold', 'queued'],
          'cancelled',
          'held_status = NULL',
        );
      const view = await this.service.view(workspaceId, c, t);
      await this.events.campaign(t, c, view, previous);
      return view;
    };
    return tx ? run(tx) : this.unitOfWork.run(run);
  }

  /**
   * `running` → `completed`: its end passed (the tasks left expire) or every task has ended (it has none at all
   * too). A paused campaign whose end passed only has its tasks not yet started expire: it stays paused, and
   * completes once resumed. Answers false when the campaign did not complete (moved meanwhile, paused, or given a
   * task since the pass looked).
   */
  async complete(workspaceId: WorkspaceId, id: string, reason: 'ended' | 'done'): Promise<boolean> {
    return this.unitOfWork.run(async (t) => {
      const c = await this.campaigns.lock(workspaceId, id, t);
      const expire = () =>
        this.moveTasks(t, c!, ['scheduled', 'pending', 'on_hold'], 'expired', 'held_status = NULL');
      if (reason === 'ended' && c?.status === 'paused') await expire();
      if (c?.status !== 'running') return false;
      // Tasks created since the pass looked (members added) keep it running.
      if (reason === 'done' && (await this.campaigns.liveTasks(workspaceId, id, t))) return false;
      c.status = 'completed';
      c.endedAt = new Date();
      await this.campaigns.save(workspaceId, c, t);
      if (reason === 'ended') await expire();
      await this.events.campaign(t, c, await this.service.view(workspaceId, c, t), 'running');
      return true;
    });
  }

  private async moveTasks(
    t: Transaction,
    c: Campaign,
    from: TaskStatus[],
    to: TaskStatus | 'held',
    set: string,
  ) {
    const moved = await this.tasks.move(c.workspaceId, { campaignId: c.id }, from, to, t, set);
    await this.events.tasks(t, c.workspaceId, moved);
  }

  /** A draft starts with at least one pool, a number to send from and, for WhatsApp, a sendable template. */
  private async checkStartable(c: Campaign, t: Transaction): Promise<void> {
    const pools = await this.campaigns.pools(c.workspaceId, c.id, t);
    if (!pools.length)
      throw AppException.invalid(
        'pool_uuids',
        'A campaign needs at least one pool to start',
        'VALIDATION_ERROR',
      );
    const number = c.phoneNumberId
      ? await this.numbers.find(c.workspaceId, c.phoneNumberId)
      : await this.numbers.boundNumber(
          c.workspaceId,
          c.agentId,
          c.channel === 'whatsapp' ? 'whatsapp' : 'call',
        );
    if (!number)
      throw AppException.invalid(
        'phone_number_uuid',
        `phone_number_uuid is required: the agent has no number bound to its ${c.channel} channel`,
        'VALIDATION_ERROR',
      );
    if (c.channel === 'whatsapp') {
      await this.templates.assertSendable(c.workspaceId, c.templateSettingId!, {
        agentId: c.agentId,
        phoneNumberId: c.phoneNumberId,
      });
    }
  }
}
