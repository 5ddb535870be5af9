import type Joi from 'joi';
import { layerSpec, mountedRouters, offlineApp, type SchemaDescription } from '@gateway/app-edge';

export interface RouteBody {
  method: string;
  /** The router's template, e.g. `/api/clients/:id`. */
  path: string;
  schema: Joi.Schema;
  /** The body's keys that take an array in some form: where a huge one is worth sending. */
  arrayKeys: string[];
}

/** Every route that takes a JSON body, with the schema it validates the body with (from an edge built offline). */
export function routeBodies(): RouteBody[] {
  const { app, close } = offlineApp();
  try {
    const out: RouteBody[] = [];
    for (const { router } of mountedRouters(app))
      for (const layer of router.stack) {
        const schema = layerSpec(layer)?.request?.body;
        if (!schema) continue;
        const arrayKeys = Object.entries((schema.describe() as SchemaDescription).keys ?? {})
          .filter(([, d]) => JSON.stringify(d).includes('"type":"array"'))
          .map(([k]) => k);
        for (const method of layer.methods) if (method !== 'HEAD') out.push({ method, path: String(layer.path), schema, arrayKeys });
      }
    return out;
  } finally {
    close();
  }
}
