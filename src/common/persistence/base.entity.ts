import { BeforeInsert, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** UUID v7 primary key (time-ordered, for index locality) and timestamps, set by the database. */
export abstract class BaseEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  @BeforeInsert()
  protected assignId(): void {
    this.id ??= uuidv7();
  }
}

export const newId = (): string => uuidv7();
