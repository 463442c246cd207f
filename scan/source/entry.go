package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// OfficialMetaKey is the "_meta" key under which the official registry puts
// the metadata it manages (status, dates, isLatest).
const OfficialMetaKey = "io.modelcontextprotocol.registry/official"

// Registry statuses of an entry ([Official.Status]).
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// An Entry is one registry server response: a server.json at one version
// plus the registry's metadata about it.
//
// Raw and Meta keep the JSON as received (compacted), so that
// [WriteSnapshot] can write it back without losing fields this package does
// not model; Server and Official are decoded from them.
type Entry struct {
	// Server is the decoded server.json.
	Server Server
	// Official is the registry-managed metadata, or nil when the source had
	// none (a bare server.json, as in the registry's seed files).
	Official *Official
	// Raw is the server.json object, compacted.
	Raw json.RawMessage
	// Meta is the response's "_meta" object, compacted, or nil.
	Meta json.RawMessage
}

// ID returns "NAME@VERSION", which identifies an entry in the registry.
func (e Entry) ID() string { return e.Server.Name + "@" + e.Server.Version }

// Official is the registry-managed metadata of an entry.
type Official struct {
	// Status is active, deprecated or deleted.
	Status      string    `json:"status,omitempty"`
	PublishedAt time.Time `json:"publishedAt,omitzero"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
	// IsLatest tells whether this is the newest version of the server.
	IsLatest bool `json:"isLatest"`
}

// Server is a server.json (the schema's ServerDetail). Fields this package
// does not need (icons, title, publisher _meta) stay in [Entry.Raw].
type Server struct {
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Title       string      `json:"title,omitempty"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository is the source repository a server.json points at.
type Repository struct {
	URL       string `json:"url,omitempty"`
	Source    string `json:"source,omitempty"`
	ID        string `json:"id,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is a package a server can be installed from.
type Package struct {
	// RegistryType is npm, pypi, oci, nuget or mcpb.
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	Identifier      string `json:"identifier"`
	Version         string `json:"version,omitempty"`
	FileSHA256      string `json:"fileSha256,omitempty"`
	// RuntimeHint is the runtime the publisher suggests (npx, uvx, docker, dnx).
	RuntimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is a package's local transport or a remote (the schema's
// LocalTransport and RemoteTransport).
type Transport struct {
	// Type is stdio, streamable-http or sse.
	Type string `json:"type"`
	// URL is a template: {name} is replaced by a variable (remotes) or by an
	// argument or environment variable of the package.
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
	// Variables are the remote's URL template variables.
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value a server needs: an argument, an environment variable, a
// header or a template variable.
type Input struct {
	Description string `json:"description,omitempty"`
	// Format is string, number, boolean or filepath.
	Format     string `json:"format,omitempty"`
	IsRequired bool   `json:"isRequired,omitempty"`
	IsSecret   bool   `json:"isSecret,omitempty"`
	// Value is fixed by the publisher; {name} is replaced by Variables[name].
	Value       string   `json:"value,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// KeyValueInput is an environment variable or header.
type KeyValueInput struct {
	Input
	Name      string           `json:"name"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// Argument is a positional or named command-line argument.
type Argument struct {
	Input
	// Type is positional or named.
	Type string `json:"type"`
	// Name is the flag of a named argument, dashes included.
	Name string `json:"name,omitempty"`
	// ValueHint labels a positional argument; it is not part of the command
	// line.
	ValueHint  string           `json:"valueHint,omitempty"`
	IsRepeated bool             `json:"isRepeated,omitempty"`
	Variables  map[string]Input `json:"variables,omitempty"`
}

// entryFields picks the two members of a registry server response. A bare
// server.json has neither "server" nor "_meta" but a "name".
type entryFields struct {
	Server json.RawMessage `json:"server"`
	Meta   json.RawMessage `json:"_meta"`
	Name   json.RawMessage `json:"name"`
	// VersionDetail marks the registry's legacy (pre-preview) format.
	VersionDetail json.RawMessage `json:"version_detail"`
}

var errLegacyFormat = errors.New(`legacy pre-preview registry format ("version_detail"); it is not a server.json`)

// decodeEntry decodes one registry server response or bare server.json.
func decodeEntry(raw []byte) (Entry, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Entry{}, fmt.Errorf("want a JSON object, got %s", describeJSON(raw))
	}
	var f entryFields
	if err := json.Unmarshal(raw, &f); err != nil {
		return Entry{}, err
	}
	var e Entry
	switch {
	case f.Server != nil:
		if !isObject(f.Server) {
			return Entry{}, fmt.Errorf(`"server": want a server.json object, got %s`, describeJSON(f.Server))
		}
		e.Raw = compact(f.Server)
		if f.Meta != nil && !isNull(f.Meta) {
			if !isObject(f.Meta) {
				return Entry{}, fmt.Errorf(`"_meta": want an object, got %s`, describeJSON(f.Meta))
			}
			e.Meta = compact(f.Meta)
		}
	case f.VersionDetail != nil:
		return Entry{}, errLegacyFormat
	case f.Name != nil:
		e.Raw = compact(raw)
	default:
		return Entry{}, errors.New(`neither a registry server response (no "server") nor a server.json (no "name")`)
	}
	if err := json.Unmarshal(e.Raw, &e.Server); err != nil {
		return Entry{}, fmt.Errorf("decoding server.json: %w", err)
	}
	if e.Meta != nil {
		var m struct {
			Official *Official `json:"io.modelcontextprotocol.registry/official"`
		}
		if err := json.Unmarshal(e.Meta, &m); err != nil {
			return Entry{}, fmt.Errorf(`decoding "_meta": %w`, err)
		}
		e.Official = m.Official
	}
	return e, nil
}

// MarshalJSON writes the entry as a registry server response.
func (e Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) == 0 {
		return nil, fmt.Errorf("entry %s has no raw server.json", e.ID())
	}
	var b bytes.Buffer
	b.WriteString(`{"server":`)
	b.Write(e.Raw)
	if len(e.Meta) > 0 {
		b.WriteString(`,"_meta":`)
		b.Write(e.Meta)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a registry server response or a bare server.json.
func (e *Entry) UnmarshalJSON(data []byte) error {
	d, err := decodeEntry(data)
	if err != nil {
		return err
	}
	*e = d
	return nil
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(raw))
	if err := json.Compact(&b, raw); err != nil {
		// raw came out of the decoder, so it is valid JSON.
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// describeJSON names the kind of a JSON value for error messages, with a
// short excerpt of it.
func describeJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	kind := "a value"
	switch raw[0] {
	case '{':
		kind = "an object"
	case '[':
		kind = "an array"
	case '"':
		kind = "a string"
	case 't', 'f':
		kind = "a boolean"
	case 'n':
		return "null"
	default:
		kind = "a number"
	}
	return kind + " " + excerpt(raw, 40)
}

// excerpt returns at most n bytes of b on one line, for error messages.
func excerpt(b []byte, n int) string {
	cut := len(b) > n
	if cut {
		b = b[:n]
	}
	out := make([]rune, 0, len(b))
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		out = append(out, r)
	}
	s := string(out)
	if cut {
		s += "..."
	}
	return s
}
