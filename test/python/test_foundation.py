"""Ping, Account, DataSource and authentication through the Python client."""

import chartmogul
import pytest

from support import MILLIS_Z, UNAUTHORIZED, api_error, basic_auth, config, id_of, raw, stack, unique


def test_ping():
    pong = chartmogul.Ping.ping(config()).get()
    assert pong.data == "pong!"


def test_account_retrieve(account, cfg):
    acc = chartmogul.Account.retrieve(cfg).get()
    assert acc.id == account.id
    assert acc.currency == "USD"
    assert acc.time_zone == "UTC"
    assert acc.week_start_on in ("monday", "sunday")
    assert not hasattr(acc, "churn_recognition")


def test_account_retrieve_with_include(cfg):
    acc = chartmogul.Account.retrieve(
        cfg, include="churn_recognition,churn_when_zero_mrr,auto_churn_subscription,refund_handling,"
                     "proximate_movement_reclassification").get()
    assert acc.churn_recognition == "churn_at_time_of_cancelation"
    assert acc.churn_when_zero_mrr is False
    assert acc.auto_churn_subscription is False
    assert acc.refund_handling == "refund_ignore"
    assert acc.proximate_movement_reclassification == "reclassification_off"


def test_data_source_create_retrieve_all_destroy(cfg):
    name = unique("Python source")
    created = chartmogul.DataSource.create(cfg, data={"name": name}).get()
    assert id_of("ds").match(created.uuid)
    assert created.name == name
    assert created.system == "Import API"
    assert created.status == "idle"
    assert created.created_at.tzinfo is not None

    got = chartmogul.DataSource.retrieve(cfg, uuid=created.uuid).get()
    assert (got.uuid, got.name, got.created_at) == (created.uuid, name, created.created_at)

    listed = chartmogul.DataSource.all(cfg, name=name).get()
    assert [d.uuid for d in listed.data_sources] == [created.uuid]
    assert chartmogul.DataSource.all(cfg, name=unique("none")).get().data_sources == []

    assert chartmogul.DataSource.destroy(cfg, uuid=created.uuid).get() is None
    body = api_error(chartmogul.DataSource.retrieve(cfg, uuid=created.uuid), 404)
    assert body["error"] == "Data source not found"


def test_data_source_created_at_on_the_wire(cfg):
    created = raw("POST", "/v1/data_sources", {"name": unique("wire")}, api_key=cfg.auth[0])
    assert created.status_code == 201
    assert MILLIS_Z.match(created.json()["created_at"])


@pytest.mark.parametrize("password", ["secret", "KEY"])
def test_the_password_is_ignored(password):
    key = stack()["api_key"]
    res = raw("GET", "/v1/account", headers={"Authorization": basic_auth(key, key if password == "KEY" else password)})
    assert res.status_code == 200
    assert res.json()["id"] == stack()["account_id"]


def test_a_wrong_key_with_a_password_is_the_401():
    wrong = "wrong_key_0123456789abcdef"
    res = raw("GET", "/v1/ping", headers={"Authorization": basic_auth(wrong, wrong)})
    assert res.status_code == 401
    assert res.json() == UNAUTHORIZED
    assert api_error(chartmogul.Ping.ping(config(wrong)), 401) == UNAUTHORIZED


def test_no_key_is_the_401():
    res = raw("GET", "/v1/ping", headers={"Authorization": None})
    assert res.status_code == 401
    assert res.json() == UNAUTHORIZED
