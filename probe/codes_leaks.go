package probe

// Finding codes for what error text leaks. The grader (package scoring)
// detects them; they are registered here so the catalog stays in one place.
const (
	CodeLeaksSecret           = "errors/leaks_secret"
	CodeLeaksCredential       = "errors/leaks_credential"
	CodeLeaksConnectionString = "errors/leaks_connection_string"
	CodeLeaksInternalHost     = "errors/leaks_internal_host"
	CodeLeaksStackTrace       = "errors/leaks_stack_trace"
	CodeLeaksHostPath         = "errors/leaks_host_path"
)

func init() {
	register(
		CatalogEntry{CodeLeaksSecret, SeverityFatal,
			"an error response contains the value of a secret environment variable",
			"compose error text from a fixed template with bounded, interpolated values; never echo configuration or upstream request headers"},
		CatalogEntry{CodeLeaksCredential, SeverityError,
			"an error response contains a credential-shaped token (API key, bearer token, JWT, private key)",
			"redact tokens before building error text; do not proxy upstream error bodies verbatim"},
		CatalogEntry{CodeLeaksConnectionString, SeverityError,
			"an error response contains a connection string",
			"report the failure by category (database unavailable) and log the connection details server-side"},
		CatalogEntry{CodeLeaksInternalHost, SeverityWarn,
			"an error response names a private address or internal host",
			"name the dependency (the billing service), not its address"},
		CatalogEntry{CodeLeaksStackTrace, SeverityWarn,
			"an error response contains a stack trace",
			"catch exceptions at the tool boundary and return a stable code with a one-line message; log the trace"},
		CatalogEntry{CodeLeaksHostPath, SeverityWarn,
			"an error response contains an absolute host path the caller did not send",
			"echo paths as the caller sent them, relative to an allowed root"},
	)
}
