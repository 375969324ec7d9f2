import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What prepared() needs of a PostgreSQL pool: a query by name, prepared once per connection. */
interface NamedQueries {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
const pools = new WeakMap<object, NamedQueries>();

/** The pool behind a PostgreSQL `db`, so that prepared() queries run as named statements on it. */
export function registerPgPool(db: Kysely<Database>, pool: NamedQueries): void {
  pools.set(db, pool);
}
let names = 0;

/**
 * A fixed-shape query compiled once per database and then only re-bound. For the two queries every
 * authenticated request runs (the token row, the project): building and compiling them with Kysely
 * cost more than SQLite answering them. On PostgreSQL it runs as a named statement on the pool
 * (`registerPgPool`), parsed and planned once per connection: 1.4–1.8× the cached reads' rate in
 * `npm run bench:quick`, whose every request makes the token query. `build` must use its arguments as
 * the query's parameters, in order — checked on the first call.
 */
export function prepared<Args extends readonly unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>) {
  const compiled = new WeakMap<Kysely<Database>, string>();
  // On PostgreSQL, a named statement: parsed and planned once per connection instead of at every call.
  const name = `sightline_prepared_${names++}`;
  return async (db: Kysely<Database>, ...args: Args): Promise<Row[]> => {
    let sqlText = compiled.get(db);
    if (sqlText === undefined) {
      const query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((p, i) => p !== args[i])) {
        throw new Error(`prepared query must take its arguments as parameters, in order: ${query.sql}`);
      }
      sqlText = query.sql;
      compiled.set(db, sqlText);
    }
    const pool = pools.get(db);
    if (pool !== undefined) return (await pool.query({ name, text: sqlText, values: [...args] })).rows as Row[];
    return (await db.executeQuery<Row>(CompiledQuery.raw(sqlText, [...args]))).rows;
  };
}
