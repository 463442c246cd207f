"""Record held-out batch 8 of issue 25 (issue25f.jsonl) from real npm servers.

Usage: CACHE=.cache/b8 python3 issue25f.py [KEY...] > raw.jsonl (before
labelling). Recorded as recordkit.py says (pinned npm installs, no network,
canary credentials, raw answers without a grade); labels and hand scores are
added by hand afterwards (issue25f_label.py). Servers run one after another
(in parallel on a loaded machine their handshakes missed drive.py's 10 s
deadline). Nothing is passed through a shell except recordkit's fixed
loopback wrapper. None of these servers is in an earlier batch (responses,
census, issue25, issue25b, issue25c, issue25d, issue25e, the tuned corpus),
built and committed before errors-v10 was tuned on batch 7."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b8")
CAN = {"ATLASSIAN_API_TOKEN": "ATATT3xCANARY25f0000000000000000",
       "LUNCHMONEY_API_TOKEN": "lm-CANARY25f-00000000000000000000",
       "AMAP_MAPS_API_KEY": "amapCANARY25f000000000000000000",
       "DEEPSEEK_API_KEY": "sk-CANARY25f0000000000000000000000",
       "EVERART_API_KEY": "everart-CANARY25f000000000000"}
ROOT = "/tmp/rec25f"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
os.makedirs(ROOT + "/proj", exist_ok=True)
with open(ROOT + "/proj/ok.drawio", "w") as f:
    f.write('<mxfile><diagram id="p1" name="Overview"><mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel></diagram></mxfile>\n')
with open(ROOT + "/proj/notes.txt", "w") as f:
    f.write("notes\n")
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home", "ATLASSIAN_SITE_NAME": "acme", "ATLASSIAN_USER_EMAIL": "a@acme.test", "REDIS_URL": "redis://127.0.0.1:9"})
binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "jira": ([binp("@aashari/mcp-server-atlassian-jira", "3.3.0", "mcp-atlassian-jira")], "@aashari/mcp-server-atlassian-jira@3.3.0",
             can("ATLASSIAN_API_TOKEN"), [
        tc("jira_get", {"path": "rest/api/3/project"}, "pattern_violation", "path"),
        tc("jira_get", {}, "missing_required", "path"),
        tc("jira_get", {"path": "/rest/api/3/project"}, "runtime"),
        tc("jira_post", {"path": "/rest/api/3/issue"}, "missing_required", "body"),
        tc("jira_search", {"jql": "project = ENG"}, "unknown_tool", "name"),
    ]),
    "bullmq": ([binp("@adamhancock/bullmq-mcp", "1.0.7", "bullmq-mcp")], "@adamhancock/bullmq-mcp@1.0.7", {}, [
        tc("get_jobs", {"queue": "emails", "status": "stuck"}, "enum_violation", "status"),
        tc("stats", {"queue": "emails"}, "runtime"),
        tc("switch_connection", {"id": "nope"}, "unknown_id", "id"),
        tc("get_job", {"queue": "emails"}, "missing_required", "jobId"),
        tc("connect", {"id": 5}, "wrong_type", "id"),
        tc("list_queue", {}, "unknown_tool", "name"),
    ]),
    "lunch": ([binp("@akutishevsky/lunchmoney-mcp", "3.0.0", "lunchmoney-mcp")], "@akutishevsky/lunchmoney-mcp@3.0.0",
              can("LUNCHMONEY_API_TOKEN"), [
        tc("get_single_category", {"categoryId": "food"}, "wrong_type", "categoryId"),
        tc("get_all_categories", {"format": "tree"}, "enum_violation", "format"),
        tc("create_category", {"name": ""}, "max_length", "name"),
        tc("create_category", {"name": "x" * 150}, "max_length", "name"),
        tc("get_user", {}, "runtime"),
        tc("get_single_tag", {}, "missing_required", "tagId"),
        tc("get_categories", {}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "budget_review"}),
    ]),
    "amap": ([binp("@amap/amap-maps-mcp-server", "0.0.8", "mcp-amap")], "@amap/amap-maps-mcp-server@0.0.8", can("AMAP_MAPS_API_KEY"), [
        tc("maps_weather", {"city": "Atlantis"}, "runtime"),
        tc("maps_geo", {}, "missing_required", "address"),
        tc("maps_regeocode", {"location": 5}, "wrong_type", "location"),
        tc("maps_search", {"keywords": "cafe"}, "unknown_tool", "name"),
    ]),
    "deepseek": ([binp("@arikusi/deepseek-mcp-server", "2.3.0", "deepseek-mcp-server")], "@arikusi/deepseek-mcp-server@2.3.0",
                 can("DEEPSEEK_API_KEY"), [
        tc("deepseek_sessions", {"action": "purge"}, "enum_violation", "action"),
        tc("deepseek_sessions", {"action": "delete"}, "missing_required", "session_id"),
        tc("deepseek_fim", {"prompt": ""}, "max_length", "prompt"),
        tc("deepseek_chat", {"messages": []}, "out_of_range", "messages"),
        tc("deepseek_chat", {"messages": [{"role": "user", "content": "hi"}]}, "runtime"),
        tc("deepseek", {"prompt": "hi"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "code_reviw"}),
        ("unknown_resource", "uri", "resources/read", {"uri": "deepseek://models/nope"}),
    ]),
    "drawio": ([binp("@drawio/mcp", "1.6.1", "drawio-mcp")], "@drawio/mcp@1.6.1", {}, [
        tc("list_pages", {"path": ROOT + "/proj/missing.drawio"}, "unknown_id", "path"),
        tc("list_pages", {"path": ROOT + "/proj/notes.txt"}, "pattern_violation", "path"),
        tc("get_page", {"path": ROOT + "/proj/ok.drawio", "page": "Detail"}, "unknown_id", "page"),
        tc("open_drawio_xml", {"content": 5}, "wrong_type", "content"),
        tc("open_drawio_xml", {"content": "<mxGraphModel/>", "dark": "dim"}, "enum_violation", "dark"),
        tc("search_shape", {"query": "globe"}, "unknown_tool", "name"),
    ]),
    "apple": ([binp("@kimsungwhee/apple-docs-mcp", "1.0.26", "apple-docs-mcp")], "@kimsungwhee/apple-docs-mcp@1.0.26", {}, [
        tc("get_apple_doc_content", {"url": "https://example.com/docs/uiview"}, "pattern_violation", "url"),
        tc("search_framework_symbols", {"framework": "uikitt"}, "unknown_id", "framework"),
        tc("search_apple_docs", {}, "missing_required", "query"),
        tc("list_technologies", {"category": "Gamez"}, "unknown_id", "category"),
        tc("search_docs", {"query": "UIView"}, "unknown_tool", "name"),
    ]),
    "everart": ([binp("@modelcontextprotocol/server-everart", "0.6.2", "mcp-server-everart")], "@modelcontextprotocol/server-everart@0.6.2",
                can("EVERART_API_KEY"), [
        tc("generate_image", {"prompt": "a cat", "image_count": 99}, "out_of_range", "image_count"),
        tc("generate_image", {}, "missing_required", "prompt"),
        tc("generate_image", {"prompt": "a cat"}, "runtime"),
        tc("generate", {"prompt": "a cat"}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "everart://images/nope"}),
    ]),
    "ms365": ([binp("@softeria/ms-365-mcp-server", "0.155.0", "ms-365-mcp-server")], "@softeria/ms-365-mcp-server@0.155.0", {}, [
        tc("select-account", {"account": "nobody@acme.test"}, "unknown_id", "account"),
        tc("get-drive-item", {}, "missing_required", "driveId"),
        tc("login-device", {}, "unknown_tool", "name"),
    ]),
}

recordkit.record("issue25f", S, env, sys.argv[1:])
