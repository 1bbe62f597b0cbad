// What the "Connect Stripe" form sends: the PUT body of a data source's Stripe connection
// (docs/stripe.md, "Connecting"), and the checks the API makes, so that a typo is shown
// at the field before anything is sent. Nothing here keeps a secret.

export const DELETED_CUSTOMERS = [
  ['keep_anonymised', 'Keep their history, anonymised'],
  ['delete', 'Delete them and their data']
];

// connectionBody builds the PUT body. An empty API key field keeps the stored key;
// removeKey removes it.
export function connectionBody ({ webhookSecret, apiKey = '', removeKey = false, deletedCustomers }) {
  const body = { webhook_secret: webhookSecret.trim() };
  if (removeKey) body.api_key = null;
  else if (apiKey.trim()) body.api_key = apiKey.trim();
  if (deletedCustomers) body.settings = { deleted_customers: deletedCustomers };
  return body;
}

// secretProblems names, per field, what the API would refuse ({} when nothing).
export function secretProblems ({ webhookSecret, apiKey = '', removeKey = false }) {
  const out = {};
  const secret = webhookSecret.trim();
  if (!secret) out.webhook_secret = 'Paste the signing secret of the webhook endpoint.';
  else if (!/^whsec_\S/.test(secret)) out.webhook_secret = 'A signing secret starts with whsec_.';
  const key = apiKey.trim();
  if (key && !removeKey && !/^(rk|sk)_\S/.test(key)) out.api_key = 'A restricted key starts with rk_ (a secret key, sk_, also works).';
  return out;
}

const INVOICE_STATES = { open: 'issued', partially_paid: 'partially paid', paid: 'paid in full' };

// invoiceRules says in words when one collection method's invoices count.
function invoiceRules (r) {
  const excluded = [r.prevent_subscription_for_invoice_voided && 'voided', r.prevent_subscription_for_invoice_written_off && 'written off']
    .filter(Boolean);
  return `new subscribers when ${INVOICE_STATES[r.create_subscription_when_invoice_is] ?? r.create_subscription_when_invoice_is}, ` +
    `updates when ${INVOICE_STATES[r.update_subscription_when_invoice_is] ?? r.update_subscription_when_invoice_is}` +
    (excluded.length ? `; ${excluded.join(' and ')} invoices count for nothing` : '');
}

// settingsSummary is the source's metric settings as [label, value] rows, read-only
// (PATCH …/stripe/settings changes them); null churn recognition and refund handling
// follow the account's.
export function settingsSummary (s) {
  if (!s) return [];
  const rows = [
    ['Churn recognition', s.churn_recognition ?? 'the account\'s'],
    ['Refund handling', s.refund_handling ?? 'the account\'s']
  ];
  if (s.invoice_handling) {
    rows.push(['Invoices charged automatically', invoiceRules(s.invoice_handling.automatic)],
      ['Invoices sent to be paid', invoiceRules(s.invoice_handling.manual)]);
  }
  return rows;
}
