// The fields of a request part that no schema checks: the form bodies, query strings and path
// parameters of the HTML pages (the admin area, the OAuth login and consent pages). Those pages
// answer bad input with their own page or redirect, never a 400 envelope, so they read the
// parts as what they are, fields by name of unknown type, and judge each value themselves.

/** The part's fields as they arrived (a repeated field is an array); anything not an object has none. */
export function fieldsOf(part: unknown): Record<string, unknown> {
  return part !== null && typeof part === 'object' && !Array.isArray(part)
    ? Object.fromEntries(Object.entries(part))
    : {};
}

/** The fields that arrived as one string; a repeated field, when `firstOfRepeated`, as its first value. */
export function stringFieldsOf(part: unknown, opts: { firstOfRepeated?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fieldsOf(part))) {
    const s: unknown = opts.firstOfRepeated && Array.isArray(v) ? v[0] : v;
    if (typeof s === 'string') out[k] = s;
  }
  return out;
}
