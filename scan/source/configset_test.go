package source

import "testing"

func TestKeyLine(t *testing.T) {
	doc := []byte("{\n  // servers\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\", \"args\": [\"b\"]},\n    \"b\" :\n {\"command\": \"b\"},\n    \"q\\\"x\": {}\n  }\n}\n")
	for name, want := range map[string]int{"a": 4, "b": 5, "mcpServers": 3, "q\"x": 7, "command": 4, "missing": 0, "": 0} {
		if got := KeyLine(doc, name); got != want {
			t.Errorf("KeyLine(%q) = %d, want %d", name, got, want)
		}
	}
	toml := []byte("model = \"x\"\n\n[mcp_servers.memory]\ncommand = \"npx\"\n")
	if got := KeyLine(toml, "memory"); got != 3 {
		t.Errorf("KeyLine(toml, memory) = %d, want 3", got)
	}
}
