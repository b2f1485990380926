/**
 * JSON with object keys sorted recursively (by UTF-16 code unit order), so equal values give equal
 * text whatever order their keys were written in. Follows `JSON.stringify` otherwise: `undefined`
 * and functions inside objects are dropped, inside arrays become `null`; non-finite numbers become
 * `null`; `toJSON` is honoured.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value) ?? 'null';
}

/**
 * {@link canonicalJson}, with `replace` asked first for every object: text it returns is written in
 * the object's place (payload hashing writes a local file as its content hash this way).
 */
export function writeCanonical(
  value: unknown,
  replace?: (value: object) => string | undefined,
): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      // JSON.stringify throws on bigint; a decimal string keeps hashing total instead of crashing.
      return JSON.stringify(value.toString());
    case 'object':
      break;
    default:
      return undefined;
  }
  if (replace !== undefined) {
    const replaced = replace(value);
    if (replaced !== undefined) return replaced;
  }
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return writeCanonical(withToJson.toJSON(), replace);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += writeCanonical(value[i], replace) ?? 'null';
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const inner = writeCanonical(record[key], replace);
    if (inner === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${inner}`;
  }
  return `${text}}`;
}
