import type { ComponentChildren } from 'preact';
import { get, type Client, type Page } from '../api';
import { Loaded } from '../components';
import { useLoad } from '../hooks';

/**
 * A client select for the per-client pages (the 100 newest clients; a client named in the URL is kept even if
 * older, so direct links work). `allLabel` names the empty choice where it means every client.
 */
export function ClientPicker({
  value,
  onChange,
  id = 'client',
  allLabel,
}: {
  value: string | undefined;
  onChange: (id: string) => void;
  id?: string;
  allLabel?: string;
}) {
  const [load] = useLoad(() => get<Page<Client>>('/api/clients?limit=100'), []);
  const clients = load.state === 'ready' ? load.data.data : [];
  const known = clients.some((c) => c.id === value);
  return (
    <div class="field">
      <label for={id}>Client</label>
      <select id={id} value={value ?? ''} disabled={load.state === 'loading'} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">
          {load.state === 'loading'
            ? 'Loading clients…'
            : load.state === 'error'
              ? 'Could not load clients'
              : allLabel
                ? allLabel
                : clients.length
                  ? 'Choose a client'
                  : 'No clients yet'}
        </option>
        {value && !known && <option value={value}>{value}</option>}
        {clients.map((c) => (
          <option key={c.id} value={c.id}>
            {c.display_name} ({c.id.slice(0, 8)})
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Loads the client named in the URL first, so a page of a client that is not the tenant's (a direct link) shows
 * only the API's "not found", never its forms. `children` gets the client and a `reload` that fetches it again.
 */
export function WithClient({ id, children }: { id: string; children: (c: Client, reload: () => void) => ComponentChildren }) {
  const [load, reload] = useLoad(() => get<Client>(`/api/clients/${id}`), [id]);
  return (
    <Loaded load={load} what="the client" retry={reload}>
      {(c) => children(c, reload)}
    </Loaded>
  );
}
