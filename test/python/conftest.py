"""Fixtures of the Python client suite (helpers in support.py)."""

import chartmogul
import pytest

from support import Account, unique


@pytest.fixture(scope="module")
def account():
    """A fresh account per test module, so that whole lists can be asserted."""
    return Account(unique("Python"))


@pytest.fixture(scope="module")
def cfg(account):
    return account.config


@pytest.fixture(scope="module")
def ds(cfg):
    """A data source of the module's account."""
    return chartmogul.DataSource.create(cfg, data={"name": unique("Python DS")}).get()
