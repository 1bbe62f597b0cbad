"""JsonImport, Invoice, Transaction, CustomerSubscription (Subscription) and
SubscriptionEvent through the Python client, on records imported once per module."""

from datetime import datetime, timezone

import chartmogul
import pytest

from support import SECONDS_Z, api_error, id_of, import_records, raw, unique, until

CUSTOMER = "cus-1"


def invoices(n, customer=CUSTOMER, prefix="inv"):
    return [{"external_id": f"{prefix}-{i + 1}", "customer_external_id": customer, "date": f"2024-0{i + 1}-01",
             "currency": "USD"} for i in range(n)]


@pytest.fixture(scope="module")
def imported(cfg, ds):
    invs = invoices(3)
    done = import_records(
        cfg, ds,
        customers=[{"external_id": CUSTOMER, "name": "Imported One"}, {"external_id": "cus-2", "name": "Two"},
                   {"external_id": "cus-3", "name": "Three"}],
        plans=[{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"}],
        invoices=invs + invoices(1, "cus-2", "two") + invoices(2, "cus-3", "three"),
        line_items=[{"invoice_external_id": inv["external_id"], "type": "subscription", "subscription_external_id": "sub-1",
                     "plan_external_id": "gold", "service_period_start": f"2024-0{i + 1}-01",
                     "service_period_end": f"2024-0{i + 2}-01", "amount_in_cents": 1000, "quantity": 1}
                    for i, inv in enumerate(invs)]
        + [{"invoice_external_id": "two-1", "type": "subscription", "subscription_external_id": "sub-a",
            "plan_external_id": "gold", "service_period_start": "2024-01-01", "service_period_end": "2024-02-01",
            "amount_in_cents": 500},
           {"invoice_external_id": "two-1", "type": "subscription", "subscription_external_id": "sub-b",
            "subscription_set_external_id": "set-b", "plan_external_id": "gold",
            "service_period_start": "2024-01-01", "service_period_end": "2024-02-01", "amount_in_cents": 700},
           # cus-3 moves from sub-old (cancelled) to sub-new: the case for connect_subscriptions.
           {"invoice_external_id": "three-1", "type": "subscription", "subscription_external_id": "sub-old",
            "plan_external_id": "gold", "service_period_start": "2024-01-01", "service_period_end": "2024-02-01",
            "amount_in_cents": 800, "cancelled_at": "2024-02-01"},
           {"invoice_external_id": "three-2", "type": "subscription", "subscription_external_id": "sub-new",
            "plan_external_id": "gold", "service_period_start": "2024-02-01", "service_period_end": "2024-03-01",
            "amount_in_cents": 900}],
        transactions=[{"invoice_external_id": inv["external_id"], "type": "payment", "result": "successful",
                       "date": inv["date"]} for inv in invs],
        subscription_events=[{"customer_external_id": CUSTOMER, "event_type": "subscription_cancelled",
                              "event_date": "2024-04-01", "effective_date": "2024-04-01",
                              "subscription_external_id": "sub-1", "external_id": "ev-imported"}])
    customer = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, external_id=CUSTOMER).get().entries[0]
    second = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, external_id="cus-2").get().entries[0]
    third = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, external_id="cus-3").get().entries[0]
    plan = chartmogul.Plan.all(cfg, data_source_uuid=ds.uuid).get().plans[0]
    return {"import": done, "customer": customer, "second": second, "third": third, "plan": plan}


def test_json_import_create_and_retrieve(cfg, ds, imported):
    done = imported["import"]
    assert done.status == "completed"
    assert done.data_source_uuid == ds.uuid
    assert done.status_details["plans"]["status"] == "imported"
    assert done.status_details[CUSTOMER]["invoices"]["status"] == "imported"
    assert done.created_at.tzinfo is not None
    again = chartmogul.JsonImport.retrieve(cfg, data_source_uuid=ds.uuid, id=done.external_id).get()
    assert again.id == done.id
    wire = raw("GET", f"/v1/data_sources/{ds.uuid}/json_imports/{done.id}", api_key=cfg.auth[0]).json()
    assert SECONDS_Z.match(wire["created_at"])


