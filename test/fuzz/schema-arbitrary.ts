import fc from 'fast-check';

/** The JSON-schema subset zod generates for tool inputs (packs' tools.json). */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 200));
    } catch {
      /* a pattern fast-check cannot generate from: fall back to plain strings */
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 200) });
}

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const keys = Object.keys(properties);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const key of keys) model[key] = fromSchema(properties[key] ?? {});
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => keys.includes(k)) });
}

/** Values valid against the schema (as far as its keywords go). */
export function fromSchema(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return fc.oneof(...variants.map(fromSchema));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => fromSchema({ ...schema, type })));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 8) });
    case 'object':
      return objectArbitrary(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Arguments beyond the schema: a valid object with one field broken, an extra field, or any JSON at all. */
export function beyondSchema(schema: JsonSchema): fc.Arbitrary<unknown> {
  const valid = objectArbitrary(schema);
  const keys = Object.keys(schema.properties ?? {});
  const strange = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.string({ maxLength: 2000 }), fc.double(), fc.constantFrom('', ' ', '\u0000', '1e309', '🙂', '../../etc/passwd', "'; drop table x; --"));
  const broken = keys.length ? fc.tuple(valid, fc.constantFrom(...keys), strange).map(([o, k, v]) => ({ ...o, [k]: v })) : valid;
  const extra = fc.tuple(valid, fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue({ maxDepth: 1 })).map(([o, k, v]) => ({ ...o, [k]: v }));
  return fc.oneof(broken, extra, fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })));
}
