"""Fixtures for the Thrift2 suite: a generated ``THBaseService.Client`` in each of the four
transport/protocol modes against the ``cellbase thrift2`` that run.sh started
(``THRIFT2_PORT``), and a fresh table name per test and mode."""
import itertools
import os

import pytest
from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.transport import TSocket, TTransport

from thbase.hbase import THBaseService

PORT = int(os.environ["THRIFT2_PORT"])
MODES = [
    ("buffered", "binary"),
    ("framed", "binary"),
    ("buffered", "compact"),
    ("framed", "compact"),
]
_names = itertools.count()


def open_client(transport, protocol):
    sock = TSocket.TSocket("127.0.0.1", PORT)
    sock.setTimeout(30_000)
    tr = (TTransport.TFramedTransport if transport == "framed" else TTransport.TBufferedTransport)(sock)
    pr = (TCompactProtocol.TCompactProtocol if protocol == "compact" else TBinaryProtocol.TBinaryProtocol)(tr)
    tr.open()
    return THBaseService.Client(pr), tr


@pytest.fixture(params=MODES, ids=lambda m: f"{m[0]}-{m[1]}")
def mode(request):
    return request.param


@pytest.fixture
def client(mode):
    c, tr = open_client(*mode)
    yield c
    tr.close()


@pytest.fixture
def table_name(mode, request):
    """A table name unique to this test and mode (the server is shared)."""
    return f"t{next(_names)}_{mode[0]}_{mode[1]}"
