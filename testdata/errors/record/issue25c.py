"""Record held-out batch 5 of issue 25 (issue25c.jsonl) from real npm servers.

Usage: CACHE=.cache/b5 python3 issue25c.py > raw.jsonl (before labelling).
Each server is installed pinned with `npm install --ignore-scripts --prefix
CACHE/<name with / and @ as _> PKG@VERSION` and launched inside a fresh
network namespace (`unshare -n`, loopback up), so no request leaves the
machine: calls that need an upstream fail the way an offline or unreachable
upstream fails. The raw JSON-RPC answers are written in `mcpvet grade` input
form, without any grade; labels and hand scores are added by hand
afterwards. Nothing is passed through a shell except the fixed loopback
wrapper below."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b5")
CAN = {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_CANARY25c0000000000000000000000000000",
       "NOTION_TOKEN": "ntn_CANARY25c000000000000000000000000000000000000"}
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": "/tmp/rec25c/home", "PLAYWRIGHT_BROWSERS_PATH": "/tmp/rec25c/nobrowsers"})
os.makedirs("/tmp/rec25c/home", exist_ok=True)
binp = recordkit.binpath(C)


def tcabs(name, kind):
    return (kind, None, "tools/call", {"name": name})


MONGO_IDS = {"connectionId": "conn-7f3a", "database": "shop", "collection": "orders"}
S = {
    "mongodb": ([binp("mongodb-mcp-server", "3.0.4", "mongodb-mcp-server")], "mongodb-mcp-server@3.0.4", {}, [
        tc("find", dict(MONGO_IDS), "unknown_id", "connectionId"),
        tc("connect", {"connectionString": "localhost-orders"}, "pattern_violation", "connectionString"),
        tc("drop-index", dict(MONGO_IDS, indexName="by_date", type="fulltext"), "enum_violation", "type"),
        tc("mongodb-logs", {"connectionId": "conn-7f3a", "limit": 5000}, "out_of_range", "limit"),
        tc("list-databases", {}, "empty_arguments"),
        tc("count", dict(MONGO_IDS, query="status:open"), "wrong_type", "query"),
        tc("find-one", dict(MONGO_IDS), "unknown_tool", "name"),
        tc("search-knowledge", {"query": "index on a date field"}, "runtime"),
        ("unknown_resource", "uri", "resources/read", {"uri": "config://nope"}),
        ("bad_cursor", "cursor", "tools/list", {"cursor": "!!bad!!"}),
    ]),
    "playwright": ([binp("@playwright/mcp", "0.0.83", "playwright-mcp"), "--headless"], "@playwright/mcp@0.0.83", {}, [
        tc("browser_navigate", {"url": "http://127.0.0.1:9/"}, "runtime"),
        tc("browser_tabs", {"action": "reopen"}, "enum_violation", "action"),
        tc("browser_network_request", {"index": 0}, "out_of_range", "index"),
        tc("browser_click", {"element": "Submit button"}, "missing_required", "target"),
        tc("browser_resize", {"width": "wide", "height": 600}, "wrong_type", "width"),
        tc("browser_scroll", {"direction": "down"}, "unknown_tool", "name"),
        tc("browser_take_screenshot", {"scale": "css", "type": "gif"}, "enum_violation", "type"),
    ]),
    "github": ([binp("@modelcontextprotocol/server-github", "2025.4.8", "mcp-server-github")], "@modelcontextprotocol/server-github@2025.4.8",
               {"GITHUB_PERSONAL_ACCESS_TOKEN": CAN["GITHUB_PERSONAL_ACCESS_TOKEN"]}, [
        tc("get_issue", {"owner": "octo", "repo": "hello", "issue_number": "seven"}, "wrong_type", "issue_number"),
        tc("list_issues", {"owner": "octo", "repo": "hello", "state": "merged"}, "enum_violation", "state"),
        tc("search_code", {"q": "fetch", "per_page": 500}, "out_of_range", "per_page"),
        tc("get_file_contents", {"owner": "octo", "repo": "hello"}, "missing_required", "path"),
        tc("get_issue", {"owner": "octo", "repo": "hello", "issue_number": 7}, "runtime"),
        tc("get_issues", {"owner": "octo", "repo": "hello"}, "unknown_tool", "name"),
    ]),
    "postgres": ([binp("@modelcontextprotocol/server-postgres", "0.6.2", "mcp-server-postgres"), "postgresql://127.0.0.1:9/shop"],
                 "@modelcontextprotocol/server-postgres@0.6.2", {}, [
        tc("query", {"sql": "SELECT 1"}, "runtime"),
        tc("query", {"sql": 42}, "wrong_type", "sql"),
        tc("execute", {"sql": "SELECT 1"}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "postgres://127.0.0.1:9/orders/schema"}),
    ]),
    "notion": ([binp("@notionhq/notion-mcp-server", "2.5.2", "notion-mcp-server")], "@notionhq/notion-mcp-server@2.5.2",
               {"NOTION_TOKEN": CAN["NOTION_TOKEN"]}, [
        tc("API-get-user", {"user_id": "not-a-uuid"}, "pattern_violation", "user_id"),
        tc("API-update-page-markdown", {"page_id": "59833787-2cf9-4fdf-8782-e53db20768a5", "type": "append"}, "enum_violation", "type"),
        tc("API-get-users", {"page_size": "ten"}, "wrong_type", "page_size"),
        tc("API-retrieve-a-page", {"page_id": "59833787-2cf9-4fdf-8782-e53db20768a5"}, "runtime"),
        tc("API-get-page", {"page_id": "x"}, "unknown_tool", "name"),
    ]),
    "pubmed": ([binp("@cyanheads/pubmed-mcp-server", "2.7.4", "pubmed-mcp-server")], "@cyanheads/pubmed-mcp-server@2.7.4", {}, [
        tc("pubmed_find_related", {"pmid": "PMC12345"}, "pattern_violation", "pmid"),
        tc("pubmed_search_articles", {"query": "sepsis", "maxResults": 5000}, "out_of_range", "maxResults"),
        tc("pubmed_convert_ids", {"ids": ["123"], "idType": "isbn"}, "enum_violation", "idType"),
        tc("pubmed_search_articles", {"maxResults": 5}, "missing_required", "query"),
        tc("pubmed_search_articles", {"query": "sepsis"}, "runtime"),
        tc("pubmed_search", {"query": "sepsis"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "summarise-paper"}),
        ("bad_cursor", "cursor", "prompts/list", {"cursor": "zzz"}),
    ]),
    "chart": ([binp("@antv/mcp-server-chart", "0.9.10", "mcp-server-chart")], "@antv/mcp-server-chart@0.9.10", {}, [
        tc("generate_liquid_chart", {"percent": 5}, "out_of_range", "percent"),
        tc("generate_liquid_chart", {"percent": 0.5, "shape": "star"}, "enum_violation", "shape"),
        tc("generate_pie_chart", {"data": "a=1,b=2"}, "wrong_type", "data"),
        tc("generate_bar_chart", {}, "empty_arguments"),
        tc("generate_pie_chart", {"data": [{"category": "a", "value": 1}]}, "runtime"),
        tc("generate_pie_charts", {"data": []}, "unknown_tool", "name"),
    ]),
}

recordkit.record("issue25c", S, env, sys.argv[1:])
