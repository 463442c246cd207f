#!/usr/bin/env python3
"""Writes testdata/errors/heldout/issue25e.jsonl: issue 25's fifth held-out
batch (batch 7 of the corpus), committed before any tuning of the rubric
after errors-v9 and before the grader was ever run on it.

Mostly real: 55 raw JSON-RPC answers of ten npm servers not used in any
earlier batch (responses, census, issue25, issue25b, issue25c, issue25d,
the tuned corpus), recorded by testdata/errors/record/issue25e.py (no
network: each server runs in its own network namespace; credentials are
canaries), chosen for errors that may offer closest matches, permitted
values or next actions (component and documentation catalogues, zod
enums); plus 6 fixtures modelled on the background texts' payloads
(unknown_project with closest_matches and a recover call,
authorization_expired with retryable never, rate_limited with
retry_after_seconds, "Use one of", "Did you mean", a login tool with
"retrying before that will not help"), because the real servers offered
retry guidance never. Left out before labelling: exact copies of another
answer of the same server (huge-05, gitlab-03, gitlab-04, linear-04).
Not usable: @azure-devops/mcp@2.10.0 (its keytar native module is not
built under --ignore-scripts: exits at start), @agent-infra/mcp-server-
filesystem@1.2.29 (exits before answering initialize).

Each case carries its labels ("expect", exactly the applicable elements,
read against docs/rubric.md's element definitions at errors-v9) and a hand
score ("hand", 0-100: how well an agent that reads only this response can
act on it: a stable code, the offending parameter with the received value
and the permitted form, one next action it can execute from its own state,
whether retrying helps; a leak and an answer that claims success are
defects; an enumeration costs), written before the grader ran.

A success result (no isError) whose text reports the failure is labelled
by errors-v9's rule: channel false, the message elements by what the text
says. Whether the text "reports the failure" is judged by its meaning
("Path ... not found", "You need to register ... first"), not by the
grader's list of shapes, so a shape the grader does not know shows as a
miss.

Measured once under errors-v9 with the labels as committed (4aa7a69);
three retryable labels were corrected afterwards (mastra-02, -05, -07), when
batch 7 became a tuning set for errors-v10 (docs/rubric.md says why).

    CACHE=.cache/b7 python3 testdata/errors/record/issue25e.py > /tmp/raw25e.jsonl
    python3 testdata/errors/record/issue25e_label.py /tmp/raw25e.jsonl
"""
import json

from labelkit import obj, STR, call, tool_error, rpc_error, write

