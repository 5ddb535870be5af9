import type Joi from 'joi';

/*
 * What joi is asked to check, bounded by the schema's own limits. joi checks every item of an array before it
 * finds the array too long, and names every unknown key: 100,000 bad items (a 400 KB body) cost seconds and a
 * 26 MB answer. So before joi runs, the value is walked along the schema (its description) and cut where the
 * schema already refuses it: an array longer than its `max` keeps one item more than that (joi still reports
 * it too long; items past it are not checked), an object that takes no unknown keys keeps the first
 * MAX_UNKNOWN_KEYS of them over the whole input (the others are counted, each a sure `extra_forbidden`), and an
 * open object longer than its `max` keeps one key more. The same walk over the schema alone finds every array
 * or open object without a limit (`unboundedParts`): the tests hold every route's schemas to none.
 */

/** The parts of `schema.describe()` that say what a value may hold. */
export interface SchemaDescription {
  type: string;
  flags?: { unknown?: boolean; [flag: string]: unknown };
  rules?: Array<{ name: string; args?: { limit?: unknown } }>;
  keys?: Record<string, SchemaDescription>;
  patterns?: Array<{ rule?: SchemaDescription }>;
  items?: SchemaDescription[];
  ordered?: SchemaDescription[];
  matches?: Branches[];
  whens?: Branches[];
}

interface Branches {
  schema?: SchemaDescription;
  then?: SchemaDescription;
  otherwise?: SchemaDescription;
  switch?: Array<{ then?: SchemaDescription; otherwise?: SchemaDescription }>;
}

/** Unknown keys joi is shown over one input; more would only lengthen an answer that lists 100 problems. */
export const MAX_UNKNOWN_KEYS = 100;

const described = new WeakMap<Joi.Schema, SchemaDescription>();

export function describe(schema: Joi.Schema): SchemaDescription {
  let d = described.get(schema);
  if (!d) {
    d = schema.describe() as SchemaDescription;
    described.set(schema, d);
  }
  return d;
}

/** Every form a value at this place may be checked against: the schema, its `when` branches and alternatives. */
function forms(d: SchemaDescription, out: SchemaDescription[] = []): SchemaDescription[] {
  if (d.type !== 'alternatives') out.push(d);
  for (const b of [...(d.matches ?? []), ...(d.whens ?? [])]) {
    for (const branch of [b.schema, b.then, b.otherwise, ...(b.switch ?? []).flatMap((s) => [s.then, s.otherwise])]) if (branch) forms(branch, out);
  }
  return out;
}

/** The schema's `max` (or `length`): items of an array, keys of an object; undefined when it has none. */
function limitOf(d: SchemaDescription): number | undefined {
  const rule = d.rules?.find((r) => r.name === 'max' || r.name === 'length');
  return typeof rule?.args?.limit === 'number' ? rule.args.limit : undefined;
}

/** An object schema that takes keys it does not name: `Joi.object()` with no keys, `.unknown()`, `.pattern()`. */
const isOpen = (d: SchemaDescription) => d.keys === undefined || d.flags?.unknown === true || (d.patterns?.length ?? 0) > 0;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, `__proto__` included (JSON.parse makes such keys; `o[k] = v` would set the prototype). */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/**
 * What the walk needs to know of one place of a schema (the forms a value there may be checked against), worked
 * out from their descriptions once, the first time an input reaches the place, and kept: the walk of a request
 * reads it, where it used to merge the descriptions again for every input.
 */
interface ArrayPlan {
  limit: number;
  items: Place | undefined;
}

interface ObjectPlan {
  named: Map<string, Place>;
  open: boolean;
  patterns: Place | undefined;
  limit: number;
}

class Place {
  private arrayPlan?: ArrayPlan | null;
  private objectPlan?: ObjectPlan | null;

  constructor(private readonly ds: SchemaDescription[]) {}

  /** The arrays of this place: the largest item limit, and the place of their items (undefined: none described). */
  get array(): ArrayPlan | null {
    if (this.arrayPlan === undefined) {
      const arrays = this.ds.filter((d) => d.type === 'array');
      const items = arrays.flatMap((d) => [...(d.items ?? []), ...(d.ordered ?? [])]).flatMap((d) => forms(d));
      this.arrayPlan = arrays.length
        ? { limit: Math.max(...arrays.map((d) => limitOf(d) ?? Infinity)), items: items.length ? new Place(items) : undefined }
        : null;
    }
    return this.arrayPlan;
  }

