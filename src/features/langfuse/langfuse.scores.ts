import type { ScoreBody } from './langfuse.schemas.js';

/**
 * A Langfuse score as the scores API takes one (`POST …/scores/batch`, which checks it): its target the
 * observation (a run), else its trace, else its session; a `BOOLEAN` score's 1 or 0 as true or false, a
 * `CATEGORICAL` one's value as text, a `NUMERIC` one's as it is (a value of the wrong type is refused
 * there). What scores have no field for (Langfuse's config id, environment) is kept in its metadata.
 */
export function scoreItemOf(body: ScoreBody): Record<string, unknown> {
  const target =
    body.observationId != null
      ? { runId: body.observationId }
      : body.traceId != null
        ? { traceId: body.traceId }
        : body.sessionId != null
          ? { sessionId: body.sessionId }
          : {};
  let value: unknown = body.value;
  if (body.dataType === 'BOOLEAN') value = body.value === 1 ? true : body.value === 0 ? false : body.value;
  else if (body.dataType === 'CATEGORICAL' && typeof body.value === 'number') value = String(body.value);
  const metadata: Record<string, unknown> =
    body.metadata != null && typeof body.metadata === 'object' && !Array.isArray(body.metadata)
      ? { ...(body.metadata as Record<string, unknown>) }
      : body.metadata != null
        ? { metadata: body.metadata }
        : {};
  if (body.configId != null) metadata['langfuse.score.config_id'] = body.configId;
  if (body.environment != null) metadata['langfuse.environment'] = body.environment;
  return {
    ...(body.id != null ? { id: body.id } : {}),
    ...target,
    name: body.name,
    value,
    ...(body.comment != null ? { comment: body.comment } : {}),
    metadata,
  };
}
