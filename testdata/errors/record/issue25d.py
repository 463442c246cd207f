"""Record held-out batch 6 of issue 25 (issue25d.jsonl) from real npm servers.

Usage: CACHE=.cache/b6 python3 issue25d.py > raw.jsonl (before labelling).
Each server is installed pinned with `npm install --ignore-scripts --prefix
CACHE/<name with / and @ as _> PKG@VERSION` and launched inside a fresh
network namespace (`unshare -n`, loopback up), so no request leaves the
machine: calls that need an upstream fail the way an offline or unreachable
upstream fails. Credentials are canaries. The raw JSON-RPC answers are
written in `mcpvet grade` input form, without any grade; labels and hand
scores are added by hand afterwards (issue25d_label.py). Nothing is passed
through a shell except recordkit's fixed loopback wrapper. None of these
servers is in an earlier batch (responses, census, issue25, issue25b,
issue25c)."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b6")
CAN = {"SLACK_BOT_TOKEN": "xoxb-CANARY25d-000000000000-0000000000000-aaaaaaaaaaaaaaaaaaaaaaaa",
       "GOOGLE_MAPS_API_KEY": "AIzaCANARY25d000000000000000000000000000",
       "TAVILY_API_KEY": "tvly-CANARY25d0000000000000000000000",
       "EXA_API_KEY": "exa-canary-25d-0000-0000-000000000000",
       "CIRCLECI_TOKEN": "CCIPAT_CANARY25d_0000000000000000000000000000000000",
       "SENTRY_ACCESS_TOKEN": "sntrys_CANARY25d000000000000000000000"}
ROOT = "/tmp/rec25d"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
os.makedirs(ROOT + "/mb", exist_ok=True)
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home", "SLACK_TEAM_ID": "T0CANARY", "MEMORY_BANK_ROOT": ROOT + "/mb"})
binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "pdf": ([binp("@modelcontextprotocol/server-pdf", "2.0.4", "mcp-pdf-server"), "--stdio"], "@modelcontextprotocol/server-pdf@2.0.4", {}, [
        tc("read_pdf_bytes", {"url": ROOT + "/missing.pdf"}, "runtime"),
        tc("read_pdf_bytes", {"url": "https://arxiv.org/pdf/1706.03762", "byteCount": 10000000}, "out_of_range", "byteCount"),
        tc("interact", {"viewUUID": "view-404", "action": "zoomm"}, "enum_violation", "action"),
        tc("display_pdf", {"page": "two"}, "wrong_type", "page"),
        tc("submit_page_data", {"requestId": "req-1"}, "missing_required", "pages"),
        tc("poll_pdf_commands", {"viewUUID": "view-404"}, "unknown_id", "viewUUID"),
        tc("pdf_info", {"url": "a.pdf"}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "ui://pdf-viewer/nope.html"}),
    ]),
    "slack": ([binp("@modelcontextprotocol/server-slack", "2025.4.25", "mcp-server-slack")], "@modelcontextprotocol/server-slack@2025.4.25",
              can("SLACK_BOT_TOKEN"), [
        tc("slack_post_message", {"channel_id": "C0NOPE", "text": "hi"}, "runtime"),
        tc("slack_post_message", {"channel_id": "C0NOPE"}, "missing_required", "text"),
        tc("slack_get_channel_history", {"channel_id": "C0NOPE", "limit": "ten"}, "wrong_type", "limit"),
        tc("slack_send_message", {"channel_id": "C0NOPE", "text": "hi"}, "unknown_tool", "name"),
    ]),
    "maps": ([binp("@modelcontextprotocol/server-google-maps", "0.6.2", "mcp-server-google-maps")], "@modelcontextprotocol/server-google-maps@0.6.2",
             can("GOOGLE_MAPS_API_KEY"), [
        tc("maps_geocode", {}, "empty_arguments"),
        tc("maps_directions", {"origin": "Lyon", "destination": "Paris", "mode": "flying"}, "enum_violation", "mode"),
        tc("maps_reverse_geocode", {"latitude": "north", "longitude": 2}, "wrong_type", "latitude"),
        tc("maps_geocoder", {"address": "Lyon"}, "unknown_tool", "name"),
    ]),
    "tasks": ([binp("@kazuph/mcp-taskmanager", "1.1.1", "mcp-taskmanager")], "@kazuph/mcp-taskmanager@1.1.1", {}, [
        tc("get_next_task", {"requestId": "req-404"}, "unknown_id", "requestId"),
        tc("mark_task_done", {"requestId": "req-404", "taskId": "task-1"}, "unknown_id", "requestId"),
        tc("request_planning", {"originalRequest": "ship it", "tasks": "do it"}, "wrong_type", "tasks"),
        tc("approve_task_completion", {"requestId": "req-1"}, "missing_required", "taskId"),
        tc("open_task_details", {"taskId": "task-999"}, "unknown_id", "taskId"),
        tc("delete_tasks", {"requestId": "req-1"}, "unknown_tool", "name"),
    ]),
    "mbank": ([binp("@allpepper/memory-bank-mcp", "0.2.2", "mcp-server-memory-bank")], "@allpepper/memory-bank-mcp@0.2.2", {}, [
        tc("memory_bank_read", {"projectName": "shop", "fileName": "notes.md"}, "unknown_id", "projectName"),
        tc("memory_bank_update", {"projectName": "shop", "fileName": "missing.md", "content": "x"}, "unknown_id", "fileName"),
        tc("memory_bank_read", {"projectName": "shop"}, "missing_required", "fileName"),
        tc("list_project_files", {"projectName": 42}, "wrong_type", "projectName"),
        tc("memory_bank_delete", {"projectName": "shop"}, "unknown_tool", "name"),
    ]),
    "access": ([binp("@accesslint/mcp", "0.11.1", "accesslint-mcp")], "@accesslint/mcp@0.11.1", {}, [
        tc("explain_rule", {"id": "text-alternatives/img-alts"}, "unknown_id", "id"),
        tc("list_rules", {"level": "AAAA"}, "enum_violation", "level"),
        tc("audit_html", {"html": "<img src=x>", "port": 0}, "out_of_range", "port"),
        tc("audit_html", {"html": 5}, "wrong_type", "html"),
        tc("audit_live", {"url": "not a url"}, "format_violation", "url"),
        tc("audit_page", {"html": "<p>"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "audit-vue-component"}),
        ("missing_required", "path", "prompts/get", {"name": "audit-react-component", "arguments": {}}),
    ]),
    "tavily": ([binp("tavily-mcp", "0.2.22", "tavily-mcp")], "tavily-mcp@0.2.22", can("TAVILY_API_KEY"), [
        tc("tavily_search", {"query": "mcp", "search_depth": "deep"}, "enum_violation", "search_depth"),
        tc("tavily_search", {"query": "mcp"}, "runtime"),
        tc("tavily_extract", {"urls": "http://127.0.0.1:9/"}, "wrong_type", "urls"),
        tc("tavily_crawl", {"url": "http://127.0.0.1:9/", "max_depth": 0}, "out_of_range", "max_depth"),
        tc("tavily_searchh", {"query": "mcp"}, "unknown_tool", "name"),
    ]),
    "circleci": ([binp("@circleci/mcp-server-circleci", "0.20.0", "mcp-server-circleci")], "@circleci/mcp-server-circleci@0.20.0",
                 can("CIRCLECI_TOKEN"), [
        tc("get_build_failure_logs", {"params": {}}, "runtime"),
        tc("get_job_test_results", {"params": {"projectSlug": "gh/acme/web"}}, "missing_required", "branch"),
        tc("rerun_workflow", {"params": {"workflowId": "not-a-uuid"}}, "pattern_violation", "workflowId"),
        tc("list_followed_projects", {"params": {"extra": 1}}, "unknown_property", "extra"),
        tc("find_underused_resource_classes", {"params": {"csvFilePath": "/etc/shadow"}}, "runtime"),
        tc("config_helper", {}, "empty_arguments"),
        tc("list_pipelines", {"params": {}}, "unknown_tool", "name"),
    ]),
    "exa": ([binp("exa-mcp-server", "3.4.1", "exa-mcp-server")], "exa-mcp-server@3.4.1", can("EXA_API_KEY"), [
        tc("web_search_exa", {"query": "mcp servers"}, "runtime"),
        tc("web_search_exa", {"query": 5}, "wrong_type", "query"),
        tc("web_fetch_exa", {"urls": ["http://127.0.0.1:9/"], "maxCharacters": 0}, "out_of_range", "maxCharacters"),
        tc("exa_search", {"query": "mcp"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "web_search_hlp"}),
        ("unknown_resource", "uri", "resources/read", {"uri": "exa://tools/nope"}),
    ]),
    "sentry": ([binp("@sentry/mcp-server", "0.39.0", "sentry-mcp"), "--access-token=" + CAN["SENTRY_ACCESS_TOKEN"]], "@sentry/mcp-server@0.39.0",
               can("SENTRY_ACCESS_TOKEN"), [
        tc("find_projects", {"organizationSlug": "acme"}, "runtime"),
        tc("search_sentry_tools", {"query": 7}, "wrong_type", "query"),
        tc("execute_sentry_tool", {"name": "list_dashboards"}, "unknown_id", "name"),
        tc("search_issues", {"organizationSlug": "acme", "sort": "newest"}, "enum_violation", "sort"),
        tc("get_sentry_resource", {"url": "not-a-url"}, "format_violation", "url"),
        tc("find_orgs", {}, "unknown_tool", "name"),
    ]),
}

recordkit.record("issue25d", S, env, sys.argv[1:])
