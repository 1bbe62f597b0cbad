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
