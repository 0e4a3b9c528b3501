import { Foundation1763790000000 } from './migrations/1763790000000-Foundation';
import { Agents1763800000000 } from './migrations/1763800000000-Agents';
import { AgentConfiguration1763800000001 } from './migrations/1763800000001-AgentConfiguration';
import { Contacts1763810000000 } from './migrations/1763810000000-Contacts';
import { Scheduling1763811000000 } from './migrations/1763811000000-Scheduling';
import { Knowledge1763820000000 } from './migrations/1763820000000-Knowledge';
import { Conversations1763830000000 } from './migrations/1763830000000-Conversations';
import { AnalyticsExport1763840000000 } from './migrations/1763840000000-AnalyticsExport';
import { Webhooks1763850000000 } from './migrations/1763850000000-Webhooks';
import { EventsRetention1763860000000 } from './migrations/1763860000000-EventsRetention';
import { KnowledgeRecordTables1763870000000 } from './migrations/1763870000000-KnowledgeRecordTables';
import { Calls1763880000000 } from './migrations/1763880000000-Calls';
import { KnowledgeRetrieval1763885000000 } from './migrations/1763885000000-KnowledgeRetrieval';
import { ActionLogs1763890000000 } from './migrations/1763890000000-ActionLogs';
import { Flows1763940000000 } from './migrations/1763940000000-Flows';
import { IntentActions1763910000000 } from './migrations/1763910000000-IntentActions';
import { Messaging1763920000000 } from './migrations/1763920000000-Messaging';
import { TranscriptionsOperations1763950000000 } from './migrations/1763950000000-TranscriptionsOperations';
import { AgentConfigVersions1764000000000 } from './migrations/1764000000000-AgentConfigVersions';
import { KnowledgeStatsConfigVersion1764090000000 } from './migrations/1764090000000-KnowledgeStatsConfigVersion';
import { SessionSummariesIndex1764091000000 } from './migrations/1764091000000-SessionSummariesIndex';
import { OutboundPickOrder1764070000000 } from './migrations/1764070000000-OutboundPickOrder';
import { EventRoutingVersions1764093000000 } from './migrations/1764093000000-EventRoutingVersions';
import { FlowClaimFunction1764100000000 } from './migrations/1764100000000-FlowClaimFunction';
import { FlowExecutionLeases1764060000000 } from './migrations/1764060000000-FlowExecutionLeases';
import { VoiceRuntime1763900000000 } from './migrations/1763900000000-VoiceRuntime';
import { Outbound1763930000000 } from './migrations/1763930000000-Outbound';
import { FlowExecutionsRetention1763990000000 } from './migrations/1763990000000-FlowExecutionsRetention';
import { Approvals1763960000000 } from './migrations/1763960000000-Approvals';
import { Sip1763980000000 } from './migrations/1763980000000-Sip';
import { Numbers1763970000000 } from './migrations/1763970000000-Numbers';
import { OutboundLiveTaskPerContact1764110000000 } from './migrations/1764110000000-OutboundLiveTaskPerContact';
import { OutboundReadIndexes1764130000000 } from './migrations/1764130000000-OutboundReadIndexes';
import { MessengerPageOwners1764140000000 } from './migrations/1764140000000-MessengerPageOwners';
import { WhatsappBusinessAccountOwners1764140000001 } from './migrations/1764140000001-WhatsappBusinessAccountOwners';
import { ConversationSource1764145000000 } from './migrations/1764145000000-ConversationSource';
import { OutboundCampaignNextTask1764150000000 } from './migrations/1764150000000-OutboundCampaignNextTask';
import { PbxConnectorNormalizerJson1764155000000 } from './migrations/1764155000000-PbxConnectorNormalizerJson';
import { MessageLatency1764162000000 } from './migrations/1764162000000-MessageLatency';
import { WebCalls1764185000000 } from './migrations/1764185000000-WebCalls';
import { OutboxTraceParent1764180000000 } from './migrations/1764180000000-OutboxTraceParent';
import { Usage1764175000000 } from './migrations/1764175000000-Usage';
import { CallVoicemail1764170000000 } from './migrations/1764170000000-CallVoicemail';
import { TaskFailureData1764192000000 } from './migrations/1764192000000-TaskFailureData';

/**
 * Every migration, one a line (TypeORM runs them in timestamp order). A new migration file is added here so it runs
 * the same under ts-node, Jest and dist.
 */
export const MIGRATIONS = [
  Foundation1763790000000,
  Agents1763800000000,
  AgentConfiguration1763800000001,
  Contacts1763810000000,
  Scheduling1763811000000,
  Knowledge1763820000000,
  Conversations1763830000000,
  AnalyticsExport1763840000000,
  Webhooks1763850000000,
  EventsRetention1763860000000,
  KnowledgeRecordTables1763870000000,
  Calls1763880000000,
  KnowledgeRetrieval1763885000000,
  ActionLogs1763890000000,
  Flows1763940000000,
  IntentActions1763910000000,
  Messaging1763920000000,
  TranscriptionsOperations1763950000000,
  VoiceRuntime1763900000000,
  Outbound1763930000000,
  FlowExecutionsRetention1763990000000,
  Approvals1763960000000,
  Sip1763980000000,
  Numbers1763970000000,
  AgentConfigVersions1764000000000,
  KnowledgeStatsConfigVersion1764090000000,
  SessionSummariesIndex1764091000000,
  OutboundPickOrder1764070000000,
  EventRoutingVersions1764093000000,
  FlowClaimFunction1764100000000,
  FlowExecutionLeases1764060000000,
  OutboundLiveTaskPerContact1764110000000,
  OutboundReadIndexes1764130000000,
  MessengerPageOwners1764140000000,
  WhatsappBusinessAccountOwners1764140000001,
  ConversationSource1764145000000,
  OutboundCampaignNextTask1764150000000,
  PbxConnectorNormalizerJson1764155000000,
  MessageLatency1764162000000,
  WebCalls1764185000000,
  OutboxTraceParent1764180000000,
  Usage1764175000000,
  CallVoicemail1764170000000,
  TaskFailureData1764192000000,
];
