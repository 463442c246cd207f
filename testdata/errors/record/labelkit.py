"""Shared by the held-out batches' label scripts (issue25c_label.py,
issue25d_label.py): the element names and their short forms, which elements
apply to a recorded case, and the builders of the fixtures' requests and
responses."""

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
