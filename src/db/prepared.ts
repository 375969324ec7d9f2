import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A fixed-shape query compiled once per database and then only re-bound. For the two queries every
 * authenticated request runs (the token row, the project): building and compiling them with Kysely
 * cost more than SQLite answering them. `build` must use its arguments as the query's parameters, in
 * order — checked on the first call.
 */
export function prepared<Args extends readonly unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>) {
  const compiled = new WeakMap<Kysely<Database>, string>();
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
    return (await db.executeQuery<Row>(CompiledQuery.raw(sqlText, [...args]))).rows;
  };
}
