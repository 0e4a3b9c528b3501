import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { AppException, FieldError } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ContactTag } from './contact-tag.entity';
import { checkCustomFields, CustomValue } from './custom-fields';
import { CreateContactDto } from './dto/contact.dto';
import { FieldsRepository } from './fields.repository';
import { StagesRepository } from './stages.repository';
import { TagsRepository } from './tags.repository';

export interface ResolvedContactInput {
  /** Checked custom field changes (null: remove the key), or undefined when none were sent. */
  customFields: Record<string, CustomValue | null> | undefined;
  /** The tags to set, or undefined to keep them. */
  tags: ContactTag[] | undefined;
}

/**
 * Checks what contact bodies refer to (custom field definitions, tags, pipeline stage) against the workspace,
 * with one query per kind for a whole batch.
 */
@Injectable()
export class ContactInputResolver {
  constructor(
    private readonly tags: TagsRepository,
    private readonly fields: FieldsRepository,
    private readonly stages: StagesRepository,
  ) {}

  /** Checks custom fields, tags and stage of every item against the workspace; one 422 lists every problem. */
  async resolve(
    workspaceId: WorkspaceId,
    items: Partial<CreateContactDto>[],
    at: (i: number) => string,
  ): Promise<ResolvedContactInput[]> {
    const errors: FieldError[] = [];
    const needDefs = items.some((i) => i.custom_fields && Object.keys(i.custom_fields).length);
    const defs = needDefs ? await this.fields.find(workspaceId) : [];
    const tagIds = [...new Set(items.flatMap((i) => i.tag_uuids ?? []).map((u) => u.toLowerCase()))];
    const tags = tagIds.length ? await this.tags.find(workspaceId, { where: { id: In(tagIds) } }) : [];
    const tagById = new Map(tags.map((t) => [t.id, t]));
    const stageIds = [
      ...new Set(items.map((i) => i.pipeline_stage_uuid?.toLowerCase()).filter((s): s is string => !!s)),
    ];
    const stages = stageIds.length
      ? await this.stages.find(workspaceId, { where: { id: In(stageIds) } })
      : [];
    const stageIdsFound = new Set(stages.map((s) => s.id));

    const out = items.map((item, i): ResolvedContactInput => {
      let customFields: ResolvedContactInput['customFields'];
      if (item.custom_fields) {
        const checked = checkCustomFields(defs, item.custom_fields, `${at(i)}custom_fields`);
        errors.push(...checked.errors);
        customFields = checked.values;
      }
      let itemTags: ContactTag[] | undefined;
      // null clears the tags, like null clears the other fields.
      if ((item.tag_uuids as string[] | null | undefined) === null) itemTags = [];
      else if (item.tag_uuids) {
        itemTags = [];
        item.tag_uuids.forEach((u, j) => {
          const tag = tagById.get(u.toLowerCase());
          const field = `${at(i)}tag_uuids.${j}`;
          if (!tag) errors.push({ code: 'VALIDATION_ERROR', field, message: `${field} does not name a tag` });
          else if (!itemTags!.includes(tag)) itemTags!.push(tag);
        });
      }
      if (item.pipeline_stage_uuid) {
        item.pipeline_stage_uuid = item.pipeline_stage_uuid.toLowerCase();
        if (!stageIdsFound.has(item.pipeline_stage_uuid)) {
          const field = `${at(i)}pipeline_stage_uuid`;
          errors.push({
            code: 'VALIDATION_ERROR',
            field,
            message: `${field} does not name a pipeline stage`,
          });
        }
      }
      return { customFields, tags: itemTags };
    });
    if (errors.length) throw AppException.validation(errors);
    return out;
  }
}
