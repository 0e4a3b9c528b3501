import type { ContactFieldType } from './contact-field.entity';
import type { UpdateBehavior } from './contact-analyzer.entity';

export interface BuiltIn {
  field: string;
  label: string;
  goals: string;
  examples: string;
}

/** The built-in contact fields memorize may write; their goals and examples are fixed. */
export const BUILT_IN_ANALYZERS: readonly BuiltIn[] = [
  { field: 'name', label: 'Name', goals: 'The first name the customer gives', examples: 'Ada, Grace' },
  {
    field: 'surname',
    label: 'Surname',
    goals: 'The family name the customer gives',
    examples: 'Lovelace, Hopper',
  },
  {
    field: 'email',
    label: 'Email',
    goals: 'An email address the customer gives as theirs',
    examples: 'ada@example.com',
  },
  {
    field: 'phone_number',
    label: 'Phone number',
    goals: 'A phone number the customer gives as theirs, in E.164',
    examples: '+447911123456',
  },
  {
    field: 'number_type',
    label: 'Number type',
    goals: 'The kind of phone number',
    examples: 'mobile, landline',
  },
  {
    field: 'country_code',
    label: 'Country',
    goals: 'The country the customer lives in, as an ISO 3166-1 alpha-2 code',
    examples: 'GB, US, DE',
  },
  {
    field: 'timezone',
    label: 'Time zone',
    goals: "The customer's IANA time zone",
    examples: 'Europe/London, America/New_York',
  },
  {
    field: 'primary_language',
    label: 'Primary language',
    goals: 'The language the customer prefers, as a BCP 47 code',
    examples: 'en, es, de',
  },
  {
    field: 'preferred_contact_channel',
    label: 'Preferred contact channel',
    goals: 'How the customer prefers to be reached',
    examples: 'call, sms, whatsapp, email',
  },
  {
    field: 'preferred_contact_time',
    label: 'Preferred contact time',
    goals: 'When the customer prefers to be reached',
    examples: 'weekdays 09:00-12:00',
  },
  {
    field: 'status',
    label: 'Status',
    goals: 'Whether the contact is still active',
    examples: 'Active, Inactive',
  },
];

/** How memorize treats one contact field, with what the model is told about it. */
export interface FieldAnalyzer {
  updateBehavior: UpdateBehavior;
  analysisGoals: string | null;
  exampleValues: string | null;
  /** A custom field's type, so extracted text can become its number or boolean. */
  valueType?: ContactFieldType;
}

/** How memorize may move a contact into one pipeline stage, with what the model is told about the stage. */
export interface StageAnalyzer {
  stageId: string;
  name: string;
  updateBehavior: UpdateBehavior;
  analysisGoals: string | null;
}
