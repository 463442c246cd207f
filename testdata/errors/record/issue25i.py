"""Record held-out batch 11 of issue 25 (issue25i.jsonl) from real npm servers.

Usage: CACHE=.cache/b11 python3 issue25i.py [KEY...] > raw.jsonl (before
labelling). Recorded as recordkit.py says (pinned npm installs, no network,
canary credentials, raw answers without a grade); labels and hand scores are
added by hand afterwards (issue25i_label.py). Servers run one after another.
Nothing is passed through a shell except recordkit's fixed loopback wrapper.
None of these servers is in an earlier batch (responses, census, issue25,
issue25b, issue25c to issue25h, the tuned corpus); built and committed after
errors-v12 was measured on batch 10 and before errors-v13 (the score
formula's refit) was made."""
import os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recordkit
from recordkit import tc

C = recordkit.cache(".cache/b11")
CAN = {"BRAVE_API_KEY": "BSA_CANARY25i_0000000000000000",
       "DD_API_KEY": "ddCANARY25i00000000000000000000",
       "DD_APP_KEY": "ddappCANARY25i0000000000000000000000",
       "PRIVATE_APP_ACCESS_TOKEN": "pat-na1-CANARY25i-0000-0000-0000",
       "ES_API_KEY": "esCANARY25i000000000000==",
       "MAPBOX_ACCESS_TOKEN": "pk.eyJ1IjoiQ0FOQVJZMjVpIn0.CANARY25i000",
       "AWS_SECRET_ACCESS_KEY": "awsCANARY25i0000000000000000000000000000"}
ROOT = "/tmp/rec25i"
shutil.rmtree(ROOT, ignore_errors=True)
os.makedirs(ROOT + "/home", exist_ok=True)
env = dict(os.environ)
env.update(CAN)
env.update({"HOME": ROOT + "/home", "DATADOG_API_KEY": CAN["DD_API_KEY"], "DATADOG_APP_KEY": CAN["DD_APP_KEY"],
            "ES_URL": "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID": "AKIACANARY25I0000000", "AWS_REGION": "us-east-1"})

binp = recordkit.binpath(C)
can = recordkit.picker(CAN)


