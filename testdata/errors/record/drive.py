"""Record raw JSON-RPC answers of a stdio MCP server to invalid requests.

Usage: python3 drive.py SPEC.json > OUT.json, where SPEC is
{"cmd": [argv...], "calls": [[method, params], ...], "pv": "2025-11-25"}.
It sends initialize (asking for protocol version pv), then
notifications/initialized and tools/list, then each call, and prints the
handshake result, the tool list, every raw response and the stderr tail.
Nothing is passed through a shell; every read has a 10 s deadline.
"""
import json, subprocess, sys, select, time, os
def run(cmd, calls, pv="2025-11-25", env=None):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    buf = b""
    def send(o):
        p.stdin.write((json.dumps(o)+"\n").encode()); p.stdin.flush()
    def recv(id, timeout=10):
        nonlocal buf
        end = time.time()+timeout
        while time.time() < end:
            while b"\n" in buf:
                line, buf = buf.split(b"\n",1)
                try: o = json.loads(line)
                except Exception: continue
                if o.get("id") == id: return o
            r,_,_ = select.select([p.stdout],[],[],0.2)
            if r:
                d = os.read(p.stdout.fileno(), 65536)
                if not d: return None
                buf += d
        return "TIMEOUT"
    send({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":pv,"capabilities":{},"clientInfo":{"name":"rec","version":"0"}}})
    init = recv(0)
    send({"jsonrpc":"2.0","method":"notifications/initialized"})
    send({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})
    tl = recv(1)
    out = {"init": init, "tools": [t["name"] for t in tl["result"]["tools"]] if isinstance(tl, dict) and "result" in tl else tl, "toolsRaw": tl, "calls": []}
    for i,(m,params) in enumerate(calls):
        send({"jsonrpc":"2.0","id":100+i,"method":m,"params":params})
        out["calls"].append({"method":m,"params":params,"response":recv(100+i)})
    p.stdin.close()
    try: p.wait(3)
    except: p.kill()
    out["stderr"] = p.stderr.read().decode(errors="replace")[-2000:]
    return out
if __name__ == "__main__":
    spec = json.load(open(sys.argv[1]))
    print(json.dumps(run(spec["cmd"], spec["calls"], spec.get("pv","2025-11-25")), indent=1))
