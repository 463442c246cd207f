#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25c.jsonl: issue 25's third held-out
batch (batch 5 of the corpus), committed before any tuning of errors-v7 and
before the grader was ever run on it.

Mostly real: 36 raw JSON-RPC answers of seven npm servers not used in any
earlier batch, recorded by testdata/errors/record/issue25c.py (no network:
each server runs in its own network namespace), plus 6 fixtures modelled on
the background texts' payloads (closest matches, a stated delay, a login
tool, retryable never), because the real servers offered retry guidance
once and closest matches never. Identical answers of one server to
different probes (playwright's, notion's and the chart server's upstream
failure, which every call got) are kept once or twice, not seven times.

Each case carries its labels ("expect", exactly the applicable elements,
read against docs/rubric.md's element definitions) and a hand score
("hand", 0-100: how well an agent that reads only this response can act on
it: a stable code, the offending parameter with the received value and the
permitted form, one next action it can execute from its own state, whether
retrying helps; a leak is a defect), written before the grader ran.

    CACHE=.cache/b5 python3 testdata/errors/record/issue25c.py > /tmp/raw25c.jsonl
    python3 testdata/errors/record/issue25c_label.py /tmp/raw25c.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

# Real responses: id suffix -> (labels, hand, offers, note). Ids not listed
# here are duplicates of a listed answer and are left out.
REAL = {
    "mongodb-01-unknown_id": ("ch pa vf na re cm nl bo", 85, "next_action retry",
        "names list-connections (a real tool) and says to retry with the id it returns; closest_matches per the rubric's "
        "'mention of a real tool other than the one sent' (it offers no alternative id, so it is not counted as offering one)"),
    "mongodb-02-pattern_violation": ("ch pa vf na nl bo", 45, "next_action",
        "'connection string' names connectionString in words; the form is garbled by the server's own redaction "
        "('start with \"<mongodb uri>'); 'use ... connect' names a real tool, though the agent must ask the user for the string"),
    "mongodb-03-enum_violation": ("ch pa vf nl bo", 55, "", "zod v4: the form, not the value"),
    "mongodb-04-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "mongodb-05-empty_arguments": ("ch pa vf nl bo", 55, "", "expected string, received undefined at the required connectionId"),
    "mongodb-06-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "mongodb-07-unknown_tool": ("ch pa vf nl bo", 40, "", ""),
    "mongodb-08-runtime": ("ch co nl bo", 20, "", "EAI_AGAIN is an errno-style code; knowledge.mongodb.com is a public host"),
    "mongodb-09-unknown_resource": ("ch pa vf nl bo", 40, "", ""),
    "mongodb-10-bad_cursor": ("nl bo", 5, "", "garbage cursor ignored: the first page again"),
    "playwright-01-runtime": ("ch bo", 15, "",
        "browser missing; the fix is a terminal command (npx), not executable by the agent; /opt/google/chrome/chrome is a host path"),
    "playwright-02-enum_violation": ("ch bo", 10, "",
        "the enum violation is never reported: every call, valid or not, gets the browser-missing error"),
    "playwright-06-unknown_tool": ("bo", 5, "", "an unknown tool answered with isError and the browser-missing error"),
    "github-01-wrong_type": ("pa vf co nl bo", 45, "", "zod v3 issue array on -32603 (wrong code at 2024-11-05)"),
    "github-02-enum_violation": ("pa vf co nl bo", 50, "", "received, options, path, code: complete, on -32603"),
    "github-03-out_of_range": ("pa vf co nl bo", 45, "", ""),
    "github-04-missing_required": ("pa vf co nl bo", 42, "", ""),
    "github-05-runtime": ("nl bo", 5, "", "'fetch failed' as -32603 to a tool call"),
    "github-06-unknown_tool": ("pa vf nl bo", 30, "", "-32603 where -32602 is due"),
    "postgres-01-runtime": ("co bo", 8, "", "127.0.0.1:9 is the server's own database address, not sent by the caller"),
    "postgres-02-wrong_type": ("co bo", 5, "", "the wrong type is never reported: the connection fails first"),
    "postgres-03-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "postgres-04-unknown_resource": ("co bo", 5, "", ""),
    "notion-01-pattern_violation": ("co nl bo", 5, "", "no validation: the call goes upstream and fails"),
    "notion-04-runtime": ("co nl bo", 10, "", ""),
    "notion-05-unknown_tool": ("pa vf nl bo", 28, "", ""),
    "pubmed-01-pattern_violation": ("ch pa vf na nl bo", 75, "next_action",
        "the form with an example; 'Remove any ... non-digit characters, provide each PMID separately' instructs on the argument"),
    "pubmed-02-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "pubmed-03-enum_violation": ("ch pa vf nl bo", 55, "", ""),
    "pubmed-04-missing_required": ("ch pa vf nl bo", 50, "", ""),
    "pubmed-06-unknown_tool": ("pa vf nl bo", 30, "", "the TypeScript SDK's isError answer to an unknown tool"),
    "pubmed-07-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "pubmed-08-bad_cursor": ("nl bo", 5, "", "garbage cursor ignored"),
    "chart-01-out_of_range": ("co nl bo", 5, "", "no validation: the call goes upstream and fails, -32603"),
    "chart-05-runtime": ("co nl bo", 10, "", ""),
    "chart-06-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
}

DESK = [
    {"name": "get_ticket", "inputSchema": obj({"ticket_id": STR}, ["ticket_id"])},
    {"name": "search_tickets", "inputSchema": obj({"email": STR, "status": STR}, [])},
    {"name": "create_ticket", "inputSchema": obj({"subject": STR, "priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]}},
                                                 ["subject"])},
]
GEO = [{"name": "geocode", "inputSchema": obj({"address": STR}, ["address"])}]
CI = [
    {"name": "start_build", "inputSchema": obj({"project": STR, "branch": STR}, ["project"])},
    {"name": "ci_login", "inputSchema": obj({}, [])},
]


FIXTURES = [
    ("ticket-not-found-structured", "unknown_id", call("get_ticket", {"ticket_id": "TCK-10422"}),
     tool_error(json.dumps({"code": "ticket_not_found", "field": "ticket_id", "received": "TCK-10422",
                            "closest_matches": ["TCK-10424", "TCK-10242"],
                            "recover": "Call search_tickets with the customer's email to find the right ticket.",
                            "retryable": "with_different_arguments"})), DESK, "ticket_id",
     "ch pa vf na co re cm nl bo", 97, "next_action retry closest_matches", "the unknown_project payload's shape"),
    ("geocode-quota-wait", "runtime", call("geocode", {"address": "1 Main St"}),
     tool_error("Too many requests: the geocoding quota is 50 requests per minute. Wait 20 seconds, then retry this call."), GEO, "",
     "ch na re nl bo", 72, "next_action retry", "a stated delay"),
    ("ci-token-expired-login", "runtime", call("start_build", {"project": "web"}),
     tool_error(json.dumps({"code": "token_expired", "message": "The CI token expired on 2026-11-30.",
                            "recover": "Call ci_login, then repeat this call.",
                            "retry": "Retrying with the same token will not help."})), CI, "",
     "ch na co re nl bo", 92, "next_action retry", "the login tool variant of authorization_expired"),
    ("prompt-available", "unknown_prompt", {"jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": "triage-tiket"}},
     rpc_error(-32602, "Unknown prompt 'triage-tiket'. Available prompts: triage-ticket, summarize-thread."), DESK, "name",
     "ch pa vf cm nl bo", 75, "closest_matches", ""),
    ("priority-use-one-of", "enum_violation", call("create_ticket", {"subject": "Refund", "priority": "urgentt"}),
     tool_error("priority 'urgentt' is not valid. Use one of: low, normal, high, urgent."), DESK, "priority",
     "ch pa vf na nl bo", 78, "next_action", ""),
    ("project-archived-never", "runtime", call("start_build", {"project": "web-legacy"}),
     tool_error(json.dumps({"code": "project_archived", "message": "Project web-legacy is archived; builds cannot be started.",
                            "retryable": "never"})), CI, "",
     "ch co re nl bo", 60, "retry", "retryable never, no action"),
]


write("issue25c", REAL, FIXTURES)
