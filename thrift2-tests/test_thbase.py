"""thbase 1.3.14's generated ``THBaseService.Client`` (HBase 2.x's Thrift2 IDL, Apache Thrift
gen-py) through every method of ``cellbase thrift2``, in all four transport/protocol modes,
and thbase's high-level ``thbase.thrift2.client.Client`` for put/get/scan/delete.

Expected behaviour is HBase 2.6's ``ThriftHBaseServiceHandler`` + ``ThriftUtilities``
(docs/THRIFT2.md lists where cellbase differs)."""
import pytest
from thrift.Thrift import TApplicationException, TMessageType

from thbase.hbase.ttypes import (
    TAppend, TColumn, TColumnFamilyDescriptor, TColumnIncrement, TColumnValue, TCompareOp,
    TDelete, TDeleteType, TDurability, TGet, TIllegalArgument, TIncrement, TIOError,
    TMutation, TNamespaceDescriptor, TPut, TRowMutations, TScan, TTableDescriptor,
    TTableName, TThriftServerType, TTimeRange, TAccessControlEntity, TBloomFilterType,
    TCompressionAlgorithm, TDataBlockEncoding, TKeepDeletedCells, TLogQueryFilter,
)

from conftest import PORT


def tname(name):
    ns, _, q = name.rpartition(":")
    return TTableName(ns=(ns or "default").encode(), qualifier=q.encode())


def create(c, name, families=(("cf", 3),), split_keys=None):
    cols = [TColumnFamilyDescriptor(name=f.encode(), maxVersions=v) for f, v in families]
    c.createTable(TTableDescriptor(tableName=tname(name), columns=cols), split_keys or [])
    return name.encode()


def cv(f, q, v, ts=None):
    return TColumnValue(family=f.encode(), qualifier=q.encode(), value=v.encode(), timestamp=ts)


def cells(result):
    return [(c.family.decode(), c.qualifier.decode(), c.value.decode(), c.timestamp)
            for c in result.columnValues]


def values(result):
    return [(c.family.decode(), c.qualifier.decode(), c.value.decode()) for c in result.columnValues]


def test_server_type(client):
    assert client.getThriftServerType() == TThriftServerType.TWO


def test_put_get_timestamps_versions_and_missing_rows(client, table_name):
    t = create(client, table_name)
    client.put(t, TPut(row=b"r", columnValues=[cv("cf", "a", "v1", 10), cv("cf", "b", "x")],
                       timestamp=5))
    client.put(t, TPut(row=b"r", columnValues=[cv("cf", "a", "v2", 20)]))
    r = client.get(t, TGet(row=b"r"))
    assert r.row == b"r"
    # The TPut's timestamp stamps the cells without their own; every cell is a Put (type 4).
    assert cells(r) == [("cf", "a", "v2", 20), ("cf", "b", "x", 5)]
    assert {c.type for c in r.columnValues} == {4}
    assert r.stale is False and r.partial is False
    # maxVersions, then an exact timestamp, which wins over a time range.
    r = client.get(t, TGet(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"a")], maxVersions=5))
    assert cells(r) == [("cf", "a", "v2", 20), ("cf", "a", "v1", 10)]
    r = client.get(t, TGet(row=b"r", timestamp=10, timeRange=TTimeRange(minStamp=0, maxStamp=100),
                           maxVersions=5))
    assert cells(r) == [("cf", "a", "v1", 10)]
    r = client.get(t, TGet(row=b"r", timeRange=TTimeRange(minStamp=0, maxStamp=15), maxVersions=5))
    assert cells(r) == [("cf", "a", "v1", 10), ("cf", "b", "x", 5)]
    # A family alone is the whole family.
    r = client.get(t, TGet(row=b"r", columns=[TColumn(family=b"cf")]))
    assert len(r.columnValues) == 2
    # A missing row: no row, no cells.
    r = client.get(t, TGet(row=b"nope"))
    assert r.row is None and r.columnValues == []
    # maxVersions must be positive.
    with pytest.raises(TIOError):
        client.get(t, TGet(row=b"r", maxVersions=0))
    with pytest.raises(TIOError):
        client.get(b"no_such_table", TGet(row=b"r"))


