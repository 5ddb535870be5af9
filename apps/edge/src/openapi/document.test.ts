import Router from '@koa/router';
import Joi from 'joi';
import { validate, compileErrors } from '@readme/openapi-parser';
import { buildOpenApiDocument, joiSchema, routeEntries } from './document';
import { json, operation, ref } from './operation';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading a built document

describe('describing a route', () => {
  it('a new route is described by its operation(): a multipart upload, path and query parameters, its answers', async () => {
    const api = new Router();
    api.post(
      '/api/uploads',
      operation({
        operationId: 'uploadThing',
        summary: 'Upload a file',
        tags: ['Uploads'],
        request: {
          query: Joi.object({ client_id: Joi.string().guid().required() }),
          rawBody: {
            'multipart/form-data': {
              type: 'object',
              required: ['file'],
              properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
            },
          },
        },
        responses: { 201: json('Stored.', { type: 'object', properties: { id: { type: 'string' } } }) },
        errors: [404],
      }),
      (ctx) => {
        ctx.status = 201;
      },
    );
    api.get(
      '/api/uploads/:id',
      operation({
        operationId: 'getThing',
        summary: 'A file',
        tags: ['Uploads'],
        request: { path: Joi.object({ id: Joi.string().required() }) },
        responses: { 200: json('It.', ref('Client')) },
      }),
      () => undefined,
    );
    api.get('/api/undescribed', () => undefined);
    const doc = buildOpenApiDocument([{ router: api, mount: 'api' }], { serverUrl: 'http://localhost:8080', version: '1' }) as Obj;
    const upload = doc.paths['/api/uploads'].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    expect(upload.parameters[0]).toMatchObject({ name: 'client_id', in: 'query', required: true });
    expect(Object.keys(upload.responses)).toEqual(['201', '401', '403', '404', '408', '413', '415', '422', '429', '500', '503', '504']);
    expect(upload.security).toEqual([{ apiKey: [] }, { dashboardSession: [] }]);
    expect(doc.paths['/api/uploads/{id}'].get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    // a route without a description is left out of the document, and listed as such (the router coverage test fails on it)
    expect(doc.paths['/api/undescribed']).toBeUndefined();
    expect(
      routeEntries([{ router: api, mount: 'api' }])
        .filter((r) => !r.spec)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(['get /api/undescribed']);
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
  });

  it("joi's when branches become an anyOf that accepts what joi accepts", () => {
    const schema = Joi.object({
      type: Joi.string().valid('a', 'b').required(),
      url: Joi.when('type', { is: 'a', then: Joi.string().uri(), otherwise: Joi.string().uri().max(10) }),
      only_b: Joi.when('type', { is: 'b', then: Joi.string(), otherwise: Joi.forbidden() }),
    });
    const s = joiSchema(schema) as Obj;
    expect(JSON.stringify(s)).not.toContain('oneOf');
    expect(s.properties.only_b).toEqual({ type: 'string' });
    expect(s.properties.url.anyOf).toHaveLength(2);
  });
});
