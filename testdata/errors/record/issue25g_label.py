#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25g.jsonl: issue 25's seventh
held-out batch (batch 9 of the corpus), committed after errors-v10 was
measured on batch 8 and before errors-v11 was tuned (on batch 8), and
before the grader was ever run on it.

Mostly real: 43 raw JSON-RPC answers of eight npm servers not used in any
earlier batch (responses, census, issue25 to issue25f, the tuned corpus),
recorded by testdata/errors/record/issue25g.py (no network: each server
runs in its own network namespace; credentials are canaries), plus 4
fixtures modelled on the background texts' payloads (a stated delay,
structured closest_matches with retryable with_different_arguments, "Did
you mean", "Do not retry this call"), because the real servers offered
retry guidance never. Left out before labelling: 14 exact copies of another
answer of the same server (gsearch-04; retell-05;
gtasks-02 to -06; gdrive-02 to -08, which all answer the missing OAuth
file). Not usable: @apify/actors-mcp-server@0.16.0,
@ashwinighuge/jenkins-mcp-server@1.0.7, @auth0/auth0-mcp-server@0.1.0-beta.19,
@baruchiro/paperless-mcp@2.2.1, @instantdb/mcp@1.0.67 (exit before
answering initialize), @ajpanada/mcp-azure-devops@2.0.4 (needs an
organisation argument), @atlassian-dc-mcp/jira@0.34.0,
@adobe/spectrum-design-data-mcp@1.1.77, @agiflowai/architect-mcp@1.3.0
(npm install failed on this mirror).

Labels ("expect") and hand scores ("hand") as in issue25e_label.py,
written before the grader ran. A success result whose text reports the
failure is labelled by errors-v9's rule, which covers tools/call results
(gtasks' resources/read answer with the failure as the resource's text is
labelled accepted).

    CACHE=.cache/b9 python3 testdata/errors/record/issue25g.py > /tmp/raw25g.jsonl
    python3 testdata/errors/record/issue25g_label.py /tmp/raw25g.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

