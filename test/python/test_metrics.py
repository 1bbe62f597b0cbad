"""Metrics, Activity and CustomerActivity through the Python client, on a small
portfolio imported once (hand computation by month, 2024):
  c1 pays 1000 from 1 Jan, 2000 from 1 Feb (expansion); c2 pays 3000 from 1 Feb (in a
  subscription set), cancels 15 Mar.
  Jan: mrr 1000, customers 1.  Feb: mrr 5000, customers 2.  Mar: mrr 2000, customers 1."""

from datetime import date, datetime, timezone

import chartmogul
import pytest

from support import api_error, basic_auth, import_records, raw, until

Q = {"start_date": "2024-01-01", "end_date": "2024-03-31", "interval": "month"}


def invoice(ext, customer, start, end, amount, **line):
    return ({"external_id": ext, "customer_external_id": customer, "date": start, "currency": "USD"},
            {"invoice_external_id": ext, "type": "subscription", "subscription_external_id": f"{customer}-sub",
             "plan_external_id": "monthly", "service_period_start": start, "service_period_end": end,
             "amount_in_cents": amount, "quantity": 1, **line},
            {"invoice_external_id": ext, "type": "payment", "result": "successful", "date": start})


@pytest.fixture(scope="module")
def portfolio(cfg, ds):
    records = [
        invoice("c1-1", "c1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000),
        invoice("c1-2", "c1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 2000),
        invoice("c1-3", "c1", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z", 2000),
        invoice("c2-1", "c2", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 3000, subscription_set_external_id="set-2"),
        invoice("c2-2", "c2", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z", 3000, subscription_set_external_id="set-2",
                cancelled_at="2024-03-15T00:00:00Z"),
    ]
    import_records(cfg, ds,
                   customers=[{"external_id": "c1", "name": "Customer One", "country": "US"},
                              {"external_id": "c2", "name": "Customer Two", "country": "DE"}],
                   plans=[{"external_id": "monthly", "name": "Monthly", "interval_count": 1, "interval_unit": "month"}],
                   invoices=[r[0] for r in records], line_items=[r[1] for r in records],
                   transactions=[r[2] for r in records])
    until("series", lambda: chartmogul.Metrics.mrr(cfg, **Q).get(),
          lambda r: [e.mrr for e in r.entries] == [1000, 5000, 2000])
    until("activities", lambda: chartmogul.Activity.all(cfg, per_page=200).get(), lambda r: len(r.entries) == 4)
    customers = {c.external_id: c for c in chartmogul.Customer.all(cfg, data_source_uuid=ds.uuid).get().entries}
    return customers


def test_metrics_all(cfg, portfolio):
    got = chartmogul.Metrics.all(cfg, **Q).get()
    assert [e.date for e in got.entries] == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31)]
    assert [e.mrr for e in got.entries] == [1000, 5000, 2000]
    assert [e.customers for e in got.entries] == [1, 2, 1]
    assert [e.arr for e in got.entries] == [12000, 60000, 24000]
    assert got.summary.current_mrr is not None


@pytest.mark.parametrize("method,key,want", [
    ("mrr", "mrr", [1000, 5000, 2000]),
    ("arr", "arr", [12000, 60000, 24000]),
    ("arpa", "arpa", [1000, 2500, 2000]),
    ("asp", "asp", [1000, 3000, 0]),
    ("customer_count", "customers", [1, 2, 1]),
    ("customer_churn_rate", "customer_churn_rate", [0, 0, 50]),
])
def test_metric_methods(cfg, portfolio, method, key, want):
    got = getattr(chartmogul.Metrics, method)(cfg, **Q).get()
    assert [getattr(e, key) for e in got.entries] == want
    assert isinstance(got.summary.current, float) and isinstance(got.summary.previous, float)


def test_mrr_movements_mrr_churn_rate_and_ltv(cfg, portfolio):
    mrr = chartmogul.Metrics.mrr(cfg, **Q).get()
    assert [e.mrr_new_business for e in mrr.entries] == [1000, 3000, 0]
    assert [e.mrr_expansion for e in mrr.entries] == [0, 1000, 0]
    assert [e.mrr_churn for e in mrr.entries] == [0, 0, -3000]
    rate = chartmogul.Metrics.mrr_churn_rate(cfg, **Q).get()
    assert rate.entries[2].mrr_churn_rate == 60
    ltv = chartmogul.Metrics.ltv(cfg, **Q).get()
    assert ltv.entries[2].ltv == 4000


def test_filters_in_the_chartmogul_filter_language(cfg, portfolio):
    """The Metrics API's filters parameter (ChartMogul Filter Language), as the client's
    README shows it: every invoice is in USD, so currency~ANY~'USD' is the whole
    portfolio; region~ANY~'DE' is c2 alone; customer_since before February is c1 alone."""
    usd = chartmogul.Metrics.mrr(cfg, filters="currency~ANY~'USD'", **Q).get()
    assert [e.mrr for e in usd.entries] == [1000, 5000, 2000]
    de = chartmogul.Metrics.mrr(cfg, filters="region~ANY~'DE'", **Q).get()
    assert [e.mrr for e in de.entries] == [0, 3000, 0]
    early = chartmogul.Metrics.all(cfg, filters="customer_since~LT~2024-02-01~AND~currency~ANY~'USD'", **Q).get()
    assert [e.mrr for e in early.entries] == [1000, 2000, 2000]
    assert [e.customers for e in early.entries] == [1, 1, 1]
    body = api_error(chartmogul.Metrics.all(cfg, filters="region~GT~'DE'", **Q), 400)
    assert body["param"] == "filters"
    assert body["message"] == ('Invalid value for parameter "filters": The filter region does not take the operator GT '
                               '(it takes ANY, NONE, IS, IS_NOT) in "region~GT~\'DE\'"')


def test_metrics_bad_query_is_a_400(cfg):
    body = api_error(chartmogul.Metrics.mrr(cfg, start_date="2024-13-01", end_date="2024-03-31"), 400)
    assert body["param"] == "start-date"


def test_activity_all(cfg, portfolio):
    """Activity.all reads every activity: each carries every recorded key with a value
    (a subscription without a set is named by its own external id)."""
    got = chartmogul.Activity.all(cfg, per_page=200).get()
    assert sorted(a.type for a in got.entries) == ["churn", "expansion", "new_biz", "new_biz"]
    assert got.has_more is False  # per_page is on the wire; the client does not keep it
    first = got.entries[0]
    assert first.date == datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert (first.type, first.activity_mrr, first.activity_arr, first.activity_mrr_movement) == ("new_biz", 1000, 12000, 1000)
    assert (first.customer_name, first.customer_external_id) == ("Customer One", "c1")
    assert (first.subscription_external_id, first.subscription_set_external_id) == ("c1-sub", "c1-sub")
    assert first.plan_external_id == "monthly"
    assert first.customer_uuid == portfolio["c1"].uuid
    c2 = [a for a in got.entries if a.customer_external_id == "c2"]
    assert {a.subscription_set_external_id for a in c2} == {"set-2"}
    page1 = chartmogul.Activity.all(cfg, per_page=3).get()
    page2 = chartmogul.Activity.all(cfg, per_page=3, cursor=page1.cursor).get()
    assert [a.uuid for a in page1.entries + page2.entries] == [a.uuid for a in got.entries]
    churns = chartmogul.Activity.all(cfg, type="churn", start_date="2024-03-01").get()
    assert [a.activity_mrr_movement for a in churns.entries] == [-3000]


def test_customer_activity_all(cfg, portfolio):
    got = chartmogul.CustomerActivity.all(cfg, uuid=portfolio["c1"].uuid).get()
    assert [a.type for a in got.entries] == ["new_biz", "expansion"]
    assert [a.activity_mrr for a in got.entries] == [1000, 2000]
    assert all(isinstance(a.id, int) for a in got.entries)
    assert got.entries[0].subscription_external_id == "c1-sub"
    assert got.entries[0].currency_sign == "$"


def test_an_unknown_metric_is_a_400(cfg):
    res = raw("GET", "/v1/metrics/churn?start-date=2024-01-01&end-date=2024-03-31", api_key=cfg.auth[0])
    assert res.status_code == 400
    assert res.json() == {"code": 400, "param": "metric", "message": 'Unknown metric "churn" (one of all, mrr, arr, arpa, '
                          'asp, customer-count, customer-churn-rate, mrr-churn-rate, ltv)'}


def test_a_pipeline_connector_pages_with_page_and_start_after(cfg, portfolio):
    """What a data-pipeline connector sends, through plain HTTP: the key as user name and
    password, customers paged with the legacy page=N, activities with
    start-after=<last activity uuid>. Both walks end, with every record once; a paging
    parameter a listing does not serve is a 400, never a first page again."""
    key = cfg.auth[0]
    auth = {"Authorization": basic_auth(key, key)}
    customers, page = [], 1
    while True:
        res = raw("GET", f"/v1/customers?per_page=1&page={page}", headers=auth)
        assert res.status_code == 200, res.text
        body = res.json()
        assert (body["current_page"], body["page"], body["per_page"]) == (page, page, 1)
        customers += [c["external_id"] for c in body["entries"]]
        if not body["has_more"]:
            assert body["total_pages"] == page
            break
        page += 1
        assert page <= 5, "the page walk does not end"
    assert sorted(customers) == ["c1", "c2"]
    beyond = raw("GET", f"/v1/customers?per_page=1&page={page + 3}", headers=auth).json()
    assert (beyond["entries"], beyond["has_more"], beyond["cursor"]) == ([], False, None)

    every = [a["uuid"] for a in raw("GET", "/v1/activities?per_page=200", headers=auth).json()["entries"]]
    walked, query = [], "/v1/activities?per_page=1"
    for _ in range(10):
        res = raw("GET", query, headers=auth)
        assert res.status_code == 200, res.text
        body = res.json()
        walked += [a["uuid"] for a in body["entries"]]
        if not body["has_more"]:
            break
        query = f"/v1/activities?per_page=1&start-after={walked[-1]}"
    assert walked == every and len(every) == 4
    after_last = raw("GET", f"/v1/activities?start-after={every[-1]}", headers=auth).json()
    assert (after_last["entries"], after_last["has_more"]) == ([], False)

    for path, param in [("/v1/activities?offset=1", "offset"), ("/v1/customers?start-after=x", "start-after"),
                        ("/v1/contacts?page=2", "page"), ("/v1/activities?start-after=00000000-0000-8000-8000-000000000000", "start-after")]:
        res = raw("GET", path, headers=auth)
        assert res.status_code == 400 and res.json()["param"] == param, (path, res.text)