def test_get_multiple_exists_filters_and_store_limits(client, table_name):
    t = create(client, table_name, families=(("cf", 1), ("cg", 1)))
    client.putMultiple(t, [
        TPut(row=b"a", columnValues=[cv("cf", "q1", "1"), cv("cf", "q2", "2"), cv("cf", "q3", "3"),
                                     cv("cg", "q1", "4")]),
        TPut(row=b"b", columnValues=[cv("cf", "q1", "5")]),
    ])
    rs = client.getMultiple(t, [TGet(row=b"a"), TGet(row=b"zz"), TGet(row=b"b")])
    assert [r.row for r in rs] == [b"a", None, b"b"]
    assert len(rs[0].columnValues) == 4 and rs[1].columnValues == []
    assert client.exists(t, TGet(row=b"a")) is True
    assert client.exists(t, TGet(row=b"zz")) is False
    assert client.existsAll(t, [TGet(row=b"zz"), TGet(row=b"b")]) == [False, True]
    # existence_only: HBase's Result then holds only the exists flag.
    r = client.get(t, TGet(row=b"a", existence_only=True))
    assert r.row is None and r.columnValues == []
    # storeLimit / storeOffset apply per family.
    r = client.get(t, TGet(row=b"a", storeLimit=1, storeOffset=1))
    assert values(r) == [("cf", "q2", "2")]
    r = client.get(t, TGet(row=b"a", storeLimit=1))
    assert values(r) == [("cf", "q1", "1"), ("cg", "q1", "4")]
    # The filter language.
    r = client.get(t, TGet(row=b"a", filterString=b"QualifierFilter(=, 'binary:q3')"))
    assert values(r) == [("cf", "q3", "3")]
    with pytest.raises(TIOError) as e:
        client.get(t, TGet(row=b"a", filterString=b"NoSuchFilter('x')"))
    assert "filter" in e.value.message


def test_delete_types(client, table_name):
    t = create(client, table_name, families=(("cf", 5),))
    for ts in (1, 2, 3):
        client.put(t, TPut(row=b"r", columnValues=[cv("cf", "a", f"a{ts}", ts), cv("cf", "b", f"b{ts}", ts),
                                                   cv("cf", "c", f"c{ts}", ts)]))

    def versions(q):
        r = client.get(t, TGet(row=b"r", columns=[TColumn(family=b"cf", qualifier=q.encode())],
                               maxVersions=5))
        return [c.timestamp for c in r.columnValues]

    # DELETE_COLUMN without a timestamp: the latest version only; with one: exactly it.
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"a")],
                                   deleteType=TDeleteType.DELETE_COLUMN))
    assert versions("a") == [2, 1]
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"a", timestamp=1)],
                                   deleteType=TDeleteType.DELETE_COLUMN))
    assert versions("a") == [2]
    # DELETE_COLUMNS (the IDL default) up to a timestamp.
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"b", timestamp=2)]))
    assert versions("b") == [3]
    # DELETE_FAMILY_VERSION needs a timestamp.
    with pytest.raises(TIOError):
        client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf")],
                                       deleteType=TDeleteType.DELETE_FAMILY_VERSION))
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf", timestamp=3)],
                                   deleteType=TDeleteType.DELETE_FAMILY_VERSION))
    assert (versions("a"), versions("b"), versions("c")) == ([2], [], [2, 1])
    # DELETE_FAMILY up to a timestamp.
    client.deleteSingle(t, TDelete(row=b"r", columns=[TColumn(family=b"cf", timestamp=1)],
                                   deleteType=TDeleteType.DELETE_FAMILY))
    assert versions("c") == [2]
    # No columns: the whole row, up to the top-level timestamp.
    client.put(t, TPut(row=b"s", columnValues=[cv("cf", "a", "old", 5), cv("cf", "b", "new", 50)]))
    client.deleteSingle(t, TDelete(row=b"s", timestamp=10))
    assert values(client.get(t, TGet(row=b"s"))) == [("cf", "b", "new")]
    # deleteMultiple answers an empty list (HBase 2 throws on a failure instead).
    assert client.deleteMultiple(t, [TDelete(row=b"r"), TDelete(row=b"s", durability=TDurability.SKIP_WAL)]) == []
    assert client.getMultiple(t, [TGet(row=b"r"), TGet(row=b"s")])[0].columnValues == []


