"""Customer, Attributes, Tags and CustomAttributes through the Python client."""

from datetime import datetime, timezone

import chartmogul
import pytest

from support import MEMBER_EMAIL, api_error, id_of, new_customer, raw, unique, until


def mail(prefix):
    return unique(prefix).replace(" ", "-") + "@example.com"


@pytest.fixture(scope="module")
def customer(cfg, ds):
    return new_customer(cfg, ds, name="Richard Hendricks", email=mail("rh"), company="Pied Piper", country="US",
                        state="US-CA", city="San Francisco", zip="12345", lead_created_at="2015-11-01T00:00:00",
                        free_trial_started_at="2015-11-07 01:20:00 UTC",
                        attributes={"tags": ["managed"], "custom": [{"type": "String", "key": "channel", "value": "Facebook"}]})


def test_create(customer, ds):
    assert id_of("cus").match(customer.uuid)
    assert isinstance(customer.id, int)
    assert customer.name == "Richard Hendricks"
    assert customer.company == "Pied Piper"
    assert customer.status == "New Lead"
    assert customer.customer_since is None
    assert (customer.country, customer.state, customer.city, customer.zip) == ("US", "CA", "San Francisco", "12345")
    assert customer.lead_created_at == datetime(2015, 11, 1, tzinfo=timezone.utc)
    assert customer.free_trial_started_at == datetime(2015, 11, 7, 1, 20, tzinfo=timezone.utc)
    assert (customer.address.country, customer.address.state, customer.address.address_zip) == \
        ("United States", "California", "12345")
    assert customer.attributes.tags == ["managed"]
    assert customer.attributes.custom == {"channel": "Facebook"}
    assert customer.attributes.stripe == {}
    assert customer.data_source_uuid == ds.uuid
    assert customer.data_source_uuids == [ds.uuid]
    assert customer.external_ids == [customer.external_id]
    assert (customer.mrr, customer.arr) == (0, 0)
    assert customer.billing_system_type == "Custom"
    assert customer.chartmogul_url.endswith(f"/#/customers/{customer.id}-Pied_Piper")
    assert (customer.currency, customer.currency_sign) == ("USD", "$")


def test_create_with_only_the_required_fields(cfg, ds):
    bare = chartmogul.Customer.create(cfg, data={"data_source_uuid": ds.uuid, "external_id": unique("bare"),
                                                 "name": "Bare"}).get()
    assert (bare.email, bare.company) == ("", "")
    assert (bare.city, bare.zip, bare.country, bare.lead_created_at, bare.website_url) == (None,) * 5


def test_retrieve(cfg, customer):
    got = chartmogul.Customer.retrieve(cfg, uuid=customer.uuid).get()
    assert (got.uuid, got.name, got.email, got.attributes.tags) == (customer.uuid, customer.name, customer.email, ["managed"])
    body = api_error(chartmogul.Customer.retrieve(cfg, uuid="cus_00000000-0000-4000-8000-000000000000"), 404)
    assert body == {"code": 404, "message": 'Customer "00000000-0000-4000-8000-000000000000" does not exist',
                    "param": "customer_id"}


def test_modify_and_update(cfg, ds):
    c = new_customer(cfg, ds, email=mail("mod"))
    changed = chartmogul.Customer.modify(cfg, uuid=c.uuid, data={
        "name": "Renamed", "website_url": "example.com", "status": "Working_Lead", "owner": MEMBER_EMAIL,
        "attributes": {"tags": ["a", "b"]}}).get()
    assert changed.name == "Renamed"
    assert changed.website_url == "https://example.com"
    assert changed.status == "Working Lead"
    assert changed.attributes.tags == ["a", "b"]
    updated = chartmogul.Customer.update(cfg, uuid=c.uuid, data={"zip": "94301"}).get()
    assert (updated.zip, updated.name) == ("94301", "Renamed")
    body = api_error(chartmogul.Customer.modify(cfg, uuid=c.uuid, data={"country": "XX"}), 422)
    assert body["param"] == "country"


def test_all_with_cursor_and_filters(cfg, ds, customer):
    others = [new_customer(cfg, ds) for _ in range(2)]
    page = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, per_page=2).get()
    assert len(page.entries) == 2
    assert page.has_more is True
    rest = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, per_page=200, cursor=page.cursor).get()
    seen = [c.uuid for c in page.entries + rest.entries]
    for c in [customer, *others]:
        assert c.uuid in seen
    assert len(seen) == len(set(seen))
    by_ext = chartmogul.Customer.all(cfg, external_id=customer.external_id).get()
    assert [c.uuid for c in by_ext.entries] == [customer.uuid]
    assert by_ext.has_more is False
    empty = chartmogul.Customer.all(cfg, external_id=unique("none")).get()
    assert (empty.entries, empty.has_more, empty.cursor) == ([], False, None)