def test_invoice_all_for_a_customer_and_for_the_account(cfg, ds, imported):
    customer = imported["customer"]
    mine = chartmogul.Invoice.all(cfg, uuid=customer.uuid).get()
    assert mine.customer_uuid == customer.uuid
    assert sorted(i.external_id for i in mine.invoices) == ["inv-1", "inv-2", "inv-3"]
    inv = next(i for i in mine.invoices if i.external_id == "inv-1")
    assert inv.date == datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert inv.currency == "USD"
    assert inv.errors == {}
    line = inv.line_items[0]
    assert (line.type, line.amount_in_cents, line.quantity, line.prorated) == ("subscription", 1000, 1, False)
    assert line.plan_uuid == imported["plan"].uuid
    assert id_of("sub").match(line.subscription_uuid)
    assert inv.transactions[0].type == "payment" and inv.transactions[0].result == "successful"
    any_ = chartmogul.Invoice.all(cfg, data_source_uuid=ds.uuid, per_page=2).get()
    assert len(any_.invoices) == 2 and any_.has_more is True
    assert all(i.customer_uuid for i in any_.invoices)
    rest = chartmogul.Invoice.all(cfg, data_source_uuid=ds.uuid, per_page=200, cursor=any_.cursor).get()
    assert len(any_.invoices) + len(rest.invoices) == 6


def test_invoice_retrieve_by_uuid_and_by_external_id(cfg, ds, imported):
    mine = chartmogul.Invoice.all(cfg, uuid=imported["customer"].uuid).get()
    one = chartmogul.Invoice.retrieve(cfg, uuid=mine.invoices[0].uuid).get()
    assert (one.uuid, one.customer_uuid) == (mine.invoices[0].uuid, imported["customer"].uuid)
    by_ext = chartmogul.Invoice.retrieve(cfg, data_source_uuid=ds.uuid, external_id="inv-2").get()
    assert by_ext.external_id == "inv-2"
    body = api_error(chartmogul.Invoice.retrieve(cfg, uuid="inv_00000000-0000-4000-8000-000000000000"), 404)
    assert body["error"] == "Invoice not found"


def test_invoice_create_update_status_and_destroy(cfg, ds, imported):
    customer, plan = imported["customer"], imported["plan"]
    out = chartmogul.Invoice.create(cfg, uuid=customer.uuid, data={"invoices": [{
        "external_id": "inv-sync", "date": "2024-06-01 00:00:00", "currency": "USD", "data_source_uuid": ds.uuid,
        "line_items": [{"type": "subscription", "subscription_external_id": "sub-1", "plan_uuid": plan.uuid,
                        "service_period_start": "2024-06-01", "service_period_end": "2024-07-01",
                        "amount_in_cents": 1000, "quantity": 1},
                       {"type": "one_time", "description": "setup", "amount_in_cents": 500}],
        "transactions": [{"date": "2024-06-02", "type": "payment", "result": "successful"}]}]}).get()
    assert len(out.invoices) == 1
    inv = out.invoices[0]
    assert id_of("inv").match(inv.uuid)
    assert [li.type for li in inv.line_items] == ["subscription", "one_time"]
    assert inv.line_items[1].description == "setup"

    voided = chartmogul.Invoice.update_status(cfg, data_source_uuid=ds.uuid, external_id="inv-sync",
                                              data={"status": "voided"}).get()
    assert voided.status == "voided"
    assert chartmogul.Invoice.retrieve(cfg, uuid=inv.uuid).get().status == "voided"
    assert chartmogul.Invoice.destroy(cfg, uuid=inv.uuid).get() is None
    api_error(chartmogul.Invoice.retrieve(cfg, uuid=inv.uuid), 404)


def test_invoice_destroy_by_external_id(cfg, ds, imported):
    customer = imported["customer"]
    chartmogul.Invoice.create(cfg, uuid=customer.uuid, data={"invoices": [{
        "external_id": "inv-doomed", "date": "2024-07-01", "currency": "USD", "data_source_uuid": ds.uuid,
        "line_items": [{"type": "one_time", "amount_in_cents": 100}]}]}).get()
    assert chartmogul.Invoice.destroy(cfg, data_source_uuid=ds.uuid, external_id="inv-doomed").get() is None
    assert chartmogul.Invoice.all(cfg, data_source_uuid=ds.uuid, external_id="inv-doomed").get().invoices == []


