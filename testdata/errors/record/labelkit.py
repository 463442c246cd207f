"""Shared by the held-out batches' label scripts (issue25c_label.py,
issue25d_label.py): the element names and their short forms, which elements
apply to a recorded case, and the builders of the fixtures' requests and
responses."""

import json
import os
import sys

ALL9 = ["channel", "param", "value_or_form", "next_action", "code", "retryable", "closest_matches", "no_leak", "bounded"]
SHORT = {"channel": "ch", "param": "pa", "value_or_form": "vf", "next_action": "na", "code": "co", "retryable": "re",
         "closest_matches": "cm", "no_leak": "nl", "bounded": "bo"}
UNKNOWN = ("unknown_tool", "unknown_resource", "unknown_prompt", "unknown_id")


def required_of(rec):
    req = rec.get("request", {})
    if req.get("method") != "tools/call":
        return []
    name = req.get("params", {}).get("name")
    for t in rec.get("tools") or []:
        if t["name"] == name:
            return (t.get("inputSchema") or {}).get("required") or []
    return []


def labels(rec, spec):
    kind = rec["kind"]
    applies = []
    for e in ALL9:
        if e == "closest_matches" and kind not in UNKNOWN + ("unknown_method",):
            continue
        if e == "param" and kind == "unknown_method":
            continue
        if e in ("param", "value_or_form"):
            if kind == "runtime" and not rec.get("param"):
                continue
            if kind in ("empty_arguments", "absent_arguments") and not required_of(rec):
                continue
        applies.append(e)
    on = set(spec.split())
    for s in on:
        assert s in SHORT.values(), s
        assert any(SHORT[e] == s for e in applies), (rec["id"], s, "does not apply")
    return {e: SHORT[e] in on for e in applies}


PV = "2025-11-25"
CAPS = {"tools": {}, "prompts": {}, "resources": {}}


def obj(props, req):
    return {"type": "object", "properties": props, "required": req}


STR = {"type": "string"}


def call(tool, args):
    return {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": tool, "arguments": args}}


def tool_error(text):
    return {"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": text}], "isError": True}}


def rpc_error(code, msg):
    return {"jsonrpc": "2.0", "id": 9, "error": {"code": code, "message": msg}}


def write(batch, real, fixtures):
    """Labels the recorded answers named in real (id suffix -> (labels,
    hand, offers, note)) read from the file named by the first argument,
    and the fixtures of batch, and writes ../heldout/BATCH.jsonl."""
    raw = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    out = []
    seen = set()
    for rec in raw:
        key = rec["id"].removeprefix(batch + "-")
        if key not in real:
            continue
        seen.add(key)
        spec, hand, offers, note = real[key]
        rec["expect"] = labels(rec, spec)
        rec["hand"] = hand
        if offers:
            rec["offers"] = offers.split()
        if note:
            rec["note"] = note
        out.append(rec)
    missing = set(real) - seen
    assert not missing, missing
    for (id, kind, req, resp, tools, param, spec, hand, offers, note) in fixtures:
        rec = {"id": batch + "-fixture-" + id, "source": "fixture:" + batch, "kind": kind, "request": req, "response": resp,
               "protocolVersion": PV, "capabilities": CAPS, "tools": tools}
        if param:
            rec["param"] = param
        if kind == "unknown_prompt":
            rec["prompts"] = ["triage-ticket", "summarize-thread"]
        if kind == "unknown_resource":
            rec["resources"] = ["docs://guide/install", "docs://guide/usage"]
        rec["expect"] = labels(rec, spec)
        rec["hand"] = hand
        if offers:
            rec["offers"] = offers.split()
        if note:
            rec["note"] = note
        out.append(rec)
    dst = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "heldout", batch + ".jsonl")
    with open(dst, "w") as f:
        for rec in out:
            f.write(json.dumps(rec) + "\n")
    print(len(out), "cases:", sum(1 for r in out if r["source"].startswith("recorded:")), "recorded,",
          sum(1 for r in out if r["source"].startswith("fixture:")), "fixtures", file=sys.stderr)

