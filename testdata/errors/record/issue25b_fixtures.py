#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25b.jsonl: issue 25's second held-out
batch, committed before the grader's item-5 change was tuned (on the first
batch, issue25.jsonl) and before the grader was run on it.

New servers and texts, not seen by the grader's authors while tuning: a
code-hosting server (repositories, issues), a calendar, a key-value store,
a translator and a payments API. Most responses offer what the real
corpus never did: a next action (a named tool, a value to use, a wait),
retry guidance (after a delay, never, with different arguments) and
closest matches (structured and in prose); the rest are thin or generic
answers, wrong-channel answers of different content (issue 25 item 5) and
leaks. Each case carries its labels ("expect") and a hand score ("hand",
0-100: how well an agent that reads only this response can act on it),
both written before the grader was run on the batch.

    python3 testdata/errors/record/issue25b_fixtures.py
"""
import json, os

PV = "2025-11-25"
CAPS = {"tools": {}, "prompts": {}, "resources": {}}

def obj(props, req):
    return {"type": "object", "properties": props, "required": req}

STR = {"type": "string"}
INT = {"type": "integer"}
HUB = [
    {"name": "get_repo", "inputSchema": obj({"repo": STR}, ["repo"])},
    {"name": "list_repos", "inputSchema": obj({"owner": STR}, ["owner"])},
    {"name": "get_issue", "inputSchema": obj({"repo": STR, "number": {"type": "integer", "minimum": 1}}, ["repo", "number"])},
    {"name": "search_issues", "inputSchema": obj({"q": STR, "state": {"type": "string", "enum": ["open", "closed", "all"]},
                                                  "per_page": {"type": "integer", "minimum": 1, "maximum": 100}}, ["q"])},
]
CAL = [
    {"name": "create_event", "inputSchema": obj({"title": STR, "start": {"type": "string", "format": "date-time"},
                                                 "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 1440},
                                                 "calendar_id": STR}, ["title", "start"])},
    {"name": "list_calendars", "inputSchema": obj({}, [])},
    {"name": "reconnect_calendar", "inputSchema": obj({}, [])},
]
KV = [
    {"name": "kv_get", "inputSchema": obj({"key": STR, "namespace": STR}, ["key"])},
    {"name": "kv_list_keys", "inputSchema": obj({"prefix": STR}, [])},
]
TR = [
    {"name": "translate", "inputSchema": obj({"text": STR, "target_lang": {"type": "string", "enum": ["de", "en", "es", "fr", "ja"]}},
                                             ["text", "target_lang"])},
]
PAY = [
    {"name": "get_invoice", "inputSchema": obj({"invoice_id": STR}, ["invoice_id"])},
    {"name": "list_invoices", "inputSchema": obj({"customer": STR}, [])},
]

ALL9 = ["channel", "param", "value_or_form", "next_action", "code", "retryable", "closest_matches", "no_leak", "bounded"]

def labels(spec, kind):
    applies = {
        "runtime": ["channel", "next_action", "code", "retryable", "no_leak", "bounded"],
        "unknown_method": ["channel", "value_or_form", "next_action", "code", "retryable", "closest_matches", "no_leak", "bounded"],
        "bad_cursor": ["channel", "param", "value_or_form", "next_action", "code", "retryable", "no_leak", "bounded"],
    }.get(kind)
    if applies is None:
        applies = [e for e in ALL9 if e != "closest_matches" or kind in ("unknown_tool", "unknown_resource", "unknown_prompt", "unknown_id")]
    short = {"channel": "ch", "param": "pa", "value_or_form": "vf", "next_action": "na", "code": "co", "retryable": "re",
             "closest_matches": "cm", "no_leak": "nl", "bounded": "bo"}
    on = set(spec.split())
    for s in on:
        assert s in short.values(), s
    return {e: short[e] in on for e in applies}

def call(tool, args):
    return {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": tool, "arguments": args}}

def tool_error(text):
    return {"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": text}], "isError": True}}

def rpc_error(code, msg, data=None):
    e = {"code": code, "message": msg}
    if data is not None:
        e["data"] = data
    return {"jsonrpc": "2.0", "id": 9, "error": e}

CASES = []
def case(id, kind, request, response, tools, spec, hand, param="", note="", offers="", **extra):
    """offers: what the response offers an agent, for the recall report:
    words among next_action, retry, closest_matches."""
    c = {"id": "issue25b-" + id, "source": "fixture:issue25b", "kind": kind, "protocolVersion": PV, "capabilities": CAPS,
         "request": request, "response": response, "tools": tools, "expect": labels(spec, kind), "hand": hand}
    if param:
        c["param"] = param
    if note:
        c["note"] = note
    if offers:
        c["offers"] = offers.split()
    c.update(extra)
    CASES.append(c)

# Closest matches, next actions, retry hints: structured.
case("repo-not-found-structured", "unknown_id", call("get_repo", {"repo": "acme/billng"}),
     tool_error(json.dumps({"code": "repo_not_found", "field": "repo", "received": "acme/billng",
                            "closest_matches": ["acme/billing", "acme/billing-ui"],
                            "recover": "Call list_repos with owner 'acme' to see every repository you can read.",
                            "retryable": "with_different_arguments"})), HUB,
     "ch pa vf na co re cm nl bo", 98, param="repo", offers="next_action retry closest_matches")
case("invoice-suggestions", "unknown_id", call("get_invoice", {"invoice_id": "in_1Qx7"}),
     tool_error(json.dumps({"error": {"type": "invalid_request_error", "code": "resource_missing", "param": "invoice_id",
                                      "message": "No such invoice: 'in_1Qx7'", "suggestions": ["in_1Qx7a", "in_1Qx71"]}})), PAY,
     "ch pa vf co cm nl bo", 80, param="invoice_id", offers="closest_matches")
case("kv-key-candidates-prose", "unknown_id", call("kv_get", {"key": "user:42:profil"}),
     tool_error("Key 'user:42:profil' does not exist. Closest keys: 'user:42:profile', 'user:42:prefs'. Use kv_list_keys with prefix 'user:42:' to list the rest."), KV,
     "ch pa vf na cm nl bo", 85, param="key", offers="next_action closest_matches")
case("tool-did-you-mean-structured", "unknown_tool", call("get_isue", {"repo": "acme/billing", "number": 3}),
     rpc_error(-32602, "Unknown tool: get_isue", {"did_you_mean": ["get_issue"]}), HUB,
     "ch pa vf cm nl bo", 72, param="name", offers="closest_matches")
case("tool-not-found-bare", "unknown_tool", call("get_isue", {"repo": "acme/billing", "number": 3}),
     rpc_error(-32602, "Tool get_isue not found"), HUB, "ch pa vf nl bo", 40, param="name")
case("lang-enum-suggest", "enum_violation", call("translate", {"text": "hello", "target_lang": "ger"}),
     tool_error("Unsupported target_lang 'ger'. Supported languages: de, en, es, fr, ja. Did you mean 'de'?"), TR,
     "ch pa vf na nl bo", 88, param="target_lang", offers="next_action closest_matches")
case("state-enum-zod", "enum_violation", call("search_issues", {"q": "bug", "state": "opened"}),
     tool_error("MCP error -32602: Input validation error: Invalid arguments for tool search_issues: " + json.dumps(
         [{"received": "opened", "code": "invalid_enum_value", "options": ["open", "closed", "all"], "path": ["state"],
           "message": "Invalid enum value. Expected 'open' | 'closed' | 'all', received 'opened'"}], indent=2)), HUB,
     "ch pa vf co nl bo", 72, param="state")
# Retry guidance.
case("secondary-rate-limit", "runtime", call("search_issues", {"q": "bug"}),
     tool_error(json.dumps({"code": "secondary_rate_limit", "message": "You have exceeded a secondary rate limit.",
                            "retry_after_seconds": 60, "retryable": "after_delay"})), HUB,
     "ch co re nl bo", 82, offers="retry", note="the delay is stated; waiting is also a next action")
case("busy-try-later", "runtime", call("search_issues", {"q": "bug"}),
     tool_error("Service busy. Please try again later."), HUB, "ch nl bo", 15, note="no duration: neither retry guidance nor a next action")
case("calendar-token-revoked", "runtime", call("create_event", {"title": "Standup", "start": "2026-12-02T09:00:00Z"}),
     tool_error("Calendar access was revoked (invalid_grant). Call reconnect_calendar, then repeat this call. Retrying without reconnecting will not help."), CAL,
     "ch na co re nl bo", 90, offers="next_action retry")
case("upstream-timeout-retry", "runtime", call("translate", {"text": "hello", "target_lang": "de"}),
     tool_error("ETIMEDOUT: the translation backend did not answer within 10 s. Retry after 5 seconds."), TR,
     "ch na co re nl bo", 80, offers="next_action retry")
case("quota-never", "runtime", call("translate", {"text": "hello", "target_lang": "de"}),
     tool_error(json.dumps({"code": "quota_exhausted", "message": "The monthly character quota of this key is used up until 2027-01-01.",
                            "retryable": "never"})), TR, "ch co re nl bo", 70, offers="retry")
case("range-retry-with", "out_of_range", call("create_event", {"title": "Standup", "start": "2026-12-02T09:00:00Z", "duration_minutes": 2}),
     tool_error("duration_minutes must be at least 5 (received 2). Try again with duration_minutes set to 5 or more."), CAL,
     "ch pa vf na re nl bo", 88, param="duration_minutes", offers="next_action retry")
# Thin and generic answers.
case("missing-required-bare", "missing_required", call("create_event", {"start": "2026-12-02T09:00:00Z"}),
     tool_error("MCP error -32602: Input validation error: Invalid arguments for tool create_event: Required at title"), CAL,
     "ch pa vf nl bo", 50, param="title")
case("format-bare", "pattern_violation", call("create_event", {"title": "Standup", "start": "tomorrow 9am"}),
     tool_error("Invalid datetime"), CAL, "ch vf nl bo", 30, param="start", note="states the expected form only vaguely; no parameter")
case("internal-error-generic", "unknown_id", call("get_invoice", {"invoice_id": "in_1Qx7"}),
     tool_error("Internal server error"), PAY, "ch nl bo", 8, param="invoice_id")
case("something-went-wrong", "runtime", call("kv_get", {"key": "a"}), tool_error("Something went wrong."), KV, "ch nl bo", 8)
# Item 5: content on the wrong channel (input validation as a JSON-RPC error at 2025-11-25).
case("wrong-channel-bare", "wrong_type", call("get_issue", {"repo": "acme/billing", "number": "three"}),
     rpc_error(-32602, "Invalid params"), HUB, "nl bo", 5, param="number")
case("wrong-channel-names", "wrong_type", call("get_issue", {"repo": "acme/billing", "number": "three"}),
     rpc_error(-32602, "number: expected integer"), HUB, "pa vf nl bo", 30, param="number")
case("wrong-channel-complete", "wrong_type", call("get_issue", {"repo": "acme/billing", "number": "three"}),
     rpc_error(-32602, "invalid_type: number must be an integer of at least 1, received string 'three'. Pass the issue number, e.g. 3.",
               {"code": "invalid_type", "field": "number"}), HUB, "pa vf na co nl bo", 62, param="number", offers="next_action")
case("right-channel-names", "wrong_type", call("get_issue", {"repo": "acme/billing", "number": "three"}),
     tool_error("number: expected integer"), HUB, "ch pa vf nl bo", 45, param="number")
case("wrong-channel-internal", "missing_required", call("get_repo", {}),
     rpc_error(-32603, "Internal error", "Missing required argument: repo"), HUB, "pa vf nl bo", 25, param="repo")
# Leaks.
case("leaks-connection-string", "runtime", call("kv_get", {"key": "a"}),
     tool_error("ECONNREFUSED: could not reach redis://kvadmin:Wr9s-p4ss@10.2.0.7:6379/0. Retry after 10 seconds."), KV,
     "ch na co re bo", 5, note="leaks a password and an internal host; capped", offers="next_action retry")
case("leaks-stack", "unknown_id", call("get_repo", {"repo": "acme/billng"}),
     tool_error("Error: Not Found\n    at Octokit.request (/srv/hub-mcp/node_modules/@octokit/request/dist-node/index.js:86:21)\n    at async getRepo (/srv/hub-mcp/dist/tools/repo.js:14:5)"), HUB,
     "ch bo", 12, param="repo", note="a stack trace with host paths; 'Not Found' says little")
# Unknown prompt/resource/cursor.
case("prompt-available", "unknown_prompt", {"jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": "sumarize"}},
     rpc_error(-32602, "Unknown prompt 'sumarize'. Available prompts: summarize, review."), HUB,
     "ch pa vf cm nl bo", 75, param="name", prompts=["summarize", "review"], offers="closest_matches")
case("cursor-expired", "bad_cursor", {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"cursor": "eyJwIjo5OX0"}},
     rpc_error(-32602, "Cursor eyJwIjo5OX0 has expired. Request tools/list without a cursor to start again."), HUB,
     "ch pa vf na nl bo", 72, param="cursor", offers="next_action")

out = os.path.join(os.path.dirname(__file__), "..", "heldout", "issue25b.jsonl")
with open(out, "w") as f:
    for c in CASES:
        f.write(json.dumps(c) + "\n")
print(len(CASES), "cases ->", os.path.normpath(out))
