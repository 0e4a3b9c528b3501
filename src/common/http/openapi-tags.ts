import { INTERNAL_TAG } from './api-response.decorator';

/** Every tag, in the order Swagger UI lists them; operators' routes come last. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Workspace', description: 'The workspace of the base address and the calling token.' },
  { name: 'Agents', description: 'Conversational agents: create, configure, read, delete.' },
  {
    name: 'Agent knowledge and rules',
    description: 'Guidelines, notes, training, procedures, intents, webhooks and rules held by one agent.',
  },
  {
    name: 'Agent channels',
    description: 'Which numbers, WhatsApp senders and Messenger pages an agent serves.',
  },
  { name: 'Evaluation and memorize settings', description: 'Workspace defaults and per-agent overrides.' },
  { name: 'Flow catalog', description: 'Agents a flow can use.' },
  {
    name: 'Calls',
    description: 'Phone and WhatsApp calls: placing, reading, the live feed, live actions and the sandbox.',
  },
  {
    name: 'Web calls',
    description:
      'Calls from a browser: started by the business’s server, taken on the call page (or its own client) over a socket opened with a single-use token.',
  },
  { name: 'Conversations', description: 'Text conversations with an agent and their messages.' },
  { name: 'Sessions', description: 'Sessions of conversations; each ends with an evaluation.' },
  { name: 'Evaluations', description: 'Evaluation records written at the end of each session.' },
  { name: 'Contacts', description: 'Contacts, their tags, custom fields and pipeline stages.' },
  {
    name: 'Scheduling',
    description: 'Availability types, schedules, appointments and appointment requests.',
  },
  { name: 'Data', description: 'Knowledge data sources: tables, imports, assignment to agents and search.' },
  { name: 'Analytics', description: 'Message export and aggregates of sessions, evaluations and calls.' },
  { name: 'Phone numbers', description: 'Numbers the workspace owns and the channels they serve.' },
  {
    name: 'SIP',
    description:
      'PBX extension connectors (forwards to extensions), SIP trunks and the external numbers they carry.',
  },
  { name: 'Messaging', description: 'SMS sending, messages with their delivery status, the SMS sandbox.' },
  {
    name: 'WhatsApp',
    description: 'WhatsApp templates, template settings, template and text sends, the sandbox.',
  },
  {
    name: 'Blacklist',
    description: 'The do-not-contact list checked before every outbound call and message.',
  },
  { name: 'Webhooks', description: 'Workspace webhooks, their signing secrets and the delivery log.' },
  {
    name: 'Automation flows',
    description: 'Flows of a trigger and action steps, their versions, executions and step tests.',
  },
  {
    name: 'Provider hooks',
    description:
      "Calls from Twilio, Meta and outside systems (flow webhook triggers): no token and no tenant host, authenticated by the provider's signature or a secret URL.",
  },
  { name: 'Transcriptions', description: 'Recorded calls turned into timed transcripts, with optional QA.' },
  {
    name: 'Logs',
    description: 'The API request log and the action log (task attempts, flows, intent calls).',
  },
  { name: 'Languages', description: 'Languages agents can speak and report in.' },
  { name: 'Pools', description: 'Contact pools (FIFO, LIFO, Parallel) and their members.' },
  { name: 'Rules', description: 'Reusable contact policies: calling window, retries, daily and total caps.' },
  {
    name: 'Campaigns',
    description: 'Outbound campaigns over pools: definition, pools, rule and transitions.',
  },
  {
    name: 'Tasks',
    description: 'Scheduled outbound calls and WhatsApp templates, standalone or from campaigns.',
  },
  { name: 'Listings', description: 'A campaign over one FIFO pool, made with its contacts in one request.' },
  { name: 'Health', description: 'Liveness and readiness for load balancers; no tenant, no token.' },
  {
    name: INTERNAL_TAG,
    description: 'Operators only: workspaces, users, tokens and policies, behind ADMIN_API_KEY.',
  },
];
