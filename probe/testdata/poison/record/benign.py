"""Install pinned npm MCP servers and record what they list, as the benign
half of the poisoning corpus (probe/testdata/poison/benign/*.json).

Usage: python3 benign.py [SLUG...]   (from this directory; default: all of
servers.json). Each server is installed with `npm install --ignore-scripts`
into ../../../../.cache/poison-benign/SLUG (the worktree's .cache), started
with dummy credentials (no server reaches the network: API URLs point at
127.0.0.1:9), and sent initialize, notifications/initialized, then
tools/list, prompts/list, resources/list and resources/templates/list,
following cursors. The pages are written as a recorded session
({"command", "source", "pages"}) that the probe tests load. Nothing goes
through a shell; every read has a 90 s deadline (servers start slowly on a loaded machine).
"""
import json, os, select, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
CACHE = os.path.join(ROOT, ".cache", "poison-benign")
OUT = os.path.join(HERE, "..", "benign")


def slug(pkg):
    return pkg.replace("@", "").replace("/", "__")


def install(pkg, v):
    d = os.path.join(CACHE, slug(pkg))
    mod = os.path.join(d, "node_modules", pkg, "package.json")
    if not os.path.exists(mod):
        os.makedirs(d, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", d, "--no-audit", "--no-fund", "--ignore-scripts",
                        "--loglevel=error", f"{pkg}@{v}"], check=True, timeout=600,
                       env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
    meta = json.load(open(mod))
    if meta.get("version") != v:
        raise SystemExit(f"{pkg}: installed {meta.get('version')}, want {v}")
    b = meta.get("bin")
    if isinstance(b, dict):
        b = b.get(pkg.split("/")[-1]) or next(iter(b.values()))
    if not b:
        raise SystemExit(f"{pkg}: no bin")
    return os.path.join(d, "node_modules", pkg, b)


def record(entry):
    pkg, v = entry["pkg"], entry["v"]
    binpath = install(pkg, v)
    tmp = tempfile.mkdtemp(prefix="mcpvet-benign-")
    args = [a.replace("$TMP", tmp) for a in entry.get("args", [])]
    env = {"PATH": os.environ["PATH"], "HOME": tmp, "TMPDIR": tmp, "NODE_NO_WARNINGS": "1"}
    env.update(entry.get("env", {}))
    errf = open(os.path.join(tmp, "stderr.txt"), "w+b")
    p = subprocess.Popen(["node", binpath] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=errf, env=env, cwd=tmp)
    buf = b""

    def send(o):
        p.stdin.write((json.dumps(o) + "\n").encode())
        p.stdin.flush()

    def recv(i, timeout=90):
        nonlocal buf
        end = time.time() + timeout
        while time.time() < end:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    o = json.loads(line)
                except Exception:
                    continue
                if o.get("id") == i:
                    return o
            r, _, _ = select.select([p.stdout], [], [], 0.2)
            if r:
                d = os.read(p.stdout.fileno(), 1 << 20)
                if not d:
                    return None
                buf += d
        return None

    pages = []
    n = [0]

    def call(method, params):
        n[0] += 1
        send({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params})
        return recv(n[0])

    try:
        init = call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "mcpvet-corpus", "version": "0"}})
        if not init or "result" not in init:
            errf.seek(0)
            raise RuntimeError(f"no handshake: {init}: {errf.read()[-300:]!r}")
        pages.append({"method": "initialize", "result": init["result"]})
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        caps = init["result"].get("capabilities") or {}
        lists = [("tools/list", "tools")]
        if "prompts" in caps:
            lists.append(("prompts/list", "prompts"))
        if "resources" in caps:
            lists += [("resources/list", "resources"), ("resources/templates/list", "resourceTemplates")]
        for method, key in lists:
            cursor = None
            for _ in range(20):
                r = call(method, {"cursor": cursor} if cursor else {})
                if not r or "result" not in r:
                    break
                pages.append({"method": method, "result": r["result"]})
                cursor = r["result"].get("nextCursor")
                if not cursor:
                    break
    finally:
        try:
            p.stdin.close()
        except Exception:
            pass
        try:
            p.wait(3)
        except Exception:
            p.kill()
    cmd = [pkg.split("/")[-1]] + [a.replace(tmp, "$TMPDIR") for a in args]
    rec = {"source": f"npm:{pkg}@{v}", "command": cmd, "pages": pages}
    with open(os.path.join(OUT, slug(pkg) + ".json"), "w") as f:
        json.dump(rec, f, indent=1, ensure_ascii=False)
        f.write("\n")
    tools = sum(len(p["result"].get("tools", [])) for p in pages)
    return tools


if __name__ == "__main__":
    servers = json.load(open(os.path.join(HERE, "servers.json")))
    want = set(sys.argv[1:])
    os.makedirs(OUT, exist_ok=True)
    from concurrent.futures import ThreadPoolExecutor

    def one(e):
        try:
            print(e["pkg"], e["v"], "tools", record(e), flush=True)
        except Exception as ex:
            print(e["pkg"], e["v"], "FAILED", str(ex)[:200], flush=True)

    todo = [e for e in servers if not want or slug(e["pkg"]) in want or e["pkg"] in want]
    with ThreadPoolExecutor(int(os.environ.get("WORKERS", "4"))) as pool:
        list(pool.map(one, todo))
