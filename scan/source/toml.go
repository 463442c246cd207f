package source

import (
	"encoding/json"
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// tomlToJSON decodes a TOML document (Codex CLI's config.toml) and returns
// it as JSON, so that one reader handles every config. Table order is not
// kept: servers come out sorted by name.
func tomlToJSON(data []byte) ([]byte, error) {
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		if de, ok := err.(*toml.DecodeError); ok {
			row, col := de.Position()
			return nil, fmt.Errorf("line %d, column %d: %s; config.toml must be valid TOML, e.g. [mcp_servers.NAME] with command = \"npx\"", row, col, de.Error())
		}
		return nil, fmt.Errorf("reading TOML: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("reading TOML: %v", err)
	}
	return out, nil
}
