#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25d.jsonl: issue 25's fourth held-out
batch (batch 6 of the corpus), committed before any tuning of the rubric
after errors-v7 and before the grader was ever run on it.

Mostly real: 51 raw JSON-RPC answers of ten npm servers not used in any
earlier batch (responses, census, issue25, issue25b, issue25c), recorded by
testdata/errors/record/issue25d.py (no network: each server runs in its own
network namespace; credentials are canaries), plus 6 fixtures modelled on
the background texts' payloads (closest matches, a stated delay, retryable
never, a retry with different arguments), because the real servers offered
retry guidance never and closest matches only as a named listing tool.
Left out before labelling: exact copies of another answer of the same server
(slack-03, tasks-02, mbank-02, tavily-02, circleci-04, circleci-06, exa-02)
and one call that got no answer in 10 s (pdf-06, poll_pdf_commands, a long
poll by design).

Each case carries its labels ("expect", exactly the applicable elements,
read against docs/rubric.md's element definitions) and a hand score
("hand", 0-100: how well an agent that reads only this response can act on
it: a stable code, the offending parameter with the received value and the
permitted form, one next action it can execute from its own state, whether
retrying helps; a leak is a defect), written before the grader ran.

    CACHE=.cache/b6 python3 testdata/errors/record/issue25d.py > /tmp/raw25d.jsonl
    python3 testdata/errors/record/issue25d_label.py /tmp/raw25d.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

# Real responses: id suffix -> (labels, hand, offers, note). Ids not listed
# here are exact copies of a listed answer of the same server, or got no
# answer, and are left out.
REAL = {
    "pdf-01-runtime": ("ch nl bo", 30, "", "the file is not in the (empty) allowed list; the path is the one sent"),
    "pdf-02-out_of_range": ("ch pa vf nl bo", 52, "", "zod v4: the bound, not the value"),
    "pdf-03-enum_violation": ("ch pa vf nl bo", 55, "", "14 options, not the value"),
    "pdf-04-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "pdf-05-missing_required": ("ch pa vf nl bo", 55, "", ""),
    "pdf-07-unknown_tool": ("ch pa vf nl bo", 40, "", "-32602 Tool pdf_info not found: the right channel"),
    "pdf-08-unknown_resource": ("ch pa vf nl bo", 40, "", ""),
    "slack-01-runtime": ("nl bo", 5, "", "a success result (no isError) carrying {error: fetch failed}"),
    "slack-02-missing_required": ("pa vf nl bo", 28, "",
        "names both required arguments as missing though channel_id was sent; no isError"),
    "slack-04-unknown_tool": ("pa vf nl bo", 28, "", "a success result (no isError) for an unknown tool"),
    "maps-01-empty_arguments": ("ch pa vf co bo", 3, "",
        "the upstream URL with address=undefined and the API key (canary) in its query string: a secret leak"),
    "maps-02-enum_violation": ("ch pa vf co bo", 3, "", "mode=flying echoed in the URL; the key leaks"),
    "maps-03-wrong_type": ("ch vf co bo", 3, "", "latlng=north: the value, not the parameter latitude; the key leaks"),
    "maps-04-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "tasks-01-unknown_id": ("nl bo", 12, "", "'Request not found' in a success result: neither the id nor a way on"),
    "tasks-03-wrong_type": ("ch pa vf co nl bo", 60, "", "zod v3 issue array, isError"),
    "tasks-04-missing_required": ("ch pa vf co nl bo", 58, "", ""),
    "tasks-05-unknown_id": ("co nl bo", 15, "",
        "status task_not_found is a stable machine-readable code (lower_snake value of status); no isError"),
    "tasks-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "mbank-01-unknown_id": ("ch pa vf co bo", 30, "",
        "ENOENT with the project dir: the value shop is echoed, but the path reveals the server's root (/tmp/rec25d/mb), not sent"),
    "mbank-03-missing_required": ("ch pa vf nl bo", 55, "", "MissingParamError is an exception class name, not a code"),
    "mbank-04-wrong_type": ("ch vf co nl bo", 35, "",
        "node's ERR_INVALID_ARG_TYPE about its own \"path\" argument: the type and value right, the parameter (projectName) not named"),
    "mbank-05-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "access-01-unknown_id": ("ch pa vf na cm nl bo", 80, "next_action",
        "names list_rules (a real tool) to discover ids; closest_matches per the rubric's 'mention of a real tool other "
        "than the one sent' (it offers no alternative id, so it is not counted as offering one)"),
    "access-02-enum_violation": ("ch pa vf nl bo", 62, "", "zod v3 enum: options, received value, path"),
    "access-03-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "access-04-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "access-05-format_violation": ("ch pa vf nl bo", 48, "", "Invalid url at url: the form only"),
    "access-06-unknown_tool": ("pa vf nl bo", 30, "", "the TypeScript SDK's isError answer to an unknown tool"),
    "access-07-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "access-08-missing_required": ("ch pa vf nl bo", 50, "", "prompts/get: -32602 is the only channel; Required at path"),
    "tavily-01-enum_violation": ("ch co nl bo", 5, "", "no validation: the call goes upstream and fails (EAI_AGAIN, a public host)"),
    "tavily-03-wrong_type": ("ch co nl bo", 5, "", ""),
    "tavily-04-out_of_range": ("ch co nl bo", 5, "", ""),
    "tavily-05-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "circleci-01-runtime": ("ch na nl bo", 70, "next_action",
        "'Please provide either: 1) projectSlug with branch, ...': the arguments to pass; no retry statement"),
    "circleci-02-missing_required": ("ch pa vf nl bo", 65, "",
        "'a branch must also be specified': the parameter and the cross-field rule, stated, not instructed"),
    "circleci-03-pattern_violation": ("ch nl bo", 5, "", "'fetch failed': no validation before the upstream call"),
    "circleci-05-runtime": ("ch nl bo", 35, "", "refuses /etc (sent by the caller): why, not what to do"),
    "circleci-07-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "exa-01-runtime": ("ch nl bo", 8, "", ""),
    "exa-03-out_of_range": ("ch nl bo", 5, "", "no validation: fetch failed"),
    "exa-04-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "exa-05-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "exa-06-unknown_resource": ("ch pa vf nl bo", 40, "", ""),
    "sentry-01-runtime": ("ch nl bo", 12, "",
        "'Check your internet connection ... check your environment configuration and try again': nothing the agent can do, no delay"),
    "sentry-02-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "sentry-03-unknown_id": ("ch pa vf na cm nl bo", 80, "next_action",
        "names search_sentry_tools (a real tool); 'trying again' after 'addressing the concern' says neither when nor how; "
        "closest_matches by the tool-mention clause, not counted as offering"),
    "sentry-04-enum_violation": ("ch pa vf nl bo", 55, "", ""),
    "sentry-05-format_violation": ("ch pa vf nl bo", 48, "", ""),
    "sentry-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
}

