"""Helpers of the Python client suite: where the local stack is, a configured
chartmogul client, plain HTTP for what the client cannot send, the admin command, and
assertions on errors. run.sh (through test/with-stack.sh) sets SUBSIGHT_BASE_URL,
SUBSIGHT_API_KEY, SUBSIGHT_STACK_FILE and SUBSIGHT_ADMIN_BIN; without them everything
is read from .local/stack.json (a stack started with `make run`)."""

import base64
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import chartmogul
import pytest
import requests

REPO = Path(__file__).resolve().parents[2]
STACK_FILE = Path(os.environ.get("SUBSIGHT_STACK_FILE", REPO / ".local" / "stack.json"))

UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# "2023-12-15T12:25:56.950Z": data sources, notes, Import-API timestamps.
MILLIS_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
# "2022-05-18T09:48:34Z": subscription events, json imports.
SECONDS_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
UNAUTHORIZED = {"code": 401, "message": "No valid API key provided", "param": None}


def id_of(prefix):
    """A prefixed public id: id_of('ds') matches ds_<uuid>."""
    return re.compile(f"^{prefix}_{UUID}$")


def stack():
    """The local stack: .local/stack.json with the environment's overrides."""
    data = {}
    if STACK_FILE.exists():
        data = json.loads(STACK_FILE.read_text())
    data["base_url"] = os.environ.get("SUBSIGHT_BASE_URL", data.get("base_url", "")).rstrip("/")
    data["api_key"] = os.environ.get("SUBSIGHT_API_KEY", data.get("api_key", ""))
    if not data["base_url"] or not data["api_key"]:
        raise RuntimeError(f"no local stack: start one with make run, or run test/python/run.sh ({STACK_FILE})")
    return data


def config(api_key=None):
    """A chartmogul.Config for api_key (default: the demo account's) at the local stack.
    Config has no base URL argument: its uri attribute is the base URL with /v1.
    Retries are off, so that a 5xx (which should never happen) fails at once."""
    cfg = chartmogul.Config(api_key if api_key is not None else stack()["api_key"], max_retries=0)
    cfg.uri = stack()["base_url"] + "/v1"
    return cfg


def basic_auth(user, password=""):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def raw(method, path, body=None, headers=None, api_key=None):
    """A plain request for what the client cannot send. headers={'Authorization': None}
    sends none. Returns the requests.Response."""
    h = {"Authorization": basic_auth(api_key or stack()["api_key"])}
    h.update(headers or {})
    h = {k: v for k, v in h.items() if v is not None}
    data = None
    if body is not None:
        data = body if isinstance(body, str) else json.dumps(body)
        h.setdefault("Content-Type", "application/json")
    return requests.request(method, stack()["base_url"] + path, data=data, headers=h, timeout=30)


def unique(prefix):
    """A name that no other test run uses (filters that must see only this test's objects)."""
    return f"{prefix} {time.time_ns():x}-{secrets.token_hex(3)}"


def until(what, read, ok, timeout=60.0):
    """Reads until ok(value) holds (recomputation and imports are asynchronous)."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = read()
        if ok(last):
            return last
        time.sleep(0.25)
    raise AssertionError(f"{what}: still {last!r}")


def api_error(promise, status):
    """Asserts that the client's call failed with HTTP status and returns the parsed JSON
    error body. The client raises chartmogul.APIError from requests' HTTPError."""
    with pytest.raises(chartmogul.APIError) as info:
        promise.get()
    response = info.value.__cause__.response
    assert response.status_code == status, f"HTTP {response.status_code} {response.text}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    return response.json()


_admin_dir = None


def admin(command, *args):
    """`admin -local COMMAND ARGS...` against the running stack; its JSON output."""
    global _admin_dir
    if _admin_dir is None:
        _admin_dir = tempfile.mkdtemp(prefix="subsight-admin-")
        (Path(_admin_dir) / ".local").mkdir()
        shutil.copy(STACK_FILE, Path(_admin_dir) / ".local" / "stack.json")
    binary = os.environ.get("SUBSIGHT_ADMIN_BIN")
    cmd = [binary] if binary else ["go", "run", str(REPO / "infra" / "admin")]
    out = subprocess.run(cmd + ["-local", command, *args], cwd=_admin_dir, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"admin {command} {' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)


MEMBER_EMAIL, MEMBER_NAME = "owner@example.com", "Account Owner"


class Account:
    """A fresh account with one team member: its id, key and client configuration."""

    def __init__(self, name):
        out = admin("create-account", "-name", name)
        self.id = out["account_id"]
        # The suite calls faster than the production 40 requests a second.
        admin("set-limit", "-account", self.id, "-name", "requests_per_second", "-value", "100000")
        self.api_key = out["api_key"]
        self.config = config(self.api_key)
        admin("add-member", "-account", self.id, "-email", MEMBER_EMAIL, "-name", MEMBER_NAME)


def new_customer(cfg, ds, **fields):
    data = {"data_source_uuid": ds.uuid, "external_id": unique("cus"), "name": "Python Customer"}
    data.update(fields)
    return chartmogul.Customer.create(cfg, data=data).get()


def import_records(cfg, ds, **payload):
    """One json_imports batch, waited for until completed, every record imported."""
    created = chartmogul.JsonImport.create(cfg, data_source_uuid=ds.uuid,
                                           data={"external_id": unique("imp"), **payload}).get()
    done = until("import", lambda: chartmogul.JsonImport.retrieve(cfg, data_source_uuid=ds.uuid, id=created.id).get(),
                 lambda i: i.status == "completed")
    for key, detail in done.status_details.items():
        assert detail["status"] == "imported", (key, detail)
    return done
