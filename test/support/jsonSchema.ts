// A small JSON Schema (2020-12) validator for the CLI's schema file: the keywords that file uses (type, enum, const,
// properties, required, additionalProperties, unevaluatedProperties, items, allOf, anyOf, oneOf, local $ref).
// A keyword it does not know fails the check, so the schema cannot quietly use one it ignores.

type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$schema', '$id', 'title', 'description', '$defs', '$ref', 'type', 'enum', 'const', 'properties', 'required',
  'additionalProperties', 'unevaluatedProperties', 'items', 'allOf', 'anyOf', 'oneOf',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Checks `value` against `schema` (its `$ref`s resolved in `root`); returns the problems, [] when it is valid. */
export function validate(root: Schema, schema: Schema, value: unknown): string[] {
  const errors: string[] = [];
  check(root, schema, value, '$', errors);
  return errors;
}

/** Checks one value; returns the property names it evaluated (for unevaluatedProperties). */
function check(root: Schema, schema: Schema, value: unknown, at: string, errors: string[]): Set<string> {
  const evaluated = new Set<string>();
  for (const k of Object.keys(schema)) if (!KNOWN.has(k)) errors.push(`${at}: the schema uses "${k}", which this validator does not know`);
  if (typeof schema.$ref === 'string') {
    const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name ? (root.$defs as Record<string, Schema>)[name] : undefined;
    if (!target) errors.push(`${at}: unknown $ref ${schema.$ref}`);
    else for (const k of check(root, target, value, at, errors)) evaluated.add(k);
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) errors.push(`${at}: ${JSON.stringify(value)} is ${t}, not ${types.join(' or ')}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if ('const' in schema && schema.const !== value) errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  const isObject = typeOf(value) === 'object';
  const obj = value as Record<string, unknown>;
  if (isObject && schema.properties) {
    for (const [k, sub] of Object.entries(schema.properties as Record<string, Schema>)) {
      evaluated.add(k);
      if (Object.hasOwn(obj, k)) check(root, sub, obj[k], `${at}.${k}`, errors);
    }
  }
  if (isObject && Array.isArray(schema.required)) {
    for (const k of schema.required as string[]) if (!Object.hasOwn(obj, k)) errors.push(`${at}: "${k}" is missing`);
  }
  if (isObject && schema.additionalProperties === false) {
    const allowed = new Set(Object.keys((schema.properties as object | undefined) ?? {}));
    for (const k of Object.keys(obj)) if (!allowed.has(k)) errors.push(`${at}: "${k}" is not in the schema`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => check(root, schema.items as Schema, v, `${at}[${i}]`, errors));
  for (const sub of (schema.allOf as Schema[] | undefined) ?? []) for (const k of check(root, sub, value, at, errors)) evaluated.add(k);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const subs = schema[key] as Schema[] | undefined;
    if (!subs) continue;
    const passing = subs.map((sub) => {
      const e: string[] = [];
      const ev = check(root, sub, value, at, e);
      return { ok: e.length === 0, ev, e };
    });
    const ok = passing.filter((p) => p.ok);
    if (ok.length === 0) errors.push(`${at}: matches none of ${key}: ${passing.map((p, i) => `[${i}] ${p.e.slice(0, 3).join('; ')}`).join(' | ')}`);
    else if (key === 'oneOf' && ok.length > 1) errors.push(`${at}: matches ${ok.length} of oneOf`);
    for (const p of ok) for (const k of p.ev) evaluated.add(k);
  }
  if (isObject && schema.unevaluatedProperties === false) {
    for (const k of Object.keys(obj)) if (!evaluated.has(k)) errors.push(`${at}: "${k}" is not in the schema`);
  }
  return evaluated;
}
