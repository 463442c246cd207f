package sandbox

import "net/http"

// HTTPClient returns the client a remote server is reached with (the
// plan's headers, bounded bodies), for HTTP-level checks of the server's
// own endpoint. It follows no redirects. It is nil for servers that are
// not remote.
func (s *Server) HTTPClient() *http.Client {
	if s.remote == nil {
		return nil
	}
	c := *s.remote.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}