  /** The objects of this place: each named key's place, whether other keys are taken, their place, the key limit. */
  get object(): ObjectPlan | null {
    if (this.objectPlan === undefined) {
      const objects = this.ds.filter((d) => d.type === 'object');
      if (!objects.length) this.objectPlan = null;
      else {
        const named = new Map<string, SchemaDescription[]>();
        for (const d of objects) for (const [k, kd] of Object.entries(d.keys ?? {})) named.set(k, [...(named.get(k) ?? []), ...forms(kd)]);
        const open = objects.some(isOpen);
        const patterns = objects.flatMap((d) => (d.patterns ?? []).flatMap((p) => (p.rule ? forms(p.rule) : [])));
        this.objectPlan = {
          named: new Map([...named].map(([k, kds]) => [k, new Place(kds)])),
          open,
          patterns: patterns.length ? new Place(patterns) : undefined,
          // an open object over its key limit keeps its named keys and as many others as make one key too many
          limit: open ? Math.max(...objects.map((d) => (isOpen(d) ? (limitOf(d) ?? Infinity) : Infinity))) : Infinity,
        };
      }
    }
    return this.objectPlan;
  }
}

/** The place of a whole input, by its schema's description. */
const roots = new WeakMap<SchemaDescription, Place>();

function rootOf(schema: Joi.Schema): Place {
  const d = describe(schema);
  let place = roots.get(d);
  if (!place) {
    place = new Place(forms(d));
    roots.set(d, place);
  }
  return place;
}

/** One input's walk: how many unknown keys joi was shown, and how many others it was spared. */
export class InputBounds {
  private unknownShown = 0;
  /** Unknown keys dropped from what joi sees: each one more problem than joi reports. */
  uncheckedUnknownKeys = 0;

  /** `value` cut where `schema` already refuses it (the value itself when nothing is cut). */
  bound(schema: Joi.Schema, value: unknown): unknown {
    return this.walk(rootOf(schema), value);
  }

  private walk(place: Place, v: unknown): unknown {
    if (Array.isArray(v)) return this.array(place, v);
    if (isPlainObject(v)) return this.object(place, v);
    return v;
  }

  private array(place: Place, v: unknown[]): unknown[] {
    const plan = place.array;
    if (!plan) return v;
    let out = v.length > plan.limit + 1 ? v.slice(0, plan.limit + 1) : v;
    if (!plan.items) return out;
    for (let i = 0; i < out.length; i++) {
      const next = this.walk(plan.items, out[i]);
      if (next === out[i]) continue;
      if (out === v) out = v.slice();
      out[i] = next;
    }
    return out;
  }

  private object(place: Place, v: Record<string, unknown>): Record<string, unknown> {
    const plan = place.object;
    if (!plan) return v;
    const { named, open, patterns } = plan;
    const keys = Object.keys(v);
    let othersAllowed = Math.max(0, plan.limit + 1 - keys.filter((k) => named.has(k)).length);
    // built only once something changes: the keys before it copied, then every key kept
    let out: Record<string, unknown> | undefined;
    const change = (i: number) => {
      if (out) return out;
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j], v[keys[j]]);
      return out;
    };
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const kp = named.get(k);
      let drop = false;
      if (!kp && !open) {
        if (this.unknownShown < MAX_UNKNOWN_KEYS) this.unknownShown++;
        else {
          this.uncheckedUnknownKeys++;
          drop = true;
        }
      } else if (!kp) drop = othersAllowed-- <= 0;
      if (drop) {
        change(i);
        continue;
      }
      const child = kp ?? patterns;
      const next = child ? this.walk(child, v[k]) : v[k];
      if (next !== v[k]) change(i);
      if (out) setOwn(out, k, next);
    }
    return out ?? v;
  }
}

/**
 * Where a schema takes input without a limit: an array without `max` (or `length`), an object that takes keys
 * it does not name without `max`, a link (not followed). Paths name keys, `[]` an array's items, `{}` an open
 * object's other keys. Empty for a schema that bounds everything.
 */
export function unboundedParts(schema: Joi.Schema): string[] {
  const found: string[] = [];
  const visit = (d: SchemaDescription, path: string, seen: Set<SchemaDescription>) => {
    if (seen.has(d)) return;
    seen.add(d);
    for (const f of forms(d)) {
      if (f !== d) visit(f, path, seen);
      const at = path || '(root)';
      if (f.type === 'link') found.push(`${at}: a link`);
      if (f.type === 'array') {
        if (limitOf(f) === undefined) found.push(`${at}: an array without max`);
        for (const item of [...(f.items ?? []), ...(f.ordered ?? [])]) visit(item, `${path}[]`, seen);
      }
      if (f.type === 'object') {
        if (isOpen(f) && limitOf(f) === undefined) found.push(`${at}: an object open to other keys without max`);
        for (const [k, kd] of Object.entries(f.keys ?? {})) visit(kd, path ? `${path}.${k}` : k, seen);
        for (const p of f.patterns ?? []) if (p.rule) visit(p.rule, `${path}{}`, seen);
      }
    }
  };
  visit(describe(schema), '', new Set());
  return [...new Set(found)];
}
