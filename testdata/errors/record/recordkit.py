"""What the held-out batch recorders (issue25c.py and later) share.

A recorder lists its servers, S = {key: (argv, source, canaries, calls)},
and calls record(batch, S, env, keys): each server is driven by drive.py
inside WRAP (a fresh network namespace with loopback up: nothing leaves
the machine) and every raw answer is printed as one line in `mcpvet grade`
input form, without any grade; labels and hand scores are added afterwards
by the batch's label script (labelkit.py).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drive  # noqa: E402

# The one wrapper that passes through a shell: fixed text, the server's
# argv follows as its positional arguments.
WRAP = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"']


def cache(default):
    """The install folder: $CACHE, or default, with a trailing slash."""
    return os.environ.get("CACHE", default) + "/"


def binpath(c):
    """binp(pkg, ver, name): the bin `name` of PKG@VER installed under c
    with `npm install --ignore-scripts --prefix c/<pkg_ver>`."""
    def binp(pkg, ver, name):
        d = (pkg + "_" + ver).replace("/", "_").replace("@", "_")
        return c + d + "/node_modules/.bin/" + name
    return binp


def tc(name, args, kind, param=None):
    """A tools/call of tool name with args, probing kind (param: the
    argument the probe is about)."""
    return (kind, param, "tools/call", {"name": name, "arguments": args})


def picker(canaries):
    """can(*names): the canaries of these names."""
    def can(*names):
        return {n: canaries[n] for n in names}
    return can


def record(batch, servers, env, keys):
    """Drive the servers named by keys (all when empty) and print their
    answers; ids are <batch>-<key>-<nn>-<kind>."""
    for key in keys or list(servers):
        cmd, src, canaries, calls = servers[key]
        o = drive.run(WRAP + cmd, [(m, p) for (_, _, m, p) in calls], env=env)
        init = o["init"].get("result", {}) if isinstance(o["init"], dict) else {}
        raw = o["toolsRaw"]
        tools = raw["result"]["tools"] if isinstance(raw, dict) and "result" in raw else []
        for i, ((kind, param, m, p), c) in enumerate(zip(calls, o["calls"])):
            rec = {"id": f"{batch}-{key}-{i+1:02d}-{kind}", "source": "recorded:" + src, "kind": kind,
                   "request": {"jsonrpc": "2.0", "id": 100 + i, "method": m, "params": p}, "response": c["response"],
                   "protocolVersion": init.get("protocolVersion"), "capabilities": init.get("capabilities"), "tools": tools}
            if param:
                rec["param"] = param
            if canaries:
                rec["canaries"] = canaries
            print(json.dumps(rec))
        sys.stderr.write(f"{key}: {len(calls)} calls, init {'ok' if init else 'MISSING'}, {len(tools)} tools\n")
