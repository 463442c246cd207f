package probe

import (
	"cmp"
	"container/list"
	"crypto/sha256"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Checker runs the conformance checks on a probe [Result]: protocol
// messages against the MCP schema, tool schemas, names, annotations,
// prompts, resources and templates. It caches compiled tool schemas by the
// SHA-256 of their canonical JSON, so that a scan of many servers sharing
// schemas (SDK boilerplate, forks, versions of one server) compiles each
// once. The cache is bounded in entries and bytes and evicts the least
// recently used schema.
//
// A Checker is safe for concurrent use by multiple goroutines; use one per
// scan.
type Checker struct {
	mu         sync.Mutex
	entries    map[[32]byte]*list.Element
	lru        *list.List // of *compiledSchema, most recent first
	bytes      int
	maxEntries int
	maxBytes   int
	// compiles counts compilations (cache misses), for tests.
	compiles int
}

// Cache bounds of [NewChecker].
const (
	checkerCacheEntries = 4096
	checkerCacheBytes   = 16 << 20
)

// NewChecker returns a Checker with an empty schema cache.
func NewChecker() *Checker {
	return newCheckerSize(checkerCacheEntries, checkerCacheBytes)
}

func newCheckerSize(maxEntries, maxBytes int) *Checker {
	return &Checker{
		entries:    map[[32]byte]*list.Element{},
		lru:        list.New(),
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
	}
}

// Check runs the conformance checks on res and on the raw pages the probe
// received (the handshake result and every list page): protocol messages
// against the MCP schema of the negotiated version
// (res.Liveness.ProtocolVersion), tool input and output schemas, tool
// names, descriptions and titles, annotations, prompt arguments, resource
// URIs and resource templates, and the poisoned-metadata checks on all
// server text (see check_poison.go). The findings are deduplicated and sorted by
// subject, code and pointer (then value and message), so equal inputs give
// equal output.
func (c *Checker) Check(res *Result, pages []Page) []Finding {
	if res == nil {
		return nil
	}
	version := checkVersion(res, pages)
	var out []Finding
	out = append(out, checkPages(version, pages)...)
	out = append(out, c.checkTools(version, res.Tools)...)
	out = append(out, checkPrompts(res.Prompts)...)
	out = append(out, checkResources(res.Resources)...)
	out = append(out, checkTemplates(res.ResourceTemplates)...)
	out = append(out, checkPoison(res, pages)...)
	return sortUniqueFindings(out)
}

// sortUniqueFindings sorts by subject, code, pointer, value and message and
// drops exact duplicates.
func sortUniqueFindings(fs []Finding) []Finding {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Code, b.Code), strings.Compare(a.Pointer, b.Pointer),
			strings.Compare(a.Value, b.Value), strings.Compare(a.Message, b.Message))
	})
	return slices.Compact(fs)
}

// compiledSchema is one cache entry: the outcome of compiling a schema.
type compiledSchema struct {
	key    [32]byte
	size   int
	schema *jsonschema.Schema
	// remote lists the references that were not fetched.
	remote []string
	err    error
}

// compiled returns the compilation outcome for the canonical schema bytes,
// compiling on a miss. Two goroutines missing on the same key at once both
// compile; the second result replaces nothing and is simply returned.
func (c *Checker) compiled(canonical []byte) *compiledSchema {
	key := sha256.Sum256(canonical)
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		cs := el.Value.(*compiledSchema)
		c.mu.Unlock()
		return cs
	}
	c.compiles++
	c.mu.Unlock()

	cs := compileSchema(canonical)
	cs.key = key

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		return el.Value.(*compiledSchema)
	}
	if cs.size > c.maxBytes {
		return cs
	}
	c.entries[key] = c.lru.PushFront(cs)
	c.bytes += cs.size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		last := c.lru.Back()
		old := last.Value.(*compiledSchema)
		c.lru.Remove(last)
		delete(c.entries, old.key)
		c.bytes -= old.size
	}
	return cs
}

// cacheStats reports the number of cached schemas, their bytes and the
// number of compilations so far.
func (c *Checker) cacheStats() (entries, bytes, compiles int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes, c.compiles
}
