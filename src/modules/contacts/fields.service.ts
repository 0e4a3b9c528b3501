import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { ContactField, ContactFieldType } from './contact-field.entity';
import { ContactsRepository } from './contacts.repository';
import { CreateFieldDto, FieldResponse, UpdateFieldDto } from './dto/field.dto';
import { FieldsRepository } from './fields.repository';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';

const KEY_TAKEN = 'A custom field with this key already exists in the workspace';

/** SQL that is true when the stored value `custom_fields -> $2` fits a definition ($3: select options). */
function fitsSql(type: ContactFieldType): string {
  const v = `custom_fields -> $2::text`;
  switch (type) {
    case 'text':
      return `jsonb_typeof(${v}) = 'string'`;
    case 'number':
      return `jsonb_typeof(${v}) = 'number'`;
    case 'boolean':
      return `jsonb_typeof(${v}) = 'boolean'`;
    case 'date': {
      // A real calendar day: the shape, then (guarded by CASE, so make_date never sees a bad month) the day range.
      const t = `(custom_fields ->> $2::text)`;
      return `jsonb_typeof(${v}) = 'string' AND CASE
        WHEN ${t} !~ '^\\d{4}-\\d{2}-\\d{2}$' THEN false
        WHEN substr(${t}, 1, 4)::int < 1 OR substr(${t}, 6, 2)::int NOT BETWEEN 1 AND 12 THEN false
        ELSE substr(${t}, 9, 2)::int BETWEEN 1 AND extract(day FROM make_date(substr(${t}, 1, 4)::int,
          substr(${t}, 6, 2)::int, 1) + interval '1 month - 1 day')::int
      END`;
    }
    case 'select':
      return `jsonb_typeof(${v}) = 'string' AND (custom_fields ->> $2::text) = ANY($3::text[])`;
  }
}

/** Custom field definitions; the values live on contacts and are checked against these. */
@Injectable()
export class FieldsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly fields: FieldsRepository,
    private readonly contacts: ContactsRepository,
  ) {}

  private toResponse(f: ContactField): FieldResponse {
    return {
      uuid: f.id,
      key: f.key,
      label: f.label,
      type: f.type,
      options: f.options,
      created_at: f.createdAt.toISOString(),
      updated_at: f.updatedAt.toISOString(),
    };
  }

  async list(workspaceId: WorkspaceId, q: PageQuery): Promise<Page<FieldResponse>> {
    const [rows, total] = await this.fields.findAndCount(workspaceId, {
      order: { key: 'ASC' },
      ...skipTake(q),
    });
    return pageOf(
      rows.map((f) => this.toResponse(f)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<FieldResponse> {
    return this.toResponse(await this.find(workspaceId, id));
  }

  async create(workspaceId: WorkspaceId, dto: CreateFieldDto): Promise<FieldResponse> {
    const options = dto.type === 'select' ? this.selectOptions(dto.options) : [];
    const field = this.fields.build(workspaceId, {
      key: dto.key,
      label: dto.label.trim(),
      type: dto.type,
      options,
    });
    try {
      await this.fields.save(workspaceId, field);
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION)) throw AppException.conflict(KEY_TAKEN);
      throw err;
    }
    return this.toResponse(field);
  }

  /**
   * Only the keys sent change. A new type (or fewer select options) that stored values do not fit is refused
   * with 409; a new key renames the values on every contact in the same transaction.
   */
  async update(workspaceId: WorkspaceId, id: string, dto: UpdateFieldDto): Promise<FieldResponse> {
    const field = await this.find(workspaceId, id);
    const type = dto.type ?? field.type;
    const options = type === 'select' ? this.selectOptions(dto.options ?? field.options) : [];
    const shapeChanged =
      type !== field.type || (type === 'select' && field.options.some((o) => !options.includes(o)));
    if (shapeChanged) {
      const misfits = await this.contacts.countValuesNotMatching(
        workspaceId,
        field.key,
        fitsSql(type),
        type === 'select' ? [options] : [],
      );
      if (misfits > 0)
        throw AppException.conflict(
          `Cannot change custom field ${field.key} to ${type === 'select' ? `select with options ${options.join(', ')}` : `type ${type}`}: ` +
            `${misfits} contact${misfits === 1 ? ' holds a value' : 's hold values'} that would not fit; change or clear ${misfits === 1 ? 'it' : 'them'} first`,
        );
    }
    const oldKey = field.key;
    if (dto.key !== undefined) field.key = dto.key;
    if (dto.label !== undefined) field.label = dto.label.trim();
    field.type = type;
    field.options = options;
    try {
      await this.unitOfWork.run(async (m) => {
        await this.fields.save(workspaceId, field, m);
        if (field.key !== oldKey) await this.contacts.renameCustomKey(workspaceId, oldKey, field.key, m);
      });
    } catch (err) {
      if (isPgError(err, PG_UNIQUE_VIOLATION)) throw AppException.conflict(KEY_TAKEN);
      throw err;
    }
    return this.toResponse(field);
  }

  /** The definition goes, and so do its values on every contact. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    const field = await this.find(workspaceId, id);
    await this.unitOfWork.run(async (m) => {
      await this.fields.delete(workspaceId, { id }, m);
      await this.contacts.removeCustomKey(workspaceId, field.key, m);
    });
  }

  private selectOptions(options: string[] | undefined): string[] {
    const list = [...new Set((options ?? []).map((o) => o.trim()))];
    if (!list.length)
      throw AppException.invalid(
        'options',
        'options must list at least one value for a select field',
        'VALIDATION_ERROR',
      );
    return list;
  }

  private async find(workspaceId: WorkspaceId, id: string): Promise<ContactField> {
    const field = await this.fields.findById(workspaceId, id);
    if (!field) throw AppException.notFound('Custom field');
    return field;
  }
}
