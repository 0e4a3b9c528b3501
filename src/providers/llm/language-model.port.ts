/** The language-model port: replies, intent classification and evaluation all go through it. */
export const LANGUAGE_MODEL = Symbol('LANGUAGE_MODEL');

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Null on an assistant message that only calls tools. */
  content: string | null;
  /** An assistant message's tool calls (function calling). */
  tool_calls?: ToolCall[];
  /** A `tool` message: the call it answers. */
  tool_call_id?: string;
}

/** A function the model may call (OpenAI-compatible `tools` entry). */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One function call the model asked for; `arguments` is the model's JSON text. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatOptions {
  /** An agent's `custom_llm_url`: replaces LLM_BASE_URL for this call. */
  baseUrl?: string | null;
  model?: string;
  /** Ask for a JSON object (`response_format: {type: "json_object"}`). */
  json?: boolean;
  temperature?: number;
  maxTokens?: number;
  timeoutMs?: number;
  /** Functions offered to the model (`tool_choice: "auto"`). */
  tools?: ToolDefinition[];
  /** Aborts the request (its connection is closed): the call throws LlmError `aborted`. */
  signal?: AbortSignal;
}

export interface ChatResult {
  /** Empty when the model only called tools. */
  content: string;
  /** The functions the model called, when it did. */
  toolCalls?: ToolCall[];
  model: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/** One thing the utterance may mean: a routing rule's prompt and phrases, or a guard's condition and examples. */
export interface IntentCandidate {
  id: string;
  description: string;
  examples: string[];
}

export interface IntentScore {
  id: string;
  /** 0 to 1. */
  score: number;
  matched: boolean;
}

export interface ClassificationResult {
  /** `llm` when a chat-completions endpoint classified, `local` for the similarity classifier. */
  method: 'llm' | 'local';
  scores: IntentScore[];
  /** Why the local classifier was used although a model is configured (the model failed). */
  fallbackReason?: string;
}

export type LlmErrorKind =
  | 'not_configured'
  | 'timeout'
  | 'network'
  | 'http'
  | 'invalid_response'
  /** The caller's `signal` aborted the request: not a failure of the model, never logged as one. */
  | 'aborted';

/** A failure of the language model, with a reason callers can show (never a secret). */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

/** The error of a request its caller aborted (`ChatOptions.signal`). */
export function llmAborted(): LlmError {
  return new LlmError('aborted', 'Language model request cancelled');
}

export interface LanguageModel {
  /** Whether chat completions are available (LLM_BASE_URL, or the given agent base URL). */
  isConfigured(baseUrl?: string | null): boolean;
  /** One chat completion. Throws LlmError (`not_configured` when no endpoint is set). */
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  /**
   * One chat completion streamed (`stream: true`): `onDelta` gets the text as it arrives; answers the whole reply.
   * Throws LlmError like `chat`.
   */
  chatStream?(
    messages: ChatMessage[],
    options: ChatOptions,
    onDelta: (text: string) => void,
  ): Promise<ChatResult>;
  /** Scores each candidate against the utterance; never throws for a model failure (falls back to local). */
  classify(
    utterance: string,
    candidates: IntentCandidate[],
    options?: { baseUrl?: string | null },
  ): Promise<ClassificationResult>;
}
