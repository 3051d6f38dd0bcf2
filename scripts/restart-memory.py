#!/usr/bin/env python3
"""A durable endpoint's memory before and after a restart.

python3 scripts/restart-memory.py SERVER_BINARY ITEMS [PORT]: starts
SERVER_BINARY --port PORT --data-dir (a fresh temporary directory), writes
ITEMS new 200-byte items (BatchWriteItem of 25, 4 clients), and prints the
process's resident memory (VmRSS) and its high-water mark (VmHWM); then
kills it with SIGKILL, starts it again on the same directory, and prints
the time to its first answer, the item count it answers (a Scan with
Select=COUNT) and its memory; then the same after a clean stop (SIGTERM).
Used for the restart figures in BENCHMARKS.md."""
import http.client, json, os, shutil, signal, subprocess, sys, tempfile, threading, time

binary, items = sys.argv[1], int(sys.argv[2])
port = int(sys.argv[3]) if len(sys.argv) > 3 else 8719
H = {"Content-Type": "application/x-amz-json-1.0",
     "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00",
     "X-Amz-Date": "20260101T000000Z"}


def call(c, op, body):
    h = dict(H)
    h["X-Amz-Target"] = "DynamoDB_20120810." + op
    c.request("POST", "/", json.dumps(body), h)
    r = c.getresponse()
    d = r.read()
    if r.status != 200:
        raise Exception(d)
    return json.loads(d)


def memory(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) / 1024
    return "VmRSS %.1f MB, VmHWM %.1f MB" % (out["VmRSS"], out["VmHWM"])


def start(data):
    p = subprocess.Popen([binary, "--port", str(port), "--data-dir", data],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    begin = time.time()
    while True:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            call(c, "ListTables", {})
            return p, c, time.time() - begin
        except (ConnectionError, OSError):
            if p.poll() is not None:
                raise SystemExit("the server exited with %d" % p.returncode)
            time.sleep(0.005)


def count(c):
    n, start_key = 0, None
    while True:
        body = {"TableName": "Bench", "Select": "COUNT"}
        if start_key:
            body["ExclusiveStartKey"] = start_key
        r = call(c, "Scan", body)
        n += r["Count"]
        start_key = r.get("LastEvaluatedKey")
        if not start_key:
            return n


def item(t, n):
    return {"PK": {"S": "USER#%d" % (n % 1000)}, "SK": {"S": "ORDER#%d#%010d" % (t, n)},
            "entityType": {"S": "Order"}, "status": {"S": "PENDING"},
            "totalCents": {"N": "12990"}, "placedAt": {"S": "2026-12-01T10:00:00Z"},
            "note": {"S": "x" * 80},
            "lines": {"L": [{"M": {"sku": {"S": "BOOK-1"}, "qty": {"N": "2"}}}]}}


data = tempfile.mkdtemp(prefix="restart-memory-")
try:
    p, c, _ = start(data)
    call(c, "CreateTable", {"TableName": "Bench", "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                                     {"AttributeName": "SK", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                                          {"AttributeName": "SK", "KeyType": "RANGE"}]})
    clients = 4

    def load(t):
        c = http.client.HTTPConnection("127.0.0.1", port)
        for first in range(t * 25, items, clients * 25):
            batch = [{"PutRequest": {"Item": item(t, n)}} for n in range(first, min(first + 25, items))]
            call(c, "BatchWriteItem", {"RequestItems": {"Bench": batch}})

    b = time.time()
    ts = [threading.Thread(target=load, args=(t,)) for t in range(clients)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print("wrote %d items in %.1f s" % (items, time.time() - b))
    time.sleep(2)
    print("before the restart: %s" % memory(p.pid))
    for how, sig in (("SIGKILL", signal.SIGKILL), ("SIGTERM", signal.SIGTERM)):
        p.send_signal(sig)
        p.wait()
        p, c, took = start(data)
        mem = memory(p.pid)
        print("after %s: first answer in %.2f s, %s; %d items" % (how, took, mem, count(c)))
    p.terminate()
    p.wait()
finally:
    shutil.rmtree(data, ignore_errors=True)
