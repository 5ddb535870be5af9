import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import {
  business as bz,
  calls as cl,
  campaigns as cp,
  conversations as cv,
  dispatcher as d,
  flows as fl,
  messaging as m,
  templates as tp,
  tenantDirectory as td,
} from '@gateway/contracts';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import ts from 'typescript';
import { componentSchemas } from '../openapi/components';
import { RECORDS, type AnyPresenter } from './index';
import * as records from './records';
import * as answers from './answers';

const ROUTES = join(__dirname, '..', 'routes');

/** `x.body = {...}` / `x.body = [...]` in a source text: a response body written out where it is answered. */
function inlineBodies(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      node.left.name.text === 'body' &&
      (ts.isObjectLiteralExpression(node.right) || ts.isArrayLiteralExpression(node.right))
    ) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('one presenter per answer', () => {
  it('no route writes a JSON body out itself: each answers through a presenter (respond), errors are thrown', () => {
    const files = readdirSync(ROUTES)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => join(ROUTES, f));
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((f) => inlineBodies(f))).toEqual([]);
  });

  it('finds a body written out in a route (the check above can fail)', () => {
    const route = 'router.get(path, async (ctx) => {\n  ctx.status = 201;\n  ctx.body = { api_key: res.apiKey };\n});\n';
    expect(inlineBodies('route.ts', route)).toEqual(['route.ts:3']);
  });

  it('each named record is a component schema under its name, and what it presents is exactly what its schema describes', () => {
    const components = componentSchemas();
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(components)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    const samples: Record<string, unknown> = {
      Tenant: create(td.TenantSchema, { id: 't1', webhookSecret: 'whsec_x', createdAt: '2026-01-01T00:00:00Z' }),
      AuditEntry: create(bz.AuditEntrySchema, { id: 'a1', actorKind: 'api_key', action: 'registerClient', status: 200, targetId: 'c1', code: 'x' }),
      AdminTenant: create(td.TenantSchema, { id: 't1', webhookSecret: 'whsec_x', createdAt: '2026-01-01T00:00:00Z', suspendedAt: '2026-01-02T00:00:00Z' }),
      Client: create(td.ClientSchema, { id: 'c1', signupFailureReason: 'internal', webhookEvents: ['chat'] }),
      SecretRotation: create(td.RotateWebhookSecretResponseSchema, { webhookSecret: 'whsec_y' }),
      Session: create(td.SessionSchema, { csrfToken: 'x' }),
      ApiKey: { key: create(td.ApiKeyInfoSchema, { prefix: 'gw_ab' }), currentPrefix: 'gw_ab' },
      AdminApiKey: create(td.ApiKeyInfoSchema, { prefix: 'gw_ab', revokedAt: '2026-01-01T00:00:00Z' }),
      Flow: create(fl.FlowSchema, { id: 'f1', tenantId: 't1', flowJson: '{"version":"7.0"}', validationErrorsJson: '[{"error":"x"}]' }),
      Message: create(m.MessageRecordSchema, {
        id: 'wamid.1',
        tenantId: 't1',
        statusHistory: [{ status: 'failed', at: '2026-01-01T00:00:00Z', errorsJson: '[{"code":1}]' }],
        errorsJson: '[{"code":1}]',
        pricingJson: '{"billable":true}',
        direction: 'in',
        contentJson: '{"type":"reaction","reaction":{"emoji":"x"}}',
        reactions: [{ emoji: 'x', from: '1650', messageId: 'wamid.2', at: '2026-01-01T00:00:00Z' }],
      }),
      Contact: create(cv.ContactSchema, { id: 'ct1', waId: '1650', aliases: [{ kind: 'wa_id', value: '1651' }] }),
      Conversation: create(cv.ConversationSchema, {
        contact: { id: 'ct1', userId: 'US.1' },
        lastMessage: { id: 'wamid.1', direction: 'out' },
        unread: 2,
      }),
      Delivery: create(d.DeliverySchema, { id: 'd1', status: 'succeeded', eventType: 'test', attemptLog: [{}] }),
      Template: create(tp.TemplateSchema, { id: '1', componentsJson: '[{"type":"BODY","text":"Hi"}]' }),
      DeadLetter: { seq: 3, subject: 'dead_letter.EVENTS', source: {}, error: 'x', at: '2026-01-01T00:00:00Z', headers: {}, data: 'é'.repeat(5000) },
      Call: create(cl.CallSchema, {
        id: 'wacid.1',
        direction: 'user_initiated',
        status: 'missed',
        timeline: [{ status: 'ringing', at: '2026-01-01T00:00:00Z', source: 'webhook' }],
        errorsJson: '[{"code":138021}]',
      }),
      CallPermission: create(cl.CallPermissionSchema, {
        status: 'temporary',
        expiresAt: '2026-01-08T00:00:00Z',
        actionsJson: '[{"action_name":"start_call"}]',
      }),
      CallingSettings: create(cl.CallingSettingsSchema, { enabled: true, callIconVisibility: 'DEFAULT', callHoursJson: '{"enabled":false}' }),
      Campaign: create(cp.CampaignSchema, { id: 'k1', status: 'running', ratePerSecond: 20, counts: { total: 2, queued: 1, sent: 1 } }),
      CampaignRecipient: create(cp.CampaignRecipientSchema, { id: '1', to: '16505551234', status: 'failed', errorCode: '131050' }),
      OptOut: create(cp.OptOutSchema, { user: '16505551234', source: 'api', createdAt: '2026-01-01T00:00:00Z' }),
    };
    expect(RECORDS.map((r) => r.name).sort()).toEqual(Object.keys(samples).sort());
    for (const record of RECORDS) {
      expect(components[record.name!]).toBe(record.schema);
      const body = record.present(samples[record.name!]) as Record<string, unknown>;
      const validate = ajv.getSchema(`#/components/schemas/${record.name}`)!;
      expect([record.name, validate(body) ? [] : validate.errors]).toEqual([record.name, []]);
      expect([record.name, Object.keys(body).sort()]).toEqual([record.name, Object.keys(record.schema.properties as object).sort()]);
    }
    // what a record leaves out is left out of its body too
    expect(records.Client.present(samples.Client as td.Client)).not.toHaveProperty('signup_failure_reason');
    expect(records.Flow.present(samples.Flow as fl.Flow)).toMatchObject({ flow_json: { version: '7.0' }, validation_errors: [{ error: 'x' }] });
    expect(records.Flow.present(samples.Flow as fl.Flow)).not.toHaveProperty('tenant_id');
  });

  it('a record or answer holding a secret says so, and only those', () => {
    const all: Array<[string, AnyPresenter]> = [...Object.entries(records), ...Object.entries(answers)].filter(
      (e): e is [string, AnyPresenter] => typeof (e[1] as AnyPresenter).present === 'function',
    );
    expect(
      all
        .filter(([, p]) => p.secret)
        .map(([n]) => n)
        .sort(),
    ).toEqual(['AdminApiKeyCreated', 'AdminTenant', 'ApiKeyCreated', 'SecretRotation', 'Session', 'Tenant', 'TenantCreated']);
  });
});
