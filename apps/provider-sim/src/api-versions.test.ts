import { SimControl } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './index';

/* The Graph API versions the simulator models (provider-2026.md §1): each call says the version that served it. */
describe('the simulator serves the API versions it models', () => {
  let sim: RunningProviderSim;
  let control: SimControl;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  const servedFor = async (version: string) => {
    const res = await fetch(`${sim.url}/${version}/${phone.waba_id}/message_templates`, { headers: { authorization: `Bearer ${phone.access_token}` } });
    expect(res.status).toBe(200);
    return res.headers.get('facebook-api-version');
  };

  beforeAll(async () => {
    sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 's', verifyToken: 'v', configId: 'c' });
    control = new SimControl(sim.url);
    phone = await control.phoneNumber();
  });
  afterAll(async () => {
    await control.resetClock();
    await sim.stop();
  });

  it('a version still available serves the call; an expired one is served as the oldest available (facebook-api-version)', async () => {
    expect(await servedFor('v25.0')).toBe('v25.0');
    expect(await servedFor('v26.0')).toBe('v26.0');
    // v20.0 expired on 2026-09-24, v19.0 earlier: the oldest available at the simulator's clock serves them
    const oldest = await servedFor('v20.0');
    expect(oldest).toMatch(/^v2[1-9]\.0$/);
    expect(await servedFor('v19.0')).toBe(oldest);
  });

  it('versions expire on the simulator clock: past 2027-01-21, v21.0 is served as v22.0', async () => {
    const until = Date.parse('2027-01-22T00:00:00Z') - Date.now();
    if (until > 0) await control.advanceClock(until);
    expect(await servedFor('v21.0')).toBe('v22.0');
    expect(await servedFor('v25.0')).toBe('v25.0');
  });
});
