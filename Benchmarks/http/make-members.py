#!/usr/bin/env python3
"""Creates COUNT members through POST /v1/members over one keep-alive connection and writes their uuids as a
Lua list (for cards.lua). Usage: make-members.py PORT BACKEND_SECRET COUNT OUT.lua"""
import http.client, json, sys, uuid

port, secret, count, out = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
uuids = []
for i in range(count):
    member = str(uuid.uuid4())
    body = json.dumps({"uuid": member, "name": f"Spread {i}", "phone": "+2137%08d" % i,
                       "email": f"spread{i}@example.dz", "neighbourhood": "usto"})
    connection.request("POST", "/v1/members", body, {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status not in (200, 201):
        sys.exit(f"member {i}: HTTP {response.status}")
    uuids.append(member)
with open(out, "w") as file:
    file.write("return {\n" + "".join(f'  "{u}",\n' for u in uuids) + "}\n")