def test_check_and_mutate_family(client, table_name):
    t = create(client, table_name)
    put = TPut(row=b"r", columnValues=[cv("cf", "q", "1")])
    # No value: the cell must be absent.
    assert client.checkAndPut(t, b"r", b"cf", b"q", None, put) is True
    assert client.checkAndPut(t, b"r", b"cf", b"q", None, put) is False
    assert client.checkAndPut(t, b"r", b"cf", b"q", b"2", TPut(row=b"r", columnValues=[cv("cf", "q", "3")])) is False
    assert client.checkAndPut(t, b"r", b"cf", b"q", b"1", TPut(row=b"r", columnValues=[cv("cf", "q", "2")])) is True
    assert values(client.get(t, TGet(row=b"r"))) == [("cf", "q", "2")]
    # checkAndMutate compares the given value with the stored one: "1" < "2".
    rm = TRowMutations(row=b"r", mutations=[
        TMutation(put=TPut(row=b"r", columnValues=[cv("cf", "p", "x")])),
        TMutation(deleteSingle=TDelete(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"q")])),
    ])
    assert client.checkAndMutate(t, b"r", b"cf", b"q", TCompareOp.GREATER, b"1", rm) is False
    assert client.checkAndMutate(t, b"r", b"cf", b"q", TCompareOp.LESS, b"1", rm) is True
    assert values(client.get(t, TGet(row=b"r"))) == [("cf", "p", "x")]
    # checkAndDelete.
    d = TDelete(row=b"r", columns=[TColumn(family=b"cf", qualifier=b"p")])
    assert client.checkAndDelete(t, b"r", b"cf", b"p", b"y", d) is False
    assert client.checkAndDelete(t, b"r", b"cf", b"p", b"x", d) is True
    assert client.get(t, TGet(row=b"r")).columnValues == []
    # mutateRow: atomic puts and deletes.
    client.mutateRow(t, TRowMutations(row=b"m", mutations=[
        TMutation(put=TPut(row=b"m", columnValues=[cv("cf", "a", "1"), cv("cf", "b", "2")])),
        TMutation(deleteSingle=TDelete(row=b"m", columns=[TColumn(family=b"cf", qualifier=b"zz")])),
    ]))
    assert values(client.get(t, TGet(row=b"m"))) == [("cf", "a", "1"), ("cf", "b", "2")]


def test_increment_and_append(client, table_name):
    t = create(client, table_name)
    r = client.increment(t, TIncrement(row=b"c", columns=[TColumnIncrement(family=b"cf", qualifier=b"n", amount=5)]))
    assert r.row == b"c" and r.columnValues[0].value == (5).to_bytes(8, "big")
    # amount defaults to 1.
    r = client.increment(t, TIncrement(row=b"c", columns=[TColumnIncrement(family=b"cf", qualifier=b"n")]))
    assert r.columnValues[0].value == (6).to_bytes(8, "big")
    r = client.increment(t, TIncrement(row=b"c", columns=[TColumnIncrement(family=b"cf", qualifier=b"n", amount=-2)],
                                       returnResults=False))
    assert r.row is None and r.columnValues == []
    r = client.get(t, TGet(row=b"c"))
    assert r.columnValues[0].value == (4).to_bytes(8, "big")
    r = client.append(t, TAppend(row=b"s", columns=[cv("cf", "s", "ab")]))
    assert values(r) == [("cf", "s", "ab")]
    r = client.append(t, TAppend(row=b"s", columns=[cv("cf", "s", "cd")], returnResults=False))
    assert r.columnValues == []
    assert values(client.get(t, TGet(row=b"s"))) == [("cf", "s", "abcd")]
    # Incrementing a cell that is not 8 bytes fails.
    with pytest.raises(TIOError):
        client.increment(t, TIncrement(row=b"s", columns=[TColumnIncrement(family=b"cf", qualifier=b"s")]))


