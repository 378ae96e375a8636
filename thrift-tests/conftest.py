"""Shim that lets happybase 1.3.0's own sdist tests run unchanged against any Thrift1 server.

thrift-gateway.md section 2.2: the sdist's tests call nose's ``assert_raises`` without
importing it and pass ``HAPPYBASE_PORT`` through as a str; they also have no switch for the
compact protocol. Only public happybase attributes are touched.
"""
import builtins
import os

import pytest

import happybase
import happybase.connection
import happybase.pool

builtins.assert_raises = pytest.raises
happybase.connection.DEFAULT_PORT = int(os.environ["HB_TEST_PORT"])

_protocol = os.environ.get("HB_TEST_PROTOCOL")
if _protocol:
    _Base = happybase.connection.Connection

    class _Connection(_Base):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("protocol", _protocol)
            super().__init__(*args, **kwargs)

    happybase.Connection = _Connection
    happybase.connection.Connection = _Connection
    happybase.pool.Connection = _Connection
