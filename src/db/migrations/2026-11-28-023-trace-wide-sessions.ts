import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

const SUMMED = [
  'run_count',
  'error_count',
  'running_count',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'reasoning_tokens',
  'cost',
  'computed_cost',
];

/**
 * Sessions and end users count every run of their traces, whichever run named them (a root span often
 * does, its children not): their rollups, which summed the runs that named them, are summed again from
 * the traces, each trace under the session and end user it keeps (the first its runs named).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const columns = sql.join([...SUMMED, 'start_time', 'end_time'].map((c) => sql.ref(c)));
  const sums = sql.join([...SUMMED.map((c) => sql`sum(${sql.ref(c)})`), sql`min(start_time)`, sql`max(end_time)`]);
  for (const [table, key] of [
    ['run_sessions', 'session_id'],
    ['run_users', 'user_id'],
  ] as const) {
    await sql`delete from ${sql.table(table)}`.execute(db);
    await sql`insert into ${sql.table(table)} (project_id, ${sql.ref(key)}, ${columns})
      select project_id, ${sql.ref(key)}, ${sums} from traces where ${sql.ref(key)} is not null group by project_id, ${sql.ref(key)}`.execute(db);
  }
}

/** Nothing to undo: the rollups stay summed by trace (migration 008's backfill sums them by run, should it run again). */
export async function down(): Promise<void> {}
