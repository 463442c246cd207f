package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// HTTP-level checks of a streamable-http target (2025-11-25, "Streamable
// HTTP"). They run beside the probe's own session with a bounded number of
// extra requests (at most [maxHTTPCheckRequests]), all to the target's
// endpoint and nowhere else: one initialize each with a foreign Origin, a
// foreign Host and the target's own Origin, and one extra session that is
// initialized, listed once alone and three times at once, sent a GET, a
// request without its session id, a request with an unsupported
// MCP-Protocol-Version, then deleted and asked once more. Sessions the
// checks open are deleted.
const (
	CodeHTTPForeignOrigin   = "http/foreign_origin_accepted"
	CodeHTTPForeignHost     = "http/foreign_host_accepted"
	CodeHTTPSessionCharset  = "http/session_id_charset"
	CodeHTTPDeletedSession  = "http/deleted_session_not_404"
	CodeHTTPMissingSession  = "http/missing_session_not_400"
	CodeHTTPProtocolVersion = "http/bad_protocol_version_accepted"
	CodeHTTPNotification    = "http/notification_not_202"
	CodeHTTPGet             = "http/get_not_sse_or_405"
	CodeHTTPConcurrent      = "http/concurrent_request_refused"
	CodeHTTPValidOrigin     = "http/valid_origin_refused"
	CodeHTTPMethodHeader    = "http/method_header_not_validated"
	CodeHTTPMetaMissing     = "http/request_meta_missing_accepted"
	CodeHTTPSSERepeated     = "http/sse_event_repeated"
	CodeHTTPSSELost         = "http/sse_event_lost"
)

// The specification lines the checks enforce, quoted in their findings.
const (
	specOrigin          = `"Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden." (2025-11-25, Transports, Security Warning)`
	specHost            = `Host validation is hardening the MCP SDKs adopted against DNS rebinding, not a line of the specification (2025-11-25, Transports, names only the Origin header): the advisories GHSA-w48q-cv73-mx4w (TypeScript SDK), GHSA-9h52-p55h-vw2f (Python SDK), GHSA-xw59-hvm2-8pj6 (Go SDK) and GHSA-8jxr-pr72-r468 (Java SDK) made the SDKs refuse a Host that is not the server's own for servers on localhost, since a rebinding page reaches them under the attacker's host name`
	specSessionCharset  = `"The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)." (2025-11-25, Transports, Session Management)`
	specDeletedSession  = `"The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found." (2025-11-25, Transports, Session Management)`
	specMissingSession  = `"Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request." (2025-11-25, Transports, Session Management)`
	specProtocolVersion = "\"If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.\" (2025-11-25, Transports, Protocol Version Header)"
	specNotification    = `"If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body." (2025-11-25, Transports, Sending Messages to the Server)`
	specConcurrent      = `"If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object." and "The client MAY remain connected to multiple SSE streams simultaneously." (2025-11-25, Transports, Sending Messages to the Server; Multiple Connections)`
	specValidOrigin     = `"If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden" (2025-11-25, Transports, Security Warning): only an invalid Origin may be refused; the server's own origin is valid, and browser-based clients always send it`
	specHeaderMismatch  = `"Returned when a server rejects a request because the values in the HTTP headers do not match the corresponding values in the request body, or because required headers are missing or malformed. For HTTP, the response status code MUST be 400 Bad Request." (2026-07-28, schema, HeaderMismatchError, code -32020; SEP-2243)`
	specRequestMeta     = `every request's params carry the required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities ("Capabilities are declared per-request rather than once at initialization", 2026-07-28, schema, RequestParams and RequestMetaObject); a request without them is invalid params (-32602)`
	specSSEResume       = `"If the client wishes to resume after a disconnection ... it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header ... The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point." (2025-11-25, Transports, Resumability and Redelivery); a priming event (an event ID with empty data) is sent so that the client can resume (SEP-1699)`
	specGet             = `"The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed" (2025-11-25, Transports, Listening for Messages from the Server)`
)

