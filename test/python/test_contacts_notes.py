"""Contact, CustomerNote and the customer-scoped contact and note methods through the
Python client."""

import chartmogul
import pytest

from support import MEMBER_EMAIL, MEMBER_NAME, MILLIS_Z, admin, api_error, id_of, new_customer, raw, unique


def mail(prefix):
    return unique(prefix).replace(" ", "-") + "@example.com"


@pytest.fixture(scope="module")
def customer(cfg, ds):
    return new_customer(cfg, ds, email=mail("cus"))


@pytest.fixture(scope="module")
def toggle(account):
    """Contact custom attributes are defined by the operator, never through the API."""
    admin("define-attribute", "-account", account.id, "-object", "contact", "-key", "Toggle", "-type", "Boolean")
    return "Toggle"


def test_contact_create_retrieve(cfg, ds, customer):
    c = chartmogul.Contact.create(cfg, data={"customer_uuid": customer.uuid, "data_source_uuid": ds.uuid,
                                             "email": mail("c"), "first_name": "Ada", "external_id": "ext-1"}).get()
    assert id_of("con").match(c.uuid)
    assert (c.customer_uuid, c.customer_external_id, c.data_source_uuid) == (customer.uuid, customer.external_id, ds.uuid)
    assert (c.first_name, c.last_name, c.external_id, c.position) == ("Ada", None, "ext-1", 1)
    assert c.custom == {}
    got = chartmogul.Contact.retrieve(cfg, uuid=c.uuid).get()
    assert (got.uuid, got.email, got.first_name) == (c.uuid, c.email, "Ada")
    body = api_error(chartmogul.Contact.retrieve(cfg, uuid="con_00000000-0000-4000-8000-000000000000"), 404)
    assert body == {"code": 404, "message": 'Contact "00000000-0000-4000-8000-000000000000" does not exist',
                    "param": "contact_uuid"}


def test_contact_modify_keeps_custom_an_object(cfg, ds, customer, toggle):
    """Every contact response carries custom as an object, the PATCH answer included
    (recorded); an array there made every Contact.modify of the Python client raise."""
    c = chartmogul.Contact.create(cfg, data={"customer_uuid": customer.uuid, "data_source_uuid": ds.uuid,
                                             "email": mail("m")}).get()
    changed = chartmogul.Contact.modify(cfg, uuid=c.uuid, data={
        "first_name": "Foo", "position": 9, "custom": [{"key": toggle, "value": False}]}).get()
    assert changed.custom == {toggle: False}
    assert (changed.first_name, changed.position) == ("Foo", 9)
    wire = raw("PATCH", f"/v1/contacts/{c.uuid}", {"custom": [{"key": toggle, "value": True}]}, api_key=cfg.auth[0])
    assert wire.status_code == 200
    assert wire.json()["custom"] == {toggle: True}
    assert chartmogul.Contact.retrieve(cfg, uuid=c.uuid).get().custom == {toggle: True}


def test_contact_all_merge_destroy(cfg, ds, customer):
    a = chartmogul.Contact.create(cfg, data={"customer_uuid": customer.uuid, "data_source_uuid": ds.uuid,
                                             "email": mail("a"), "first_name": "Kept"}).get()
    b = chartmogul.Contact.create(cfg, data={"customer_uuid": customer.uuid, "data_source_uuid": ds.uuid,
                                             "email": mail("b"), "phone": "+1"}).get()
    listed = chartmogul.Contact.all(cfg, customer_external_id=customer.external_id, per_page=200).get()
    uuids = [c.uuid for c in listed.entries]
    assert a.uuid in uuids and b.uuid in uuids
    assert listed.has_more is False
    page = chartmogul.Contact.all(cfg, customer_external_id=customer.external_id, per_page=1).get()
    assert len(page.entries) == 1 and page.has_more is True and page.cursor

    merged = chartmogul.Contact.merge(cfg, into_uuid=a.uuid, from_uuid=b.uuid).get()
    assert merged.uuid == a.uuid
    assert (merged.first_name, merged.phone) == ("Kept", "+1")
    api_error(chartmogul.Contact.retrieve(cfg, uuid=b.uuid), 404)
    # 200 {}: the client loads the empty object as a Contact without fields.
    assert not hasattr(chartmogul.Contact.destroy(cfg, uuid=a.uuid).get(), "uuid")
    api_error(chartmogul.Contact.retrieve(cfg, uuid=a.uuid), 404)


