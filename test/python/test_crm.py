"""EntityNote, Opportunity, Task, PlanGroup and Customer.unmerge through the Python
client, with the customer- and contact-scoped methods."""

from datetime import date, datetime, timezone

import chartmogul
import pytest

from support import MEMBER_EMAIL, MEMBER_NAME, UUID, api_error, id_of, new_customer, raw, unique, until

BARE_UUID = f"^{UUID}$"


@pytest.fixture(scope="module")
def customer(cfg, ds):
    return new_customer(cfg, ds)


@pytest.fixture(scope="module")
def contact(cfg, ds, customer):
    return chartmogul.Contact.create(cfg, data={"customer_uuid": customer.uuid, "data_source_uuid": ds.uuid,
                                                "email": unique("c").replace(" ", "-") + "@example.com"}).get()


def test_entity_note_methods(cfg, customer):
    n = chartmogul.EntityNote.create(cfg, data={"customer_uuid": customer.uuid, "type": "call", "text": "Called",
                                                "call_duration": 60}).get()
    assert id_of("note").match(n.uuid)
    assert (n.customer_uuid, n.type, n.text, n.call_duration) == (customer.uuid, "call", "Called", 60)
    assert n.author == f"{MEMBER_NAME} ({MEMBER_EMAIL})"
    assert n.associated_object is None and n.associated_object_uuid is None
    assert isinstance(n.created_at, datetime)
    got = chartmogul.EntityNote.retrieve(cfg, uuid=n.uuid).get()
    assert (got.uuid, got.text) == (n.uuid, "Called")
    modified = chartmogul.EntityNote.modify(cfg, uuid=n.uuid, data={"text": "Called again"}).get()
    assert modified.text == "Called again" and modified.updated_at > n.updated_at
    patched = chartmogul.EntityNote.patch(cfg, uuid=n.uuid, data={"call_duration": 90}).get()
    assert (patched.call_duration, patched.text) == (90, "Called again")
    listed = chartmogul.EntityNote.all(cfg, customer_uuid=customer.uuid, per_page=200).get()
    assert n.uuid in [e.uuid for e in listed.entries] and listed.has_more is False
    # The same note through the older route.
    assert chartmogul.CustomerNote.retrieve(cfg, uuid=n.uuid).get().text == "Called again"
    assert not hasattr(chartmogul.EntityNote.destroy(cfg, uuid=n.uuid).get(), "uuid")
    body = api_error(chartmogul.EntityNote.retrieve(cfg, uuid=n.uuid), 404)
    assert body == {"code": 404, "message": f'Note "{n.uuid[5:]}" does not exist', "param": "note_uuid"}


def test_customer_and_contact_entity_notes(cfg, customer, contact):
    mine = chartmogul.Customer.createEntityNote(cfg, uuid=customer.uuid, data={"type": "note", "text": "customer"}).get()
    theirs = chartmogul.Contact.createEntityNote(cfg, uuid=contact.uuid, data={"type": "note", "text": "contact"}).get()
    assert mine.customer_uuid == customer.uuid
    assert (theirs.customer_uuid, theirs.associated_object, theirs.associated_object_uuid) == (
        customer.uuid, "contact", contact.uuid)
    by_customer = [e.uuid for e in chartmogul.Customer.entityNotes(cfg, uuid=customer.uuid).get().entries]
    assert mine.uuid in by_customer and theirs.uuid in by_customer
    by_contact = chartmogul.Contact.entityNotes(cfg, uuid=contact.uuid).get()
    assert [e.uuid for e in by_contact.entries] == [theirs.uuid]
    assert by_contact.entries[0].associated_object_uuid == contact.uuid


def opportunity_data(**extra):
    data = {"owner": MEMBER_EMAIL, "pipeline": "New Business", "pipeline_stage": "Discovery",
            "estimated_close_date": "2024-03-30", "currency": "USD", "amount_in_cents": 100000, "type": "one-time",
            "forecast_category": "best_case", "win_likelihood": 30, "custom": [{"key": "from_campaign", "value": True}]}
    data.update(extra)
    return data


