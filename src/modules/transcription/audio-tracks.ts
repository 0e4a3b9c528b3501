import * as fsp from 'node:fs/promises';
import { outboundCategory, outboundRequest } from '@/common/net/outbound-http';
import { audioExt, readHead } from '@/modules/knowledge/importers/detect-kind';
import {
  TimedTranscript,
  TranscribeOptions,
  TranscriptionError,
  TranscriptionPort,
} from '@/providers/transcription/transcription.port';
import { MAX_AUDIO_BYTES } from './dto/requests';
import { joinChunks } from './transcript-merge';
import { wavLayout, wavSeconds } from '@/common/audio/wav';
import { cutWav, STT_MAX_BYTES } from './wav-chunks';

const DOWNLOAD_TIMEOUT_MS = 120_000;

/** Fetches a recording through the SSRF guard (≤ 128 MB) into `dest`; a passing failure is `transient`. */
export async function downloadAudio(
  url: string,
  dest: string,
  allowPrivate: boolean,
): Promise<{ bytes: number }> {
  let body: Buffer;
  try {
    const res = await outboundRequest(
      url,
      { allowPrivate },
      { timeoutMs: DOWNLOAD_TIMEOUT_MS, maxBytes: MAX_AUDIO_BYTES, failOnOverflow: true, maxRedirects: 3 },
    );
    if (res.status < 200 || res.status >= 300) {
      const transient = res.status === 408 || res.status === 429 || res.status >= 500;
      throw new TranscriptionError(`downloading ${url} answered HTTP ${res.status}`, transient);
    }
    body = res.body;
  } catch (err) {
    if (err instanceof TranscriptionError) throw err;
    const category = outboundCategory(err);
    const permanent = category.startsWith('refused') || category === 'response too large';
    throw new TranscriptionError(
      category === 'response too large'
        ? `the audio at ${url} is larger than 128 MB`
        : `downloading ${url} failed: ${category}`,
      !permanent,
    );
  }
  if (!audioExt(body.subarray(0, 64))) throw new TranscriptionError(`the file at ${url} is not audio`);
  await fsp.writeFile(dest, body);
  return { bytes: body.length };
}

/**
 * One track through the STT port: in one request up to 25 MB, else cut into WAV chunks of at most 10 minutes (in
 * code, PCM frames copied as they are) with their segment times moved back by each chunk's offset.
 */
export async function transcribeTrack(
  stt: TranscriptionPort,
  file: string,
  name: string,
  options: TranscribeOptions,
): Promise<TimedTranscript> {
  const size = (await fsp.stat(file)).size;
  const layout = wavLayout(await readHead(file, 64 * 1024), size);
  if (size <= STT_MAX_BYTES) {
    const t = await stt.transcribeTimed(file, name, options);
    return { ...t, duration: t.duration ?? (layout ? wavSeconds(layout) : null) };
  }
  if (!layout)
    throw new TranscriptionError(
      'audio over 25 MB is cut into chunks only when it is WAV (PCM); send a WAV file or a smaller one',
    );
  const chunks = await cutWav(file, layout);
  try {
    const parts = [];
    for (const c of chunks)
      parts.push({ offset: c.offset, transcript: await stt.transcribeTimed(c.file, 'chunk.wav', options) });
    const joined = joinChunks(parts);
    return { ...joined, duration: wavSeconds(layout) };
  } finally {
    await Promise.all(chunks.map((c) => fsp.rm(c.file, { force: true }).catch(() => undefined)));
  }
}
