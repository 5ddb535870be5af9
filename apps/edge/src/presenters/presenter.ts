import type { Context } from 'koa';
import type { JsonSchema } from '../openapi/operation';

/**
 * One response body, declared once: the JSON Schema the OpenAPI document gives it and the function that makes it
 * from what a service answered. The document's component schemas are these presenters' schemas (components.ts),
 * so a field exists in both or in neither.
 */
export interface Presenter<In> {
  /** Its name among the document's component schemas; without one it is described inline where it is used. */
  readonly name?: string;
  readonly schema: JsonSchema;
  /**
   * It holds a secret (an API key, a webhook secret, a CSRF token): every answer of an operation that can answer
   * it carries `Cache-Control: no-store` (operation.ts sets it, document.ts documents it).
   */
  readonly secret: boolean;
  present(input: In): unknown;
}

/** Any presenter, whatever it takes (for code that only reads its schema and flags). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the input type is irrelevant there
export type AnyPresenter = Presenter<any>;

/** One property of a presenter's object: its schema, and its value from the presenter's input. */
export interface Field<In> {
  schema: JsonSchema;
  value: (input: In) => unknown;
  /** The value is a secret (or holds one). */
  secret?: boolean;
}

export const field = <In>(schema: JsonSchema, value: (input: In) => unknown): Field<In> => ({ schema, value });

/** A property whose value is a secret (an API key shown once, say). */
export const secretField = <In>(schema: JsonSchema, value: (input: In) => unknown): Field<In> => ({ schema, value, secret: true });

export const isPresenter = (x: unknown): x is AnyPresenter => !!x && typeof x === 'object' && typeof (x as AnyPresenter).present === 'function';

/** How a schema refers to a presenter's body: its component, or its schema inline. */
export const schemaOf = (p: AnyPresenter): JsonSchema => (p.name ? { $ref: `#/components/schemas/${p.name}` } : p.schema);

/** A property holding another presenter's body (its secrecy goes with it). */
export function nested<In, Sub>(p: Presenter<Sub>, value: (input: In) => Sub): Field<In> {
  return { schema: schemaOf(p), value: (input) => p.present(value(input)), secret: p.secret };
}

/** A closed object of `fields`, every one required, in this order. */
export function shape<In>(fields: Record<string, Field<In>>, opts: { name?: string; description?: string } = {}): Presenter<In> {
  const entries = Object.entries(fields);
  return {
    name: opts.name,
    secret: entries.some(([, f]) => f.secret),
    schema: {
      type: 'object',
      ...(opts.description ? { description: opts.description } : {}),
      required: entries.map(([k]) => k),
      additionalProperties: false,
      properties: Object.fromEntries(entries.map(([k, f]) => [k, f.schema])),
    },
    present: (input) => Object.fromEntries(entries.map(([k, f]) => [k, f.value(input)])),
  };
}

/** A page of a cursor-paginated list: `{data: [item], next_cursor}`. */
export function pageOf<In>(item: Presenter<In>): Presenter<{ items: In[]; nextCursor: string | null }> {
  return shape({
    data: { schema: { type: 'array', items: schemaOf(item) }, value: (p) => p.items.map((i) => item.present(i)), secret: item.secret },
    next_cursor: field({ type: ['string', 'null'], description: 'Pass as `cursor` to get the next page; null on the last page.' }, (p) => p.nextCursor),
  });
}

/** A whole list: `{data: [item]}`. */
export function listOf<In>(item: Presenter<In>): Presenter<In[]> {
  return shape({ data: { schema: { type: 'array', items: schemaOf(item) }, value: (items) => items.map((i) => item.present(i)), secret: item.secret } });
}

/** Answers `status` with the presenter's body of `input`: the one way a route answers JSON. */
export function respond<In>(ctx: Context, presenter: Presenter<In>, input: In, status = 200): void {
  ctx.status = status;
  ctx.body = presenter.present(input);
}
