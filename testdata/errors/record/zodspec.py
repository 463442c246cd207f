import json,sys
sys.path.insert(0,'/work/wt-13/testdata/errors/record'); import drive, os
zv=sys.argv[1]
env=dict(os.environ); env["ZV"]=zv
calls=[
 ["tools/call",{"name":"search_issues","arguments":{"query":5}}],
 ["tools/call",{"name":"search_issues","arguments":{"query":"bug","state":"pending"}}],
 ["tools/call",{"name":"search_issues","arguments":{"query":"bug","limit":0}}],
 ["tools/call",{"name":"search_issues","arguments":{"query":"bug","target":"not a url"}}],
 ["tools/call",{"name":"search_issues","arguments":{"query":"x"}}],
 ["tools/call",{"name":"search_issues","arguments":{"query":"bug","since":"yesterday"}}],
 ["tools/call",{"name":"get_issue","arguments":{}}],
 ["tools/call",{"name":"get_issue","arguments":{"number":-3}}],
]
o=drive.run(["node","zsrv/server.mjs"],calls,pv="2025-06-18",env=env)
print(json.dumps(o))
