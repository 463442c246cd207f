# Extract probe calls from a census database into `mcpvet grade` input,
# without their grades, for labelling by hand.
import json, sqlite3, sys, random
db = sqlite3.connect(sys.argv[1])
skip = ("server-everything","server-memory","server-filesystem","sequential-thinking","airtable","brave","figma","betterprompt","mockserver","code-runner","calc-mcp","server-curl")
rows = db.execute("select s.name, s.version, r.result_json from runs r join servers s on s.id=r.server_id where r.handshake_completed=1").fetchall()
random.seed(13)
out = []
for name, ver, rj in rows:
    if any(k.lower() in name.lower() for k in skip):
        continue
    res = json.loads(rj)
    live = res.get("liveness", {})
    tools = [{"name": t["name"], "inputSchema": t.get("inputSchema")} for t in res.get("tools") or []]
    probes = res.get("probes") or []
    bykind = {}
    for p in probes:
        bykind.setdefault(p["kind"], []).append(p)
    kinds = sorted(bykind)
    random.shuffle(kinds)
    for k in kinds[:3]:
        p = random.choice(bykind[k])
        cls = p["class"]
        if cls == "protocol_error":
            resp = {"jsonrpc": "2.0", "id": 1, "error": p.get("response")}
        elif cls in ("tool_error", "accepted"):
            resp = {"jsonrpc": "2.0", "id": 1, "result": p.get("response")}
        else:
            resp = None
        rec = {"id": f"{name.split('/')[-1]}-{k}", "source": f"recorded:census {name}@{ver}", "kind": k}
        if p.get("param"): rec["param"] = p["param"]
        rec.update({"protocolVersion": live.get("protocolVersion", ""), "capabilities": live.get("capabilities"),
                    "request": {"jsonrpc": "2.0", "id": 1, "method": p["method"], "params": p.get("sent")},
                    "response": resp, "tools": tools,
                    "prompts": [x["name"] for x in res.get("prompts") or []],
                    "resources": [x["uri"] for x in res.get("resources") or []]})
        out.append(rec)
for r in out:
    print(json.dumps(r, ensure_ascii=False))
