/** Builds dist/ from src/ when it is missing or stale. */
export function ensureBuilt(): void;
