import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { SafeResponse } from '@/common/net/address-guard';
import { ABORTED, outboundCategory, outboundRequest } from '@/common/net/outbound-http';
import {
  ChatMessage,
  ChatOptions,
  ChatResult,
  ClassificationResult,
  IntentCandidate,
  LanguageModel,
  llmAborted,
  LlmError,
} from './language-model.port';
import { reportUsage } from '@/providers/usage-report';
import { Traced, TracedSpec } from '@/common/telemetry/traced';
import { streamChat } from './chat-stream';
import { classifyBySimilarity } from './similarity-classifier';
import { readToolCalls } from './tool-calls';

export const CHAT_TIMEOUT_MS = 30_000;
export const CLASSIFY_TIMEOUT_MS = 10_000;
/** A chat-completions answer larger than this is refused. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A model's intent score at or above this counts as a match. */
export const LLM_MATCH_THRESHOLD = 0.5;

interface CompletionBody {
  model?: string;
  choices?: { message?: { content?: unknown; tool_calls?: unknown } }[];
  usage?: ChatResult['usage'];
}

/** The model's own token counts, when it answered them (an aborted stream never does: nothing is guessed). */
function reportModelUsage(usage: ChatResult['usage']): void {
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  const promptTokens = count(usage?.prompt_tokens);
  const completionTokens = count(usage?.completion_tokens);
  if (promptTokens || completionTokens) reportUsage({ promptTokens, completionTokens });
}

type ChatArgs = [messages: ChatMessage[], options?: ChatOptions, onDelta?: (text: string) => void];

/**
 * The `llm` span of a model call: its size, the model and token counts it answered, when its first token came
 * (streamed: the first delta; otherwise the whole answer) and the tool calls it asked for. The prompt's last customer
 * words and the reply only with OTEL_CAPTURE_CONTENT=true. A chat inside a streamed chat is the same span.
 */
const LLM_SPAN: TracedSpec<ChatArgs, Promise<ChatResult>> = {
  attributes: (messages, options, onDelta) => ({
    'llm.messages': messages.length,
    'llm.tools_offered': options?.tools?.length ?? 0,
    'llm.custom_endpoint': !!options?.baseUrl,
    'llm.streamed': !!onDelta,
  }),
  options: () => ({ reuse: true }),
  around: (span, started, [messages, options, onDelta], outside) => {
    span.setContent('llm.prompt.last_user', messages.findLast((m) => m.role === 'user')?.content);
    if (!onDelta) return [messages, options];
    // What the reply's deltas start (speech of its sentences) belongs to the turn, not to this span.
    const deliver = outside(onDelta);
    let first = true;
    const timed = (text: string) => {
      if (first) span.setAttribute('llm.first_token_ms', Date.now() - started);
      first = false;
      deliver(text);
    };
    return [messages, options, timed];
  },
  result: (span, result, started, [, , onDelta]) => {
    const ms = Date.now() - started;
    span.setAttributes({
      'gen_ai.response.model': result.model,
      'gen_ai.usage.input_tokens': result.usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': result.usage?.completion_tokens,
      'llm.tool_calls': result.toolCalls?.length ?? 0,
      'llm.duration_ms': ms,
      // Not streamed, the first token comes with the whole answer.
      'llm.first_token_ms': onDelta ? undefined : ms,
    });
    span.setContent('llm.reply', result.content);
  },
};

/**
 * Any OpenAI-compatible chat-completions endpoint (`POST {base}/chat/completions`). With no base URL, chat
 * reports `not_configured` and classification uses the local similarity classifier.
 */
@Injectable()
export class OpenAiCompatibleLanguageModel implements LanguageModel {
  private readonly logger = new Logger('LanguageModel');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private baseFor(override?: string | null): string | undefined {
    const base = override || this.config.llm.baseUrl;
    return base ? base.replace(/\/+$/, '') : undefined;
  }

  isConfigured(baseUrl?: string | null): boolean {
    return !!this.baseFor(baseUrl);
  }