def test_transaction_create(cfg, ds, imported):
    inv = chartmogul.Invoice.all(cfg, data_source_uuid=ds.uuid, external_id="inv-1").get().invoices[0]
    tr = chartmogul.Transaction.create(cfg, uuid=inv.uuid, data={"type": "refund", "date": "2024-01-15",
                                                                  "result": "successful", "external_id": "refund-1",
                                                                  "amount_in_cents": 300}).get()
    assert id_of("tr").match(tr.uuid)
    assert (tr.type, tr.external_id, tr.amount_in_cents) == ("refund", "refund-1", 300)
    assert tr.date == datetime(2024, 1, 15, tzinfo=timezone.utc)
    assert len(chartmogul.Invoice.retrieve(cfg, uuid=inv.uuid).get().transactions) == 2
    wire = raw("POST", f"/v1/import/invoices/{inv.uuid}/transactions", {
        "type": "refund", "date": "2024-01-16", "result": "successful", "external_id": "refund-2",
        "amount_in_cents": 100, "transaction_fees_in_cents": 2}, api_key=cfg.auth[0])
    assert wire.status_code == 201
    # The recorded answer: no transaction_fees_currency unless it was given.
    assert sorted(wire.json()) == sorted(["uuid", "external_id", "amount_in_cents", "type", "date", "result",
                                          "transaction_fees_in_cents"])


def test_imported_subscriptions_list_cancel_modify(cfg, ds, imported):
    customer = imported["customer"]
    with pytest.warns(DeprecationWarning):
        subs = chartmogul.Subscription.list_imported(cfg, uuid=customer.uuid).get()
    assert subs.customer_uuid == customer.uuid
    assert [s.external_id for s in subs.subscriptions] == ["sub-1"]
    sub = subs.subscriptions[0]
    assert (sub.plan_uuid, sub.data_source_uuid, sub.cancellation_dates) == (imported["plan"].uuid, ds.uuid, [])
    # PATCH answers 202 with the subscription (recorded); the client returns None for every 202.
    assert chartmogul.CustomerSubscription.cancel(cfg, uuid=sub.uuid, data={"cancelled_at": "2024-05-01"}).get() is None
    again = chartmogul.CustomerSubscription.list_imported(cfg, uuid=customer.uuid).get().subscriptions[0]
    assert again.cancellation_dates == [datetime(2024, 5, 1, tzinfo=timezone.utc)]
    assert chartmogul.CustomerSubscription.modify(cfg, uuid=sub.uuid, data={"cancellation_dates": []}).get() is None
    wire = raw("PATCH", f"/v1/import/subscriptions/{sub.uuid}", {"cancellation_dates": []}, api_key=cfg.auth[0])
    assert wire.status_code == 202
    assert wire.json()["cancellation_dates"] == [] and wire.json()["customer_uuid"] == customer.uuid


def test_customer_subscriptions_fill_a_missing_set_id(cfg, imported):
    """The Metrics-API view names a subscription without a set by its own external id
    (recorded), never null."""
    second = imported["second"]
    subs = chartmogul.Customer.subscriptions(cfg, uuid=second.uuid).get()
    by_ext = {s.external_id: s for s in subs.entries}
    assert sorted(by_ext) == ["sub-a", "sub-b"]
    assert by_ext["sub-a"].subscription_set_external_id == "sub-a"
    assert by_ext["sub-b"].subscription_set_external_id == "set-b"
    assert by_ext["sub-a"].plan == "Gold"
    assert by_ext["sub-a"].billing_cycle == "month"
    same = chartmogul.CustomerSubscription.all(cfg, uuid=second.uuid).get()
    assert sorted(s.uuid for s in same.entries) == sorted(s.uuid for s in subs.entries)


def test_connect_and_disconnect_subscriptions(cfg, ds, imported):
    third = imported["third"]
    until("subscriptions", lambda: chartmogul.Customer.subscriptions(cfg, uuid=third.uuid).get(),
          lambda s: len(s.entries) == 2)
    body = {"subscriptions": [{"data_source_uuid": ds.uuid, "external_id": "sub-old"},
                              {"data_source_uuid": ds.uuid, "external_id": "sub-new"}]}
    # 202 {}: the client returns None for every 202.
    assert chartmogul.Customer.connectSubscriptions(cfg, uuid=third.uuid, data=body).get() is None
    joined = until("connected", lambda: chartmogul.Customer.subscriptions(cfg, uuid=third.uuid).get(),
                   lambda s: len(s.entries) == 1)
    assert joined.entries[0].external_id == "sub-new"
    assert chartmogul.Customer.disconnectSubscriptions(cfg, uuid=third.uuid, data=body).get() is None
    until("disconnected", lambda: chartmogul.Customer.subscriptions(cfg, uuid=third.uuid).get(),
          lambda s: len(s.entries) == 2)


