"""Record the TypeScript SDK 1.24.2's answers to invalid calls with zod v4
or v3 schemas: python3 zodspec.py 4|3 > out.json. zodserver.mjs must resolve
@modelcontextprotocol/sdk@1.24.2 and zod@3.25 (which has zod/v3 and zod/v4)
from its directory or NODE_PATH."""
import json,sys,os
sys.path.insert(0,os.path.dirname(os.path.abspath(__file__))); import drive, os
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
o=drive.run(["node",os.path.join(os.path.dirname(os.path.abspath(__file__)),"zodserver.mjs")],calls,pv="2025-06-18",env=env)
print(json.dumps(o))
