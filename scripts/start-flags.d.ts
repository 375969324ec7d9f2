/** `--flag=value` arguments of `npm start`'s script, `${NAME:-default}` read from `env`. */
export function startFlags(env?: Record<string, string | undefined>): string[];