  @Traced('llm', LLM_SPAN)
  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const base = this.baseFor(options.baseUrl);
    if (!base)
      throw new LlmError(
        'not_configured',
        "No language model is configured: set LLM_BASE_URL or the agent's custom_llm_url",
      );
    const body: Record<string, unknown> = { model: options.model ?? this.config.llm.model, messages };
    if (options.json) body.response_format = { type: 'json_object' };
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
    if (options.tools?.length) Object.assign(body, { tools: options.tools, tool_choice: 'auto' });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.config.llm.apiKey) headers.authorization = `Bearer ${this.config.llm.apiKey}`;
    const timeoutMs = options.timeoutMs ?? CHAT_TIMEOUT_MS;

    // The operator's LLM_BASE_URL may be on the private network; an agent's custom_llm_url goes through the guard.
    const policy = { allowPrivate: !options.baseUrl || this.config.network.allowPrivateTargets };
    let res: SafeResponse;
    try {
      res = await outboundRequest(`${base}/chat/completions`, policy, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        failOnOverflow: true,
        keepAlive: true,
        signal: options.signal,
      });
    } catch (err) {
      const category = outboundCategory(err);
      if (category === ABORTED) throw llmAborted();
      if (category === 'timeout')
        throw new LlmError('timeout', `Language model did not answer within ${timeoutMs} ms`);
      throw new LlmError('network', `Language model unreachable (${category})`);
    }
    const text = res.body.toString('utf8');
    if (res.status < 200 || res.status >= 300) {
      let detail = '';
      try {
        const parsed = JSON.parse(text) as { error?: { message?: string } };
        detail = parsed.error?.message ? `: ${parsed.error.message.slice(0, 200)}` : '';
      } catch {
        detail = '';
      }
      throw new LlmError('http', `Language model answered HTTP ${res.status}${detail}`, res.status);
    }
    let parsed: CompletionBody;
    try {
      parsed = JSON.parse(text) as CompletionBody;
    } catch {
      throw new LlmError('invalid_response', 'Language model answer is not JSON');
    }
    const content = parsed.choices?.[0]?.message?.content;
    const toolCalls = readToolCalls(parsed.choices?.[0]?.message?.tool_calls);
    if (typeof content !== 'string' && !toolCalls.length)
      throw new LlmError('invalid_response', 'Language model answer has no choices[0].message.content');
    const result: ChatResult = {
      content: typeof content === 'string' ? content : '',
      model: parsed.model ?? String(body.model),
      usage: parsed.usage,
    };
    if (toolCalls.length) result.toolCalls = toolCalls;
    reportModelUsage(result.usage);
    return result;
  }

  /**
   * Streams from the operator's LLM_BASE_URL. An agent's `custom_llm_url` is not streamed: it goes through the
   * SSRF guard of `chat`, and its whole reply is handed to `onDelta` at once.
   */
  @Traced('llm', LLM_SPAN)
  async chatStream(
    messages: ChatMessage[],
    options: ChatOptions,
    onDelta: (text: string) => void,
  ): Promise<ChatResult> {
    const base = this.baseFor(options.baseUrl);
    if (options.baseUrl || !base) {
      const result = await this.chat(messages, options);
      onDelta(result.content);
      return result;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.llm.apiKey) headers.authorization = `Bearer ${this.config.llm.apiKey}`;
    const body: Record<string, unknown> = { model: options.model ?? this.config.llm.model, messages };
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
    // The last chunk then carries the reply's token counts (OpenAI's streamed `usage`).
    body.stream_options = { include_usage: true };
    const result = await streamChat(`${base}/chat/completions`, headers, body, {
      timeoutMs: options.timeoutMs ?? CHAT_TIMEOUT_MS,
      signal: options.signal,
      onDelta,
    });
    reportModelUsage(result.usage);
    return result;
  }

  async classify(
    utterance: string,
    candidates: IntentCandidate[],
    options: { baseUrl?: string | null } = {},
  ): Promise<ClassificationResult> {
    if (!candidates.length)
      return { method: this.isConfigured(options.baseUrl) ? 'llm' : 'local', scores: [] };
    if (!this.isConfigured(options.baseUrl))
      return { method: 'local', scores: classifyBySimilarity(utterance, candidates) };
    try {
      return { method: 'llm', scores: await this.classifyWithModel(utterance, candidates, options.baseUrl) };
    } catch (err) {
      const reason = err instanceof LlmError ? err.message : 'Language model failed';
      this.logger.warn(`intent classification fell back to the local classifier: ${reason}`);
      return { method: 'local', scores: classifyBySimilarity(utterance, candidates), fallbackReason: reason };
    }
  }

  private async classifyWithModel(
    utterance: string,
    candidates: IntentCandidate[],
    baseUrl?: string | null,
  ): Promise<ClassificationResult['scores']> {
    const system =
      'You classify one customer utterance against candidate intents. For every candidate give a score from 0 ' +
      'to 1: how likely the utterance expresses that intent, judged by its description and examples. Answer ' +
      'only with a JSON object {"scores": [{"id": "<candidate id>", "score": <number>}]}.';
    const user = JSON.stringify({
      utterance,
      candidates: candidates.map((c) => ({ id: c.id, description: c.description, examples: c.examples })),
    });
    const result = await this.chat(
      [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      { baseUrl, json: true, temperature: 0, timeoutMs: CLASSIFY_TIMEOUT_MS },
    );
    let parsed: { scores?: { id?: unknown; score?: unknown }[] };
    try {
      parsed = JSON.parse(result.content) as typeof parsed;
    } catch {
      throw new LlmError('invalid_response', 'Language model classification is not a JSON object');
    }
    if (!Array.isArray(parsed.scores))
      throw new LlmError('invalid_response', 'Language model classification has no "scores" array');
    const byId = new Map<string, number>();
    for (const s of parsed.scores)
      if (typeof s?.id === 'string' && typeof s.score === 'number' && Number.isFinite(s.score))
        byId.set(s.id, Math.max(0, Math.min(1, s.score)));
    return candidates.map((c) => {
      const score = byId.get(c.id) ?? 0;
      return { id: c.id, score, matched: score >= LLM_MATCH_THRESHOLD };
    });
  }
}