def test_scanners(client, table_name):
    t = create(client, table_name, families=(("cf", 3), ("cg", 3)))
    client.putMultiple(t, [TPut(row=f"r{i}".encode(), columnValues=[cv("cf", "a", str(i), 100 + i),
                                                                   cv("cf", "b", "x"), cv("cg", "c", "y")])
                           for i in range(10)])
    sid = client.openScanner(t, TScan(startRow=b"r2", stopRow=b"r7", columns=[TColumn(family=b"cf", qualifier=b"a")]))
    rows = client.getScannerRows(sid, 3)
    assert [r.row for r in rows] == [b"r2", b"r3", b"r4"]
    assert [r.row for r in client.getScannerRows(sid, 10)] == [b"r5", b"r6"]
    assert client.getScannerRows(sid, 10) == []
    client.closeScanner(sid)
    with pytest.raises(TIllegalArgument) as e:
        client.getScannerRows(sid, 1)
    assert e.value.message == "Invalid scanner Id"
    # HBase 2.6 only logs the close of an unknown scanner.
    client.closeScanner(sid)
    client.closeScanner(987654)
    # reversed, limit, filter, timeRange, batchSize, colFamTimeRangeMap.
    rs = client.getScannerResults(t, TScan(reversed=True, limit=2), 10)
    assert [r.row for r in rs] == [b"r9", b"r8"]
    rs = client.getScannerResults(t, TScan(filterString=b"PrefixFilter('r3')"), 10)
    assert [r.row for r in rs] == [b"r3"]
    rs = client.getScannerResults(t, TScan(columns=[TColumn(family=b"cf", qualifier=b"a")],
                                           timeRange=TTimeRange(minStamp=103, maxStamp=105)), 10)
    assert [r.row for r in rs] == [b"r3", b"r4"]
    rs = client.getScannerResults(t, TScan(startRow=b"r1", stopRow=b"r2", batchSize=2), 10)
    assert [len(r.columnValues) for r in rs] == [2, 1]
    rs = client.getScannerResults(t, TScan(startRow=b"r1", stopRow=b"r2",
                                           colFamTimeRangeMap={b"cf": TTimeRange(minStamp=0, maxStamp=102)}), 10)
    assert values(rs[0]) == [("cf", "a", "1"), ("cg", "c", "y")]
    # numRows defaults to 1 (IDL).
    assert len(client.getScannerResults(t, TScan(), 1)) == 1
    with pytest.raises(TIOError):
        client.openScanner(b"no_such_table", TScan())


def test_region_locations(client, table_name):
    t = create(client, table_name, split_keys=[b"m"])
    locs = client.getAllRegionLocations(t)
    assert [(l.regionInfo.startKey, l.regionInfo.endKey) for l in locs] == [(b"", b"m"), (b"m", b"")]
    for l in locs:
        assert l.serverName.port == PORT and l.serverName.hostName == "127.0.0.1"
        assert l.regionInfo.tableName == t
    loc = client.getRegionLocation(t, b"x", False)
    assert loc.regionInfo.startKey == b"m"
    assert loc.regionInfo.regionId == locs[1].regionInfo.regionId


