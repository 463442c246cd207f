"""Record held-out batch 9 of issue 25 (issue25g.jsonl) from real npm servers.

Usage: CACHE=.cache/b9 python3 issue25g.py [KEY...] > raw.jsonl (before
labelling). Recorded as recordkit.py says (pinned npm installs, no network,
canary credentials, raw answers without a grade); labels and hand scores are
added by hand afterwards (issue25g_label.py). Servers run one after another
(in parallel on a loaded machine their handshakes missed drive.py's 10 s
deadline). Nothing is passed through a shell except recordkit's fixed
loopback wrapper. None of these servers is in an earlier batch (responses,
census, issue25, issue25b, issue25c to issue25f, the tuned corpus), built
and committed before errors-v11 was tuned on batch 8."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b9")
CAN = {"JIRA_API_TOKEN": "ATATT3xCANARY25g00000000000000000",
       "GOOGLE_API_KEY": "AIzaCANARY25g00000000000000000000000000",
       "DOKPLOY_API_KEY": "dokCANARY25g000000000000",
       "AICOIN_ACCESS_SECRET": "asCANARY25g000000000000",
       "BAIDU_MAP_API_KEY": "bdCANARY25g000000000000",
       "RETELL_API_KEY": "key_CANARY25g000000000000000"}
ROOT = "/tmp/rec25g"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
os.makedirs(ROOT + "/proj", exist_ok=True)
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home", "JIRA_EMAIL": "a@acme.test", "JIRA_HOST": "https://acme.atlassian.net", "GOOGLE_SEARCH_ENGINE_ID": "cx0", "DOKPLOY_URL": "http://127.0.0.1:9/api", "AICOIN_ACCESS_KEY_ID": "akCANARY25g"})
binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "jcloud": ([binp("@aaronsb/jira-cloud-mcp", "0.11.3", "jira-cloud-mcp")], "@aaronsb/jira-cloud-mcp@0.11.3", can("JIRA_API_TOKEN"), [
        tc("manage_jira_issue", {"operation": "fetch", "issueKey": "ENG-1"}, "enum_violation", "operation"),
        tc("manage_jira_issue", {"operation": "get"}, "missing_required", "issueKey"),
        tc("manage_jira_sprint", {"operation": "get", "sprintId": "abc"}, "wrong_type", "sprintId"),
        tc("manage_jira_project", {"operation": "get", "projectKey": "ENG"}, "runtime"),
        tc("manage_jira_filter", {"operation": "execute_jql"}, "missing_required", "jql"),
        tc("manage_jira_issues", {"operation": "get"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "sprint_reviw"}),
        ("unknown_resource", "uri", "resources/read", {"uri": "jira://projects/NOPE"}),
        tc("manage_jira_sprint", {"operation": "create"}, "missing_required", "name"),
        tc("manage_jira_filter", {"operation": "get"}, "missing_required", "filterId"),
        tc("manage_jira_project", {"operation": "list", "startAt": "x"}, "wrong_type", "startAt"),
        tc("manage_jira_issue", {"operation": "transition", "issueKey": "ENG-1"}, "missing_required", "transitionId"),
    ]),
    "gsearch": ([binp("@adenot/mcp-google-search", "0.3.1", "mcp-google-search")], "@adenot/mcp-google-search@0.3.1", can("GOOGLE_API_KEY"), [
        tc("search", {"query": "mcp", "num": 50}, "out_of_range", "num"),
        tc("search", {}, "missing_required", "query"),
        tc("read_webpage", {"url": "not a url"}, "format_violation", "url"),
        tc("search", {"query": "mcp"}, "runtime"),
        tc("google_search", {"query": "mcp"}, "unknown_tool", "name"),
    ]),
    "dokploy": ([binp("@ahdev/dokploy-mcp", "1.6.0", "dokploy-mcp")], "@ahdev/dokploy-mcp@1.6.0", can("DOKPLOY_API_KEY"), [
        tc("project-one", {"projectId": "prj-404"}, "runtime"),
        tc("project-create", {"name": ""}, "max_length", "name"),
        tc("project-create", {}, "missing_required", "name"),
        tc("project-remove", {"projectId": 5}, "wrong_type", "projectId"),
        tc("project-list", {}, "unknown_tool", "name"),
        tc("project-duplicate", {"sourceEnvironmentId": "", "name": "copy"}, "max_length", "sourceEnvironmentId"),
    ]),
    "aicoin": ([binp("@aicoin/opendata-mcp", "2.1.0", "aicoin-opendata-mcp")], "@aicoin/opendata-mcp@2.1.0", can("AICOIN_ACCESS_SECRET"), [
        tc("coin_info", {"action": "prices"}, "enum_violation", "action"),
        tc("coin_info", {"action": "ticker"}, "missing_required", "coin_list"),
        tc("coin_funding_rate", {"symbol": "btcswapusdt:binance"}, "missing_required", "interval"),
        tc("coin_open_interest", {"symbol": "BTC", "interval": "1m", "margin_type": "fiat"}, "enum_violation", "margin_type"),
        tc("coin_liquidation", {"action": "history"}, "missing_required", "symbol"),
        tc("coin_info", {"action": "list"}, "runtime"),
        tc("coin_price", {"symbol": "BTC"}, "unknown_tool", "name"),
        tc("coin_open_interest", {"symbol": "BTC"}, "missing_required", "interval"),
    ]),
    "baidu": ([binp("@baidumap/mcp-server-baidu-map", "1.0.5", "mcp-server-baidu-map")], "@baidumap/mcp-server-baidu-map@1.0.5", can("BAIDU_MAP_API_KEY"), [
        tc("map_geocode", {}, "missing_required", "address"),
        tc("map_reverse_geocode", {"latitude": "north", "longitude": 2}, "wrong_type", "latitude"),
        tc("map_distance_matrix", {"origins": "a", "destinations": ["b"]}, "wrong_type", "origins"),
        tc("map_geocode", {"address": "Beijing"}, "runtime"),
        tc("map_geo", {"address": "Beijing"}, "unknown_tool", "name"),
    ]),
    "retell": ([binp("@abhaybabbar/retellai-mcp-server", "1.0.2", "retellai-mcp-server")], "@abhaybabbar/retellai-mcp-server@1.0.2",
               can("RETELL_API_KEY"), [
        tc("get_call", {}, "missing_required", "callId"),
        tc("get_call", {"callId": 5}, "wrong_type", "callId"),
        tc("list_calls", {"limit": "ten"}, "wrong_type", "limit"),
        tc("create_phone_call", {"fromNumber": "+15550100", "toNumber": "+15550101"}, "runtime"),
        tc("delete_call", {"callId": "call_404"}, "unknown_id", "callId"),
        tc("get_calls", {}, "unknown_tool", "name"),
    ]),
    "gtasks": ([binp("@alvincrave/gtasks-mcp", "0.2.0", "gtasks-mcp")], "@alvincrave/gtasks-mcp@0.2.0", {}, [
        tc("search", {}, "missing_required", "query"),
        tc("list_with_tree", {}, "missing_required", "taskListId"),
        tc("create", {"title": 5}, "wrong_type", "title"),
        tc("list", {}, "runtime"),
        tc("clear", {"taskListId": "nope"}, "unknown_id", "taskListId"),
        tc("tasks_list", {}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "gtasks:///nope"}),
    ]),
    "gdrive": ([binp("@piotr-agier/google-drive-mcp", "2.10.0", "google-drive-mcp")], "@piotr-agier/google-drive-mcp@2.10.0", {}, [
        tc("readTextFile", {"fileId": "nope"}, "runtime"),
        tc("createTextFile", {"name": "a.pdf", "content": "x"}, "pattern_violation", "name"),
        tc("search", {"query": "x", "pageSize": 500}, "out_of_range", "pageSize"),
        tc("search", {}, "missing_required", "query"),
        tc("readTextFile", {"fileId": 5}, "wrong_type", "fileId"),
        tc("createFolder", {}, "missing_required", "name"),
        tc("listFiles", {}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "gdrive:///nope"}),
    ]),
}

recordkit.record("issue25g", S, env, sys.argv[1:])
