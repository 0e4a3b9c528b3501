import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { BlacklistRepository } from './blacklist.repository';

/** The do-not-contact check every outbound call or message passes first. */
@Injectable()
export class BlacklistService {
  constructor(private readonly entries: BlacklistRepository) {}

  isBlacklisted(
    workspaceId: string,
    address: { phone?: string | null; email?: string | null },
  ): Promise<boolean> {
    return this.entries.matches(workspaceId, address);
  }

  /** 409 BLACKLISTED when an entry in force covers the address. */
  async assertAllowed(
    workspaceId: string,
    address: { phone?: string | null; email?: string | null },
  ): Promise<void> {
    if (await this.entries.matches(workspaceId, address))
      throw new AppException('BLACKLISTED', 'The destination is on the do-not-contact list');
  }
}