func init() {
	register(
		CatalogEntry{CodeHTTPForeignOrigin, SeverityError,
			"the server accepted a request with a foreign Origin header",
			"validate Origin on every request and answer a foreign one with 403 Forbidden (the MCP SDKs' DNS-rebinding protection does this)"},
		CatalogEntry{CodeHTTPForeignHost, SeverityInfo,
			"the server accepted a request with a foreign Host header (SDK hardening against DNS rebinding, not a rule of the specification)",
			"accept only the host names the server is meant to be reached under (for a local server: localhost and 127.0.0.1), as the MCP SDKs do by default since their DNS-rebinding advisories"},
		CatalogEntry{CodeHTTPSessionCharset, SeverityError,
			"the Mcp-Session-Id has characters outside visible ASCII",
			"issue session ids of visible ASCII (0x21 to 0x7E) only, such as a UUID"},
		CatalogEntry{CodeHTTPDeletedSession, SeverityError,
			"a request on a deleted session did not get 404 Not Found",
			"answer every request that carries a terminated session id with 404, so clients know to start a new session"},
		CatalogEntry{CodeHTTPMissingSession, SeverityWarn,
			"a request without the session id did not get 400 Bad Request",
			"answer a non-initialize request without Mcp-Session-Id with 400 Bad Request"},
		CatalogEntry{CodeHTTPProtocolVersion, SeverityError,
			"the server accepted an unsupported MCP-Protocol-Version header",
			"answer a request whose MCP-Protocol-Version header names a version the server does not support with 400 Bad Request"},
		CatalogEntry{CodeHTTPNotification, SeverityWarn,
			"an accepted notification was not answered with 202 Accepted",
			"answer a POSTed notification or response with 202 Accepted and no body"},
		CatalogEntry{CodeHTTPGet, SeverityWarn,
			"GET on the MCP endpoint gave neither an SSE stream nor 405",
			"answer GET on the MCP endpoint with Content-Type: text/event-stream, or with 405 Method Not Allowed when there is no server stream"},
		CatalogEntry{CodeHTTPConcurrent, SeverityError,
			"simultaneous requests on one session were refused (such as 409 Conflict) although the same request alone was answered",
			"answer every POSTed request of a session, however many are in flight at once, each with its own JSON answer or SSE stream"},
		CatalogEntry{CodeHTTPMethodHeader, SeverityError,
			"a 2026-07-28 server answered a request whose Mcp-Method header was missing or named another method",
			"compare the Mcp-Method header with the body's method and answer a missing or different one with 400 Bad Request and the JSON-RPC error -32020 (HeaderMismatch)"},
		CatalogEntry{CodeHTTPMetaMissing, SeverityWarn,
			"a 2026-07-28 server answered a request without the required params._meta (protocol version, client capabilities) as a success",
			"reject a request whose params lack _meta, or its protocolVersion or clientCapabilities, with -32602 (Invalid params) and HTTP 400"},
		CatalogEntry{CodeHTTPSSERepeated, SeverityError,
			"resuming an SSE stream with Last-Event-ID replayed the event the client already had",
			"replay only the events after the one Last-Event-ID names, on the stream it belongs to"},
		CatalogEntry{CodeHTTPSSELost, SeverityError,
			"an SSE stream the server primed for resumption was resumed with Last-Event-ID, and the event that followed was never replayed",
			"store the events of a primed stream and replay those after Last-Event-ID on resumption; do not prime streams you cannot resume"},
		CatalogEntry{CodeHTTPValidOrigin, SeverityWarn,
			"the server refused a request carrying its own Origin (over-blocking: every browser-based client is locked out)",
			"refuse only foreign origins: accept the origin the server is served under (for a local server http://localhost:PORT and http://127.0.0.1:PORT)"},
	)
	registerWhy(map[string]string{
		CodeHTTPForeignHost:  specHost + ".",
		CodeHTTPConcurrent:   specConcurrent + ". Clients send requests in parallel (a tool call while a listing is pending); the official conformance suite's server-sse-multiple-streams scenario sends three at once.",
		CodeHTTPValidOrigin:  specValidOrigin + ". The official conformance suite's dns-rebinding-protection scenario (localhost-host-valid-accepted) fails a server that refuses it.",
		CodeHTTPMethodHeader: specHeaderMismatch + ". Gateways route and authorize on the Mcp-Method header without reading the body; a server that does not check it lets a request be routed as one method and run as another. The official suite's http-header-validation scenario checks the same.",
		CodeHTTPSSERepeated:  specSSEResume + ". Replaying \"after the last event ID\" excludes that event: a repeated response would be delivered twice.",
		CodeHTTPSSELost:      specSSEResume + ". A primed stream promises resumption; the official suite's server-sse-polling scenario checks the same with its fixture tool.",
		CodeHTTPMetaMissing:  specRequestMeta + ". Graded warn: the suite's server-stateless scenario requires the rejection; the transport text mcpvet has (the schema) only makes _meta required.",
	})
}

