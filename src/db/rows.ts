import type { DeleteResult } from 'kysely';
import type { Problem } from '../lib/problems.js';
import { isUniqueViolation } from './errors.js';

// One row by id (and its tenancy): read, updated or deleted, else the problem the caller names. The
// queries stay the repositories' own (their tables, their tenancy); what is said when they find
// nothing or break a unique key is said here once.

/**
 * A write that may break a unique key (a name already taken), on either engine: its result, or the
 * 409 `taken()` in place of the engine's error. Any other error is the engine's own.
 */
export async function unlessTaken<T>(write: Promise<T>, taken: () => Problem): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/** The row a `SELECT` of one row by id found, else `missing()` (the 404, never revealing that it exists elsewhere). */
export async function foundRow<R>(select: { executeTakeFirst(): Promise<R | undefined> }, missing: () => Problem): Promise<R> {
  const row = await select.executeTakeFirst();
  if (!row) throw missing();
  return row;
}

/** What a write of one row by id answers when it cannot: 404 when the row is not there, 409 when a unique key is taken. */
export interface RowProblems {
  missing: () => Problem;
  taken: () => Problem;
}

/**
 * The row an `UPDATE … RETURNING` of one row by id wrote: `missing()` when none matched, `taken()`
 * when the change breaks a unique key (a name already taken).
 */
export async function updatedRow<R>(update: { executeTakeFirst(): Promise<R | undefined> }, answers: RowProblems): Promise<R> {
  const row = await unlessTaken(update.executeTakeFirst(), answers.taken);
  if (!row) throw answers.missing();
  return row;
}

/** Runs a `DELETE` of one row by id: `missing()` when none matched. */
export async function deletedRow(deletion: { executeTakeFirst(): Promise<DeleteResult> }, missing: () => Problem): Promise<void> {
  const result = await deletion.executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw missing();
}
