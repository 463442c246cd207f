"""Record held-out batch 10 of issue 25 (issue25h.jsonl) from real npm servers.

Usage: CACHE=.cache/b10 python3 issue25h.py [KEY...] > raw.jsonl (before
labelling). Recorded as recordkit.py says (pinned npm installs, no network,
canary credentials, raw answers without a grade); labels and hand scores are
added by hand afterwards (issue25h_label.py). Servers run one after another
(in parallel on a loaded machine their handshakes missed drive.py's 10 s
deadline). Nothing is passed through a shell except recordkit's fixed
loopback wrapper. None of these servers is in an earlier batch (responses,
census, issue25, issue25b, issue25c to issue25g, the tuned corpus), built
and committed before errors-v12 was tuned on batch 9."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b10")
CAN = {"PINECONE_API_KEY": "pcsk_CANARY25h_000000000000000000",
       "ASANA_ACCESS_TOKEN": "2/CANARY25h/0000000000000000",
       "SHORTCUT_API_TOKEN": "scCANARY25h-0000-0000-0000",
       "LARA_ACCESS_KEY_SECRET": "laraSecretCANARY25h000000"}
ROOT = "/tmp/rec25h"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
os.makedirs(ROOT + "/proj", exist_ok=True)
with open(ROOT + "/proj/notes.txt", "w") as f:
    f.write("notes\n")
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home", "LARA_ACCESS_KEY_ID": "laraCANARY25h"})
binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "aria": ([binp("@react-aria/mcp", "1.2.1", "mcp")], "@react-aria/mcp@1.2.1", {}, [
        tc("get_react_aria_page", {"page_name": "Buton"}, "unknown_id", "page_name"),
        tc("get_react_aria_page", {"page_name": "Button", "section_name": "Stylin"}, "unknown_id", "section_name"),
        tc("get_react_aria_page_info", {}, "missing_required", "page_name"),
        tc("get_react_aria_page_info", {"page_name": 5}, "wrong_type", "page_name"),
        tc("list_react_aria_pages", {"includeDescription": "yes"}, "wrong_type", "includeDescription"),
        tc("get_react_aria_pages", {}, "unknown_tool", "name"),
    ]),
    "pinecone": ([binp("@pinecone-database/mcp", "0.3.0", "pinecone-mcp")], "@pinecone-database/mcp@0.3.0", can("PINECONE_API_KEY"), [
        tc("search-docs", {}, "missing_required", "query"),
        tc("search-docs", {"query": "upsert"}, "runtime"),
        tc("describe-index", {"name": "nope"}, "unknown_id", "name"),
        tc("describe-index", {}, "missing_required", "name"),
        tc("list-index", {}, "unknown_tool", "name"),
    ]),
    "asana": ([binp("@roychri/mcp-server-asana", "1.8.0", "mcp-server-asana")], "@roychri/mcp-server-asana@1.8.0", can("ASANA_ACCESS_TOKEN"), [
        tc("asana_search_projects", {"workspace": "w1"}, "missing_required", "name_pattern"),
        tc("asana_get_my_tasks", {"workspace": 5}, "wrong_type", "workspace"),
        tc("asana_list_workspaces", {}, "runtime"),
        tc("asana_get_tasks", {}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "task_sumary"}),
        ("unknown_resource", "uri", "resources/read", {"uri": "asana://workspace/nope"}),
    ]),
    "shopify": ([binp("@shopify/dev-mcp", "1.16.0", "shopify-dev-mcp")], "@shopify/dev-mcp@1.16.0", {}, [
        tc("learn_shopify_api", {"api": "graphql"}, "enum_violation", "api"),
        tc("learn_shopify_api", {}, "missing_required", "api"),
        tc("search_docs_chunks", {"conversationId": "conv-404", "prompt": "products"}, "unknown_id", "conversationId"),
        tc("feedback", {}, "empty_arguments"),
        tc("shopify_docs", {}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "shopify_helper"}),
    ]),
    "shortcut": ([binp("@shortcut/mcp", "0.25.0", "mcp-server-shortcut")], "@shortcut/mcp@0.25.0", can("SHORTCUT_API_TOKEN"), [
        tc("stories-get-by-id", {"storyPublicId": 0}, "out_of_range", "storyPublicId"),
        tc("stories-get-by-id", {"storyPublicId": "abc"}, "wrong_type", "storyPublicId"),
        tc("stories-get-by-id", {}, "missing_required", "storyPublicId"),
        tc("users-get-current", {}, "runtime"),
        tc("stories-get", {}, "unknown_tool", "name"),
    ]),
    "pdf": ([binp("@sylphx/pdf-reader-mcp", "2.4.0", "pdf-reader-mcp")], "@sylphx/pdf-reader-mcp@2.4.0", {}, [
        tc("read_pdf", {"sources": [{"path": ROOT + "/proj/missing.pdf"}]}, "unknown_id", "sources"),
        tc("read_pdf", {"sources": []}, "out_of_range", "sources"),
        tc("read_pdf", {"sources": "a.pdf"}, "wrong_type", "sources"),
        tc("read_pdf", {"sources": [{"path": ROOT + "/proj/notes.txt"}]}, "pattern_violation", "path"),
        tc("read_pdfs", {"sources": []}, "unknown_tool", "name"),
    ]),
    "lara": ([binp("@translated/lara-mcp", "1.0.6", "lara-mcp")], "@translated/lara-mcp@1.0.6", can("LARA_ACCESS_KEY_SECRET"), [
        tc("translate", {"text": "hi", "target": "fr-FR"}, "wrong_type", "text"),
        tc("translate", {"text": [{"text": "hi", "translatable": True}]}, "missing_required", "target"),
        tc("detect_language", {}, "missing_required", "text"),
        tc("detect_language", {"text": "bonjour"}, "runtime"),
        tc("lara_translate", {}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "lara://memories/nope"}),
    ]),
    "airbnb": ([binp("@openbnb/mcp-server-airbnb", "0.3.0", "mcp-server-airbnb"), "--ignore-robots-txt"], "@openbnb/mcp-server-airbnb@0.3.0", {}, [
        tc("airbnb_search", {}, "missing_required", "location"),
        tc("airbnb_search", {"location": "Paris"}, "runtime"),
        tc("airbnb_listing_details", {"id": 5}, "wrong_type", "id"),
        tc("airbnb_book", {"id": "1"}, "unknown_tool", "name"),
    ]),
    "scenario": ([binp("@modelcontextprotocol/server-scenario-modeler", "2.0.3", "mcp-scenario-modeler-server"), "--stdio"],
                 "@modelcontextprotocol/server-scenario-modeler@2.0.3", {}, [
        tc("get-scenario-data", {"customInputs": {"startingMRR": "lots"}}, "wrong_type", "startingMRR"),
        tc("get-scenario", {}, "unknown_tool", "name"),
        ("unknown_resource", "uri", "resources/read", {"uri": "ui://scenario-modeler/nope.html"}),
    ]),
}

recordkit.record("issue25h", S, env, sys.argv[1:])
