"""The protocol half of a two-file MCP server; server.py imports it."""

TOOLS = [{
    "name": "word_count",
    "description": "Counts the words in a text.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "The text"}}, "required": ["text"]},
}]


def handle(msg, name):
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "initialize":
        return {"result": {
            "protocolVersion": params.get("protocolVersion") or "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "0.1.0"},
        }}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        if params.get("name") != "word_count":
            return {"error": {"code": -32602, "message": 'Unknown tool "%s"; the only tool is "word_count"' % params.get("name")}}
        text = (params.get("arguments") or {}).get("text")
        if not isinstance(text, str):
            return {"result": {"isError": True, "content": [{"type": "text", "text": 'Argument "text" is required and must be a string, e.g. {"text": "a b c"}'}]}}
        return {"result": {"content": [{"type": "text", "text": str(len(text.split()))}]}}
    return {"error": {"code": -32601, "message": "Method not found: %s" % method}}
