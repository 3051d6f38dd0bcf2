"""Runs the reference documents' own boto3 code against one DynamoDB endpoint.

    python seed_boto3.py ENDPOINT_URL app|tienda SEED_FILE

The Python code is read from the seed document at run time and executed as
it is written there: this harness only points boto3 at ENDPOINT_URL (through
AWS_ENDPOINT_URL_DYNAMODB, which boto3 reads for every client and resource
it makes), creates the table when the document does not, supplies data,
calls every access-pattern function, and prints what they returned as one
JSON document on stdout. Values that differ by nature between two runs (the
seed's `datetime.utcnow()` timestamps) are checked and replaced by a marker.

The documents are prose with code in between, not Markdown: a code block is
a run of lines that starts with a line that can only be Python (an import, a
def, a comment, an assignment, a call) and goes on while lines are blank,
indented, closing brackets or such lines again. Each block must parse.
"""

import ast
import contextlib
import datetime as _dt
import io
import json
import os
import re
import sys
from decimal import Decimal

CODE_START = re.compile(
    r"""^(import\s|from\s+\S+\s+import\s|def\s|class\s|@|\#|"""
    r"""[A-Za-z_][\w.]*(\[[^\]]*\])*\s*=\s|[A-Za-z_][\w.]*\()"""
)
CLOSING = re.compile(r"^[)\]}]")


def code_blocks(text):
    """The Python blocks of a seed document, in order, as written."""
    blocks, cur = [], None
    for line in text.splitlines():
        if cur is None:
            if CODE_START.match(line):
                cur = [line]
            continue
        if not line.strip() or line[0] in " \t" or CLOSING.match(line) or CODE_START.match(line):
            cur.append(line)
        else:
            blocks.append(cur)
            cur = CODE_START.match(line) and [line] or None
    if cur:
        blocks.append(cur)
    out = []
    for b in blocks:
        while b and not b[-1].strip():
            b.pop()
        out.append("\n".join(b) + "\n")
    return out


class Block:
    def __init__(self, source):
        self.source = source
        self.tree = ast.parse(source)
        self.functions = [s.name for s in self.tree.body if isinstance(s, ast.FunctionDef)]
        # Definitions: functions plus the imports and module-level handles
        # (client, resource, table) they use; anything else is a snippet,
        # run statement by statement where the plan says.
        self.definitions = bool(self.functions) and all(
            isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign))
            for s in self.tree.body
        )

    def statements(self):
        return [
            (ast.get_source_segment(self.source, s).splitlines()[0], ast.Module([s], []))
            for s in self.tree.body
        ]


