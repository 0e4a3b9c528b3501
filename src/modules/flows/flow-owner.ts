import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallInstance } from '@/modules/calls/runtime/call-instance';

/**
 * This process as the owner of the flow executions it runs: the Redis key prefix of its deployment, then its
 * `CallInstance` id (whose heartbeat key in Redis lives while the process does). Only owners of the same prefix can
 * be judged dead from their heartbeat; another prefix's executions are handed back only when their lease runs out.
 */
@Injectable()
export class FlowOwner {
  readonly id: string;
  private readonly prefix: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly instance: CallInstance,
  ) {
    this.prefix = config.redis.prefix;
    this.id = `${this.prefix}/${instance.id}`;
  }

  /** True when `owner`'s heartbeat is gone (its process died); false when alive or not judged here. */
  async isDead(owner: string): Promise<boolean> {
    const at = owner.lastIndexOf('/');
    if (at < 0 || owner.slice(0, at) !== this.prefix) return false;
    return !(await this.instance.isAlive(owner.slice(at + 1)));
  }
}
