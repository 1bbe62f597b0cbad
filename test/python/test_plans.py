"""Plan through the Python client."""

import chartmogul

from support import api_error, id_of, raw, unique


def test_create_retrieve_modify_destroy(cfg, ds):
    plan = chartmogul.Plan.create(cfg, data={"data_source_uuid": ds.uuid, "name": unique("Gold"),
                                             "interval_count": 1, "interval_unit": "month", "external_id": "gold"}).get()
    assert id_of("pl").match(plan.uuid)
    assert (plan.data_source_uuid, plan.interval_count, plan.interval_unit, plan.external_id) == \
        (ds.uuid, 1, "month", "gold")
    got = chartmogul.Plan.retrieve(cfg, uuid=plan.uuid).get()
    assert (got.uuid, got.name) == (plan.uuid, plan.name)
    # PATCH answers 202 with the plan (recorded); the client returns None for every 202.
    assert chartmogul.Plan.modify(cfg, uuid=plan.uuid, data={"name": "Platinum"}).get() is None
    assert chartmogul.Plan.retrieve(cfg, uuid=plan.uuid).get().name == "Platinum"
    wire = raw("PATCH", f"/v1/plans/{plan.uuid}", {"interval_count": 3}, api_key=cfg.auth[0])
    assert wire.status_code == 202
    assert wire.json()["interval_count"] == 3
    assert chartmogul.Plan.destroy(cfg, uuid=plan.uuid).get() is None
    body = api_error(chartmogul.Plan.retrieve(cfg, uuid=plan.uuid), 404)
    assert body["error"] == "Plan not found"


def test_create_without_external_id(cfg, ds):
    plan = chartmogul.Plan.create(cfg, data={"data_source_uuid": ds.uuid, "name": unique("Auto"),
                                             "interval_count": 7, "interval_unit": "day"}).get()
    assert plan.external_id == plan.uuid[len("pl_"):]


def test_all_with_cursor_and_filters(cfg, ds):
    source = chartmogul.DataSource.create(cfg, data={"name": unique("plans")}).get()
    made = [chartmogul.Plan.create(cfg, data={"data_source_uuid": source.uuid, "name": unique(f"P{i}"),
                                              "interval_count": 1, "interval_unit": "year"}).get().uuid
            for i in range(3)]
    first = chartmogul.Plan.all(cfg, data_source_uuid=source.uuid, per_page=2).get()
    assert len(first.plans) == 2 and first.has_more is True
    rest = chartmogul.Plan.all(cfg, data_source_uuid=source.uuid, per_page=2, cursor=first.cursor).get()
    assert rest.has_more is False
    assert sorted(p.uuid for p in first.plans + rest.plans) == sorted(made)
    one = chartmogul.Plan.all(cfg, data_source_uuid=source.uuid, external_id=first.plans[0].external_id).get()
    assert [p.uuid for p in one.plans] == [first.plans[0].uuid]