REAL = {
    "jcloud-01-enum_violation": ("pa vf nl bo", 45, "", "-32602 at 2025-11-25 for an input validation error; the valid values"),
    "jcloud-02-missing_required": ("pa vf na nl bo", 52, "next_action", "'Please provide a valid issue key for the get operation'"),
    "jcloud-03-wrong_type": ("pa vf na nl bo", 55, "next_action", "'provide a valid sprint ID as a number'"),
    "jcloud-04-runtime": ("co nl bo", 8, "", "-32603 for an upstream DNS failure of a tool call (EAI_AGAIN)"),
    "jcloud-05-missing_required": ("pa vf na nl bo", 52, "next_action", "'provide a valid JQL query'"),
    "jcloud-06-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "jcloud-07-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "jcloud-08-unknown_resource": ("pa vf nl bo", 35, "", "-32600 (invalid request) for an unknown resource"),
    "jcloud-09-missing_required": ("na nl bo", 40, "next_action",
        "the probe left out name and boardId; the answer names boardId ('provide a valid board ID as a number'), not name"),
    "jcloud-10-missing_required": ("pa vf na nl bo", 52, "next_action", ""),
    "jcloud-11-wrong_type": ("pa vf nl bo", 48, "", "'Please provide a valid number.' names no argument in that sentence"),
    "jcloud-12-missing_required": ("pa vf na nl bo", 52, "next_action", ""),
    "gsearch-01-out_of_range": ("ch co nl bo", 5, "", "no validation: upstream DNS failure"),
    "gsearch-02-missing_required": ("ch nl bo", 12, "", "'Invalid search arguments' (-32602, right before 2025-11-25)"),
    "gsearch-03-format_violation": ("pa vf nl bo", 30, "", "-32603 'Invalid URL'"),
    "gsearch-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "dokploy-01-runtime": ("ch co bo", 8, "",
        "ECONNREFUSED 127.0.0.1:9: the server's configured address (not sent by the caller), an internal host"),
    "dokploy-02-max_length": ("ch pa vf nl bo", 52, "", ""),
    "dokploy-03-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "dokploy-04-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "dokploy-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "dokploy-06-max_length": ("ch pa vf nl bo", 52, "", ""),
    "aicoin-01-enum_violation": ("ch pa vf nl bo", 62, "", ""),
    "aicoin-02-missing_required": ("ch pa vf nl bo", 55, "", "'coin_list is required for ticker action'"),
    "aicoin-03-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "aicoin-04-enum_violation": ("ch pa vf nl bo", 62, "", ""),
    "aicoin-05-missing_required": ("ch pa vf nl bo", 55, "", "'symbol and interval are required for history action'"),
    "aicoin-06-runtime": ("ch nl bo", 5, "", ""),
    "aicoin-07-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "aicoin-08-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "baidu-01-missing_required": ("ch pa vf co bo", 3, "", "address=undefined in the upstream URL with the API key (canary): a secret leak"),
    "baidu-02-wrong_type": ("ch vf co bo", 3, "", "location=north: the value, not the parameter latitude; the key leaks"),
    "baidu-03-wrong_type": ("ch pa nl bo", 15, "", "'origins.join is not a function': the argument, no form"),
    "baidu-04-runtime": ("ch co bo", 3, "", "the key leaks"),
    "baidu-05-unknown_tool": ("pa vf nl bo", 28, "", "isError where -32602 is due (2024-11-05)"),
    "retell-01-missing_required": ("ch pa vf nl bo", 55, "", ""),
    "retell-02-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "retell-03-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "retell-04-runtime": ("nl bo", 5, "", "a success result: 'Error: Connection error.'"),
    "retell-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "gtasks-01-missing_required": ("ch nl bo", 12, "", "'Authentication required. Please configure ... credentials': for a human"),
    "gtasks-07-unknown_resource": ("nl bo", 8, "", "a resources/read result whose text says authentication is required: accepted"),
    "gdrive-01-runtime": ("co bo", 10, "",
        "-32603 for a tool call; setup instructions for a human, a terminal export, host paths of the server's home and install"),
}

SPRINTS = [{"name": "get_sprint", "inputSchema": obj({"sprint": STR}, ["sprint"])},
           {"name": "list_sprints", "inputSchema": obj({}, [])}]
ISSUES = [{"name": "set_status", "inputSchema": obj({"status": {"type": "string", "enum": ["open", "closed"]}}, ["status"])}]
FETCH = [{"name": "fetch_report", "inputSchema": obj({"id": STR}, ["id"])}]

FIXTURES = [
    ("timeout-retry-after", "runtime", call("fetch_report", {"id": "r1"}),
     tool_error("Upstream timed out after 30 s. Retry after 10 seconds; the request is idempotent."), FETCH, "",
     "ch na re nl bo", 70, "next_action retry", ""),
    ("sprint-not-found-closest", "unknown_id", call("get_sprint", {"sprint": "Sprint 41"}),
     tool_error(json.dumps({"error": {"code": "sprint_not_found", "message": "No sprint 'Sprint 41'.",
                                      "closest_matches": ["Sprint 40", "Sprint 42"], "retryable": "with_different_arguments"}})),
     SPRINTS, "sprint", "ch pa vf co re cm nl bo", 88, "retry closest_matches", ""),
    ("enum-did-you-mean", "enum_violation", call("set_status", {"status": "opne"}),
     tool_error("Invalid status 'opne'. Did you mean 'open'? Allowed: open, closed."), ISSUES, "status",
     "ch pa vf na nl bo", 78, "next_action", ""),
    ("token-revoked-never", "runtime", call("fetch_report", {"id": "r1"}),
     tool_error("The API token was revoked. Do not retry this call; the user must create a new token."), FETCH, "",
     "ch re nl bo", 50, "retry", ""),
]


write("issue25g", REAL, FIXTURES)
