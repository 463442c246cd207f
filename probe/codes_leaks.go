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
	// CodeLeaksSecretStderr: a canary on stderr, which reaches logs, not
	// the model; reported apart from the model-visible channels.
	CodeLeaksSecretStderr = "stderr/leaks_secret"
	// CodeCrossOriginRedirect: a remote redirected a request that carried
	// the plan's headers to another origin.
	CodeCrossOriginRedirect = "transport/cross_origin_redirect"
)

func init() {
	register(
		CatalogEntry{CodeLeaksSecret, SeverityFatal,
			"a message of the server (server info, instructions, a listing, a notification, a result or an error) contains the value of a secret it was given, verbatim or encoded",
			"never put configuration values in what the server sends: compose text from fixed templates with bounded, interpolated values; never echo configuration or upstream request headers"},
		CatalogEntry{CodeLeaksSecretStderr, SeverityError,
			"the server's stderr contains the value of a secret it was given, verbatim or encoded",
			"do not log configuration values; stderr ends up in the logs of every MCP client"},
		CatalogEntry{CodeCrossOriginRedirect, SeverityError,
			"a remote server redirected a request carrying credentials to another origin",
			"serve MCP at the URL you publish, or redirect within the same origin; clients must not send credentials to another origin"},
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
