package sandbox

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecodeLarge: a large response is decoded in place (its result is the
// line's own bytes, not a copy) to what jsonrpc.DecodeMessage gives; what
// is not a plain large response is left to DecodeMessage.
func TestDecodeLarge(t *testing.T) {
	big := `{"tools":[{"name":"a","description":"` + strings.Repeat("x", largeLine) + `"}]}`
	line := []byte(`{"jsonrpc":"2.0","id":"mcpvet-7","result":` + big + `}`)
	m := decodeLarge(line)
	want, err := jsonrpc.DecodeMessage(line)
	if err != nil || m == nil {
		t.Fatalf("decodeLarge = %v, DecodeMessage error %v", m, err)
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("decodeLarge differs from DecodeMessage")
	}
	r := m.(*jsonrpc.Response)
	if &r.Result[0] != &line[bytes.Index(line, []byte(`{"tools"`))] {
		t.Errorf("the result was copied")
	}
	for name, l := range map[string]string{
		"small":         `{"jsonrpc":"2.0","id":1,"result":{}}`,
		"request":       `{"jsonrpc":"2.0","id":1,"method":"x","params":{},"result":` + big + `}`,
		"two results":   `{"jsonrpc":"2.0","id":1,"result":` + big + `,"result":{}}`,
		"bad version":   `{"jsonrpc":"1.0","id":1,"result":` + big + `}`,
		"error":         `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"result":` + big + `}`,
		"invalid JSON":  `{"jsonrpc":"2.0","id":1,"result":` + big,
		"large id part": `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 70<<10) + `","result":` + big + `}`,
	} {
		if m := decodeLarge([]byte(l)); m != nil {
			t.Errorf("%s: decodeLarge = %T, want nil (left to DecodeMessage)", name, m)
		}
	}
}