def test_table_admin(client, table_name):
    name = tname(table_name)
    cf = TColumnFamilyDescriptor(
        name=b"cf", maxVersions=4, minVersions=1, timeToLive=86400, blockSize=16384,
        bloomnFilterType=TBloomFilterType.ROWCOL, compressionType=TCompressionAlgorithm.GZ,
        dataBlockEncoding=TDataBlockEncoding.FAST_DIFF, keepDeletedCells=TKeepDeletedCells.TRUE,
        inMemory=True, blockCacheEnabled=False)
    desc = TTableDescriptor(tableName=name, columns=[cf], attributes={b"MAX_FILESIZE": b"1048576"},
                            durability=TDurability.ASYNC_WAL)
    client.createTable(desc, [b"g", b"p"])
    assert client.tableExists(name) is True
    assert client.tableExists(tname("no_such_table")) is False
    with pytest.raises(TIOError):
        client.createTable(desc, [])
    d = client.getTableDescriptor(name)
    assert d.tableName.ns == b"default" and d.tableName.qualifier == table_name.encode()
    assert d.durability == TDurability.ASYNC_WAL
    assert d.attributes[b"MAX_FILESIZE"] == b"1048576"
    (f,) = d.columns
    assert (f.name, f.maxVersions, f.minVersions, f.timeToLive, f.blockSize) == (b"cf", 4, 1, 86400, 16384)
    assert f.bloomnFilterType == TBloomFilterType.ROWCOL
    assert f.compressionType == TCompressionAlgorithm.GZ
    assert f.dataBlockEncoding == TDataBlockEncoding.FAST_DIFF
    assert f.keepDeletedCells == TKeepDeletedCells.TRUE
    assert (f.inMemory, f.blockCacheEnabled) == (True, False)
    assert client.isTableAvailableWithSplit(name, [b"g", b"p"]) is True
    assert client.isTableAvailableWithSplit(name, [b"g"]) is False
    # Listings.
    assert [x.tableName.qualifier for x in client.getTableDescriptors([name, tname("nope")])] == [table_name.encode()]
    names = client.getTableNamesByPattern(table_name[:3] + ".*", False)
    assert table_name.encode() in [n.qualifier for n in names]
    assert client.getTableNamesByPattern(table_name[:3], False) == []
    assert table_name.encode() in [n.qualifier for n in client.getTableNamesByNamespace("default")]
    assert table_name.encode() in [x.tableName.qualifier for x in client.getTableDescriptorsByPattern(table_name, True)]
    assert table_name.encode() in [x.tableName.qualifier for x in client.getTableDescriptorsByNamespace("default")]
    # Families.
    client.addColumnFamily(name, TColumnFamilyDescriptor(name=b"cg"))
    with pytest.raises(TIOError) as e:
        client.addColumnFamily(name, TColumnFamilyDescriptor(name=b"cg"))
    assert "already exists" in e.value.message
    client.modifyColumnFamily(name, TColumnFamilyDescriptor(name=b"cg", maxVersions=7))
    with pytest.raises(TIOError):
        client.modifyColumnFamily(name, TColumnFamilyDescriptor(name=b"zz"))
    fams = {f.name: f.maxVersions for f in client.getTableDescriptor(name).columns}
    assert fams == {b"cf": 4, b"cg": 7}
    client.deleteColumnFamily(name, b"cg")
    assert [f.name for f in client.getTableDescriptor(name).columns] == [b"cf"]
    # modifyTable replaces the descriptor: cf is dropped, ch added, durability reset.
    client.modifyTable(TTableDescriptor(tableName=name, columns=[TColumnFamilyDescriptor(name=b"ch", maxVersions=2)]))
    d = client.getTableDescriptor(name)
    assert [(f.name, f.maxVersions) for f in d.columns] == [(b"ch", 2)]
    assert d.durability == TDurability.USE_DEFAULT and d.attributes == {}
    # Enable / disable / truncate / delete.
    t = table_name.encode()
    client.put(t, TPut(row=b"r", columnValues=[cv("ch", "q", "v")]))
    assert client.isTableEnabled(name) and not client.isTableDisabled(name)
    assert client.isTableAvailable(name) is True
    with pytest.raises(TIOError):
        client.truncateTable(name, True)
    with pytest.raises(TIOError):
        client.deleteTable(name)
    client.disableTable(name)
    assert client.isTableDisabled(name) and not client.isTableEnabled(name)
    assert client.isTableAvailable(name) is False
    client.truncateTable(name, True)
    assert client.isTableEnabled(name)
    assert client.get(t, TGet(row=b"r")).columnValues == []
    assert len(client.getAllRegionLocations(t)) == 3
    client.disableTable(name)
    client.truncateTable(name, False)
    assert len(client.getAllRegionLocations(t)) == 1
    client.disableTable(name)
    client.deleteTable(name)
    assert client.tableExists(name) is False
    assert client.isTableAvailable(name) is False
    with pytest.raises(TIOError):
        client.isTableEnabled(name)


def test_namespaces(client, table_name):
    ns = "ns_" + table_name
    assert {"default", "hbase"} <= set(client.listNamespaces())
    client.createNamespace(TNamespaceDescriptor(name=ns, configuration={"k": "v"}))
    with pytest.raises(TIOError):
        client.createNamespace(TNamespaceDescriptor(name=ns))
    assert client.getNamespaceDescriptor(ns).configuration == {"k": "v"}
    client.modifyNamespace(TNamespaceDescriptor(name=ns, configuration={"k2": "v2"}))
    assert client.getNamespaceDescriptor(ns).configuration == {"k2": "v2"}
    assert ns in [d.name for d in client.listNamespaceDescriptors()]
    full = f"{ns}:t"
    create(client, full)
    client.put(full.encode(), TPut(row=b"r", columnValues=[cv("cf", "q", "v")]))
    assert values(client.get(full.encode(), TGet(row=b"r"))) == [("cf", "q", "v")]
    assert [(n.ns, n.qualifier) for n in client.getTableNamesByNamespace(ns)] == [(ns.encode(), b"t")]
    # A namespace holding tables cannot go.
    with pytest.raises(TIOError):
        client.deleteNamespace(ns)
    client.disableTable(tname(full))
    client.deleteTable(tname(full))
    client.deleteNamespace(ns)
    assert ns not in client.listNamespaces()
    with pytest.raises(TIOError):
        client.getNamespaceDescriptor(ns)