def test_subscription_events_create_all_modify_destroy(cfg, ds, imported):
    ev = chartmogul.SubscriptionEvent.create(cfg, data={"subscription_event": {
        "data_source_uuid": ds.uuid, "customer_external_id": CUSTOMER, "event_type": "subscription_start",
        "event_date": "2024-08-01", "effective_date": "2024-08-01", "subscription_external_id": "sub-2",
        "plan_external_id": "gold", "currency": "USD", "amount_in_cents": 2000, "external_id": "ev-created"}}).get()
    assert isinstance(ev.id, int)
    assert (ev.external_id, ev.amount_in_cents, ev.quantity, ev.currency) == ("ev-created", 2000, 1, "USD")
    assert ev.event_date == datetime(2024, 8, 1, tzinfo=timezone.utc)
    all_ = chartmogul.SubscriptionEvent.all(cfg, data_source_uuid=ds.uuid).get()
    assert sorted(e.external_id for e in all_.subscription_events) == ["ev-created", "ev-imported"]
    assert all_.has_more is False
    updated = chartmogul.SubscriptionEvent.modify_with_params(cfg, id=ev.id, data={"amount_in_cents": 2500}).get()
    assert updated.amount_in_cents == 2500
    by_ext = chartmogul.SubscriptionEvent.modify_with_params(
        cfg, data={"subscription_event": {"data_source_uuid": ds.uuid, "external_id": "ev-created", "quantity": 2}}).get()
    assert (by_ext.id, by_ext.quantity) == (ev.id, 2)
    assert chartmogul.SubscriptionEvent.destroy_with_params(cfg, id=ev.id).get() is None
    left = chartmogul.SubscriptionEvent.all(cfg, data_source_uuid=ds.uuid).get()
    assert [e.external_id for e in left.subscription_events] == ["ev-imported"]


def test_subscription_event_with_a_retraction(cfg, ds, imported):
    """A retraction's retracted_event_id is a string in every response (both official
    clients type it so), whatever JSON type it was sent as."""
    scheduled = chartmogul.SubscriptionEvent.create(cfg, data={"subscription_event": {
        "data_source_uuid": ds.uuid, "customer_external_id": CUSTOMER, "event_type": "subscription_start_scheduled",
        "event_date": "2024-09-01", "effective_date": "2030-01-01", "subscription_external_id": "sub-3",
        "plan_external_id": "gold", "currency": "USD", "amount_in_cents": 900, "external_id": "ev-sched"}}).get()
    for sent in (scheduled.id, str(scheduled.id)):
        retraction = chartmogul.SubscriptionEvent.create(cfg, data={"subscription_event": {
            "data_source_uuid": ds.uuid, "customer_external_id": CUSTOMER, "event_type": "subscription_event_retracted",
            "event_date": "2024-09-02", "effective_date": "2024-09-02", "subscription_external_id": "sub-3",
            "retracted_event_id": sent, "external_id": unique("ev-retract")}}).get()
        assert retraction.retracted_event_id == str(scheduled.id)
        listed = chartmogul.SubscriptionEvent.all(cfg, data_source_uuid=ds.uuid, external_id=retraction.external_id).get()
        assert [e.retracted_event_id for e in listed.subscription_events] == [str(scheduled.id)]
        chartmogul.SubscriptionEvent.destroy_with_params(cfg, id=retraction.id).get()


def test_subscription_event_echoes_input_types(cfg, ds, imported):
    """Numbers sent as strings come back as strings (recorded), and the client reads them."""
    ev = chartmogul.SubscriptionEvent.create(cfg, data={"subscription_event": {
        "data_source_uuid": ds.uuid, "customer_external_id": CUSTOMER, "event_type": "subscription_start",
        "event_date": "2024-10-01", "effective_date": "2024-10-01", "subscription_external_id": "sub-4",
        "plan_external_id": "gold", "currency": "USD", "amount_in_cents": "1000", "quantity": "3",
        "external_id": unique("ev-str")}}).get()
    assert (ev.amount_in_cents, ev.quantity) == (1000, 3)
    wire = raw("GET", f"/v1/subscription_events?data_source_uuid={ds.uuid}&external_id={ev.external_id}",
               api_key=cfg.auth[0]).json()["subscription_events"][0]
    assert (wire["amount_in_cents"], wire["quantity"]) == ("1000", "3")
    assert "event_order" not in wire  # documented, absent from every recording: shown only when set
