import { Column, DataSource, Entity, Repository } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { workspaceIdOf } from '@/common/auth/workspace-id';
import { WorkspaceOwnedEntity } from './workspace-owned.entity';
import { WorkspaceScopedRepository } from './workspace-scoped.repository';

@Entity('notes')
class Note extends WorkspaceOwnedEntity {
  @Column('text') title!: string;
}

class NotesRepository extends WorkspaceScopedRepository<Note> {
  constructor(repo: Repository<Note>) {
    super(repo);
  }
}

describe('WorkspaceScopedRepository.query', () => {
  let notes: NotesRepository;

  beforeAll(async () => {
    // Metadata only: building SQL needs no connection.
    const ds = new DataSource({
      type: 'postgres',
      entities: [Note],
      namingStrategy: new SnakeNamingStrategy(),
    });
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    notes = new NotesRepository(ds.getRepository(Note));
  });

  it('keeps the workspace filter when a caller adds `where`', () => {
    const qb = notes.query(workspaceIdOf('ws-1'), 'n').where('n.title = :title', { title: 'a' });
    expect(qb.getQuery()).toContain(`WHERE "n"."workspace_id" = :workspaceId AND "n"."title" = :title`);
    expect(qb.getParameters()).toMatchObject({ workspaceId: 'ws-1', title: 'a' });
  });

  it('refuses orWhere, which would widen the query past the workspace', () => {
    const qb = notes.query(workspaceIdOf('ws-1'), 'n') as unknown as { orWhere(w: string): unknown };
    expect(() => qb.orWhere('n.title = 1')).toThrow(/workspace filter/);
  });
});
