"""hbase-rest-py against ``cellbase rest``: tables, puts, gets, multi-gets, scanners with and
without filters, deletes, schema and namespaces, through the client's public API (Put, Get,
Scan, Delete, HBaseAdmin) and, for what it has no call for (multi-get, XML), its
``send_request`` with the REST paths HBase documents."""
import json
from base64 import b64decode

import pytest

from hbase.admin import HBaseAdmin
from hbase.delete import Delete
from hbase.get import Get
from hbase.put import Put
from hbase.rest_client import HBaseRESTClient
from hbase.scan import Scan
from hbase.scan_filter_helper import (
    build_base_scanner,
    build_column_prefix_filter,
    build_prefix_filter,
    build_row_filter,
    build_single_column_value_filter,
    build_value_filter,
)
from hbase.utils import Bytes

TABLE = "hrp_messages"


@pytest.fixture(scope="module")
def client():
    c = HBaseRESTClient(hosts_list=["ignored: conftest.py points at the gateway"])
    admin = HBaseAdmin(client=c)
    admin.table_delete(table_name=TABLE)
    admin.table_create_or_update(
        table_name=TABLE,
        params_list=[{"name": "m", "VERSIONS": "3"}, {"name": "s"}],
    )
    put = Put(client=c)
    rows = [
        (f"user{i:02d}", {"m:subject": f"subject {i}", "m:body": f"body {i}", "s:count": i})
        for i in range(20)
    ]
    assert put.bulk(TABLE, rows, timestamp=1000) == ""
    yield c
    admin.table_delete(table_name=TABLE)
    c.session.close()


def scan_all(client, payload):
    scan = Scan(client=client)
    rows = []
    more, result = scan.scan(TABLE, payload)
    while more:
        rows.extend(result["row"])
        more, result = scan.scan_next()
    return rows


def test_schema(client):
    schema = json.loads(HBaseAdmin(client=client).table_schema(table_name=TABLE))
    assert schema["name"] == TABLE
    families = {c["name"]: c for c in schema["ColumnSchema"]}
    assert set(families) == {"m", "s"}
    assert families["m"]["VERSIONS"] == "3"
    regions = json.loads(HBaseAdmin(client=client).table_regions(table_name=TABLE))
    assert regions["name"] == TABLE and len(regions["Region"]) == 1


def test_get_row_cell_and_versions(client):
    get = Get(client=client)
    row = get.get(TABLE, "user03")["row"][0]
    assert row["key"] == b"user03"
    cells = {c["column"]: c for c in row["cell"]}
    assert cells[b"m:subject"]["$"] == b"subject 3"
    assert cells[b"m:subject"]["timestamp"] == 1000
    assert Bytes.to_int(cells[b"s:count"]["$"]) == 3
    # A second version, then both through ?v=.
    Put(client=client).put(TABLE, "user03", {"m:subject": "edited"}, timestamp=2000)
    got = get.get(TABLE, "user03", column_family="m:subject", number_of_versions=2)
    values = [c["$"] for c in got["row"][0]["cell"]]
    assert values == [b"edited", b"subject 3"]
    # One version by its timestamp.
    got = get.get(TABLE, "user03", column_family="m:subject", timestamp=1000)
    assert [c["$"] for c in got["row"][0]["cell"]] == [b"subject 3"]
    # A missing row is HBase's 404.
    missing = get.get(TABLE, "nobody")
    assert missing["status_code"] == 404


def test_multiget(client):
    out = client.send_request("GET", f"/{TABLE}/multiget?row=user01&row=user05&row=nobody")
    keys = [b64decode(r["key"]) for r in json.loads(out)["Row"]]
    assert keys == [b"user01", b"user05"]


def test_scanners(client):
    # 7 cells per batch: rows split across batches come back in parts.
    rows = scan_all(client, build_base_scanner(batch=7))
    assert sum(len(r["cell"]) for r in rows) == 60
    keys = sorted({r["key"] for r in rows})
    assert keys == [f"user{i:02d}".encode() for i in range(20)]
    # Start and end rows and one column.
    rows = scan_all(client, build_base_scanner(startRow="user05", endRow="user08", column=["m:body"]))
    assert [(r["key"], [c["$"] for c in r["cell"]]) for r in rows] == [
        (b"user05", [b"body 5"]),
        (b"user06", [b"body 6"]),
        (b"user07", [b"body 7"]),
    ]


def test_scanner_filters(client):
    rows = scan_all(client, build_prefix_filter("user1"))
    assert len({r["key"] for r in rows}) == 10
    rows = scan_all(client, build_row_filter("user02", "LESS"))
    assert {r["key"] for r in rows} == {b"user00", b"user01"}
    rows = scan_all(client, build_value_filter("body 7", "EQUAL"))
    assert [(r["key"], r["cell"][0]["column"]) for r in rows] == [(b"user07", b"m:body")]
    rows = scan_all(client, build_value_filter("ubject 1", "EQUAL", comparator="substring"))
    assert len({r["key"] for r in rows}) == 11  # subject 1 and subject 10..19
    rows = scan_all(client, build_column_prefix_filter("sub"))
    assert {c["column"] for r in rows for c in r["cell"]} == {b"m:subject"}
    rows = scan_all(client, build_single_column_value_filter("m", "body", "body 9", "EQUAL"))
    assert {r["key"] for r in rows} == {b"user09"}


def test_delete(client):
    delete = Delete(client=client)
    assert delete.delete(TABLE, "user19", column_family="m:body") == ""
    row = Get(client=client).get(TABLE, "user19")["row"][0]
    assert {c["column"] for c in row["cell"]} == {b"m:subject", b"s:count"}
    assert delete.delete(TABLE, "user19") == ""
    assert Get(client=client).get(TABLE, "user19")["status_code"] == 404


def test_xml_cellset(client):
    xml = client.session.get(
        f"{client.get_hbase_host()}/{TABLE}/user00/m:body", headers={"Accept": "text/xml"}
    )
    assert xml.status_code == 200
    assert xml.headers["Content-Type"].startswith("text/xml")
    assert "<CellSet><Row key=\"dXNlcjAw\"><Cell column=\"bTpib2R5\" timestamp=\"1000\">Ym9keSAw</Cell></Row></CellSet>" in xml.text


def test_namespaces(client):
    admin = HBaseAdmin(client=client)
    admin.namespace_create(namespace_name="ns_rest")
    assert "ns_rest" in json.loads(admin.namespaces())["Namespace"]
    admin.table_create_or_update(table_name="ns_rest:t", params_list=[{"name": "f"}])
    Put(client=client).put("ns_rest:t", "r", {"f:q": "v"})
    assert Get(client=client).get("ns_rest:t", "r")["row"][0]["cell"][0]["$"] == b"v"
    tables = json.loads(admin.tables(namespace="ns_rest"))["table"]
    assert [t["name"] for t in tables] == ["t"]
    admin.table_delete(table_name="ns_rest:t")
    admin.namespace_delete(namespace_name="ns_rest")
    assert "ns_rest" not in json.loads(admin.namespaces())["Namespace"]
