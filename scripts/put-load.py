#!/usr/bin/env python3
"""PutItem throughput of a DynamoDB endpoint from N concurrent clients.

python3 scripts/put-load.py PORT SECONDS CLIENTS: creates the table Bench
(PK, SK strings, on demand) if missing, then N threads each put new
200-byte items over one keep-alive connection for SECONDS, and prints
the puts per second. Used for the durable storage figures in
BENCHMARKS.md (the same client for every server, so its own cost is
the same for all)."""
import http.client, json, sys, threading, time
port=int(sys.argv[1]); secs=float(sys.argv[2]); threads=int(sys.argv[3])
H={"Content-Type":"application/x-amz-json-1.0","Authorization":"AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00","X-Amz-Date":"20260101T000000Z"}
def call(c,op,body):
    h=dict(H); h["X-Amz-Target"]="DynamoDB_20120810."+op
    c.request("POST","/",json.dumps(body),h); r=c.getresponse(); d=r.read()
    if r.status!=200: raise Exception(d)
c=http.client.HTTPConnection("127.0.0.1",port)
try:
    call(c,"CreateTable",{"TableName":"Bench","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}]})
except Exception as e: print("create:",e)
counts=[0]*threads; stop=time.time()+secs
def run(t):
    c=http.client.HTTPConnection("127.0.0.1",port); n=0
    while time.time()<stop:
        call(c,"PutItem",{"TableName":"Bench","Item":{"PK":{"S":"USER#%d"%t},"SK":{"S":"ORDER#%010d"%n},"entityType":{"S":"Order"},"status":{"S":"PENDING"},"totalCents":{"N":"12990"},"placedAt":{"S":"2026-12-01T10:00:00Z"},"lines":{"L":[{"M":{"sku":{"S":"BOOK-1"},"qty":{"N":"2"}}}]}}})
        n+=1
    counts[t]=n
ts=[threading.Thread(target=run,args=(i,)) for i in range(threads)]
b=time.time()
[t.start() for t in ts]; [t.join() for t in ts]
print("%d puts in %.1f s: %.0f/s (%d clients)"%(sum(counts),time.time()-b,sum(counts)/(time.time()-b),threads))
