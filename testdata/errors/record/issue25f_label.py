#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25f.jsonl: issue 25's sixth held-out
batch (batch 8 of the corpus), committed after errors-v9 was measured on
batch 7 and before errors-v10 was tuned (on batch 7), and before the grader
was ever run on it.

Mostly real: 43 raw JSON-RPC answers of nine npm servers not used in any
earlier batch (responses, census, issue25 to issue25e, the tuned corpus),
recorded by testdata/errors/record/issue25f.py (no network: each server
runs in its own network namespace; credentials are canaries), plus 5
fixtures modelled on the background texts' payloads (a stated wait, a
structured did_you_mean, "Retry with due_date set to ...", retryable
never, the generic "could not process request"), because the real servers
offered retry guidance never. Left out before labelling: exact copies of
another answer of the same server (jira-03, bullmq-02, bullmq-04,
everart-02, everart-03) and two calls with no answer in 10 s (apple-02,
apple-04: the framework lookup goes upstream and waits). Not usable:
@ai-devkit/memory@0.20.1 and @ark-ui/mcp@1.3.0 (exit before answering
initialize), @allpepper/task-orchestrator@3.3.3 (needs bun),
@doist/todoist-ai@9.0.0 (its dependency's version is not on this mirror).

Each case carries its labels ("expect", exactly the applicable elements,
read against docs/rubric.md's element definitions at errors-v9) and a hand
score ("hand", 0-100, as in issue25e_label.py), written before the grader
ran. A success result whose text reports the failure is labelled by the
rule of errors-v9 (channel false, the message elements by what the text
says), "reports the failure" judged by meaning.

    CACHE=.cache/b8 python3 testdata/errors/record/issue25f.py > /tmp/raw25f.jsonl
    python3 testdata/errors/record/issue25f_label.py /tmp/raw25f.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

REAL = {
    "jira-01-pattern_violation": ("nl bo", 5, "",
        "a success result: 'Error: Network error ... check your internet connection and try again': no validation of the path"),
    "jira-02-missing_required": ("ch pa vf nl bo", 55, "", "zod v4"),
    "jira-04-missing_required": ("ch pa vf nl bo", 55, "", "expected record, received undefined at body"),
    "jira-05-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "bullmq-01-enum_violation": ("ch na nl bo", 40, "next_action",
        "'No active connection. Use 'connect' first.': the next call, not the enum"),
    "bullmq-03-unknown_id": ("ch pa vf nl bo", 35, "", ""),
    "bullmq-05-wrong_type": ("ch nl bo", 5, "", "'Command timed out' for id 5"),
    "bullmq-06-unknown_tool": ("pa vf nl bo", 28, "", ""),
    "lunch-01-wrong_type": ("ch pa vf nl bo", 55, "", "received nan: zod coerced the string"),
    "lunch-02-enum_violation": ("ch pa vf nl bo", 62, "", ""),
    "lunch-03-max_length": ("ch pa vf nl bo", 52, "", ""),
    "lunch-04-max_length": ("ch pa vf nl bo", 52, "", ""),
    "lunch-05-runtime": ("ch nl bo", 8, "", ""),
    "lunch-06-missing_required": ("ch pa vf nl bo", 45, "", "a missing argument reported as 'received nan'"),
    "lunch-07-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "lunch-08-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "amap-01-runtime": ("ch co bo", 3, "", "the upstream URL with the API key (canary): a secret leak"),
    "amap-02-missing_required": ("ch pa vf co bo", 3, "",
        "address=undefined in the upstream URL (labelled as batch 6's google-maps answer), the key leaks"),
    "amap-03-wrong_type": ("ch pa vf co bo", 3, "", "location=5 echoed in the URL; the key leaks"),
    "amap-04-unknown_tool": ("pa vf nl bo", 28, "", "isError where -32602 is due (2024-11-05)"),
    "deepseek-01-enum_violation": ("ch pa vf nl bo", 58, "", "zod v4: options, not the value"),
    "deepseek-02-missing_required": ("ch pa vf nl bo", 55, "", "'session_id is required for delete action'"),
    "deepseek-03-max_length": ("ch pa vf nl bo", 52, "", ""),
    "deepseek-04-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "deepseek-05-runtime": ("ch nl bo", 8, "", ""),
    "deepseek-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "deepseek-07-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "deepseek-08-unknown_resource": ("ch pa vf nl bo", 40, "", ""),
    "drawio-01-unknown_id": ("ch pa vf nl bo", 38, "", "the path sent, echoed"),
    "drawio-02-pattern_violation": ("ch vf nl bo", 50, "", "the permitted form and the value; the parameter not named"),
    "drawio-03-unknown_id": ("ch pa vf cm nl bo", 62, "closest_matches", "'Available page names: Overview'"),
    "drawio-04-wrong_type": ("ch pa vf na nl bo", 72, "next_action",
        "'Make sure the diagram content ... is passed directly as a string value': the argument and the form to pass"),
    "drawio-05-enum_violation": ("nl bo", 0, "", "accepted: the invalid dark value ignored, the diagram opened"),
    "drawio-06-unknown_tool": ("nl bo", 5, "", "an unknown tool answered 'content parameter is required': misleading"),
    "apple-01-pattern_violation": ("ch pa vf nl bo", 60, "", "the form and an example URL, under 'Suggestions'"),
    "apple-03-missing_required": ("ch pa vf co nl bo", 58, "", "zod v4 issue array with code invalid_type"),
    "apple-05-unknown_tool": ("pa vf nl bo", 28, "", ""),
    "everart-01-out_of_range": ("ch co nl bo", 5, "", "no validation: upstream DNS failure (a public host)"),
    "everart-04-unknown_tool": ("pa vf nl bo", 28, "", "-32603 for an unknown tool"),
    "everart-05-unknown_resource": ("nl bo", 12, "", "-32603 'Resource not found': no URI, wrong code"),
    "ms365-01-unknown_id": ("ch na cm nl bo", 55, "next_action",
        "'No accounts found. Please login first.': login is a tool of this server; closest_matches by the tool-mention clause (half)"),
    "ms365-02-missing_required": ("ch pa vf nl bo", 50, "", "both required arguments"),
    "ms365-03-unknown_tool": ("pa vf nl bo", 30, "", ""),
}

NUM = {"type": "integer"}
CHAT = [
    {"name": "post_message", "inputSchema": obj({"channel": STR, "text": STR}, ["channel", "text"])},
    {"name": "list_channels", "inputSchema": obj({}, [])},
]
TASKS = [
    {"name": "create_task", "inputSchema": obj({"title": STR, "due_date": {"type": "string", "format": "date"}}, ["title"])},
    {"name": "update_project", "inputSchema": obj({"project_id": STR, "name": STR}, ["project_id"])},
]
GEO = [{"name": "geocode", "inputSchema": obj({"address": STR}, ["address"])}]

FIXTURES = [
    ("quota-wait-seconds", "runtime", call("geocode", {"address": "Lyon"}),
     tool_error("Monthly quota reached for this key. Wait 60 seconds, then retry the same call."), GEO, "",
     "ch na re nl bo", 70, "next_action retry", "a stated delay in prose"),
    ("channel-did-you-mean", "unknown_id", call("post_message", {"channel": "genral", "text": "hi"}),
     tool_error(json.dumps({"error": {"code": "channel_not_found", "message": "No channel named 'genral'.",
                                      "did_you_mean": ["general", "general-eng"]}})),
     CHAT, "channel", "ch pa vf co cm nl bo", 82, "closest_matches", "structured did_you_mean"),
    ("date-retry-with", "format_violation", call("create_task", {"title": "Ship", "due_date": "31/12/2026"}),
     tool_error("due_date '31/12/2026' is not ISO 8601. Retry with due_date set to '2026-12-31'."), TASKS, "due_date",
     "ch pa vf na re nl bo", 85, "next_action retry", ""),
    ("archived-never", "runtime", call("update_project", {"project_id": "prj_9", "name": "x"}),
     tool_error(json.dumps({"code": "project_archived", "message": "Project prj_9 is archived and read-only.", "retryable": "never"})),
     TASKS, "", "ch co re nl bo", 60, "retry", ""),
    ("generic-could-not-process", "runtime", call("update_project", {"project_id": "prj_9", "name": "x"}),
     tool_error("could not process request"), TASKS, "", "ch nl bo", 8, "", "the background text's generic 500 answer"),
]


write("issue25f", REAL, FIXTURES)
