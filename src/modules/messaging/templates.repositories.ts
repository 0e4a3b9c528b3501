import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { WhatsappTemplate, WhatsappTemplateSetting } from './messaging.entities';

@Injectable()
export class WhatsappTemplatesRepository extends WorkspaceScopedRepository<WhatsappTemplate> {
  constructor(@InjectRepository(WhatsappTemplate) repo: Repository<WhatsappTemplate>) {
    super(repo);
  }

  search(
    workspaceId: WorkspaceId,
    q: { status?: string; language?: string; category?: string; search?: string },
    skip: number,
    take: number,
  ): Promise<[WhatsappTemplate[], number]> {
    const qb = this.query(workspaceId, 't');
    if (q.status) qb.andWhere('t.status = :status', { status: q.status });
    if (q.language) qb.andWhere('t.language = :language', { language: q.language });
    if (q.category) qb.andWhere('t.category = :category', { category: q.category });
    if (q.search) qb.andWhere('strpos(t.name, :search) > 0', { search: q.search.toLowerCase() });
    return qb
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .skip(skip)
      .take(take)
      .getManyAndCount();
  }

  lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<WhatsappTemplate | null> {
    return this.query(workspaceId, 't', manager)
      .andWhere('t.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** The workspace and our id of a template Meta names by its id (its review updates). */
  @Sweep('delivery')
  async locate(providerTemplateId: string): Promise<{ id: string; workspaceId: WorkspaceId }[]> {
    const rows = await this.sql<{ id: string; workspace_id: WorkspaceId }[]>(
      `SELECT id, workspace_id FROM whatsapp_templates WHERE template_id = $1`,
      [providerTemplateId],
    );
    return rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id }));
  }
}

@Injectable()
export class TemplateSettingsRepository extends WorkspaceScopedRepository<WhatsappTemplateSetting> {
  constructor(@InjectRepository(WhatsappTemplateSetting) repo: Repository<WhatsappTemplateSetting>) {
    super(repo);
  }

  async deactivate(workspaceId: WorkspaceId, templateId: string, manager?: EntityManager): Promise<void> {
    await this.updateWhere(workspaceId, { templateId }, { status: 'inactive' }, manager);
  }

  withTemplates(workspaceId: WorkspaceId, templateIds: string[]) {
    return templateIds.length
      ? this.find(workspaceId, { where: { templateId: In(templateIds) } })
      : Promise.resolve([]);
  }
}
