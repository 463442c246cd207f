"""Record the held-out batch: BIN=path/to/node_modules/.bin python3 heldout.py
> responses.jsonl (before labelling). The servers are the npm packages named
in each entry; nothing is passed through a shell."""
# Records invalid calls against real servers into mcpvet grade input JSONL.
import json,sys,os
sys.path.insert(0,os.path.dirname(os.path.abspath(__file__)))
import drive
B=os.environ.get("BIN","node_modules/.bin")+"/"
env=dict(os.environ)
CAN={"AIRTABLE_API_KEY":"patCANARY13aaaaaaaaaaaa","FIGMA_API_KEY":"figd_CANARY13xx","BRAVE_API_KEY":"BSACANARY13xxxxxxxx"}
env.update(CAN); env.update({"MEMORY_FILE_PATH":"/tmp/rec13/mem.json","MOCKSERVER_HOST":"127.0.0.1","MOCKSERVER_PORT":"1"})
os.makedirs("/tmp/rec13/fsroot",exist_ok=True)
open("/tmp/rec13/fsroot/a.txt","w").write("hello\n")
def tc(name,args,kind,param=None): return (kind,param,"tools/call",{"name":name,"arguments":args})
def tcabs(name,kind): return (kind,None,"tools/call",{"name":name})
S={
"airtable":([B+"airtable-mcp-server"],"airtable-mcp-server@1.9.6",{"AIRTABLE_API_KEY":CAN["AIRTABLE_API_KEY"]},[
 tc("list_records",{"tableId":"tbl1"},"missing_required","baseId"),
 tc("list_records",{"baseId":42,"tableId":"tbl1"},"wrong_type","baseId"),
 tc("list_tables",{"baseId":"app1","detailLevel":"everything"},"enum_violation","detailLevel"),
 tc("list_records",{"baseId":"app1","tableId":"tbl1","maxRecords":-5},"out_of_range","maxRecords"),
 tc("list_bases",{"bogus":1},"unknown_property","bogus"),
 tc("get_record",{},"empty_arguments"),
 tc("list_recordz",{},"unknown_tool","name"),
 ("unknown_method",None,"tools/frobnicate",{}),
 ("bad_cursor","cursor","tools/list",{"cursor":"!!notacursor!!"}),
 tc("list_bases",{},"runtime"),
 ("unknown_resource","uri","resources/read",{"uri":"airtable://nope"}),
]),
"betterprompt":([B+"betterprompt-mcp"],"betterprompt-mcp@0.2.1",{},[
 tc("enhance-prompt",{},"empty_arguments"),
 tc("enhance-prompt",{"prompt":7},"wrong_type","prompt"),
 tc("enhance-prompt",{"prompt":"write a poem","category":"poetry"},"enum_violation","category"),
 tc("get-template",{"category":"nope"},"enum_violation","category"),
 tc("get-template",{"category":"code-generation","extra":True},"unknown_property","extra"),
 tcabs("enhance-code-prompt","absent_arguments"),
 tc("enhance-promt",{"prompt":"x"},"unknown_tool","name"),
 ("unknown_prompt","name","prompts/get",{"name":"no-such-prompt"}),
 ("unknown_method",None,"resources/frobnicate",{}),
 ("bad_cursor","cursor","prompts/list",{"cursor":"!!notacursor!!"}),
]),
"figma":([B+"figma-developer-mcp","--stdio"],"figma-developer-mcp@0.6.0",{"FIGMA_API_KEY":CAN["FIGMA_API_KEY"]},[
 tc("get_figma_data",{},"empty_arguments"),
 tc("get_figma_data",{"fileKey":123},"wrong_type","fileKey"),
 tc("download_figma_images",{"fileKey":"abc-def!","nodes":[],"localPath":"/tmp/x"},"pattern_violation","fileKey"),
 tc("get_figma_data",{"fileKey":"abc","depth":"deep"},"wrong_type","depth"),
 tc("get_figma_data",{"fileKey":"abc123"},"runtime"),
 tc("get_figma_dat",{"fileKey":"abc"},"unknown_tool","name"),
 ("bad_cursor","cursor","tools/list",{"cursor":"zzz"}),
]),
"brave":([B+"brave-search-mcp-server"],"@brave/brave-search-mcp-server@2.0.63",{"BRAVE_API_KEY":CAN["BRAVE_API_KEY"]},[
 tc("brave_web_search",{},"empty_arguments"),
 tc("brave_web_search",{"query":5},"wrong_type","query"),
 tc("brave_web_search",{"query":"x"*500},"max_length","query"),
 tc("brave_web_search",{"query":"cats","country":"XX"},"enum_violation","country"),
 tc("brave_web_search",{"query":"cats","count":1000},"out_of_range","count"),
 tc("brave_web_search",{"query":"cats"},"runtime"),
 tc("brave_search",{"query":"cats"},"unknown_tool","name"),
 ("unknown_method",None,"tools/frobnicate",{}),
]),
"mockserver":([B+"mockserver-mcp"],"mockserver-mcp@1.0.2",{},[
 tc("mockserver_status",{},"runtime"),
 tc("mockserver_create_expectation",{"httpRequest":"GET /"},"wrong_type","httpRequest"),
 tc("mockserver_create_expectation",{},"empty_arguments"),
 tc("mockserver_statuz",{},"unknown_tool","name"),
 ("unknown_method",None,"tools/frobnicate",{}),
 ("bad_cursor","cursor","tools/list",{"cursor":"zzz"}),
]),
"coderunner":([B+"mcp-server-code-runner"],"mcp-server-code-runner@0.1.8",{},[
 tc("run-code",{"code":"print(1)","languageId":"cobol2000"},"enum_violation","languageId"),
 tc("run-code",{"languageId":"python"},"missing_required","code"),
 tc("run-code",{"code":5,"languageId":"python"},"wrong_type","code"),
 tc("run-cod",{},"unknown_tool","name"),
 ("unknown_method",None,"tools/frobnicate",{}),
]),
"memory":([B+"mcp-server-memory"],"@modelcontextprotocol/server-memory@2026.1.26",{},[
 tc("create_relations",{"relations":[{"from":"a","to":"b"}]},"missing_required","relations[0].relationType"),
 tc("add_observations",{"observations":[{"entityName":"ghost","contents":["x"]}]},"unknown_id","entityName"),
 tc("open_nodes",{"names":"alice"},"wrong_type","names"),
 tc("delete_entities",{"entityNames":[1,2]},"wrong_type","entityNames"),
 ("unknown_method",None,"prompts/list",{}),
 ("unknown_resource","uri","resources/read",{"uri":"memory://graph"}),
]),
"filesystem":([B+"mcp-server-filesystem","/tmp/rec13/fsroot"],"@modelcontextprotocol/server-filesystem@2026.1.14",{},[
 tc("read_text_file",{"path":"/tmp/rec13/fsroot/a.txt","head":"ten"},"wrong_type","head"),
 tc("list_directory_with_sizes",{"path":"/tmp/rec13/fsroot","sortBy":"date"},"enum_violation","sortBy"),
 tc("read_multiple_files",{"paths":[]},"out_of_range","paths"),
 tc("move_file",{"source":"/tmp/rec13/fsroot/a.txt"},"missing_required","destination"),
 tc("get_file_info",{"path":"/tmp/rec13/fsroot/nope.txt"},"unknown_id","path"),
 tc("read_text_file",{"path":"/tmp/rec13/fsroot/a.txt","head":1,"tail":1},"runtime","head"),
 tc("edit_file",{"path":"/tmp/rec13/fsroot/a.txt","edits":[{"oldText":"zzz","newText":"y"}]},"runtime","edits"),
]),
"seqthinking":([B+"mcp-server-sequential-thinking"],"@modelcontextprotocol/server-sequential-thinking@2025.12.18",{},[
 tc("sequentialthinking",{"thought":"x","nextThoughtNeeded":True,"thoughtNumber":0,"totalThoughts":3},"out_of_range","thoughtNumber"),
 tc("sequentialthinking",{"thought":"x","nextThoughtNeeded":"yes","thoughtNumber":1,"totalThoughts":3},"wrong_type","nextThoughtNeeded"),
 ("unknown_resource","uri","resources/read",{"uri":"file:///etc/passwd"}),
]),
"everything":([B+"mcp-server-everything"],"@modelcontextprotocol/server-everything@2026.1.26",{},[
 tc("get-sum",{"a":1},"missing_required","b"),
 tc("trigger-long-running-operation",{"duration":"long","steps":2},"wrong_type","duration"),
 tc("get-resource-reference",{"resourceType":"Image","resourceId":5},"enum_violation","resourceType"),
 tc("get-resource-reference",{"resourceType":"Text","resourceId":0},"out_of_range","resourceId"),
 ("unknown_prompt","name","prompts/get",{"name":"complex-prompt"}),
 ("unknown_resource","uri","resources/read",{"uri":"demo://resource/static/document/nope.md"}),
 ("bad_cursor","cursor","resources/list",{"cursor":"!!bad!!"}),
]),
}
which=sys.argv[1:] or list(S)
for key in which:
  cmd,src,canaries,calls=S[key]
  o=drive.run(cmd,[(m,p) for (_,_,m,p) in calls],env=env)
  pv=(o["init"] or {}).get("result",{}).get("protocolVersion")
  tools=o["toolsRaw"]["result"]["tools"] if isinstance(o["toolsRaw"],dict) and "result" in o["toolsRaw"] else []
  for i,((kind,param,m,p),c) in enumerate(zip(calls,o["calls"])):
    rec={"id":f"{key}-{i+1:02d}-{kind}","source":"recorded:"+src,"kind":kind,"request":{"jsonrpc":"2.0","id":100+i,"method":m,"params":p},"response":c["response"],"protocolVersion":pv,"tools":tools}
    if param: rec["param"]=param
    if canaries: rec["canaries"]=canaries
    print(json.dumps(rec))