NUM = {"type": "integer"}
HUB = [
    {"name": "get_repo", "inputSchema": obj({"repo": STR}, ["repo"])},
    {"name": "list_branches", "inputSchema": obj({"repo": STR}, ["repo"])},
    {"name": "search_code", "inputSchema": obj({"q": STR, "limit": NUM}, ["q"])},
]
VAULT = [{"name": "write_secret", "inputSchema": obj({"path": STR, "value": STR}, ["path", "value"])}]
DOCS = [{"name": "search_docs", "inputSchema": obj({"query": STR}, ["query"])}]


FIXTURES = [
    ("repo-not-found-suggestions", "unknown_id", call("get_repo", {"repo": "acme/webap"}),
     tool_error(json.dumps({"error": {"code": "repo_not_found", "message": "No repository 'acme/webap'.",
                                      "suggestions": ["acme/webapp", "acme/webapp-v2"], "retryable": "with_different_arguments"}})),
     HUB, "repo", "ch pa vf co re cm nl bo", 88, "retry closest_matches", "structured suggestions, no instruction sentence"),
    ("unknown-tool-did-you-mean", "unknown_tool", call("list_branchs", {"repo": "acme/webapp"}),
     rpc_error(-32602, "Unknown tool 'list_branchs'. Did you mean 'list_branches'?"), HUB, "name",
     "ch pa vf na cm nl bo", 82, "next_action closest_matches", ""),
    ("search-rate-limited-structured", "runtime", call("search_code", {"q": "fetch"}),
     tool_error(json.dumps({"code": "rate_limited", "message": "Search quota exhausted.", "retryable": "after_delay",
                            "retry_after_seconds": 30})), HUB, "",
     "ch co re nl bo", 70, "retry", "the rate_limited payload's shape; the delay is a field, not a sentence"),
    ("read-only-key-never", "runtime", call("write_secret", {"path": "app/db", "value": "s3cret"}),
     tool_error("Permission denied: this API key has read-only scope. Do not retry this call; ask the user for a key with write scope."),
     VAULT, "", "ch re nl bo", 55, "retry", "retryable never in prose; asking the user is not an agent action"),
    ("resource-available", "unknown_resource", {"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": {"uri": "docs://guide/instal"}},
     rpc_error(-32002, "Resource 'docs://guide/instal' not found. Available resources: docs://guide/install, docs://guide/usage."),
     DOCS, "uri", "ch pa vf cm nl bo", 72, "closest_matches", ""),
    ("limit-retry-with", "out_of_range", call("search_code", {"q": "fetch", "limit": 5000}),
     tool_error("limit 5000 is out of range: must be between 1 and 100. Retry with limit set to 100."), HUB, "limit",
     "ch pa vf na re nl bo", 85, "next_action retry", "retry with different arguments, named"),
]


write("issue25d", REAL, FIXTURES)