def test_customer_contacts_and_create_contact(cfg, ds):
    c = new_customer(cfg, ds)
    made = chartmogul.Customer.createContact(cfg, uuid=c.uuid, data={"data_source_uuid": ds.uuid,
                                                                      "first_name": "Via"}).get()
    assert made.customer_uuid == c.uuid
    assert made.first_name == "Via"
    listed = chartmogul.Customer.contacts(cfg, uuid=c.uuid, per_page=10).get()
    assert [x.uuid for x in listed.entries] == [made.uuid]
    assert (listed.has_more, listed.cursor is not None) == (False, True)


def test_note_create_retrieve_modify_patch_destroy(cfg, customer):
    note = chartmogul.CustomerNote.create(cfg, data={"customer_uuid": customer.uuid, "type": "call", "text": "Called",
                                                     "call_duration": 90, "author_email": MEMBER_EMAIL}).get()
    assert id_of("note").match(note.uuid)
    assert (note.type, note.text, note.call_duration) == ("call", "Called", 90)
    assert note.author == f"{MEMBER_NAME} ({MEMBER_EMAIL})"
    got = chartmogul.CustomerNote.retrieve(cfg, uuid=note.uuid).get()
    assert (got.uuid, got.created_at, got.author) == (note.uuid, note.created_at, note.author)
    modified = chartmogul.CustomerNote.modify(cfg, uuid=note.uuid, data={"text": "Called again"}).get()
    assert modified.text == "Called again"
    assert modified.created_at == note.created_at and modified.updated_at > note.updated_at
    patched = chartmogul.CustomerNote.patch(cfg, uuid=note.uuid, data={"call_duration": 30}).get()
    assert (patched.text, patched.call_duration) == ("Called again", 30)
    # 200 {}: the client loads the empty object as a CustomerNote without fields.
    assert not hasattr(chartmogul.CustomerNote.destroy(cfg, uuid=note.uuid).get(), "uuid")
    body = api_error(chartmogul.CustomerNote.retrieve(cfg, uuid=note.uuid), 404)
    assert body["param"] == "note_uuid"


def test_notes_without_author_email_list_with_an_author(cfg, ds):
    """A note created without author_email is attributed (never a null author), so that
    CustomerNote.all and Customer.notes can read a customer's notes."""
    c = new_customer(cfg, ds)
    made = chartmogul.Customer.createNote(cfg, uuid=c.uuid, data={"type": "note", "text": "no author"}).get()
    # The rule: the account's first team member (docs/clients.md).
    assert made.author == f"{MEMBER_NAME} ({MEMBER_EMAIL})"
    listed = chartmogul.CustomerNote.all(cfg, customer_uuid=c.uuid).get()
    assert [(n.uuid, n.author) for n in listed.entries] == [(made.uuid, made.author)]
    via_customer = chartmogul.Customer.notes(cfg, uuid=c.uuid).get()
    assert [n.uuid for n in via_customer.entries] == [made.uuid]
    assert via_customer.has_more is False


def test_customer_notes_newest_first_with_cursor(cfg, ds):
    c = new_customer(cfg, ds)
    made = []
    for i in range(3):
        made.insert(0, chartmogul.Customer.createNote(cfg, uuid=c.uuid, data={
            "type": "note", "text": f"n{i}", "created_at": f"2024-01-0{i + 1}T00:00:00Z",
            "author_email": MEMBER_EMAIL}).get().uuid)
    first = chartmogul.Customer.notes(cfg, uuid=c.uuid, per_page=2).get()
    assert first.has_more is True
    rest = chartmogul.CustomerNote.all(cfg, customer_uuid=c.uuid, per_page=2, cursor=first.cursor).get()
    assert [n.uuid for n in first.entries + rest.entries] == made
    assert MILLIS_Z.match(raw("GET", f"/v1/customer_notes/{made[0]}", api_key=cfg.auth[0]).json()["created_at"])