def test_search(cfg, customer):
    found = chartmogul.Customer.search(cfg, email=customer.email).get()
    assert [c.uuid for c in found.entries] == [customer.uuid]
    body = api_error(chartmogul.Customer.search(cfg, email="no@email.com"), 404)
    assert body == {"code": 404, "message": 'Can\'t find any customers with email: "no@email.com"', "param": "email"}


def test_destroy(cfg, ds):
    doomed = new_customer(cfg, ds)
    assert chartmogul.Customer.destroy(cfg, uuid=doomed.uuid).get() is None
    api_error(chartmogul.Customer.retrieve(cfg, uuid=doomed.uuid), 404)


def test_merge(cfg, ds):
    into, source = new_customer(cfg, ds), new_customer(cfg, ds)
    merged = chartmogul.Customer.merge(cfg, data={"from": {"customer_uuid": source.uuid},
                                                  "into": {"customer_uuid": into.uuid}}).get()
    assert merged is None  # 202 {}: the client returns None for every 202
    after = until("merge", lambda: chartmogul.Customer.retrieve(cfg, uuid=into.uuid).get(),
                  lambda c: len(c.external_ids) == 2)
    assert sorted(after.external_ids) == sorted([into.external_id, source.external_id])
    assert "merged-customer" in after.attributes.tags
    api_error(chartmogul.Customer.retrieve(cfg, uuid=source.uuid), 404)


def test_attributes_retrieve(cfg, customer):
    attrs = chartmogul.Attributes.retrieve(cfg, uuid=customer.uuid).get()
    assert attrs.stripe == {}
    assert attrs.custom["channel"] == "Facebook"
    assert isinstance(attrs.tags, list)


def test_tags_add_remove_and_by_email(cfg, ds):
    c = new_customer(cfg, ds, email=mail("tags"), attributes={"tags": ["managed"]})
    added = chartmogul.Tags.add(cfg, uuid=c.uuid, data={"tags": ["vip"]}).get()
    assert added.tags == ["managed", "vip"]
    removed = chartmogul.Tags.remove(cfg, uuid=c.uuid, data={"tags": ["managed"]}).get()
    assert removed.tags == ["vip"]
    by_email = chartmogul.Tags.add_by_email(cfg, data={"email": c.email, "tags": ["mail"]}).get()
    assert [e.uuid for e in by_email.entries] == [c.uuid]
    assert by_email.entries[0].attributes.tags == ["vip", "mail"]


def test_custom_attributes(cfg, ds):
    c = new_customer(cfg, ds, email=mail("custom"))
    added = chartmogul.CustomAttributes.add(cfg, uuid=c.uuid, data={"custom": [
        {"type": "Integer", "key": "seats", "value": 5}, {"type": "Boolean", "key": "paid", "value": "t"},
        {"type": "Timestamp", "key": "since", "value": "2016-01-31 00:00:00 UTC"}]}).get()
    assert added.custom == {"seats": 5, "paid": True, "since": "2016-01-31T00:00:00.000Z"}
    created = chartmogul.CustomAttributes.create(cfg, uuid=c.uuid, data={"custom": [
        {"type": "String", "key": "channel", "value": "Ads"}]}).get()
    assert created.custom["channel"] == "Ads"
    by_email = chartmogul.CustomAttributes.add_by_email(cfg, data={"email": c.email, "custom": [
        {"type": "String", "key": "channel", "value": "Mail"}]}).get()
    assert [e.uuid for e in by_email.entries] == [c.uuid]
    assert by_email.entries[0].attributes.custom["channel"] == "Mail"
    updated = chartmogul.CustomAttributes.update(cfg, uuid=c.uuid, data={"custom": {"seats": 7}}).get()
    assert updated.custom["seats"] == 7
    assert chartmogul.CustomAttributes.remove(cfg, uuid=c.uuid, data={"custom": ["seats"]}).get() is None
    got = chartmogul.CustomAttributes.retrieve(cfg, uuid=c.uuid).get()
    assert got.custom == {"paid": True, "since": "2016-01-31T00:00:00.000Z", "channel": "Mail"}
    body = api_error(chartmogul.CustomAttributes.update(cfg, uuid=c.uuid, data={"custom": {"nope": 1}}), 422)
    assert body["param"] == "custom"


def test_put_customer_on_the_wire_keeps_objects(cfg, customer):
    """Every customer response carries attributes and address as objects."""
    res = raw("GET", f"/v1/customers/{customer.uuid}", api_key=cfg.auth[0])
    body = res.json()
    assert isinstance(body["attributes"], dict) and isinstance(body["address"], dict)
    assert isinstance(body["attributes"]["custom"], dict)
