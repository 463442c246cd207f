#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25i.jsonl: issue 25's ninth
held-out batch (batch 11 of the corpus), committed after errors-v12 was
measured on batch 10 and before errors-v13 (a refit of the score formula
on batches 3 to 10) was made, and before the grader was ever run on it.

Mostly real: 42 raw JSON-RPC answers of nine npm servers not used in any
earlier batch (responses, census, issue25 to issue25h, the tuned corpus),
recorded by testdata/errors/record/issue25i.py (no network: each server
runs in its own network namespace; credentials are canaries), plus 4
fixtures modelled on the background texts' payloads (a named login call
with "retrying will not help", a stated delay with a code, "Did you mean"
for an unknown id, a complete structured enum payload), because the real
servers offered no next action, retry guidance or closest matches. Left
out before labelling: exact copies of another answer of the same server
(brave-02, awskb-02, awskb-03). Not usable: @chakra-ui/react-mcp@2.1.1
(fetches its component list upstream at start and exits offline),
@modelcontextprotocol/server-redis@2025.4.25 (connects to Redis before
the handshake), @zereight/mcp-gitlab@2.1.64 (no tools/list answer within
drive.py's 10 s offline).

Labels ("expect") and hand scores ("hand") as in issue25h_label.py,
written before the grader ran; nothing was graded.

    CACHE=.cache/b11 python3 testdata/errors/record/issue25i.py > /tmp/raw25i.jsonl
    python3 testdata/errors/record/issue25i_label.py /tmp/raw25i.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

REAL = {
    "brave-01-missing_required": ("ch nl bo", 15, "", "'Error: Invalid arguments for brave_web_search' and nothing else"),
    "brave-03-out_of_range": ("ch nl bo", 5, "", "count 500 not validated: 'fetch failed' offline"),
    "brave-04-runtime": ("ch nl bo", 15, "", "'Rate limit exceeded' offline: no delay, no code"),
    "brave-05-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "awskb-01-missing_required": ("nl bo", 3, "",
        "a success result 'Retrieval failed or returned no results.' for a missing knowledgeBaseId: no validation"),
    "awskb-04-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "hubspot-01-missing_required": ("ch pa vf co nl bo", 52, "", "zod v3 issue array: received undefined, expected string"),
    "hubspot-02-wrong_type": ("ch pa vf co nl bo", 55, "", ""),
    "hubspot-03-enum_violation": ("ch pa vf co nl bo", 60, "", "zod v3 issue array with options and the received value"),
    "hubspot-04-unknown_id": ("ch nl bo", 8, "", "'fetch failed' for an engagement lookup offline"),
    "hubspot-05-runtime": ("ch nl bo", 8, "", ""),
    "hubspot-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "yt-01-missing_required": ("ch pa vf nl bo", 50, "", "-32602 at 2024-11-05 (either channel); 'URL parameter is required and must be a string'"),
    "yt-02-format_violation": ("ch vf nl bo", 35, "", "'Invalid YouTube video ID: not a video': the value, not the parameter url"),
    "yt-03-runtime": ("nl bo", 5, "", "-32603 for an upstream failure on tools/call"),
    "yt-04-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "dd-01-missing_required": ("pa vf co nl bo", 42, "", "-32603 for invalid arguments"),
    "dd-02-wrong_type": ("pa vf co nl bo", 45, "", ""),
    "dd-03-enum_violation": ("pa vf co nl bo", 48, "", ""),
    "dd-04-unknown_id": ("co nl bo", 5, "", "-32603 DNS failure (EAI_AGAIN); the id only inside the upstream URL"),
    "dd-05-unknown_tool": ("nl bo", 10, "", "-32603 'Unknown tool' without the name"),
    "es-01-missing_required": ("ch pa vf co nl bo", 52, "", "-32602 at 2025-06-18 (either channel)"),
    "es-02-wrong_type": ("ch pa vf co nl bo", 55, "", ""),
    "es-03-unknown_id": ("co bo", 3, "",
        "a success result 'Error: connect ECONNREFUSED 127.0.0.1:9': a loopback address (from ES_URL, not the arguments) leaks"),
    "es-04-unknown_tool": ("ch pa vf nl bo", 40, "", ""),
    "mapbox-01-enum_violation": ("ch pa vf nl bo", 50, "", "the options, not the received value"),
    "mapbox-02-missing_required": ("ch pa vf nl bo", 50, "", "'expected object, received undefined at to'"),
    "mapbox-03-wrong_type": ("ch pa vf nl bo", 55, "", ""),
    "mapbox-04-unknown_id": ("ch nl bo", 5, "", "{message: fetch failed, tool: place_details_tool}"),
    "mapbox-05-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "mapbox-06-unknown_prompt": ("pa vf nl bo", 30, "", "-32603 for an unknown prompt"),
    "vuetify-01-missing_required": ("ch pa vf nl bo", 48, "", "'Required at componentName'"),
    "vuetify-02-unknown_id": ("ch nl bo", 5, "", "'fetch failed' for an unknown component"),
    "vuetify-03-enum_violation": ("ch pa vf nl bo", 60, "", "the options and the received value"),
    "vuetify-04-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "vuetify-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "vuetify-06-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "fetch-01-missing_required": ("pa vf co nl bo", 42, "", "-32603 for invalid arguments, zod v4 issue array"),
    "fetch-02-format_violation": ("pa vf co nl bo", 42, "", "code invalid_format, format url"),
    "fetch-03-runtime": ("ch nl bo", 8, "", "the URL sent, echoed, and 'fetch failed'"),
    "fetch-04-wrong_type": ("pa vf co nl bo", 45, "", ""),
    "fetch-05-unknown_tool": ("pa vf nl bo", 28, "", "-32603 for an unknown tool"),
}

SEARCH = [{"name": "search_index", "inputSchema": obj({"index": STR, "query": STR}, ["index", "query"])},
          {"name": "list_indices", "inputSchema": obj({}, [])},
          {"name": "login", "inputSchema": obj({}, [])}]
GEO = [{"name": "distance", "inputSchema": obj({"from": STR, "to": STR, "units": {"type": "string", "enum": ["kilometers", "miles"]}},
                                              ["from", "to"])}]

FIXTURES = [
    ("index-did-you-mean", "unknown_id", call("search_index", {"index": "log", "query": "x"}),
     tool_error("No index named 'log'. Did you mean 'logs' or 'logs-2026'?"), SEARCH, "index",
     "ch pa vf na cm nl bo", 80, "next_action closest_matches", ""),
    ("quota-retry-after", "runtime", call("search_index", {"index": "logs", "query": "x"}),
     tool_error("Search quota exceeded (quota_exceeded). Retry after 30 seconds."), SEARCH, "",
     "ch na co re nl bo", 70, "next_action retry", ""),
    ("session-login", "runtime", call("search_index", {"index": "logs", "query": "x"}),
     tool_error("Your session has expired. Call the login tool, then repeat this call. Retrying before that will not help."),
     SEARCH, "", "ch na re nl bo", 72, "next_action retry", ""),
    ("units-structured", "enum_violation", call("distance", {"from": "a", "to": "b", "units": "parsecs"}),
     tool_error(json.dumps({"code": "invalid_units", "param": "units", "received": "parsecs", "allowed": ["kilometers", "miles"],
                            "recover": "Call distance again with units set to 'kilometers'.",
                            "retryable": "with_different_arguments"})), GEO, "units",
     "ch pa vf na co re nl bo", 92, "next_action retry", ""),
]


write("issue25i", REAL, FIXTURES)
