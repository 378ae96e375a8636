"""Points hbase-rest-py at the gateway under test.

hbase-rest-py's own tests (hbase/test/test_admin.py in its wheel) hard-code
``http://localhost:8080``; run.sh starts ``cellbase rest`` on a free port and passes its
address in CELLBASE_REST. Only the client's public constructor is wrapped.
"""
import os

import hbase.rest_client

URL = os.environ["CELLBASE_REST"]
_init = hbase.rest_client.HBaseRESTClient.__init__


def _init_at_gateway(self, hosts_list):
    _init(self, [URL])


hbase.rest_client.HBaseRESTClient.__init__ = _init_at_gateway