S = {
    "brave": ([binp("@modelcontextprotocol/server-brave-search", "0.6.2", "mcp-server-brave-search")],
              "@modelcontextprotocol/server-brave-search@0.6.2", can("BRAVE_API_KEY"), [
        tc("brave_web_search", {}, "missing_required", "query"),
        tc("brave_web_search", {"query": 5}, "wrong_type", "query"),
        tc("brave_web_search", {"query": "mcp", "count": 500}, "out_of_range", "count"),
        tc("brave_local_search", {"query": "pizza near Paris"}, "runtime"),
        tc("brave_image_search", {"query": "x"}, "unknown_tool", "name"),
    ]),
    "awskb": ([binp("@modelcontextprotocol/server-aws-kb-retrieval", "0.6.2", "mcp-server-aws-kb-retrieval")],
              "@modelcontextprotocol/server-aws-kb-retrieval@0.6.2", can("AWS_SECRET_ACCESS_KEY"), [
        tc("retrieve_from_aws_kb", {"query": "x"}, "missing_required", "knowledgeBaseId"),
        tc("retrieve_from_aws_kb", {"query": "x", "knowledgeBaseId": "KB404"}, "unknown_id", "knowledgeBaseId"),
        tc("retrieve_from_aws_kb", {"query": "x", "knowledgeBaseId": "KB1", "n": "three"}, "wrong_type", "n"),
        tc("retrieve_from_kb", {}, "unknown_tool", "name"),
    ]),
    "hubspot": ([binp("@hubspot/mcp-server", "0.4.0", "mcp-hubspot")], "@hubspot/mcp-server@0.4.0", can("PRIVATE_APP_ACCESS_TOKEN"), [
        tc("hubspot-list-objects", {}, "missing_required", "objectType"),
        tc("hubspot-list-objects", {"objectType": "contacts", "limit": "ten"}, "wrong_type", "limit"),
        tc("hubspot-create-engagement", {"type": "MEETING", "ownerId": 1, "associations": {}, "metadata": {}}, "enum_violation", "type"),
        tc("hubspot-get-engagement", {"engagementId": 404}, "unknown_id", "engagementId"),
        tc("hubspot-get-user-details", {}, "runtime"),
        tc("hubspot-list-contacts", {}, "unknown_tool", "name"),
    ]),
    "yt": ([binp("@kimtaeyoon83/mcp-server-youtube-transcript", "0.1.1", "mcp-server-youtube-transcript")],
           "@kimtaeyoon83/mcp-server-youtube-transcript@0.1.1", {}, [
        tc("get_transcript", {"lang": "en"}, "missing_required", "url"),
        tc("get_transcript", {"url": "not a video", "lang": "en"}, "format_violation", "url"),
        tc("get_transcript", {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "lang": "en"}, "runtime"),
        tc("get_transcripts", {}, "unknown_tool", "name"),
    ]),
    "dd": ([binp("@winor30/mcp-server-datadog", "1.8.0", "mcp-server-datadog")], "@winor30/mcp-server-datadog@1.8.0",
           can("DD_API_KEY", "DD_APP_KEY"), [
        tc("get_incident", {}, "missing_required", "incidentId"),
        tc("query_metrics", {"from": "yesterday", "to": 1, "query": "avg:cpu"}, "wrong_type", "from"),
        tc("list_traces", {"query": "*", "from": 1, "to": 2, "sort": "newest"}, "enum_violation", "sort"),
        tc("get_dashboard", {"dashboardId": "abc-404"}, "unknown_id", "dashboardId"),
        tc("get_monitor", {}, "unknown_tool", "name"),
    ]),
    "es": ([binp("@elastic/mcp-server-elasticsearch", "0.3.1", "mcp-server-elasticsearch")], "@elastic/mcp-server-elasticsearch@0.3.1",
           can("ES_API_KEY"), [
        tc("list_indices", {}, "missing_required", "indexPattern"),
        tc("search", {"index": "logs", "queryBody": "match all"}, "wrong_type", "queryBody"),
        tc("get_mappings", {"index": "nope"}, "unknown_id", "index"),
        tc("delete_index", {"index": "x"}, "unknown_tool", "name"),
    ]),
    "mapbox": ([binp("@mapbox/mcp-server", "0.14.0", "mcp-server")], "@mapbox/mcp-server@0.14.0", can("MAPBOX_ACCESS_TOKEN"), [
        tc("distance_tool", {"from": {"longitude": 2.35, "latitude": 48.85}, "to": {"longitude": 13.4, "latitude": 52.5}, "units": "parsecs"},
           "enum_violation", "units"),
        tc("distance_tool", {"from": {"longitude": 2.35, "latitude": 48.85}}, "missing_required", "to"),
        tc("length_tool", {"coordinates": "2.35,48.85"}, "wrong_type", "coordinates"),
        tc("place_details_tool", {"mapbox_id": "nope"}, "unknown_id", "mapbox_id"),
        tc("geocode_tool", {"q": "Paris"}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "find-place-nearby"}),
    ]),
    "vuetify": ([binp("@vuetify/mcp", "0.12.1", "mcp")], "@vuetify/mcp@0.12.1", {}, [
        tc("get_component_api_by_version", {}, "missing_required", "componentName"),
        tc("get_component_api_by_version", {"componentName": "VButon"}, "unknown_id", "componentName"),
        tc("get_installation_guide", {"platform": "webpack"}, "enum_violation", "platform"),
        tc("get_upgrade_guide", {"version": 3}, "wrong_type", "version"),
        tc("get_component_api", {}, "unknown_tool", "name"),
        ("unknown_prompt", "name", "prompts/get", {"name": "install-vuetfy"}),
    ]),
    "fetch": ([binp("mcp-fetch-server", "1.1.2", "mcp-fetch-server")], "mcp-fetch-server@1.1.2", {}, [
        tc("fetch_html", {}, "missing_required", "url"),
        tc("fetch_html", {"url": "not a url"}, "format_violation", "url"),
        tc("fetch_json", {"url": "https://example.com/x.json"}, "runtime"),
        tc("fetch_txt", {"url": "https://example.com", "max_length": "big"}, "wrong_type", "max_length"),
        tc("fetch_pdf", {"url": "https://example.com"}, "unknown_tool", "name"),
    ]),
}

recordkit.record("issue25i", S, env, sys.argv[1:])