def test_slow_log_and_access_control(client):
    assert client.getSlowLogResponses(set(), TLogQueryFilter()) == []
    assert client.clearSlowLogResponses(set()) == [True]
    entity = TAccessControlEntity(username="u", scope=0, actions="R", tableName=tname("t"))
    for call in (lambda: client.grant(entity), lambda: client.revoke(entity)):
        with pytest.raises(TIOError) as e:
            call()
        assert "AccessController is not loaded" in e.value.message
    # HBase 2.6's IDL declares `throws (1: TIOError io)` on getUserPermission; thbase's copy
    # of the IDL declares none, so its client skips the TIOError and reports a missing result.
    with pytest.raises(TApplicationException) as e:
        client.getUserPermission("t", 0)
    assert e.value.type == TApplicationException.MISSING_RESULT
    assert client.getThriftServerType() == TThriftServerType.TWO


def test_unknown_method_is_a_tapplicationexception(client):
    client._oprot.writeMessageBegin("noSuchMethod", TMessageType.CALL, 7)
    client._oprot.writeStructBegin("noSuchMethod_args")
    client._oprot.writeFieldStop()
    client._oprot.writeStructEnd()
    client._oprot.writeMessageEnd()
    client._oprot.trans.flush()
    name, mtype, seqid = client._iprot.readMessageBegin()
    assert (name, mtype, seqid) == ("noSuchMethod", TMessageType.EXCEPTION, 7)
    x = TApplicationException()
    x.read(client._iprot)
    client._iprot.readMessageEnd()
    assert x.type == TApplicationException.UNKNOWN_METHOD
    # The connection stays usable.
    assert client.getThriftServerType() == TThriftServerType.TWO


def test_high_level_client(mode, table_name):
    from thbase.config import ClientConfig, ProtocolType, TransportType
    from thbase.thrift2.client import Client
    from thbase.thrift2.operation import Delete, Get, Put, Scan

    conf = ClientConfig(
        thrift_host="127.0.0.1", port=PORT,
        transport_type=TransportType.FRAMED if mode[0] == "framed" else TransportType.BUFFERED,
        protocol_type=ProtocolType.COMPACT if mode[1] == "compact" else ProtocolType.BINARY,
        retry_times=1, connection_retry_times=1)
    c = Client(conf)
    c.open_connection()
    try:
        desc = TTableDescriptor(tableName=tname(table_name), columns=[TColumnFamilyDescriptor(name=b"cf")])
        assert c.create_table(desc, []) is True
        assert c.table_exists(table_name) is True
        table = c.get_table(table_name)
        assert table.put(Put(row="r1", family="cf", qualifier="q", value="v1")) is True
        assert table.put_batch([Put(row=f"r{i}", family="cf", qualifier="q", value=f"v{i}") for i in (2, 3)]) is True
        got = table.get(Get(row="r1", family="cf", qualifier="q"))
        assert [(x.row, x.family, x.qualifier, x.value) for x in got] == [(b"r1", b"cf", b"q", b"v1")]
        assert table.get(Get(row="nope")) == []
        scanned = table.scan(Scan(start_row="r2", num_rows=10))
        assert [(x.row, x.value) for x in scanned] == [(b"r2", b"v2"), (b"r3", b"v3")]
        assert table.delete(Delete(row="r2")) is True
        assert [x.row for x in table.scan(Scan(num_rows=10))] == [b"r1", b"r3"]
        assert c.disable_table(table_name) is True
        assert c.delete_table(table_name) is True
    finally:
        c.close_connection()
