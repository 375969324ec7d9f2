import { Link } from '../router.js';

/** A prompt version a run used: its prompt's name, and the version when the run says which. */
export interface PromptUse {
  name: string;
  version: number | null;
}

const versionOf = (value: unknown): number | null => {
  const n = typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : null;
};
const LANGFUSE_NAME = 'langfuse.observation.prompt.name';
const LANGFUSE_VERSION = 'langfuse.observation.prompt.version';
const isName = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= 200;

/**
 * The prompt a run's metadata says it used (docs/prompts.md, "Which prompt a run used"): `prompt` (or `promptName`) naming the
 * prompt, with `promptVersion`; `prompt` as an object `{name, version}`; the keys `prompt.name` and
 * `prompt.version` (span attributes sent over OpenTelemetry keep their dotted names); or Langfuse's,
 * `langfuse.observation.prompt.name` and `.version` (both its SDKs). Null when it names none.
 */
export function promptUse(metadata: Readonly<Record<string, unknown>> | null | undefined): PromptUse | null {
  if (!metadata) return null;
  const prompt = metadata.prompt;
  const nested = prompt !== null && typeof prompt === 'object' && !Array.isArray(prompt) ? (prompt as Record<string, unknown>) : {};
  const name = [nested.name, prompt, metadata.promptName, metadata['prompt.name'], metadata[LANGFUSE_NAME]].find(isName);
  if (name === undefined) return null;
  const version =
    [nested.version, metadata.promptVersion, metadata['prompt.version'], metadata[LANGFUSE_VERSION]].map(versionOf).find((v) => v !== null) ?? null;
  return { name: name.trim(), version };
}

/** The prompt page at that version (its entry in the versions list opened), or at its latest. */
export function promptUsePath(use: PromptUse): string {
  return `/prompts/${encodeURIComponent(use.name)}${use.version === null ? '' : `?version=${use.version}`}`;
}

/** A run's "Prompt" entry in a `<dl>`: a link to the prompt version its metadata names; nothing when it names none. */
export function RunPromptFact({ metadata }: { metadata: Readonly<Record<string, unknown>> | null | undefined }) {
  const use = promptUse(metadata);
  if (!use) return null;
  return (
    <>
      <dt>Prompt</dt>
      <dd>
        <Link to={promptUsePath(use)} title="Open this prompt version">
          {use.name}
          {use.version !== null && ` v${use.version}`}
        </Link>
      </dd>
    </>
  );
}
