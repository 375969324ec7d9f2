/** Table types (Kysely): prompts, their versions and labels. Composed into `Database` by schema.ts. */
import type { Millis } from './schema.millis.js';

export interface PromptsTable {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  latest_version: number;
  created_at: Millis;
  updated_at: Millis;
}

export interface PromptVersionsTable {
  prompt_id: string;
  version: number;
  /** JSON: a string or an array of chat messages. */
  template: string;
  /** JSON array of the `{{name}}` placeholders found in the template. */
  variables: string;
  /** JSON object of free model settings. */
  config: string;
  message: string;
  created_by: string;
  created_at: Millis;
}

export interface PromptLabelsTable {
  prompt_id: string;
  label: string;
  version: number;
  updated_by: string;
  updated_at: Millis;
}

export interface PromptLabelEventsTable {
  id: string;
  prompt_id: string;
  label: string;
  from_version: number | null;
  to_version: number | null;
  actor: string;
  created_at: Millis;
}
