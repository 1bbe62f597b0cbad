// A data source's Stripe connection (/v1/data_sources/{uuid}/stripe): the webhook URL to
// register in Stripe, the form that connects the source or replaces its secrets, and
// disconnecting it. The secrets typed here go only into the PUT's body: the fields are
// emptied once it is answered, and the page never shows one (the API never returns them).
import { clear, errorBox, h, loading } from '../dom.js';
import { connectionBody, DELETED_CUSTOMERS, secretProblems, settingsSummary } from '../stripe.js';

const stripeHref = (ds) => `#/stripe/${encodeURIComponent(ds)}`;
const connectionPath = (ds) => `/v1/data_sources/${encodeURIComponent(ds)}/stripe`;

// The page is served by the API's own deployment, so before a connection exists the
// webhook URL is the page's origin and the webhook path (what the API answers once
// connected).
const expectedWebhookURL = (ds) => `${location.origin}/stripe/webhooks/${ds}`;

export async function stripeView ({ api }, dsUUID) {
  const heading = h('h1', { tabindex: '-1' }, 'Connect Stripe');
  const sources = (await api.get('/v1/data_sources')).data_sources ?? [];
  if (!sources.length) {
    return h('div', {}, heading, h('p', { class: 'empty' }, 'This account has no data source yet: create one (POST /v1/data_sources) to connect it to Stripe.'));
  }
  const ds = sources.some((s) => s.uuid === dsUUID) ? dsUUID : sources[0].uuid;
  const select = h('select', { id: 's-source', name: 'source', onchange: () => { location.hash = stripeHref(select.value); } },
    sources.map((s) => h('option', { value: s.uuid, selected: s.uuid === ds }, `${s.name} (${s.uuid})`)));

  let conn = null;
  try {
    conn = await api.get(connectionPath(ds));
  } catch (e) {
    if (e.status !== 404 || e.param !== 'data_source_uuid' || !/Stripe connection/.test(e.message)) throw e;
  }

  const state = h('div', { class: 'panel stripe-state', id: 'stripe-state' });
  const outcome = h('div', { 'aria-live': 'polite', id: 'stripe-outcome' });
  const secret = h('input', { id: 's-secret', name: 'webhook-secret', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true,
    'aria-describedby': 's-secret-help s-secret-error' });
  const key = h('input', { id: 's-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': 's-key-help s-key-error' });
  const removeKey = h('input', { id: 's-remove-key', name: 'remove-key', type: 'checkbox' });
  const deleted = h('select', { id: 's-deleted', name: 'deleted-customers' },
    DELETED_CUSTOMERS.map(([v, label]) => h('option', { value: v }, label)));
  const fieldError = { webhook_secret: h('p', { id: 's-secret-error', class: 'field-error', hidden: true }),
    api_key: h('p', { id: 's-key-error', class: 'field-error', hidden: true }) };
  const inputOf = { webhook_secret: secret, api_key: key };
  const submit = h('button', { type: 'submit' });
  const removeRow = h('label', { class: 'check', for: 's-remove-key' }, removeKey, 'Remove the stored key');

  function showErrors (problems) {
    for (const [field, el] of Object.entries(fieldError)) {
      const msg = problems[field];
      el.textContent = msg ?? '';
      el.hidden = !msg;
      if (msg) inputOf[field].setAttribute('aria-invalid', 'true'); else inputOf[field].removeAttribute('aria-invalid');
    }
  }

  function drawState () {
    const url = conn?.webhook_url ?? expectedWebhookURL(ds);
    clear(state,
      h('h2', {}, conn ? 'Connected to Stripe' : 'Not connected to Stripe'),
      h('dl', { class: 'attributes' },
        h('div', { class: 'wide' }, h('dt', {}, 'Webhook URL to register in Stripe'), h('dd', {}, h('code', { id: 'stripe-webhook-url' }, url))),
        conn ? [
          h('div', {}, h('dt', {}, 'API key'), h('dd', { id: 'stripe-key' }, conn.api_key_last4 ? `…${conn.api_key_last4}` : 'none (no backfill)')),
          h('div', {}, h('dt', {}, 'Deleted customers'), h('dd', {}, DELETED_CUSTOMERS.find(([v]) => v === conn.settings.deleted_customers)?.[1] ?? conn.settings.deleted_customers)),
          settingsSummary(conn.settings).map(([label, value]) => h('div', { class: 'wide' }, h('dt', {}, label), h('dd', {}, value))),
          h('div', {}, h('dt', {}, 'Connected'), h('dd', {}, conn.connected_at)),
          h('div', {}, h('dt', {}, 'Updated'), h('dd', {}, conn.updated_at))
        ] : null),
      conn ? h('button', { type: 'button', class: 'chip', id: 'stripe-disconnect', onclick: disconnect }, 'Disconnect') : null);
    submit.textContent = conn ? 'Save the new secrets' : 'Connect';
    removeRow.hidden = !conn?.api_key_last4;
    removeKey.checked = false;
    deleted.value = conn?.settings.deleted_customers ?? 'keep_anonymised';
  }

  async function disconnect () {
    try {
      await api.del(connectionPath(ds));
      conn = null;
      drawState();
      clear(outcome, h('p', { class: 'note', role: 'status' }, 'Disconnected. What Stripe already sent stays in the data source; delete the endpoint in Stripe too.'));
    } catch (e) {
      if (e.status === 401) throw e;
      clear(outcome, errorBox(e));
    }
  }

  const form = h('form', { class: 'panel connect', id: 'stripe-form', novalidate: true, onsubmit: async (ev) => {
    ev.preventDefault();
    const fields = { webhookSecret: secret.value, apiKey: key.value, removeKey: removeKey.checked, deletedCustomers: deleted.value };
    const problems = secretProblems(fields);
    showErrors(problems);
    if (Object.keys(problems).length) {
      inputOf[Object.keys(problems)[0]].focus();
      return;
    }
    submit.disabled = true;
    try {
      conn = await api.put(connectionPath(ds), connectionBody(fields));
      secret.value = '';
      key.value = '';
      drawState();
      clear(outcome, h('p', { class: 'note', role: 'status' }, 'Saved. Stripe delivers to the webhook URL above once the endpoint is registered there.'));
    } catch (e) {
      if (e.status === 401) throw e;
      const field = e.param in fieldError ? e.param : null;
      if (field) showErrors({ [field]: e.message });
      clear(outcome, errorBox(e));
    } finally {
      submit.disabled = false;
    }
  } },
  h('h2', {}, 'Secrets'),
  h('ol', { class: 'help steps' },
    h('li', {}, 'In Stripe, add a webhook endpoint at the URL above, with API version 2026-02-25.clover.'),
    h('li', {}, 'Paste its signing secret here.'),
    h('li', {}, 'To read the account\'s history too, create a restricted key with read access and paste it.')),
  h('label', { for: 's-secret' }, 'Webhook signing secret'), secret,
  h('p', { id: 's-secret-help', class: 'help' }, 'whsec_…, shown by Stripe when the endpoint is created. Needed each time you save.'),
  fieldError.webhook_secret,
  h('label', { for: 's-key' }, 'Restricted API key (optional)'), key,
  h('p', { id: 's-key-help', class: 'help' }, 'rk_… with read access only. Left empty, the stored key stays.'),
  fieldError.api_key,
  removeRow,
  h('label', { for: 's-deleted' }, 'Customers deleted in Stripe'), deleted,
  submit);

  drawState();
  return h('div', {}, heading,
    h('form', { class: 'toolbar', onsubmit: (ev) => ev.preventDefault() }, h('label', { for: 's-source' }, 'Data source'), select),
    state, outcome, form);
}
