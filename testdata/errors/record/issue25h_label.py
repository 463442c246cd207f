#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25h.jsonl: issue 25's eighth
held-out batch (batch 10 of the corpus), committed after errors-v11 was
measured on batch 9 and before errors-v12 was tuned (on batch 9), and
before the grader was ever run on it.

Mostly real: 42 raw JSON-RPC answers of nine npm servers not used in any
earlier batch (responses, census, issue25 to issue25g, the tuned corpus),
recorded by testdata/errors/record/issue25h.py (no network: each server
runs in its own network namespace; credentials are canaries), plus 4
fixtures modelled on the background texts' payloads (a stated delay with a
named fallback call, "Did you mean", retryable never with a human action,
"Use the format ..., e.g."), because the real servers offered no retry
guidance the rubric counts (Pinecone's "retry once" says neither when nor
how). Left out before labelling: exact copies of another answer of the same
server (aria-02, asana-02, asana-03, shopify-02). Not usable:
@stripe/mcp@0.3.3 (a proxy to a remote server: no tools/list offline),
@modelcontextprotocol/server-budget-allocator@2.0.3 (one tool without
arguments), @synergy-design-system/mcp@4.16.0 and
@neondatabase/mcp-server-neon@0.6.5 (npm install failed or timed out).

Labels ("expect") and hand scores ("hand") as in issue25e_label.py,
written before the grader ran. The o200k_base count of shopify-04's zod
array (370 tokens, under 500) was taken with internal/tokens before
labelling `bounded`; nothing was graded.

    CACHE=.cache/b10 python3 testdata/errors/record/issue25h.py > /tmp/raw25h.jsonl
    python3 testdata/errors/record/issue25h_label.py /tmp/raw25h.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

REAL = {
    "aria-01-unknown_id": ("ch nl bo", 5, "", "'fetch failed' for an unknown page: the docs are fetched upstream"),
    "aria-03-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "aria-04-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "aria-05-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "aria-06-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "pinecone-01-missing_required": ("ch pa vf nl bo", 55, "", ""),
    "pinecone-02-runtime": ("ch nl bo", 25, "",
        "'transient network issue — retry once. If it persists, continue without documentation context': why and roughly "
        "what, but no delay, no tool, no value"),
    "pinecone-03-unknown_id": ("ch nl bo", 20, "", "network failure; 'retry once; ... ask the user to check their network'"),
    "pinecone-04-missing_required": ("ch pa vf nl bo", 55, "", ""),
    "pinecone-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "asana-01-missing_required": ("co nl bo", 3, "", "a success result {error: getaddrinfo EAI_AGAIN}: no validation"),
    "asana-04-unknown_tool": ("pa vf nl bo", 25, "", "a success result {error: Unknown tool: ...}"),
    "asana-05-unknown_prompt": ("pa vf nl bo", 30, "", "-32603 for an unknown prompt"),
    "asana-06-unknown_resource": ("co nl bo", 5, "", "-32603 upstream DNS failure for an unknown resource"),
    "shopify-01-enum_violation": ("ch pa vf co nl bo", 58, "", "zod v4 issue array: 21 values, path, code invalid_value"),
    "shopify-03-unknown_id": ("ch nl bo", 10, "",
        "'Please try again later'; a setting for the user's client configuration (USE_LEGACY_SEARCH is a variable name)"),
    "shopify-04-empty_arguments": ("ch pa vf co nl bo", 55, "", "zod v4 array of seven issues with values (370 tokens)"),
    "shopify-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "shopify-06-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "shortcut-01-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "shortcut-02-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "shortcut-03-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "shortcut-04-runtime": ("ch co nl bo", 5, "", ""),
    "shortcut-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "pdf-01-unknown_id": ("ch pa vf nl bo", 38, "", "the path sent, echoed: 'File not found at ...'"),
    "pdf-02-out_of_range": ("ch pa nl bo", 10, "", "'All PDF sources failed to process: ' and nothing after it"),
    "pdf-03-wrong_type": ("ch pa vf nl bo", 55, "", "'sources: Expected array'"),
    "pdf-04-pattern_violation": ("ch vf nl bo", 30, "", "'Invalid PDF structure' for a text file: the value, not the parameter path"),
    "pdf-05-unknown_tool": ("pa vf nl bo", 28, "", ""),
    "lara-01-wrong_type": ("pa vf nl bo", 40, "", "-32600 for invalid arguments at 2025-11-25"),
    "lara-02-missing_required": ("pa vf nl bo", 38, "", ""),
    "lara-03-missing_required": ("pa nl bo", 22, "", "'text: Invalid input'"),
    "lara-04-runtime": ("co nl bo", 5, "", "-32600 for an upstream DNS failure"),
    "lara-05-unknown_tool": ("pa vf nl bo", 28, "", "-32600 for an unknown tool"),
    "lara-06-unknown_resource": ("pa vf nl bo", 30, "", "-32600 for an unknown resource"),
    "airbnb-01-missing_required": ("ch nl bo", 3, "", "a TypeError message: no validation"),
    "airbnb-02-runtime": ("ch co nl bo", 8, "", ""),
    "airbnb-03-wrong_type": ("ch co nl bo", 5, "", "the id 5 only inside the upstream URL"),
    "airbnb-04-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "scenario-01-wrong_type": ("ch pa vf nl bo", 52, "", "the right issue first, then four other fields required by the object"),
    "scenario-02-unknown_tool": ("ch pa vf nl bo", 40, "", ""),
    "scenario-03-unknown_resource": ("ch pa vf nl bo", 42, "", "error.data carries the uri"),
}

DOCS = [{"name": "get_page", "inputSchema": obj({"page": STR}, ["page"])},
        {"name": "get_status", "inputSchema": obj({}, [])}]
STAYS = [{"name": "search_stays", "inputSchema": obj({"location": STR, "checkin": {"type": "string", "format": "date"}}, ["location"])}]

FIXTURES = [
    ("network-retry-after", "runtime", call("get_page", {"page": "Button"}),
     tool_error("Upstream unreachable. Retry after 5 seconds; if it fails three times, call get_status."), DOCS, "",
     "ch na re nl bo", 72, "next_action retry", ""),
    ("page-did-you-mean", "unknown_id", call("get_page", {"page": "Buton"}),
     tool_error("No page named 'Buton'. Did you mean 'Button'?"), DOCS, "page",
     "ch pa vf na cm nl bo", 80, "next_action closest_matches", ""),
    ("plan-limit-never", "runtime", call("search_stays", {"location": "Paris"}),
     tool_error(json.dumps({"code": "plan_limit", "message": "Monthly limit reached on the free plan.", "retryable": "never",
                            "user_action_required": "Upgrade the plan."})), STAYS, "",
     "ch co re nl bo", 58, "retry", ""),
    ("date-use-format", "format_violation", call("search_stays", {"location": "Paris", "checkin": "12/01"}),
     tool_error("checkin '12/01' is not a date. Use the format YYYY-MM-DD, e.g. \"2026-12-01\"."), STAYS, "checkin",
     "ch pa vf na nl bo", 72, "next_action", ""),
]


write("issue25h", REAL, FIXTURES)
