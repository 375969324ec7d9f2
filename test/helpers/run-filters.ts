/**
 * The runs list's metadata filter as the property suites model it: a stored string matches the text as
 * given; any other stored value matches when the text parses to the same JSON; an absent key never matches.
 */
export function metadataMatches(stored: unknown, wanted: string): boolean {
  if (stored === undefined) return false;
  if (typeof stored === 'string') return stored === wanted;
  try {
    return JSON.stringify(stored) === JSON.stringify(JSON.parse(wanted));
  } catch {
    return false;
  }
}
