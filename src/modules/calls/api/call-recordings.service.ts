import { Inject, Injectable } from '@nestjs/common';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { OutboxService } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CallsRepository } from '../calls.repository';

export interface RecordingMeta {
  duration: number;
  channels: number;
}

/** Recordings on disk: STORAGE_DIR/recordings/{workspace}/{call}.wav, referenced by the call's `recording`. */
@Injectable()
export class CallRecordings {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly calls: CallsRepository,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  private file(workspaceId: WorkspaceId, callId: string): string {
    return path.join(this.config.storageDir, 'recordings', workspaceId, `${callId}.wav`);
  }

  /** The stored file of the call's recording; 404 `Call not found` or `Recording not found`. */
  async pathOf(workspaceId: WorkspaceId, callId: string): Promise<string> {
    const call = await this.calls.findById(workspaceId, callId);
    if (!call) throw AppException.notFound('Call');
    const file = this.file(workspaceId, callId);
    if (!call.recording || !(await fs.stat(file).catch(() => null)))
      throw new AppException('RESOURCE_NOT_FOUND', 'Recording not found');
    return file;
  }

  /** Writes the file, sets `recording` and emits `recording_ready` in one transaction. */
  async store(workspaceId: WorkspaceId, callId: string, wav: Buffer, meta: RecordingMeta): Promise<void> {
    const file = this.file(workspaceId, callId);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(`${file}.part`, wav);
    await fs.rename(`${file}.part`, file);
    const recording = {
      url: `/api/v1/calls/${callId}/recording`,
      duration: meta.duration,
      channels: meta.channels,
    };
    const view = await this.unitOfWork.run(async (m) => {
      const call = await this.calls.lock(workspaceId, callId, m);
      if (!call) return null;
      call.recording = recording;
      await this.calls.save(workspaceId, call, m);
      await this.outbox.record(m, workspaceId, [
        {
          type: 'recording_ready',
          agentId: call.agentId,
          data: { call_uuid: callId, conversation_uuid: callId, recording },
        },
      ]);
      return this.calls.view(workspaceId, callId, m);
    });
    if (!view) await fs.rm(file, { force: true });
  }

  /** Removes the file and sets `recording: null`; 404 when there is none. */
  async remove(workspaceId: WorkspaceId, callId: string): Promise<void> {
    const file = await this.pathOf(workspaceId, callId);
    await this.unitOfWork.run(async (m) => {
      const call = await this.calls.lock(workspaceId, callId, m);
      if (!call) throw AppException.notFound('Call');
      call.recording = null;
      await this.calls.save(workspaceId, call, m);
    });
    await fs.rm(file, { force: true });
  }
}