// maxHTTPCheckRequests bounds the extra requests of one run of the checks.
const maxHTTPCheckRequests = 20

// httpCheckTimeout bounds each extra request.
const httpCheckTimeout = 3 * time.Second

// maxHTTPCheckBody bounds what is read of one response.
const maxHTTPCheckBody = 1 << 20

// httpChecks is one run of the HTTP-level checks.
type httpChecks struct {
	client  *http.Client
	url     string
	version string // negotiated by the probe's own session

	mu       sync.Mutex
	findings []Finding
	// baseTools are the tools listed by a session that declared no client
	// capabilities; nil when unknown.
	baseTools map[string]bool
	requests  int
	// initOK: a plain initialize (no Origin) was answered 200.
	initOK bool
	// ownOrigin is the status the initialize (or, after it, the
	// notifications/initialized) carrying the target's own Origin got
	// when that was not 2xx; 0 when accepted or not sent.
	ownOrigin     int
	ownOriginStep string
}

func (h *httpChecks) add(f Finding) {
	h.mu.Lock()
	h.findings = append(h.findings, f)
	h.mu.Unlock()
}

// runHTTPChecks runs the checks against url and returns their findings and
// the tools a capability-less session lists (nil when not listed).
func runHTTPChecks(ctx context.Context, client *http.Client, url, version string) ([]Finding, map[string]bool, int) {
	h := &httpChecks{client: client, url: url, version: version}
	if version == "" {
		return nil, nil, 0
	}
	if version >= vocab.Protocol20260728 {
		// The stateless revision has no sessions and no initialize.
		h.stateless(ctx)
		return h.findings, nil, h.requests
	}
	var wg sync.WaitGroup
	wg.Go(func() { h.foreign(ctx, "Origin") })
	wg.Go(func() { h.foreign(ctx, "Host") })
	wg.Go(func() { h.validOrigin(ctx) })
	wg.Go(func() { h.session(ctx) })
	wg.Wait()
	if h.initOK && h.ownOrigin != 0 {
		origin := originOf(h.url)
		h.add(NewFinding(CodeHTTPValidOrigin, "server", "http:POST "+h.ownOriginStep+" (Origin: "+origin+")", fmt.Sprint(h.ownOrigin),
			"%s with the server's own Origin: %s was answered %d, while the same request without Origin was answered 200; %s",
			h.ownOriginStep, origin, h.ownOrigin, specValidOrigin))
	}
	return h.findings, h.baseTools, h.requests
}

// originOf returns the origin (scheme://host[:port]) of the endpoint URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// validOrigin sends initialize, then notifications/initialized, with the
// target's own Origin, as a browser-based client would: a server that
// validates Origin must still accept its own (the conformance suite's
// localhost-host-valid-accepted).
func (h *httpChecks) validOrigin(ctx context.Context) {
	origin := originOf(h.url)
	if origin == "" {
		return
	}
	set := func(hd http.Header) { hd.Set("Origin", origin) }
	r, err := h.send(ctx, http.MethodPost, h.initBody(`"mcpvet-own-origin"`, "{}"), `"mcpvet-own-origin"`, set, "")
	if err != nil {
		return
	}
	if r.status < 200 || r.status >= 300 {
		h.mu.Lock()
		h.ownOrigin, h.ownOriginStep = r.status, "initialize"
		h.mu.Unlock()
		return
	}
	sid := r.header.Get("Mcp-Session-Id")
	if sid != "" && !visibleASCII(sid) {
		return
	}
	defer h.endSession(ctx, sid)
	n, err := h.send(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "", func(hd http.Header) {
		withSession(sid, h.version)(hd)
		hd.Set("Origin", origin)
	}, "")
	if err == nil && (n.status < 200 || n.status >= 300) {
		h.mu.Lock()
		h.ownOrigin, h.ownOriginStep = n.status, "notifications/initialized"
		h.mu.Unlock()
	}
}

// reply is one HTTP answer of the target.
type reply struct {
	status  int
	header  http.Header
	msg     json.RawMessage // the JSON-RPC response with the request's id, if any
	bodyLen int
}

