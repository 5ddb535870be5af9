import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { SimControl, listenLocal } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './index';
import { SAMPLE_MEDIA } from './routes/sample-media';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

/** A 1×1 PNG and a static WebP: real files of the types. */
const PNG = SAMPLE_MEDIA.image.bytes;
const WEBP = SAMPLE_MEDIA.sticker.bytes;

describe("the simulator's media API (supplement §2, §3)", () => {
  let sim: RunningProviderSim;
  let control: SimControl;
  let receiver: Server;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let other: { phone_number_id: string; waba_id: string; access_token: string };

  const uploadForm = (fields: Record<string, string>, file?: { bytes: Buffer; type: string; name: string }) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
    return form;
  };
  const upload = async (
    fields: Record<string, string>,
    file?: { bytes: Buffer; type: string; name: string },
    token = phone.access_token,
    phoneId = phone.phone_number_id,
  ) => {
    const res = await fetch(`${sim.url}/v21.0/${phoneId}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: uploadForm(fields, file),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const graph = async (method: string, path: string, token = phone.access_token) => {
    const res = await fetch(`${sim.url}/v21.0/${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, json: (await res.json()) as any };
  };

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await listenLocal(receiver);
    sim = await startProviderSim({
      port: 0,
      appId: 'app',
      appSecret: 's',
      verifyToken: 'v',
      configId: 'c',
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    });
    control = new SimControl(sim.url);
    phone = await control.phoneNumber();
    other = await control.phoneNumber();
  });
  afterAll(async () => {
    await sim.stop();
    await new Promise((r) => receiver.close(r));
  });

  it('uploads, answers the URL on the media host (not the Graph host), downloads with the token only, deletes', async () => {
    const up = await upload({ messaging_product: 'whatsapp', type: 'image/png' }, { bytes: PNG, type: 'image/png', name: 'a.png' });
    expect(up).toEqual({ status: 200, json: { id: expect.stringMatching(/^\d+$/) } });
    const info = await graph('GET', `${up.json.id}?phone_number_id=${phone.phone_number_id}`);
    expect(info.json).toEqual({
      messaging_product: 'whatsapp',
      url: expect.any(String),
      mime_type: 'image/png',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      file_size: String(PNG.length),
      id: up.json.id,
    });
    const url = new URL(info.json.url);
    expect(url.origin).toBe(sim.mediaBaseUrl);
    expect(url.origin).not.toBe(sim.url);

    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${other.access_token}` } })).status).toBe(404);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${phone.access_token}` } });
    expect([ok.status, ok.headers.get('content-type'), ok.headers.get('content-length')]).toEqual([200, 'image/png', String(PNG.length)]);
    expect(Buffer.from(await ok.arrayBuffer()).equals(PNG)).toBe(true);
    // a tampered link is nothing
    url.searchParams.set('ext', String(Date.now() + 3_600_000));
    expect((await fetch(url, { headers: { authorization: `Bearer ${phone.access_token}` } })).status).toBe(404);

    // another number of another account does not see it
    expect((await graph('GET', `${up.json.id}?phone_number_id=${other.phone_number_id}`, other.access_token)).json.error).toMatchObject({
      code: 100,
      error_subcode: 33,
    });
    expect((await graph('DELETE', `${up.json.id}?phone_number_id=${phone.phone_number_id}`)).json).toEqual({ success: true });
    expect((await graph('GET', up.json.id)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it.each([
    ['a type the provider does not take', { messaging_product: 'whatsapp', type: 'image/gif' }, { bytes: PNG, type: 'image/gif', name: 'a.gif' }, 131053],
    [
      'bytes that are not the declared type',
      { messaging_product: 'whatsapp', type: 'application/pdf' },
      { bytes: PNG, type: 'application/pdf', name: 'a.pdf' },
      131053,
    ],
    [
      'a static sticker over 100 KB',
      { messaging_product: 'whatsapp', type: 'image/webp' },
      { bytes: Buffer.concat([WEBP, Buffer.alloc(100 * 1024)]), type: 'image/webp', name: 's.webp' },
      131053,
    ],
    [
      'an image over 5 MB',
      { messaging_product: 'whatsapp', type: 'image/png' },
      { bytes: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), type: 'image/png', name: 'a.png' },
      131053,
    ],
    ['an empty file', { messaging_product: 'whatsapp', type: 'image/png' }, { bytes: Buffer.alloc(0), type: 'image/png', name: 'a.png' }, 131053],
    ['no messaging_product', { type: 'image/png' }, { bytes: PNG, type: 'image/png', name: 'a.png' }, 100],
    ['no file', { messaging_product: 'whatsapp', type: 'image/png' }, undefined, 100],
  ] as const)('refuses %s with the provider error %s', async (_name, fields, file, code) => {
    const res = await upload(fields as Record<string, string>, file as { bytes: Buffer; type: string; name: string } | undefined);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
  });

  it('refuses an upload to a number the token does not hold', async () => {
    const res = await upload(
      { messaging_product: 'whatsapp', type: 'image/png' },
      { bytes: PNG, type: 'image/png', name: 'a.png' },
      other.access_token,
      phone.phone_number_id,
    );
    expect(res.json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('a media id is sendable by its own account only; a received media downloads as the bytes the customer sent', async () => {
    await control.inboundMessage(phone.phone_number_id, '16505551234', 'text', { body: 'hi' });
    const inbound = await control.inboundMedia(phone.phone_number_id, '16505551234', 'document', {
      bytes: Buffer.from('%PDF-1.4\n%%EOF\n'),
      filename: 'order.pdf',
    });
    const sendBy = (p: typeof phone) =>
      fetch(`${sim.url}/v21.0/${p.phone_number_id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${p.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: '16505551234',
          type: 'document',
          document: { id: inbound.media_id },
        }),
      }).then(async (r) => (await r.json()) as any);
    expect((await sendBy(phone)).messages).toHaveLength(1);
    expect((await sendBy(other)).error).toMatchObject({ code: 131009 });
    const info = await graph('GET', inbound.media_id);
    const bytes = Buffer.from(await (await fetch(info.json.url, { headers: { authorization: `Bearer ${phone.access_token}` } })).arrayBuffer());
    expect(bytes.toString('latin1')).toBe('%PDF-1.4\n%%EOF\n');
  });

  it("answers a download without a User-Agent with a web page, not the file (provider-2026.md §9), and records each download's agent", async () => {
    const up = await upload({ messaging_product: 'whatsapp', type: 'image/png' }, { bytes: PNG, type: 'image/png', name: 'a.png' });
    const info = await graph('GET', up.json.id);
    // undici's request() sends no User-Agent of its own (fetch would add one)
    const dispatcher = new Agent();
    try {
      const bare = await request(info.json.url, { dispatcher, headers: { authorization: `Bearer ${phone.access_token}` } });
      const page = await bare.body.text();
      expect([bare.statusCode, String(bare.headers['content-type'])]).toEqual([200, 'text/html; charset=utf-8']);
      expect(page).toMatch(/^<!DOCTYPE html>/);
      const named = await request(info.json.url, { dispatcher, headers: { authorization: `Bearer ${phone.access_token}`, 'user-agent': 'shop/1.0' } });
      expect([named.statusCode, named.headers['content-type']]).toEqual([200, 'image/png']);
      expect(Buffer.from(await named.body.arrayBuffer()).equals(PNG)).toBe(true);
    } finally {
      await dispatcher.close();
    }
    expect((await control.mediaDownloads()).slice(-2).map((d) => d.user_agent)).toEqual([null, 'shop/1.0']);
  });

  it('forgets an uploaded media after 30 days and a received one after 7 (the simulator clock): unknown id, unsendable', async () => {
    await control.inboundMessage(phone.phone_number_id, '16505551234', 'text', { body: 'hi' });
    const up = await upload({ messaging_product: 'whatsapp', type: 'image/png' }, { bytes: PNG, type: 'image/png', name: 'a.png' });
    const received = await control.inboundMedia(phone.phone_number_id, '16505551234', 'image');
    const url = (await graph('GET', received.media_id)).json.url as string;
    const send = (id: string) =>
      fetch(`${sim.url}/v21.0/${phone.phone_number_id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${phone.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: '16505551234', type: 'image', image: { id } }),
      }).then(async (r) => (await r.json()) as any);
    const DAY = 86_400_000;
    try {
      await control.advanceClock(7 * DAY - 60_000);
      expect((await graph('GET', received.media_id)).status).toBe(200);
      // the URL handed out a week ago lived 5 minutes
      expect((await fetch(url, { headers: { authorization: `Bearer ${phone.access_token}` } })).status).toBe(404);
      await control.advanceClock(120_000);
      expect((await graph('GET', received.media_id)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
      expect((await send(received.media_id)).error).toMatchObject({ code: 131009 });
      expect((await graph('GET', up.json.id)).status).toBe(200);
      await control.advanceClock(23 * DAY);
      expect((await graph('GET', up.json.id)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
      expect((await send(up.json.id)).error).toMatchObject({ code: 131009 });
    } finally {
      await control.resetClock();
    }
  });
});
