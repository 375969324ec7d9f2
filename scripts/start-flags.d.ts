/** The Node flags of `npm start`'s script (`--flag=value` and `--flag`), `${NAME:-default}` read from `env`. */
export function startFlags(env?: Record<string, string | undefined>): string[];
/** The `NAME=value` assignments before `node` in `npm start`'s script, `${NAME:-default}` read from `env`. */
export function startEnv(env?: Record<string, string | undefined>): Record<string, string>;