// send makes one request to the endpoint. body is nil for GET and DELETE.
// For a POSTed request it reads the answer (JSON or SSE) up to the response
// carrying id.
func (h *httpChecks) send(ctx context.Context, method string, body []byte, id string, set func(http.Header), host string) (*reply, error) {
	ctx, cancel := context.WithTimeout(ctx, httpCheckTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if set != nil {
		set(req.Header)
	}
	if host != "" {
		req.Host = host
	}
	h.mu.Lock()
	h.requests++
	h.mu.Unlock()
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &reply{status: resp.StatusCode, header: resp.Header}
	if method == http.MethodGet || id == "" {
		// Never wait on a stream: the headers answer the question.
		b, _ := io.ReadAll(io.LimitReader(firstBytes(resp), 1))
		r.bodyLen = len(b)
		return r, nil
	}
	lim := io.LimitReader(resp.Body, maxHTTPCheckBody)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.msg = readSSEResponse(lim, id)
		return r, nil
	}
	b, _ := io.ReadAll(lim)
	r.bodyLen = len(b)
	if json.Valid(b) {
		r.msg = b
	}
	return r, nil
}

// firstBytes returns the body of a response that is not a stream; a
// stream's body is not read.
func firstBytes(resp *http.Response) io.Reader {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return strings.NewReader("")
	}
	return resp.Body
}

// readSSEResponse reads SSE events until one carries the JSON-RPC response
// with id.
func readSSEResponse(r io.Reader, id string) json.RawMessage {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxHTTPCheckBody)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data.WriteString(strings.TrimPrefix(d, " "))
			continue
		}
		if line != "" || data.Len() == 0 {
			continue
		}
		msg := json.RawMessage(data.String())
		data.Reset()
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(msg, &head) == nil && string(head.ID) == id {
			return msg
		}
	}
	return nil
}

func (h *httpChecks) initBody(id string, caps string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"mcpvet-http-check","version":"1"}}}`,
		id, h.version, caps)
}

// endSession deletes a session the checks opened.
func (h *httpChecks) endSession(ctx context.Context, sid string) {
	if sid == "" || !visibleASCII(sid) {
		return
	}
	_, _ = h.send(ctx, http.MethodDelete, nil, "", func(hd http.Header) { hd.Set("Mcp-Session-Id", sid) }, "")
}

// foreign sends initialize with a foreign Origin or Host header; the server
// must refuse it.
func (h *httpChecks) foreign(ctx context.Context, header string) {
	const origin = "https://mcpvet-rebinding-check.invalid"
	const host = "mcpvet-rebinding-check.invalid"
	var set func(http.Header)
	var hostHdr string
	if header == "Origin" {
		set = func(hd http.Header) { hd.Set("Origin", origin) }
	} else {
		hostHdr = host
	}
	r, err := h.send(ctx, http.MethodPost, h.initBody(`"mcpvet-foreign"`, "{}"), `"mcpvet-foreign"`, set, hostHdr)
	if err != nil || r.status < 200 || r.status >= 300 {
		return
	}
	h.endSession(ctx, r.header.Get("Mcp-Session-Id"))
	if header == "Origin" {
		h.add(NewFinding(CodeHTTPForeignOrigin, "server", "http:POST initialize (Origin: "+origin+")", fmt.Sprint(r.status),
			"initialize with the foreign header Origin: %s was answered %d; the spec says %s", origin, r.status, specOrigin))
		return
	}
	h.add(NewFinding(CodeHTTPForeignHost, "server", "http:POST initialize (Host: "+host+")", fmt.Sprint(r.status),
		"initialize with the foreign header Host: %s was answered %d; %s", host, r.status, specHost))
}

// session runs the session checks on a session of its own.
func (h *httpChecks) session(ctx context.Context) {
	r, err := h.send(ctx, http.MethodPost, h.initBody("1", "{}"), "1", nil, "")
	if err != nil || r.status != http.StatusOK || r.msg == nil {
		return
	}
	h.mu.Lock()
	h.initOK = true
	h.mu.Unlock()
	sid := r.header.Get("Mcp-Session-Id")
	if sid != "" && !visibleASCII(sid) {
		h.add(NewFinding(CodeHTTPSessionCharset, "server", "http:Mcp-Session-Id", sid,
			"the session id %q has characters outside 0x21-0x7E; the spec says %s", sid, specSessionCharset))
		// The id cannot be sent back in a header; nothing else to check.
		return
	}
	h.initialized(ctx, sid)
	if h.listBaseTools(ctx, sid) {
		h.concurrent(ctx, sid)
		if sid != "" {
			h.resume(ctx, sid)
		}
	}
	h.getStream(ctx, sid)
	if sid == "" {
		// A server without sessions: the session checks do not apply.
		return
	}
	h.sessionRules(ctx, sid)
}

// withSession sets the Mcp-Session-Id and Mcp-Protocol-Version headers
// of a request, each when not empty.
func withSession(id string, version string) func(http.Header) {
	return func(hd http.Header) {
		if id != "" {
			hd.Set("Mcp-Session-Id", id)
		}
		if version != "" {
			hd.Set("Mcp-Protocol-Version", version)
		}
	}
}

// initialized sends notifications/initialized, which is answered 202.
func (h *httpChecks) initialized(ctx context.Context, sid string) {
	r, err := h.send(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "", withSession(sid, h.version), "")
	if err == nil && r.status != http.StatusAccepted && r.status >= 200 && r.status < 300 {
		h.add(NewFinding(CodeHTTPNotification, "server", "http:POST notifications/initialized", fmt.Sprint(r.status),
			"notifications/initialized was accepted with %d instead of 202; the spec says %s", r.status, specNotification))
	}
}

// listBaseTools records the tools of a one-page tools/list on the
// session, the baseline later listings are compared with. It reports
// whether tools/list was answered 2xx with a JSON-RPC message.
func (h *httpChecks) listBaseTools(ctx context.Context, sid string) bool {
	r, err := h.send(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), "2", withSession(sid, h.version), "")
	if err != nil || r.msg == nil {
		return false
	}
	ok := r.status >= 200 && r.status < 300
	var tl struct {
		Result *struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	if json.Unmarshal(r.msg, &tl) != nil || tl.Result == nil || tl.Result.NextCursor != "" {
		return ok
	}
	base := map[string]bool{}
	for _, t := range tl.Result.Tools {
		base[t.Name] = true
	}
	h.mu.Lock()
	h.baseTools = base
	h.mu.Unlock()
	return ok
}

// concurrentRequests is how many requests [httpChecks.concurrent] sends
// at once, as the conformance suite's server-sse-multiple-streams does.
const concurrentRequests = 3

// concurrent sends the tools/list the session just answered three times
// at once: each must be answered like the one alone, not refused because
// another request of the session is in flight.
func (h *httpChecks) concurrent(ctx context.Context, sid string) {
	statuses := make([]int, concurrentRequests)
	var wg sync.WaitGroup
	for i := range concurrentRequests {
		wg.Go(func() {
			id := fmt.Sprintf(`"mcpvet-concurrent-%d"`, i)
			r, err := h.send(ctx, http.MethodPost, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/list"}`, id), id, withSession(sid, h.version), "")
			if err == nil {
				statuses[i] = r.status
			}
		})
	}
	wg.Wait()
	h.concurrentFinding(statuses)
}