def test_opportunity_methods(cfg, customer):
    o = chartmogul.Opportunity.create(cfg, data={"customer_uuid": customer.uuid, **opportunity_data()}).get()
    assert (o.customer_uuid, o.owner, o.pipeline_stage, o.amount_in_cents) == (customer.uuid, MEMBER_EMAIL, "Discovery", 100000)
    assert o.estimated_close_date == date(2024, 3, 30)
    assert o.custom == {"from_campaign": True}
    assert (o.type, o.forecast_category, o.win_likelihood) == ("one-time", "best_case", 30)
    assert chartmogul.Opportunity.retrieve(cfg, uuid=o.uuid).get().uuid == o.uuid
    modified = chartmogul.Opportunity.modify(cfg, uuid=o.uuid, data={"estimated_close_date": "2024-04-30"}).get()
    assert modified.estimated_close_date == date(2024, 4, 30)
    patched = chartmogul.Opportunity.patch(cfg, uuid=o.uuid, data={"custom": [{"key": "seats", "value": 4}]}).get()
    assert patched.custom == {"from_campaign": True, "seats": 4}
    listed = chartmogul.Opportunity.all(cfg, customer_uuid=customer.uuid, pipeline="New Business").get()
    assert o.uuid in [e.uuid for e in listed.entries]
    assert listed.has_more is False
    chartmogul.Opportunity.destroy(cfg, uuid=o.uuid).get()
    api_error(chartmogul.Opportunity.retrieve(cfg, uuid=o.uuid), 404)


def test_customer_opportunities_and_the_owner(cfg, ds):
    c = new_customer(cfg, ds)
    o = chartmogul.Customer.createOpportunity(cfg, uuid=c.uuid, data=opportunity_data(win_likelihood=80)).get()
    assert o.customer_uuid == c.uuid and o.win_likelihood == 80
    assert [e.uuid for e in chartmogul.Customer.opportunities(cfg, uuid=c.uuid).get().entries] == [o.uuid]
    body = api_error(chartmogul.Customer.createOpportunity(cfg, uuid=c.uuid, data=opportunity_data(owner="nobody@example.com")), 422)
    assert body == {"code": 422, "message": '"nobody@example.com" is not a team member of this account', "param": "owner"}


def test_task_methods(cfg, customer):
    t = chartmogul.Task.create(cfg, data={"customer_uuid": customer.uuid, "task_details": "This is some task details text.",
                                          "assignee": MEMBER_EMAIL, "due_date": "2025-04-30T00:00:00Z"}).get()
    assert (t.customer_uuid, t.assignee, t.completed_at) == (customer.uuid, MEMBER_EMAIL, None)
    assert t.due_date == datetime(2025, 4, 30, tzinfo=timezone.utc)
    assert chartmogul.Task.retrieve(cfg, uuid=t.task_uuid).get().task_uuid == t.task_uuid
    done = chartmogul.Task.modify(cfg, uuid=t.task_uuid, data={"completed_at": "2025-04-20T00:00:00Z"}).get()
    assert done.completed_at == datetime(2025, 4, 20, tzinfo=timezone.utc)
    patched = chartmogul.Task.patch(cfg, uuid=t.task_uuid, data={"task_details": "updated"}).get()
    assert (patched.task_details, patched.completed_at) == ("updated", done.completed_at)
    completed = chartmogul.Task.all(cfg, customer_uuid=customer.uuid, completed=True).get()
    assert t.task_uuid in [e.task_uuid for e in completed.entries]
    assert t.task_uuid not in [e.task_uuid for e in chartmogul.Task.all(cfg, customer_uuid=customer.uuid, completed=False).get().entries]
    chartmogul.Task.destroy(cfg, uuid=t.task_uuid).get()
    body = api_error(chartmogul.Task.retrieve(cfg, uuid=t.task_uuid), 404)
    assert body == {"code": 404, "message": f'Task "{t.task_uuid}" does not exist', "param": "task_uuid"}


def test_customer_and_contact_tasks(cfg, ds, contact):
    owner = chartmogul.Customer.retrieve(cfg, uuid=contact.customer_uuid).get()
    mine = chartmogul.Customer.createTask(cfg, uuid=owner.uuid, data={"task_details": "customer", "assignee": MEMBER_EMAIL,
                                                                       "due_date": "2025-05-01"}).get()
    theirs = chartmogul.Contact.createTask(cfg, uuid=contact.uuid, data={"task_details": "contact", "assignee": MEMBER_EMAIL,
                                                                         "due_date": "2025-05-02"}).get()
    assert (theirs.customer_uuid, theirs.associated_object, theirs.associated_object_uuid) == (owner.uuid, "contact", contact.uuid)
    assert mine.associated_object is None
    assert {mine.task_uuid, theirs.task_uuid} <= {e.task_uuid for e in chartmogul.Customer.tasks(cfg, uuid=owner.uuid).get().entries}
    assert [e.task_uuid for e in chartmogul.Contact.tasks(cfg, uuid=contact.uuid).get().entries] == [theirs.task_uuid]
    api_error(chartmogul.Contact.createTask(cfg, uuid=contact.uuid, data={"task_details": "x", "assignee": "nobody@example.com",
                                                                         "due_date": "2025-05-02"}), 422)