# Real responses: id suffix -> (labels, hand, offers, note). Ids not listed
# here are exact copies of a listed answer of the same server, left out.
REAL = {
    "primevue-01-unknown_id": ("ch pa vf nl bo", 35, "", "the value echoed, no way to the right name (Button)"),
    "primevue-02-enum_violation": ("ch pa vf nl bo", 62, "", "zod v3 enum: options, received value, path"),
    "primevue-03-out_of_range": ("ch pa vf nl bo", 52, "", "the bound, not the value"),
    "primevue-04-missing_required": ("ch pa vf nl bo", 48, "", "Required at query"),
    "primevue-05-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "primevue-06-unknown_id": ("ch pa vf nl bo", 35, "", ""),
    "primevue-07-unknown_id": ("ch pa vf na cm nl", 68, "next_action closest_matches",
        "'call get_component with includeExamples: true' and suggested sections; structuredContent enumerates about 100 "
        "section names: not bounded"),
    "primevue-08-unknown_tool": ("pa vf nl bo", 30, "", "isError where -32602 is due"),
    "primevue-09-unknown_prompt": ("ch pa vf nl bo", 40, "", ""),
    "primevue-10-unknown_resource": ("ch pa vf nl bo", 40, "", ""),
    "mastra-01-unknown_id": ("pa vf cm nl", 50, "closest_matches",
        "a success result (no isError) saying 'Path ... not found', the directory listing and ten paths 'that might be "
        "relevant': matches, on the wrong channel, 30+ lines"),
    "mastra-02-out_of_range": ("ch pa vf re nl bo", 55, "",
        "'paths' quoted in the echoed arguments. Relabelled after the measurement (errors-v10 tuning): 'fix the following "
        "errors and try again' is retry with different arguments by docs/rubric.md's definition; labelled false at first"),
    "mastra-03-unknown_id": ("pa vf cm nl", 45, "closest_matches",
        "success result: 'Migration ... not found' and all 23 migrations (26 non-empty lines: over 25)"),
    "mastra-04-unknown_id": ("na cm nl bo", 45, "next_action",
        "success result: 'You need to register ... first. Please use the startMastraCourse tool': the next call; "
        "closest_matches by the tool-mention clause (half), not counted as offering ids"),
    "mastra-05-format_violation": ("ch pa vf re nl bo", 52, "",
        "Invalid email address, the arguments echoed; retryable relabelled after the measurement (see mastra-02)"),
    "mastra-06-unknown_id": ("pa vf nl bo", 22, "", "success result: 'No SOURCE_MAP.json found for @mastra/nope'"),
    "mastra-07-wrong_type": ("ch pa vf re nl bo", 55, "", "retryable relabelled after the measurement (see mastra-02)"),
    "mastra-08-unknown_tool": ("pa vf nl bo", 28, "", "isError where -32602 is due; mastraDocs not suggested"),
    "huge-01-unknown_id": ("co nl bo", 5, "", "-32603 upstream DNS failure (EAI_AGAIN, a public host) for an unknown icon"),
    "huge-02-enum_violation": ("pa vf nl bo", 40, "",
        "'Invalid platform. Supported platforms are: ...' inside -32603: the content is right, the code says the server broke"),
    "huge-03-enum_violation": ("pa vf nl bo", 40, "", ""),
    "huge-04-missing_required": ("pa vf nl bo", 35, "", "-32600 (invalid request) for a missing argument; 'Search query must be a non-empty string'"),
    "huge-06-unknown_tool": ("pa vf nl bo", 30, "", "-32601 where -32602 is due"),
    "ngp-01-unknown_id": ("pa vf cm nl", 42, "closest_matches",
        "success result: 'Primitive \"acordion\" not found. Available primitives: ...' (43 names, accordion among them)"),
    "ngp-02-unknown_id": ("pa vf cm nl", 40, "closest_matches", "success result, 32 component names"),
    "ngp-03-wrong_type": ("ch pa vf nl bo", 58, "", "zod v4"),
    "ngp-04-unknown_id": ("pa vf cm nl", 45, "closest_matches",
        "success result: names the one bad item of the array and lists 43 valid ones"),
    "ngp-05-missing_required": ("ch pa vf nl bo", 55, "", ""),
    "ngp-06-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "cds-01-enum_violation": ("ch pa vf nl bo", 62, "", ""),
    "cds-02-unknown_id": ("ch pa vf nl bo", 38, "", "the parameter and the value"),
    "cds-03-pattern_violation": ("ch pa vf nl bo", 30, "",
        "says 'not found' where the form (<platform>/<route>.txt) is wrong: the value, not the form"),
    "cds-04-missing_required": ("ch pa vf nl bo", 48, "", ""),
    "cds-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "eslint-01-out_of_range": ("ch pa vf nl bo", 52, "", "minItems: the bound"),
    "eslint-02-unknown_id": ("ch pa vf nl bo", 38, "", "the path sent, echoed: no leak"),
    "eslint-03-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "eslint-04-max_length": ("ch pa vf nl bo", 52, "", "minLength at filePaths[0]"),
    "eslint-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "gitlab-01-runtime": ("co nl bo", 8, "", "-32603 for an upstream DNS failure of a tool call; the token is not in the URL"),
    "gitlab-02-missing_required": ("nl bo", 3, "", "-32603 'Cannot read properties of undefined': no validation"),
    "gitlab-05-unknown_tool": ("pa vf nl bo", 28, "", "-32603 for an unknown tool"),
    "pplx-01-out_of_range": ("ch pa vf nl bo", 52, "", ""),
    "pplx-02-enum_violation": ("ch pa vf nl bo", 62, "", "at messages[0].role"),
    "pplx-03-wrong_type": ("ch pa vf nl bo", 58, "", ""),
    "pplx-04-runtime": ("ch nl bo", 8, "", "fetch failed"),
    "pplx-05-unknown_tool": ("pa vf nl bo", 30, "", ""),
    "linear-01-missing_required": ("ch nl bo", 15, "", "'Invalid arguments for getWorkflowStates': which argument, not said"),
    "linear-02-out_of_range": ("ch nl bo", 15, "", ""),
    "linear-03-runtime": ("ch nl bo", 5, "", "Error: Fetch failed"),
    "linear-05-unknown_tool": ("pa vf nl bo", 28, "", ""),
    "mui-01-runtime": ("nl bo", 25, "",
        "success result: 'Could not fetch <the URL sent>: URL is not an allowed docs source': why, not what to do; the "
        "loopback address is the caller's own"),
    "mui-02-wrong_type": ("ch pa vf nl bo", 58, "", "zod v4"),
    "mui-03-max_length": ("ch pa vf nl bo", 52, "", ""),
    "mui-04-unknown_tool": ("pa vf nl bo", 30, "", ""),
}