// concurrentFinding reports simultaneous requests that were refused.
func (h *httpChecks) concurrentFinding(statuses []int) {
	refused := 0
	for _, st := range statuses {
		if st >= 400 {
			refused++
		}
	}
	if refused == 0 {
		return
	}
	h.add(NewFinding(CodeHTTPConcurrent, "server", "http:POST tools/list (3 at once)", fmt.Sprint(statuses),
		"%d of %d simultaneous tools/list requests were refused (statuses %v) although tools/list alone was answered; the spec says %s",
		refused, len(statuses), statuses, specConcurrent))
}

// getStream checks GET on the endpoint: an event stream, or 405.
func (h *httpChecks) getStream(ctx context.Context, sid string) {
	r, err := h.send(ctx, http.MethodGet, nil, "", withSession(sid, h.version), "")
	if err == nil && r.status != http.StatusMethodNotAllowed &&
		!(r.status == http.StatusOK && strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream")) {
		h.add(NewFinding(CodeHTTPGet, "server", "http:GET", fmt.Sprintf("%d %s", r.status, r.header.Get("Content-Type")),
			"GET on the endpoint was answered %d with Content-Type %q; the spec says %s", r.status, r.header.Get("Content-Type"), specGet))
	}
}

// sessionRules checks what the spec requires of a server that issued the
// session id sid: a request without it is refused with 400, a bad protocol
// version header with 400, and a deleted session answers 404.
func (h *httpChecks) sessionRules(ctx context.Context, sid string) {
	ping := func(id string) []byte { return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id) }
	// tools/list rather than ping: ping is allowed before initialization.
	r, err := h.send(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), "3", withSession("", h.version), "")
	if err == nil && r.status != http.StatusBadRequest {
		h.add(NewFinding(CodeHTTPMissingSession, "server", "http:POST tools/list (no Mcp-Session-Id)", fmt.Sprint(r.status),
			"tools/list without the Mcp-Session-Id the server issued was answered %d; the spec says %s", r.status, specMissingSession))
	}
	if h.version >= vocab.Protocol20250618 {
		const bad = "1999-01-01"
		r, err = h.send(ctx, http.MethodPost, ping("4"), "4", withSession(sid, bad), "")
		if err == nil && r.status >= 200 && r.status < 300 {
			h.add(NewFinding(CodeHTTPProtocolVersion, "server", "http:POST ping (MCP-Protocol-Version: "+bad+")", fmt.Sprint(r.status),
				"ping with the header MCP-Protocol-Version: %s was answered %d; the spec says %s", bad, r.status, specProtocolVersion))
		}
	}
	r, err = h.send(ctx, http.MethodDelete, nil, "", withSession(sid, h.version), "")
	if err != nil || r.status < 200 || r.status >= 300 {
		// 405: the server does not let clients end sessions.
		return
	}
	r, err = h.send(ctx, http.MethodPost, ping("5"), "5", withSession(sid, h.version), "")
	if err == nil && r.status != http.StatusNotFound {
		h.add(NewFinding(CodeHTTPDeletedSession, "server", "http:POST ping (deleted session)", fmt.Sprint(r.status),
			"ping on a session the server had just deleted (DELETE answered 2xx) was answered %d; the spec says %s", r.status, specDeletedSession))
	}
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// startHTTPChecks starts the HTTP-level checks of a streamable-http target
// beside the rest of the run and returns the function that waits for them
// and folds them into res.
func startHTTPChecks(ctx context.Context, res *Result, o Options) func() {
	stateless := res.Liveness.Handshake == "server/discover" && res.Liveness.ProtocolVersion >= vocab.Protocol20260728
	if o.HTTPClient == nil || res.Target.URL == "" || res.Target.Transport != "streamable-http" || (res.Liveness.Handshake != "initialize" && !stateless) {
		return func() {}
	}
	version := res.Liveness.ProtocolVersion
	var findings []Finding
	var base map[string]bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		findings, base, _ = runHTTPChecks(ctx, o.HTTPClient, res.Target.URL, version)
	}()
	return func() {
		<-done
		res.Findings = append(res.Findings, findings...)
		if base == nil {
			return
		}
		for i := range res.Tools {
			res.Tools[i].NeedsClientCapabilities = !base[res.Tools[i].Name]
		}
	}
}

