#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25.jsonl: issue 25's held-out batch.

Fixtures in `mcpvet grade` input form, modelled on the payloads of the
background texts (unknown_project with closest_matches, authorization_expired,
rate_limited, the generic "could not process request", a terminal command
against a named login tool) and on the shapes issue 25 lists (a tool's own
name read as an instruction, a two-character echo, stated permitted forms,
a leaked credential, content on the wrong channel). Each case carries its
labels ("expect") and a hand score ("hand", 0-100: how well an agent that
reads only this response can act on it), both written before the grader was
run on the batch. The batch is never tuned on.

    python3 testdata/errors/record/issue25_fixtures.py
"""
import json, os

PV = "2025-11-25"
CAPS = {"tools": {}, "prompts": {}, "resources": {}}

def obj(props, req):
    return {"type": "object", "properties": props, "required": req}

NUM = {"type": "number"}
STR = {"type": "string"}
CALC = [
    {"name": "add", "inputSchema": obj({"a": NUM, "b": NUM}, ["a", "b"])},
    {"name": "remove", "inputSchema": obj({"id": STR, "force": {"type": "boolean"}}, ["id"])},
    {"name": "search", "inputSchema": obj({"query": STR, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}, ["query"])},
]
DRAW = [
    {"name": "export_diagram", "inputSchema": obj({"path": {"type": "string", "pattern": "\\.(drawio|xml)$"}}, ["path"])},
    {"name": "open_diagram", "inputSchema": obj({"path": STR}, ["path"])},
]
PROJ = [
    {"name": "get_project", "inputSchema": obj({"project_id": STR}, ["project_id"])},
    {"name": "list_projects", "inputSchema": obj({}, [])},
    {"name": "search", "inputSchema": obj({"query": STR, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}, ["query"])},
]
WEATHER = [
    {"name": "get_weather", "inputSchema": obj({"city": STR, "units": {"type": "string", "enum": ["metric", "imperial", "kelvin"]}}, ["city"])},
    {"name": "upload", "inputSchema": obj({"filePaths": {"type": "array", "items": STR}}, ["filePaths"])},
    {"name": "deploy", "inputSchema": obj({"apiVersion": STR, "name": STR}, ["apiVersion"])},
]
FLIGHT = [
    {"name": "search_flights", "inputSchema": obj({"from": STR, "to": STR, "date": STR}, ["from", "to", "date"])},
    {"name": "auth_login", "inputSchema": obj({}, [])},
]
DATA = [
    {"name": "query_datastore", "inputSchema": obj({"sql": STR}, ["sql"])},
    {"name": "list_tables", "inputSchema": obj({}, [])},
]
MANY = [{"name": "t%02d" % i, "inputSchema": obj({}, [])} for i in range(1, 41)]

ALL9 = ["channel", "param", "value_or_form", "next_action", "code", "retryable", "closest_matches", "no_leak", "bounded"]

def labels(spec, kind):
    """spec: a string of the passing elements' initials; the elements that
    apply follow the kind (docs/rubric.md)."""
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
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": args}}

def tool_error(text):
    return {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}], "isError": True}}

def rpc_error(code, msg, data=None):
    e = {"code": code, "message": msg}
    if data is not None:
        e["data"] = data
    return {"jsonrpc": "2.0", "id": 7, "error": e}

CASES = []
def case(id, kind, request, response, tools, spec, hand, param="", note="", **extra):
    c = {"id": "issue25-" + id, "source": "fixture:issue25", "kind": kind, "protocolVersion": PV, "capabilities": CAPS,
         "request": request, "response": response, "tools": tools, "expect": labels(spec, kind), "hand": hand}
    if param:
        c["param"] = param
    if note:
        c["note"] = note
    c.update(extra)
    CASES.append(c)

ZOD3 = json.dumps([{"code": "invalid_type", "expected": "number", "received": "string", "path": ["a"], "message": "Expected number, received string"}], indent=2)

# Item 1: the tool's own name and argument names are never instructions.
case("add-wrong-type", "wrong_type", call("add", {"a": "x", "b": 2}),
     tool_error("MCP error -32602: Input validation error: Invalid arguments for tool add: " + ZOD3), CALC,
     "ch pa vf co nl bo", 62, param="a", note="item 1: 'add' is the tool's name, not an instruction")
case("add-missing", "missing_required", call("add", {"a": 1}),
     tool_error("MCP error -32602: Input validation error: Invalid arguments for tool add: Invalid input: expected number, received undefined at b"), CALC,
     "ch pa vf nl bo", 55, param="b", note="item 1")
case("remove-missing", "missing_required", call("remove", {"force": True}),
     tool_error("MCP error -32602: Input validation error: Invalid arguments for tool remove: Required at id"), CALC,
     "ch pa vf nl bo", 45, param="id", note="item 1: 'remove' is the tool's name")
# Item 2: a short echo of the received value.
case("unknown-tool-ad", "unknown_tool", call("ad", {}), rpc_error(-32602, "Tool ad not found"), CALC,
     "ch pa vf nl bo", 40, param="name", note="item 2: a two-character name echoed")
case("unknown-prompt-qa", "unknown_prompt", {"jsonrpc": "2.0", "id": 7, "method": "prompts/get", "params": {"name": "qa"}},
     rpc_error(-32602, "Prompt qa not found"), CALC, "ch pa vf nl bo", 40, param="name", note="item 2", prompts=["summarize", "review"])
case("enum-short-echo", "enum_violation", call("get_weather", {"city": "Paris", "units": "mm"}),
     tool_error("Unknown units: mm"), WEATHER, "ch pa vf nl bo", 42, param="units", note="item 2: the received value, two characters, unquoted")
# Item 3: stated permitted forms.
case("drawio-form", "pattern_violation", call("export_diagram", {"path": "12345"}),
     tool_error("Only .drawio and .xml files are supported: 12345"), DRAW, "ch vf nl bo", 45, param="path",
     note="item 3: states the permitted form and the value; does not name the parameter")
case("path-not-absolute", "pattern_violation", call("open_diagram", {"path": "12345"}),
     tool_error("Path '12345' is not absolute"), DRAW, "ch pa vf nl bo", 50, param="path", note="item 3: 'not absolute' states the form")
# Item 4: a leaked credential.
case("dns-leaks-key", "runtime", call("get_weather", {"city": "Paris"}),
     tool_error("request to https://api.weather.example/v1/current?city=Paris&api_key=sk_live_51Hc9xQ2mN8vR3tY7uK4pL6wZ failed, reason: getaddrinfo ENOTFOUND api.weather.example"),
     WEATHER, "ch co bo", 5, note="item 4: leaks an API key; ENOTFOUND is a code")
case("rich-enum", "enum_violation", call("get_weather", {"city": "Paris", "units": "parsec"}),
     tool_error(json.dumps({"code": "invalid_enum_value", "field": "units", "received": "parsec", "options": ["metric", "imperial", "kelvin"],
                            "message": "units must be one of metric, imperial, kelvin"})), WEATHER,
     "ch pa vf co nl bo", 70, param="units", note="item 4's counterpart: complete enum error, no leak")
# Item 5: the channel penalty must not flatten content.
case("wrong-channel-required", "missing_required", call("upload", {}), rpc_error(-32602, "Required at filePaths"), WEATHER,
     "pa vf nl bo", 25, param="filePaths", note="item 5: thin, wrong channel at 2025-11-25")
case("wrong-channel-apiversion", "wrong_type", call("deploy", {"apiVersion": 2}), rpc_error(-32602, "apiVersion is not a string"), WEATHER,
     "pa vf nl bo", 27, param="apiVersion", note="item 5: thin, wrong channel")
case("wrong-channel-full-enum", "enum_violation", call("get_weather", {"city": "Paris", "units": "parsec"}),
     rpc_error(-32602, "invalid_enum_value: units must be one of metric, imperial, kelvin; received 'parsec'"), WEATHER,
     "pa vf co nl bo", 50, param="units", note="item 5: complete content, wrong channel")
# The background texts' payloads: closest matches, next actions, retry hints.
UNKNOWN_PROJECT = {"code": "unknown_project", "message": "No project with id 'prj_8Fk21'. The id may be from a different workspace.",
                   "field": "project_id", "received": "prj_8Fk21", "closest_matches": ["prj_8Fk2l (Billing Migration)", "prj_8Fj21 (Billing Reports)"],
                   "recover": "Call list_projects to enumerate ids in the current workspace.", "retryable": "with_different_arguments"}
case("unknown-project-structured", "unknown_id", call("get_project", {"project_id": "prj_8Fk21"}), tool_error(json.dumps(UNKNOWN_PROJECT, indent=2)), PROJ,
     "ch pa vf na co re cm nl bo", 100, param="project_id", note="the background text's unknown_project payload")
case("unknown-project-prose", "unknown_id", call("get_project", {"project_id": "prj_8Fk21"}),
     tool_error("No project with id 'prj_8Fk21'. Did you mean prj_8Fk2l or prj_8Fj21? Call list_projects to enumerate ids in this workspace."), PROJ,
     "ch pa vf na cm nl bo", 85, param="project_id")
case("unknown-project-generic", "unknown_id", call("get_project", {"project_id": "prj_8Fk21"}),
     tool_error(json.dumps({"error": "could not process request"})), PROJ, "ch nl bo", 8, param="project_id",
     note="the generic 500 of the background text")
case("runtime-generic", "runtime", call("query_datastore", {"sql": "select 1"}), tool_error("could not process request"), DATA,
     "ch nl bo", 10)
AUTH = {"code": "authorization_expired", "message": "The connection to Datastore was authorised on 2026-06-02 and expired on 2026-08-01.",
        "recover": "The user must reconnect Datastore in Settings > Integrations. No arguments to this tool can restore access.",
        "user_action_required": True, "retryable": "never"}
case("auth-expired-structured", "runtime", call("query_datastore", {"sql": "select 1"}), tool_error(json.dumps(AUTH, indent=2)), DATA,
     "ch co re nl bo", 75, note="human is the actor: retryable never is the guidance; no agent action")
RATE = {"code": "rate_limited", "message": "Upstream rate limit reached: 100 requests per 60 s.", "retry_after_seconds": 12,
        "limit": {"requests": 100, "window_seconds": 60, "remaining": 0},
        "recover": "Wait 12 s before the next call to this tool. Other tools are unaffected.", "retryable": "after_delay"}
case("rate-limited-structured", "runtime", call("query_datastore", {"sql": "select 1"}), tool_error(json.dumps(RATE)), DATA,
     "ch na co re nl bo", 95)
case("rate-limited-prose", "runtime", call("query_datastore", {"sql": "select 1"}), tool_error("Rate limit reached. Retry after 12 seconds."), DATA,
     "ch na re nl bo", 70)
case("terminal-advice", "runtime", call("search_flights", {"from": "SFO", "to": "JFK", "date": "2026-12-24"}),
     tool_error("Authentication required. Run `flightctl auth login` in your terminal."), FLIGHT, "ch nl bo", 20,
     note="a terminal command is not executable by the agent")
case("login-tool", "runtime", call("search_flights", {"from": "SFO", "to": "JFK", "date": "2026-12-24"}),
     tool_error("Your session has expired. Call auth_login, then repeat this search."), FLIGHT, "ch na nl bo", 60)
case("enum-use-one-of", "enum_violation", call("get_weather", {"city": "Paris", "units": "parsec"}),
     tool_error("Invalid units 'parsec'. Use one of: metric, imperial, kelvin."), WEATHER, "ch pa vf na nl bo", 78, param="units")
case("missing-provide", "missing_required", call("search", {"limit": 5}),
     tool_error("Missing required argument 'query'. Provide query as a non-empty string, e.g. {\"query\": \"billing\"}."), PROJ,
     "ch pa vf na nl bo", 75, param="query")
case("out-of-range-structured", "out_of_range", call("search", {"query": "x", "limit": 500}),
     tool_error(json.dumps({"code": "out_of_range", "field": "limit", "received": 500, "minimum": 1, "maximum": 100,
                            "retryable": "with_different_arguments", "recover": "Retry with limit between 1 and 100."})), PROJ,
     "ch pa vf na co re nl bo", 95, param="limit")
case("stack-trace", "wrong_type", call("search", {"query": "x", "limit": "ten"}),
     tool_error("TypeError: Cannot read properties of undefined (reading 'toFixed')\n    at formatLimit (/home/deploy/app/src/search.js:41:17)\n    at /home/deploy/app/node_modules/express/lib/router/layer.js:95:5"),
     PROJ, "ch bo", 6, param="limit", note="a stack trace with host paths; nothing about the argument")
case("unknown-tool-did-you-mean", "unknown_tool", call("serch", {"query": "x"}), rpc_error(-32602, "Unknown tool: serch. Did you mean search?"), PROJ,
     "ch pa vf na cm nl bo", 75, param="name")
case("unknown-tool-lists-40", "unknown_tool", call("fetch_all", {}),
     rpc_error(-32602, "Unknown tool fetch_all. Available tools: " + ", ".join(t["name"] for t in MANY)), MANY,
     "ch pa vf cm nl", 45, param="name", note="40 names: closest matches offered, not bounded")
case("resource-did-you-mean", "unknown_resource", {"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "file:///docs/readme.mdx"}},
     rpc_error(-32002, "Resource not found: file:///docs/readme.mdx. Did you mean file:///docs/readme.md?"), CALC,
     "ch pa vf na cm nl bo", 78, param="uri", resources=["file:///docs/readme.md", "file:///docs/changelog.md"])
case("bad-cursor-omit", "bad_cursor", {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": "zzz"}},
     rpc_error(-32602, "Invalid cursor: zzz. Omit the cursor to start from the first page."), CALC,
     "ch pa vf na nl bo", 70, param="cursor")

out = os.path.join(os.path.dirname(__file__), "..", "heldout", "issue25.jsonl")
with open(out, "w") as f:
    for c in CASES:
        f.write(json.dumps(c) + "\n")
print(len(CASES), "cases ->", os.path.normpath(out))
