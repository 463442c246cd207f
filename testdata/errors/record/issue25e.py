"""Record held-out batch 7 of issue 25 (issue25e.jsonl) from real npm servers.

Usage: CACHE=.cache/b7 python3 issue25e.py [KEY...] > raw.jsonl (before
labelling). Recorded as recordkit.py says (pinned npm installs, no network,
canary credentials, raw answers without a grade); labels and hand scores are
added by hand afterwards (issue25e_label.py). Servers run one after another
(in parallel on a loaded machine their handshakes missed drive.py's 10 s
deadline). Nothing is passed through a shell except recordkit's fixed
loopback wrapper. None of these servers is in an earlier batch (responses,
census, issue25, issue25b, issue25c, issue25d, the tuned corpus): chosen for
errors that may offer closest matches, permitted values or next actions
(component and doc catalogues, zod enums)."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b7")
CAN = {"GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-CANARY25e0000000000",
       "LINEAR_API_KEY": "lin_api_CANARY25e000000000000000000000000000000",
       "PERPLEXITY_API_KEY": "pplx-CANARY25e000000000000000000000000000000000000"}
ROOT = "/tmp/rec25e"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
os.makedirs(ROOT + "/proj", exist_ok=True)
with open(ROOT + "/proj/ok.js", "w") as f:
    f.write("var x = 1\n")
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home"})
binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "primevue": ([binp("@primevue/mcp", "5.0.1", "primevue-mcp")], "@primevue/mcp@5.0.1", {}, [
        tc("get_component", {"component": "Buton"}, "unknown_id", "component"),
        tc("list", {"kind": "widgets"}, "enum_violation", "kind"),
        tc("list", {"limit": 500}, "out_of_range", "limit"),
        tc("search", {}, "missing_required", "query"),
        tc("search", {"query": 5}, "wrong_type", "query"),
        tc("get_guide", {"guide": "instalation"}, "unknown_id", "guide"),
        tc("get_example", {"component": "DataTable", "variant": "nope-variant"}, "unknown_id", "variant"),
        tc("get_components", {"component": "Button"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "primevue_helper"}),
        ("unknown_resource", "uri", "resources/read", {"uri": "primevue://components/nope"}),
    ]),
    "mastra": ([binp("@mastra/mcp-docs-server", "1.2.27", "mcp-docs-server")], "@mastra/mcp-docs-server@1.2.27", {}, [
        tc("mastraDocs", {"paths": ["docs/agentz/overview"]}, "unknown_id", "paths"),
        tc("mastraDocs", {"paths": []}, "out_of_range", "paths"),
        tc("mastraMigration", {"path": "upgrade-to-v9"}, "unknown_id", "path"),
        tc("startMastraCourseLesson", {"lessonName": "Intro"}, "unknown_id", "lessonName"),
        tc("startMastraCourse", {"email": "not-an-email"}, "format_violation", "email"),
        tc("getMastraExports", {"package": "@mastra/nope", "projectPath": ROOT + "/proj"}, "unknown_id", "package"),
        tc("listMastraPackages", {"projectPath": 7}, "wrong_type", "projectPath"),
        tc("mastraDoc", {"paths": ["docs/"]}, "unknown_tool", "name"),
    ]),
    "huge": ([binp("@hugeicons/mcp-server", "0.2.2", "hugeicons-mcp")], "@hugeicons/mcp-server@0.2.2", {}, [
        tc("get_icon_glyphs", {"icon_name": "hom-01"}, "unknown_id", "icon_name"),
        tc("get_platform_usage", {"platform": "qwik"}, "enum_violation", "platform"),
        tc("get_icon_glyph_by_style", {"icon_name": "home-01", "style": "bold"}, "enum_violation", "style"),
        tc("search_icons", {}, "missing_required", "query"),
        tc("search_icons", {"query": ["home"]}, "wrong_type", "query"),
        tc("search_icon", {"query": "home"}, "unknown_tool", "name"),
    ]),
    "ngp": ([binp("@ng-primitives/mcp", "0.110.2", "ngp-mcp")], "@ng-primitives/mcp@0.110.2", {}, [
        tc("get_primitive_details", {"name": "acordion"}, "unknown_id", "name"),
        tc("get_reusable_component", {"name": "dropdwn"}, "unknown_id", "name"),
        tc("get_install_command", {"primitives": "accordion"}, "wrong_type", "primitives"),
        tc("get_install_command", {"primitives": ["accordion", "flux-capacitor"]}, "unknown_id", "primitives"),
        tc("get_primitive_details", {}, "missing_required", "name"),
        tc("get_primitive", {"name": "accordion"}, "unknown_tool", "name"),
    ]),
    "cds": ([binp("@coinbase/cds-mcp-server", "9.28.0", "cds-mcp-server")], "@coinbase/cds-mcp-server@9.28.0", {}, [
        tc("list-cds-routes", {"platform": "desktop"}, "enum_violation", "platform"),
        tc("get-cds-doc", {"route": "web/components/Buton.txt"}, "unknown_id", "route"),
        tc("get-cds-doc", {"route": "components/Button"}, "pattern_violation", "route"),
        tc("get-cds-doc", {}, "missing_required", "route"),
        tc("get-cds-docs", {"route": "web/components/Button.txt"}, "unknown_tool", "name"),
    ]),
    "eslint": ([binp("@eslint/mcp", "0.3.13", "mcp")], "@eslint/mcp@0.3.13", {}, [
        tc("lint-files", {"filePaths": []}, "out_of_range", "filePaths"),
        tc("lint-files", {"filePaths": [ROOT + "/proj/missing.js"]}, "unknown_id", "filePaths"),
        tc("lint-files", {"filePaths": ROOT + "/proj/ok.js"}, "wrong_type", "filePaths"),
        tc("lint-files", {"filePaths": [""]}, "max_length", "filePaths"),
        tc("lint-file", {"filePaths": [ROOT + "/proj/ok.js"]}, "unknown_tool", "name"),
    ]),
    "gitlab": ([binp("@modelcontextprotocol/server-gitlab", "2025.4.25", "mcp-server-gitlab")], "@modelcontextprotocol/server-gitlab@2025.4.25",
               can("GITLAB_PERSONAL_ACCESS_TOKEN"), [
        tc("get_file_contents", {"project_id": "acme/web", "file_path": "README.md"}, "runtime"),
        tc("create_issue", {"project_id": "acme/web"}, "missing_required", "title"),
        tc("search_repositories", {"search": 5}, "wrong_type", "search"),
        tc("create_repository", {"name": "web", "visibility": "secret"}, "enum_violation", "visibility"),
        tc("get_issue", {"project_id": "acme/web", "issue_iid": 1}, "unknown_tool", "name"),
    ]),
    "pplx": ([binp("@perplexity-ai/mcp-server", "1.2.1", "perplexity-mcp")], "@perplexity-ai/mcp-server@1.2.1", can("PERPLEXITY_API_KEY"), [
        tc("perplexity_search", {"query": "mcp", "max_results": 50}, "out_of_range", "max_results"),
        tc("perplexity_ask", {"messages": [{"role": "robot", "content": "hi"}]}, "enum_violation", "messages[0].role"),
        tc("perplexity_ask", {"messages": "hi"}, "wrong_type", "messages"),
        tc("perplexity_search", {"query": "mcp"}, "runtime"),
        tc("perplexity", {"query": "mcp"}, "unknown_tool", "name"),
    ]),
    "linear": ([binp("@tacticlaunch/mcp-linear", "1.4.3", "mcp-linear")], "@tacticlaunch/mcp-linear@1.4.3", can("LINEAR_API_KEY"), [
        tc("linear_getWorkflowStates", {}, "missing_required", "teamId"),
        tc("linear_getTeamMemberships", {"teamId": "team-1", "limit": 0}, "out_of_range", "limit"),
        tc("linear_getViewer", {}, "runtime"),
        tc("linear_getWorkflowStates", {"teamId": 42}, "wrong_type", "teamId"),
        tc("linear_getIssue", {"id": "ENG-1"}, "unknown_tool", "name"),
    ]),
    "mui": ([binp("@mui/mcp", "0.1.6", "mcp")], "@mui/mcp@0.1.6", {}, [
        tc("fetchDocs", {"urls": ["http://127.0.0.1:9/material-ui/llms.txt"]}, "runtime"),
        tc("fetchDocs", {"urls": "https://mui.com/material-ui/llms.txt"}, "wrong_type", "urls"),
        tc("generateReactCode", {"prompt": ""}, "max_length", "prompt"),
        tc("fetchDoc", {"urls": []}, "unknown_tool", "name"),
    ]),
}

recordkit.record("issue25e", S, env, sys.argv[1:])
