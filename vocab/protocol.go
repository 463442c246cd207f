package vocab

import "slices"

// The MCP specification revisions mcpvet knows. Revisions are dates, so
// they compare as strings: v >= Protocol20250618 means "2025-06-18 or
// newer".
const (
	Protocol20241105 = "2024-11-05"
	Protocol20250326 = "2025-03-26"
	Protocol20250618 = "2025-06-18"
	Protocol20251125 = "2025-11-25"
	// Protocol20260728 is the first revision that carries the protocol
	// version, client info and client capabilities in each request's
	// _meta (SEP-2575) instead of a session handshake.
	Protocol20260728 = "2026-07-28"
)

// ProtocolVersions are the MCP revisions mcpvet knows, newest first.
var ProtocolVersions = []string{Protocol20260728, Protocol20251125, Protocol20250618, Protocol20250326, Protocol20241105}

// KnownProtocol reports whether v is a revision of [ProtocolVersions].
func KnownProtocol(v string) bool { return slices.Contains(ProtocolVersions, v) }
