// Unit tests of the "Connect Stripe" form's body and checks (node --test web/test/).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { errorParam } from '../src/api.js';
import { connectionBody, secretProblems, settingsSummary } from '../src/stripe.js';

describe('connect Stripe', () => {
  test('the settings shown read-only: the account\'s when null, invoice rules in words', () => {
    const rules = { create_subscription_when_invoice_is: 'paid', update_subscription_when_invoice_is: 'open',
      prevent_subscription_for_invoice_voided: true, prevent_subscription_for_invoice_written_off: true };
    const settings = { deleted_customers: 'keep_anonymised', metered_usage: 'exclude', churn_recognition: null,
      refund_handling: 'refund_full_only', invoice_handling: { automatic: rules,
        manual: { ...rules, create_subscription_when_invoice_is: 'open', prevent_subscription_for_invoice_voided: false } } };
    assert.deepEqual(settingsSummary(settings), [
      ['Churn recognition', 'the account\'s'],
      ['Refund handling', 'refund_full_only'],
      ['Invoices charged automatically', 'new subscribers when paid in full, updates when issued; voided and written off invoices count for nothing'],
      ['Invoices sent to be paid', 'new subscribers when issued, updates when issued; written off invoices count for nothing']
    ]);
    assert.deepEqual(settingsSummary(undefined), []);
  });

  test('the PUT body: an empty key field keeps the stored key, the box removes it', () => {
    const cases = [
      [{ webhookSecret: ' whsec_abc ', apiKey: '', deletedCustomers: 'keep_anonymised' },
        { webhook_secret: 'whsec_abc', settings: { deleted_customers: 'keep_anonymised' } }],
      [{ webhookSecret: 'whsec_abc', apiKey: ' rk_test_1234 ', deletedCustomers: 'delete' },
        { webhook_secret: 'whsec_abc', api_key: 'rk_test_1234', settings: { deleted_customers: 'delete' } }],
      [{ webhookSecret: 'whsec_abc', apiKey: 'rk_ignored', removeKey: true },
        { webhook_secret: 'whsec_abc', api_key: null }]
    ];
    for (const [fields, want] of cases) assert.deepEqual(connectionBody(fields), want);
  });
  test('what the API would refuse is named at its field before sending', () => {
    const cases = [
      [{ webhookSecret: 'whsec_abc', apiKey: 'rk_live_x' }, {}],
      [{ webhookSecret: 'whsec_abc', apiKey: 'sk_live_x' }, {}],
      [{ webhookSecret: 'whsec_abc', apiKey: 'pk_live_x', removeKey: true }, {}],
      [{ webhookSecret: '  ' }, { webhook_secret: 'Paste the signing secret of the webhook endpoint.' }],
      [{ webhookSecret: 'whsec_' }, { webhook_secret: 'A signing secret starts with whsec_.' }],
      [{ webhookSecret: 'sk_live_x', apiKey: 'pk_live_x' }, { webhook_secret: 'A signing secret starts with whsec_.',
        api_key: 'A restricted key starts with rk_ (a secret key, sk_, also works).' }]
    ];
    for (const [fields, want] of cases) assert.deepEqual(secretProblems(fields), want, JSON.stringify(fields));
  });
  test('the field an error names, in both error families', () => {
    assert.equal(errorParam({ code: 400, message: 'x', param: 'per_page' }), 'per_page');
    assert.equal(errorParam({ error: 'x', error_details: [{ param: 'api_key', code: 'invalid', message: 'x' }] }), 'api_key');
    assert.equal(errorParam({ errors: { name: 'x' } }), null);
    assert.equal(errorParam(null), null);
  });
});
