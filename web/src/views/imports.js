// A data source's json_imports (/v1/data_sources/{uuid}/json_imports), newest first, and one
// import's progress (…/json_imports/{id}): its status and each customer's, refreshed every
// two seconds until it is completed or failed.
import { clear, errorBox, h, loading, table } from '../dom.js';

const DONE = new Set(['completed', 'failed']);
const LISTED = 50;

const importHref = (ds, id) => `#/imports/${encodeURIComponent(ds)}/${encodeURIComponent(id)}`;

export async function importsView ({ api }, dsUUID, importID) {
  // Data sources are not paged: one request lists them all.
  const sources = (await api.get('/v1/data_sources')).data_sources ?? [];
  const select = h('select', { id: 'i-source', name: 'source', required: true },
    sources.map((s) => h('option', { value: s.uuid, selected: s.uuid === dsUUID }, `${s.name} (${s.uuid})`)));
  const idInput = h('input', { type: 'text', id: 'i-id', name: 'id', value: importID ?? '', required: true, autocomplete: 'off',
    'aria-describedby': 'i-id-help' });
  const result = h('div', { class: 'import-result', 'aria-live': 'polite' });
  const listing = h('div', { class: 'import-list' });
  let timer = null;

  // The API lists a source's imports in the order of their external ids; the newest are
  // the ones a person looks for, so the whole listing is read and sorted here.
  async function list (ds) {
    clear(listing, loading('the imports'));
    let imports;
    try {
      imports = await api.all(`/v1/data_sources/${encodeURIComponent(ds)}/json_imports`, {}, 'json_imports');
    } catch (e) {
      if (e.status === 401) throw e;
      clear(listing, errorBox(e));
      return;
    }
    imports.sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
    clear(listing,
      h('h2', {}, imports.length > LISTED ? `The ${LISTED} newest imports of ${imports.length}` : 'Imports of this data source'),
      table('Imports of this data source', [
        { label: 'Import', cell: (i) => h('a', { href: importHref(ds, i.id) }, i.id) },
        { label: 'External id', cell: (i) => i.external_id ?? '—' },
        { label: 'Status', cell: (i) => h('span', { class: `badge import-${i.status}` }, i.status) },
        { label: 'Created', cell: (i) => i.created_at },
        { label: 'Updated', cell: (i) => i.updated_at }
      ], imports.slice(0, LISTED), { empty: 'No json_import was sent to this data source yet.' }));
  }

  async function show (ds, id) {
    clearTimeout(timer);
    clear(result, loading('the import'));
    // The first answer is drawn before the view is attached; later ones stop once the
    // person has left the page.
    let first = true;
    const poll = async () => {
      let imp;
      try {
        imp = await api.get(`/v1/data_sources/${encodeURIComponent(ds)}/json_imports/${encodeURIComponent(id)}`);
      } catch (e) {
        if (e.status === 401) throw e;
        clear(result, errorBox(e));
        return;
      }
      if (!first && !result.isConnected) return;
      const details = Object.entries(imp.status_details ?? {});
      const counts = {};
      for (const [, d] of details) counts[d.status] = (counts[d.status] ?? 0) + 1;
      clear(result,
        h('dl', { class: 'attributes', id: 'import-summary' },
          h('div', {}, h('dt', {}, 'Import'), h('dd', {}, imp.id)),
          h('div', {}, h('dt', {}, 'External id'), h('dd', {}, imp.external_id ?? '—')),
          h('div', {}, h('dt', {}, 'Status'), h('dd', {}, h('span', { class: `badge import-${imp.status}`, id: 'import-status' }, imp.status))),
          h('div', {}, h('dt', {}, 'Created'), h('dd', {}, imp.created_at)),
          h('div', {}, h('dt', {}, 'Updated'), h('dd', {}, imp.updated_at)),
          h('div', {}, h('dt', {}, 'Records'), h('dd', {}, Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(', ') || '—'))),
        table('Progress per customer', [
          { label: 'Customer (external id)', cell: ([k]) => (k === 'plans' ? 'Plans' : k) },
          { label: 'Status', cell: ([, d]) => h('span', { class: `badge import-${d.status}` }, d.status) },
          { label: 'Details', cell: ([, d]) => Object.entries(d).filter(([k]) => k !== 'status').map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join('; ') }
        ], details, { empty: 'No records yet.' }),
        DONE.has(imp.status) ? null : h('p', { class: 'help' }, 'Refreshing every 2 seconds until the import finishes.'));
      if (!DONE.has(imp.status)) timer = setTimeout(poll, 2000);
      first = false;
    };
    await poll();
  }

  const form = h('form', { class: 'toolbar', onsubmit: (ev) => {
    ev.preventDefault();
    history.replaceState(null, '', importHref(select.value, idInput.value.trim()));
    show(select.value, idInput.value.trim());
  } },
  h('label', { for: 'i-source' }, 'Data source'), select,
  h('label', { for: 'i-id' }, 'Import id'), idInput,
  h('button', { type: 'submit' }, 'Show progress'));

  const view = h('div', {},
    h('h1', { tabindex: '-1' }, 'Imports'),
    sources.length ? form : h('p', { class: 'empty' }, 'This account has no data source yet.'),
    h('p', { id: 'i-id-help', class: 'help' }, 'The id (or the external_id you sent) of a json_import, or pick one from the data source\'s imports below.'),
    result,
    listing);
  select.addEventListener('change', () => {
    history.replaceState(null, '', `#/imports/${encodeURIComponent(select.value)}`);
    list(select.value);
  });
  if (dsUUID && importID) await show(dsUUID, importID);
  if (sources.length) await list(dsUUID && sources.some((s) => s.uuid === dsUUID) ? dsUUID : sources[0].uuid);
  return view;
}