def test_plan_group_methods(cfg, ds):
    plans = [chartmogul.Plan.create(cfg, data={"data_source_uuid": ds.uuid, "name": f"Grouped {n}", "interval_count": 1,
                                               "interval_unit": "month"}).get() for n in (1, 2)]
    g = chartmogul.PlanGroup.create(cfg, data={"name": "New Plan Group", "plans": [plans[0].uuid]}).get()
    assert id_of("plg").match(g.uuid) and (g.name, g.plans_count) == ("New Plan Group", 1)
    assert chartmogul.PlanGroup.retrieve(cfg, uuid=g.uuid).get().name == "New Plan Group"
    modified = chartmogul.PlanGroup.modify(cfg, uuid=g.uuid, data={"name": "Renamed", "plans": [p.uuid for p in plans]}).get()
    assert (modified.name, modified.plans_count) == ("Renamed", 2)
    groups = chartmogul.PlanGroup.all(cfg, per_page=200).get()
    assert g.uuid in [x.uuid for x in groups.plan_groups]
    in_group = chartmogul.PlanGroup.all(cfg, uuid=g.uuid).get()
    assert [(p.uuid, p.name, p.interval_unit) for p in in_group.plans] == [(p.uuid, p.name, "month") for p in plans]
    assert in_group.has_more is False
    wire = raw("GET", f"/v1/plan_groups/{g.uuid}/plans?per_page=1", api_key=cfg.auth[0]).json()
    assert (wire["current_page"], wire["total_pages"], wire["has_more"]) == (1, 2, True)
    assert chartmogul.PlanGroup.destroy(cfg, uuid=g.uuid).get() is None  # 204
    body = api_error(chartmogul.PlanGroup.retrieve(cfg, uuid=g.uuid), 404)
    assert body["error"] == "Plan group not found"
    body = api_error(chartmogul.PlanGroup.create(cfg, data={}), 422)
    assert body == {"name": ["Name can't be blank"], "plan_ids": ["Plan ids can't be blank"], "error_details": [
        {"param": "name", "code": "blank", "message": "Name can't be blank"},
        {"param": "plan_ids", "code": "blank", "message": "Plan ids can't be blank"}]}


def test_customer_unmerge(cfg, ds):
    a = new_customer(cfg, ds, name="Una")
    b = new_customer(cfg, ds, name="Unb")
    note = chartmogul.Customer.createEntityNote(cfg, uuid=b.uuid, data={"type": "note", "text": "b's"}).get()
    assert chartmogul.Customer.merge(cfg, data={"from": {"customer_uuid": b.uuid}, "into": {"customer_uuid": a.uuid}}).get() is None
    until("merge", lambda: chartmogul.Customer.retrieve(cfg, uuid=a.uuid).get(), lambda c: len(c.external_ids) == 2)
    answer = chartmogul.Customer.unmerge(cfg, data={"customer_uuid": a.uuid, "data_source_uuid": ds.uuid,
                                                    "external_id": b.external_id, "move_to_new_customer": ["notes"]}).get()
    assert answer is None  # 202 {}, which the client returns as None
    left = until("unmerge", lambda: chartmogul.Customer.retrieve(cfg, uuid=a.uuid).get(), lambda c: len(c.external_ids) == 1)
    assert left.external_ids == [a.external_id]
    found = chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid, external_id=b.external_id).get().entries
    assert len(found) == 1 and found[0].uuid not in (a.uuid, b.uuid) and found[0].name == "Una"
    assert chartmogul.EntityNote.retrieve(cfg, uuid=note.uuid).get().customer_uuid == found[0].uuid
    wire = raw("POST", "/v1/customers/unmerges", {"customer_uuid": a.uuid, "data_source_uuid": ds.uuid,
                                                 "external_id": a.external_id}, api_key=cfg.auth[0])
    assert wire.status_code == 422 and wire.json()["param"] == "customer_uuid"  # no longer merged