def error_of(e):
    response = getattr(e, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return {"error": response["Error"].get("Code"), "message": response["Error"].get("Message")}
    return {"error": type(e).__name__, "message": str(e)}


def normalise(v, key=None):
    if key == "createdAt" and isinstance(v, (str, dict)):
        text = v if isinstance(v, str) else v.get("S", "")
        _dt.datetime.fromisoformat(text)  # raises if the seed wrote something else
        return "<isoformat timestamp>"
    if isinstance(v, dict):
        return {k: normalise(x, k) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [normalise(x) for x in v]
    if isinstance(v, Decimal):
        return {"N": str(v)}
    if isinstance(v, (set, frozenset)):
        return sorted(normalise(x) for x in v)
    if isinstance(v, (bytes, bytearray)):
        return {"B": v.hex()}
    return v


class Run:
    def __init__(self, seed_file):
        with open(seed_file, encoding="utf-8") as f:
            self.blocks = [Block(src) for src in code_blocks(f.read())]
        self.ns = {"__name__": "seed"}
        self.results = []
        self.functions = {}

    def record(self, step, value):
        self.results.append({"step": step, "value": normalise(value)})

    def block(self, needle):
        found = [b for b in self.blocks if needle in b.source]
        if len(found) != 1:
            raise SystemExit(f"expected one code block containing {needle!r}, found {len(found)}")
        return found[0]

    def snippet(self, needle, label):
        """Runs a snippet block statement by statement; records what each did
        and what it printed."""
        for first, module in self.block(needle).statements():
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(module, f"<seed {label}>", "exec"), self.ns)
                outcome = {"ok": True}
            except Exception as e:  # the seed's own code raised: that is a result
                outcome = error_of(e)
            if out.getvalue():
                outcome["printed"] = out.getvalue()
            self.record(f"{label}: {first}", outcome)

    def definitions(self):
        """Executes every definition block in document order; a function
        defined twice (a variant later in the document) is kept under
        `name#2`."""
        for b in self.blocks:
            if not b.definitions:
                continue
            exec(compile(b.tree, "<seed definitions>", "exec"), self.ns)
            for name in b.functions:
                key, n = name, 1
                while key in self.functions:
                    n += 1
                    key = f"{name}#{n}"
                self.functions[key] = self.ns[name]

    def call(self, name, *args):
        try:
            value = self.functions[name](*args)
            self.record(f"{name}{args!r}", value)
        except Exception as e:
            self.record(f"{name}{args!r}", error_of(e))

    def summary(self):
        return {
            "blocks": [b.source for b in self.blocks],
            "functions": sorted(self.functions),
            "results": self.results,
        }


def client():
    import boto3

    return boto3.client("dynamodb")


def drop_table(name):
    c = client()
    try:
        c.delete_table(TableName=name)
        c.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
    except c.exceptions.ResourceNotFoundException:
        pass


def scan_all(name):
    c, items, start = client(), [], None
    while True:
        kw = {"TableName": name, "ConsistentRead": True}
        if start:
            kw["ExclusiveStartKey"] = start
        page = c.scan(**kw)
        items.extend(page["Items"])
        start = page.get("LastEvaluatedKey")
        if not start:
            return sorted(items, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


def app(seed_file):
    """000: the AppTable document (boto3.client creates the table, a
    boto3.resource Table serves the access patterns)."""
    run = Run(seed_file)
    drop_table("AppTable")
    run.snippet("create_table(", "create the table")
    client().get_waiter("table_exists").wait(TableName="AppTable", WaiterConfig={"Delay": 0.1})
    run.definitions()

    # The seed annotates amounts as float; boto3 only serialises Decimal.
    run.call("put_user", "u1", "Ana", "ana@example.com")
    run.call("put_user", "u2", "Bruno", "bruno@example.com")
    run.call("put_order", "o1", "u1", "PENDING", Decimal("25.50"))
    run.call("put_order", "o2", "u1", "SHIPPED", Decimal("10"))
    run.call("put_order", "o3", "u2", "PENDING", Decimal("99.99"))
    run.call("put_order_item", "o1", "i1", "p1", 2, Decimal("9.75"))
    run.call("put_order_item", "o1", "i2", "p2", 1, Decimal("6"))
    run.call("put_product", "p1", "books", "Dune", Decimal("9.75"))
    run.call("put_product", "p2", "games", "Chess", Decimal("6"))
    run.call("put_product", "p4", "books", "Emma", Decimal("7.5"))
    run.call("put_product#2", "p5", "books", "Draft", Decimal("5"), False)
    run.call("put_product#2", "p6", "books", "Published", Decimal("12"), True)

    run.call("get_user", "u1")
    run.call("get_user", "nobody")
    run.call("get_user_orders", "u1")
    run.call("get_user_orders", "u2")
    run.call("get_order_with_items", "o1")
    run.call("get_orders_by_status", "PENDING")
    run.call("get_orders_by_status", "SHIPPED")
    run.call("get_products_by_category", "books")
    run.call("get_products_by_category", "toys")

    items = [
        {"id": "i1", "product_id": "p1", "quantity": 1, "price": Decimal("9.75")},
        {"id": "i2", "product_id": "p4", "quantity": 3, "price": Decimal("7.5")},
    ]
    run.call("create_order_with_items", "u2", "o4", items, Decimal("32.25"))
    run.call("get_order_with_items", "o4")
    run.call("get_user_orders", "u2")

    run.call("update_order_status", "o1", "u1", "SHIPPED")
    run.call("update_order_status", "o9", "u1", "SHIPPED")
    run.call("get_orders_by_status", "SHIPPED")
    run.call("get_orders_by_status", "PENDING")

    # The date pattern has no writer in the document: its items, as it
    # describes them (GSI1PK=ORDERBYDATE, GSI1SK=DATE#...).
    table = run.ns["table"]
    for order, day in [("o1", "2026-01-05"), ("o2", "2026-01-20"), ("o3", "2026-02-03")]:
        table.put_item(Item={"PK": f"ORDERDATE#{order}", "SK": "DATE", "GSI1PK": "ORDERBYDATE",
                             "GSI1SK": f"DATE#{day}", "orderId": order})
    run.call("get_orders_by_date_range", "2026-01-01", "2026-01-31")
    run.call("get_orders_by_date_range", "2026-02-01", "2026-12-31")

    run.ns["user_id"] = "u1"
    run.snippet("Limit=20", "paginate")
    run.record("paginate: response Items", run.ns.get("response", {}).get("Items"))
    run.record("paginate: last_key", run.ns.get("last_key"))

    run.record("table after", scan_all("AppTable"))
    drop_table("AppTable")
    return run


def tienda(seed_file):
    """004: the store document (`tienda`): a boto3.resource Table, Key
    conditions, conditional writes. The document describes the table (PK/SK,
    a sparse GSI1 on GSI1PK/GSI1SK, GSI2 on GSI2PK) without creating it."""
    run = Run(seed_file)
    drop_table("tienda")
    s = lambda n: {"AttributeName": n, "AttributeType": "S"}
    client().create_table(
        TableName="tienda",
        AttributeDefinitions=[s("PK"), s("SK"), s("GSI1PK"), s("GSI1SK"), s("GSI2PK")],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                           {"AttributeName": "GSI1SK", "KeyType": "RANGE"}]},
            {"IndexName": "GSI2", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"}]},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client().get_waiter("table_exists").wait(TableName="tienda", WaiterConfig={"Delay": 0.1})

    import boto3

    data = boto3.resource("dynamodb").Table("tienda")
    with data.batch_writer() as w:
        # 23 orders of client 123, so that Limit=20 leaves a next page.
        for day in range(1, 24):
            w.put_item(Item={"PK": "CLIENTE#123", "SK": f"PEDIDO#2026-10-{day:02}#A{day:03}",
                             "total": Decimal(day) * Decimal("1.5"), "estado": "ENTREGADO"})
        w.put_item(Item={"PK": "CLIENTE#123", "SK": "DIRECCION#casa", "calle": "Mayor 1"})
        w.put_item(Item={"PK": "CLIENTE#456", "SK": "PEDIDO#2026-10-30#B001", "total": Decimal(7)})
        w.put_item(Item={"PK": "PEDIDO#A001", "SK": "CABECERA", "clienteId": "123",
                         "total": Decimal("42.5"), "estado": "PENDIENTE", "version": 3,
                         "GSI1PK": "ESTADO#PENDIENTE", "GSI1SK": "2026-10-30"})
        w.put_item(Item={"PK": "PEDIDO#A001", "SK": "LINEA#001", "sku": "X1", "cantidad": 2,
                         "precio": Decimal("20")})
        w.put_item(Item={"PK": "CLIENTE#123", "SK": "PERFIL#correo", "GSI2PK": "CORREO#ana@ejemplo.com"})

    run.snippet("ScanIndexForward=False", "pattern 2")
    run.record("pattern 2: pedidos", run.ns.get("pedidos"))
    run.record("pattern 2: siguiente", run.ns.get("siguiente"))

    # Twice: the first run writes, the second finds its conditions false.
    run.snippet('attribute_not_exists(PK)', "conditional writes, first run")
    run.snippet('attribute_not_exists(PK)', "conditional writes, second run")
    for key in [{"PK": "CLIENTE#123", "SK": "PERFIL"}, {"PK": "PEDIDO#A001", "SK": "CABECERA"}]:
        run.record(f"after: {key}", data.get_item(Key=key, ConsistentRead=True).get("Item"))

    run.record("table after", scan_all("tienda"))
    drop_table("tienda")
    return run


def main():
    endpoint, plan, seed_file = sys.argv[1:4]
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint
    os.environ.pop("AWS_ENDPOINT_URL", None)
    for k, v in [("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                 ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_EC2_METADATA_DISABLED", "true")]:
        os.environ.setdefault(k, v)
    run = {"app": app, "tienda": tienda}[plan](seed_file)
    json.dump(run.summary(), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
