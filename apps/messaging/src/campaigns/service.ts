import { campaigns as cp } from '@gateway/contracts';
import { defineService } from '@gateway/rpc';
import type { Campaigns } from './campaigns';

/** The CampaignsService of proto/campaigns, served by the messaging process (which owns the campaign tables). */
export function defineCampaignsService(c: Campaigns) {
  return defineService(cp.CampaignsService, {
    createCampaign: async (r) => ({ campaign: await c.create(r) }),
    addRecipients: (r) => c.addRecipients(r),
    getCampaign: async (r) => ({ campaign: await c.get(r) }),
    listCampaigns: (r) => c.list(r),
    listRecipients: (r) => c.recipients(r),
    controlCampaign: async (r) => ({ campaign: await c.control(r) }),
    listOptOuts: (r) => c.listOptOuts(r),
    addOptOuts: async (r) => ({ added: await c.addOptOuts(r) }),
    removeOptOuts: async (r) => ({ removed: await c.removeOptOuts(r) }),
  });
}