// statelessMeta is the _meta of a 2026-07-28 request of the checks.
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcpvet-http-check","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// statelessBody is a 2026-07-28 request with the required _meta, or
// without params when meta is false.
func statelessBody(id, method string, meta bool) []byte {
	if !meta {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":{}}`, id, method)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s}}`, id, method, statelessMeta)
}

// statelessHeaders sets the headers of a 2026-07-28 request: the protocol
// version and Mcp-Method (SEP-2243), each when not empty, then more.
func statelessHeaders(version, method string, more func(http.Header)) func(http.Header) {
	return func(hd http.Header) {
		if version != "" {
			hd.Set("Mcp-Protocol-Version", version)
		}
		if method != "" {
			hd.Set("Mcp-Method", method)
		}
		if more != nil {
			more(hd)
		}
	}
}

// hasResult reports whether an answer carries a JSON-RPC result.
func hasResult(r *reply) bool {
	if r == nil || r.msg == nil {
		return false
	}
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal(r.msg, &m) == nil && len(m.Result) > 0 && string(m.Result) != "null"
}

// stateless runs the checks of a server that negotiated 2026-07-28, which
// has no sessions: foreign and own Origin and foreign Host on
// server/discover, three simultaneous tools/list, and the request
// validation of the revision (Mcp-Method missing or different,
// MCP-Protocol-Version different from the body's, no _meta). Each check
// of a refusal runs only when the same request done right was answered.
func (h *httpChecks) stateless(ctx context.Context) {
	const v = vocab.Protocol20260728
	origin := originOf(h.url)
	const foreignOrigin = "https://mcpvet-rebinding-check.invalid"
	const foreignHost = "mcpvet-rebinding-check.invalid"
	discover := func(set func(http.Header), host string) *reply {
		r, err := h.send(ctx, http.MethodPost, statelessBody(`"mcpvet-discover"`, "server/discover", true), `"mcpvet-discover"`, statelessHeaders(v, "server/discover", set), host)
		if err != nil {
			return nil
		}
		return r
	}
	list := func(id string, meta bool, version, method string) *reply {
		r, err := h.send(ctx, http.MethodPost, statelessBody(id, "tools/list", meta), id, statelessHeaders(version, method, nil), "")
		if err != nil {
			return nil
		}
		return r
	}
	ok := func(r *reply) bool { return r != nil && r.status >= 200 && r.status < 300 }
	var plain, foreignO, foreignH, own, base *reply
	var wg sync.WaitGroup
	wg.Go(func() { plain = discover(nil, "") })
	wg.Go(func() { foreignO = discover(func(hd http.Header) { hd.Set("Origin", foreignOrigin) }, "") })
	wg.Go(func() { foreignH = discover(nil, foreignHost) })
	wg.Go(func() { own = discover(func(hd http.Header) { hd.Set("Origin", origin) }, "") })
	wg.Go(func() { base = list(`"mcpvet-list"`, true, v, "tools/list") })
	wg.Wait()
	if ok(foreignO) {
		h.add(NewFinding(CodeHTTPForeignOrigin, "server", "http:POST server/discover (Origin: "+foreignOrigin+")", fmt.Sprint(foreignO.status),
			"server/discover with the foreign header Origin: %s was answered %d; the spec says %s", foreignOrigin, foreignO.status, specOrigin))
	}
	if ok(foreignH) {
		h.add(NewFinding(CodeHTTPForeignHost, "server", "http:POST server/discover (Host: "+foreignHost+")", fmt.Sprint(foreignH.status),
			"server/discover with the foreign header Host: %s was answered %d; %s", foreignHost, foreignH.status, specHost))
	}
	if ok(plain) && own != nil && !ok(own) && origin != "" {
		h.add(NewFinding(CodeHTTPValidOrigin, "server", "http:POST server/discover (Origin: "+origin+")", fmt.Sprint(own.status),
			"server/discover with the server's own Origin: %s was answered %d, while the same request without Origin was answered %d; %s",
			origin, own.status, plain.status, specValidOrigin))
	}
	if !ok(base) || !hasResult(base) {
		return
	}
	h.concurrentStateless(ctx)
	type variant struct {
		id, what, ptr string
		meta          bool
		version       string
		method        string
		code          string
		spec          string
	}
	variants := []variant{
		{`"mcpvet-method-other"`, "tools/list with the header Mcp-Method: prompts/list", "http:POST tools/list (Mcp-Method: prompts/list)", true, v, "prompts/list", CodeHTTPMethodHeader, specHeaderMismatch},
		{`"mcpvet-method-missing"`, "tools/list without the Mcp-Method header", "http:POST tools/list (no Mcp-Method)", true, v, "", CodeHTTPMethodHeader, specHeaderMismatch},
		{`"mcpvet-version-other"`, "tools/list with the header MCP-Protocol-Version: 1999-01-01 and 2026-07-28 in _meta", "http:POST tools/list (MCP-Protocol-Version: 1999-01-01)", true, "1999-01-01", "tools/list", CodeHTTPProtocolVersion, specHeaderMismatch},
		{`"mcpvet-no-meta"`, "tools/list without params._meta", "http:POST tools/list (no _meta)", false, v, "tools/list", CodeHTTPMetaMissing, specRequestMeta},
	}
	got := make([]*reply, len(variants))
	for i, vr := range variants {
		wg.Go(func() { got[i] = list(vr.id, vr.meta, vr.version, vr.method) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, vr := range variants {
		r := got[i]
		if !ok(r) || !hasResult(r) || seen[vr.code] {
			continue
		}
		seen[vr.code] = true
		h.add(NewFinding(vr.code, "server", vr.ptr, fmt.Sprint(r.status),
			"%s was answered %d with a result; %s", vr.what, r.status, vr.spec))
	}
}

// concurrentStateless sends three well-formed tools/list at once to a
// 2026-07-28 server; each must be answered like one alone.
func (h *httpChecks) concurrentStateless(ctx context.Context) {
	statuses := make([]int, concurrentRequests)
	var wg sync.WaitGroup
	for i := range concurrentRequests {
		wg.Go(func() {
			id := fmt.Sprintf(`"mcpvet-concurrent-%d"`, i)
			r, err := h.send(ctx, http.MethodPost, statelessBody(id, "tools/list", true), id, statelessHeaders(vocab.Protocol20260728, "tools/list", nil), "")
			if err == nil {
				statuses[i] = r.status
			}
		})
	}
	wg.Wait()
	h.concurrentFinding(statuses)
}

// sseEvent is one event of an SSE stream.
type sseEvent struct {
	id   string
	data string
}

// readSSEEvents reads events from r until stop returns true for the
// events read so far, the reader ends, or max events were read.
func readSSEEvents(r io.Reader, max int, stop func([]sseEvent) bool) []sseEvent {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxHTTPCheckBody)
	var evs []sseEvent
	var cur sseEvent
	var data strings.Builder
	seen := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if !seen {
				continue
			}
			cur.data = data.String()
			evs = append(evs, cur)
			cur, seen = sseEvent{}, false
			data.Reset()
			if len(evs) >= max || stop(evs) {
				return evs
			}
		case strings.HasPrefix(line, "id:"):
			cur.id, seen = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " "), true
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			seen = true
		case strings.HasPrefix(line, ":"):
		default:
			seen = true
		}
	}
	return evs
}