PROJ = [
    {"name": "get_project", "inputSchema": obj({"project_id": STR}, ["project_id"])},
    {"name": "list_projects", "inputSchema": obj({}, [])},
    {"name": "search_projects", "inputSchema": obj({"query": STR}, ["query"])},
]
STORE = [
    {"name": "query_datastore", "inputSchema": obj({"sql": STR}, ["sql"])},
    {"name": "auth_login", "inputSchema": obj({}, [])},
]
LOG = [{"name": "set_level", "inputSchema": obj({"level": {"type": "string", "enum": ["error", "warn", "info", "debug"]}}, ["level"])}]

FIXTURES = [
    ("unknown-project-closest", "unknown_id", call("get_project", {"project_id": "prj_8Fk21"}),
     tool_error(json.dumps({"error": {"code": "unknown_project", "message": "No project with id 'prj_8Fk21' in this workspace.",
                                      "closest_matches": ["prj_8Fk2l (Billing Migration)", "prj_8Fj21 (Billing Reports)"],
                                      "recover": "Call list_projects to enumerate ids in the current workspace."}})),
     PROJ, "project_id", "ch pa vf na co cm nl bo", 90, "next_action closest_matches", "the background text's unknown_project payload"),
    ("authorization-expired-never", "runtime", call("query_datastore", {"sql": "select 1"}),
     tool_error(json.dumps({"code": "authorization_expired", "message": "The Datastore connection's OAuth token expired 40 minutes ago.",
                            "user_action_required": "Reconnect Datastore in Settings > Integrations.", "retryable": "never"})),
     STORE, "", "ch co re nl bo", 65, "retry", "a human must act; retryable never stops the loop"),
    ("rate-limited-after", "runtime", call("search_projects", {"query": "billing"}),
     tool_error(json.dumps({"code": "rate_limited", "message": "Upstream rate limit reached.", "retryable": "after_delay",
                            "retry_after_seconds": 12})),
     PROJ, "", "ch co re nl bo", 72, "retry", "the delay as a field"),
    ("enum-use-one-of", "enum_violation", call("set_level", {"level": "fatal"}),
     tool_error("Invalid value 'fatal' for level. Use one of: error, warn, info, debug."), LOG, "level",
     "ch pa vf na nl bo", 75, "next_action", ""),
    ("unknown-tool-did-you-mean", "unknown_tool", call("search_projcts", {"query": "billing"}),
     rpc_error(-32602, "Unknown tool 'search_projcts'. Did you mean 'search_projects'?"), PROJ, "name",
     "ch pa vf na cm nl bo", 80, "next_action closest_matches", ""),
    ("login-tool-then-repeat", "runtime", call("query_datastore", {"sql": "select 1"}),
     tool_error("Your credentials have expired. Call the auth_login tool, then repeat this call; retrying before that will not help."),
     STORE, "", "ch na re nl bo", 80, "next_action retry", "the texts' login-tool payload (84% against 45% for a terminal command)"),
]


write("issue25e", REAL, FIXTURES)
