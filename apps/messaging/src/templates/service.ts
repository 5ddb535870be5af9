import { templates as tp } from '@gateway/contracts';
import { defineService } from '@gateway/rpc';
import { presentTemplate, type Templates } from './templates';

/** The TemplatesService of proto/templates, served by the messaging process (which owns the template copy). */
export function defineTemplatesService(t: Templates) {
  return defineService(tp.TemplatesService, {
    createTemplate: async (r) => ({ template: presentTemplate(await t.create(r)) }),
    getTemplate: async (r) => ({ template: presentTemplate(await t.get(r)) }),
    listTemplates: async (r) => {
      const { records, nextCursor } = await t.list(r);
      return { templates: records.map(presentTemplate), nextCursor };
    },
    deleteTemplates: async (r) => ({ deleted: await t.delete(r) }),
    syncTemplates: async (r) => t.sync(r),
  });
}