// carries reports whether an event's data is the JSON-RPC response with id.
func (e sseEvent) carries(id string) bool {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal([]byte(e.data), &head) == nil && string(head.ID) == id
}

// sseResumeWait bounds how long a resumed stream is read.
const sseResumeWait = time.Second

// resume checks SSE resumption where the server offers it (2025-11-25,
// Resumability and Redelivery): a tools/list answered as an event stream
// whose events carry ids is resumed with GET and Last-Event-ID set to the
// first event's id; the server must not send that event or an earlier one
// again, and a server that primed the stream (a first event with an id and
// no data, which exists to make resumption possible) must replay the
// response that followed.
func (h *httpChecks) resume(ctx context.Context, sid string) {
	const id = `"mcpvet-resume"`
	var evs []sseEvent
	h.stream(ctx, http.MethodPost, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/list"}`, id), withSession(sid, h.version), func(r io.Reader) {
		evs = readSSEEvents(r, 16, func(es []sseEvent) bool { return es[len(es)-1].carries(id) })
	})
	if len(evs) < 2 || evs[0].id == "" || !evs[len(evs)-1].carries(id) {
		// One event, or no ids: nothing to resume from.
		return
	}
	last := evs[0].id
	primed := strings.TrimSpace(evs[0].data) == ""
	var got []sseEvent
	status := h.stream(ctx, http.MethodGet, nil, func(hd http.Header) {
		withSession(sid, h.version)(hd)
		hd.Set("Last-Event-ID", last)
	}, func(r io.Reader) {
		rctx, cancel := context.WithTimeout(ctx, sseResumeWait)
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			got = readSSEEvents(r, 16, func(es []sseEvent) bool { return es[len(es)-1].carries(id) })
		}()
		select {
		case <-done:
		case <-rctx.Done():
			if c, ok := r.(io.Closer); ok {
				_ = c.Close()
			}
			<-done
		}
	})
	if status != http.StatusOK {
		// The server does not resume this stream; allowed.
		return
	}
	for _, e := range got {
		if e.id == last {
			h.add(NewFinding(CodeHTTPSSERepeated, "server", "http:GET (Last-Event-ID: "+last+")", e.id,
				"resuming the stream of tools/list with Last-Event-ID: %s replayed the event %s itself; the spec says %s", last, e.id, specSSEResume))
			return
		}
	}
	if !primed {
		return
	}
	for _, e := range got {
		if e.carries(id) {
			return
		}
	}
	h.add(NewFinding(CodeHTTPSSELost, "server", "http:GET (Last-Event-ID: "+last+")", fmt.Sprintf("%d events replayed", len(got)),
		"the server primed the stream of tools/list with the event %s, but resuming after it within %s did not replay the response that followed (%d events replayed); the spec says %s",
		last, sseResumeWait, len(got), specSSEResume))
}

// stream sends one request and, when the answer is a 200 event stream,
// hands its body to read. It returns the status (0 on a transport error).
func (h *httpChecks) stream(ctx context.Context, method string, body []byte, set func(http.Header), read func(io.Reader)) int {
	ctx, cancel := context.WithTimeout(ctx, httpCheckTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url, rd)
	if err != nil {
		return 0
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	set(req.Header)
	h.mu.Lock()
	h.requests++
	h.mu.Unlock()
	resp, err := h.client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		read(struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxHTTPCheckBody), resp.Body})
	}
	return resp.StatusCode
}
