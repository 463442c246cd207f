package probe

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// Finding codes of the prompt, resource and resource template checks.
const (
	CodePromptNameMissing         = "prompt/name_missing"
	CodePromptNameDuplicate       = "prompt/name_duplicate"
	CodePromptArgumentsNotArray   = "prompt/arguments_not_array"
	CodePromptArgNameMissing      = "prompt/argument_name_missing"
	CodePromptArgNameDuplicate    = "prompt/argument_name_duplicate"
	CodeResourceURIInvalid        = "resource/uri_invalid"
	CodeResourceURIDuplicate      = "resource/uri_duplicate"
	CodeTemplateInvalid           = "template/invalid"
	CodeTemplateNotAbsolute       = "template/not_absolute"
	CodeTemplateURITemplateAbsent = "template/uri_template_missing"
)

func init() {
	register(
		CatalogEntry{CodePromptNameMissing, SeverityFatal,
			"a prompt has no name, so it cannot be requested",
			"give every prompt a non-empty name; prompts/get addresses prompts by name"},
		CatalogEntry{CodePromptNameDuplicate, SeverityError,
			"two prompts share a name, so only one of them can be requested",
			"give every prompt of the server a unique name"},
		CatalogEntry{CodePromptArgumentsNotArray, SeverityError,
			"a prompt's arguments field is not an array",
			`send arguments as an array of {"name", "description", "required"} objects, or leave it out`},
		CatalogEntry{CodePromptArgNameMissing, SeverityError,
			"a prompt argument has no name",
			"give every prompt argument a non-empty name; clients pass arguments by name"},
		CatalogEntry{CodePromptArgNameDuplicate, SeverityError,
			"two arguments of a prompt share a name",
			"give every argument of a prompt a unique name"},
		CatalogEntry{CodeResourceURIInvalid, SeverityError,
			"a resource URI does not parse as an absolute URI",
			"use an absolute URI with a scheme (file:///path, https://host/path, myscheme://id), percent-encoding spaces and reserved characters"},
		CatalogEntry{CodeResourceURIDuplicate, SeverityWarn,
			"two resources share a URI",
			"list each resource once; resources/read addresses resources by URI"},
		CatalogEntry{CodeTemplateInvalid, SeverityError,
			"a resource template is not a valid RFC 6570 URI template",
			"write uriTemplate in RFC 6570 syntax: literal URI text and {var}, {+var}, {/var*}, {?a,b} expressions with names of letters, digits and _"},
		CatalogEntry{CodeTemplateNotAbsolute, SeverityError,
			"a resource template does not expand to an absolute URI",
			"start uriTemplate with a scheme (for example file:///{path} or notes://{id})"},
		CatalogEntry{CodeTemplateURITemplateAbsent, SeverityError,
			"a resource template has no uriTemplate",
			"give every resource template a uriTemplate"},
	)
}

// itemFields decodes an item's raw JSON object; nil when it is not one.
func itemFields(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func itemString(m map[string]json.RawMessage, key string) (string, bool) {
	r, ok := m[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(r, &s) != nil {
		return "", false
	}
	return s, true
}

// checkPrompts checks prompt names and argument definitions.
func checkPrompts(prompts []Prompt) []Finding {
	var out []Finding
	first := map[string]int{}
	for i, p := range prompts {
		name, args := p.Name, p.Arguments
		if m := itemFields(p.Raw); m != nil {
			name, _ = itemString(m, "name")
			args = m["arguments"]
		}
		subj := subjectOf("prompt", name, i)
		if name == "" {
			out = append(out, NewFinding(CodePromptNameMissing, subj, "/name", "",
				"prompt #%d has no name (or a name that is not a string); it cannot be requested with prompts/get", i))
		} else if j, dup := first[name]; dup {
			out = append(out, NewFinding(CodePromptNameDuplicate, subj, "/name", name,
				"prompts #%d and #%d are both named %q; prompts/get can reach only one of them", j, i, name))
		} else {
			first[name] = i
		}
		if len(args) == 0 || isJSONNull(args) {
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(args, &list) != nil {
			out = append(out, NewFinding(CodePromptArgumentsNotArray, subj, "/arguments", safe.Truncate(string(args), MaxEvidence, safe.Ellipsis),
				"arguments is %s; it must be an array of argument definitions", jsonKindOf(args)))
			continue
		}
		seen := map[string]int{}
		for k, a := range list {
			ptr := "/arguments/" + strconv.Itoa(k) + "/name"
			an, _ := itemString(itemFields(a), "name")
			if strings.TrimSpace(an) == "" {
				out = append(out, NewFinding(CodePromptArgNameMissing, subj, ptr, safe.Truncate(string(a), MaxEvidence, safe.Ellipsis),
					"argument #%d has no name; clients pass prompt arguments by name", k))
				continue
			}
			if j, dup := seen[an]; dup {
				out = append(out, NewFinding(CodePromptArgNameDuplicate, subj, ptr, an,
					"arguments #%d and #%d are both named %q; rename one", j, k, an))
				continue
			}
			seen[an] = k
		}
	}
	return out
}

// checkResources checks that resource URIs are absolute and unique.
func checkResources(resources []Resource) []Finding {
	var out []Finding
	first := map[string]int{}
	for i, r := range resources {
		uri := r.URI
		if m := itemFields(r.Raw); m != nil {
			uri, _ = itemString(m, "uri")
		}
		subj := subjectOf("resource", uri, i)
		if why := uriProblem(uri); why != "" {
			out = append(out, NewFinding(CodeResourceURIInvalid, subj, "/uri", uri,
				"resource URI %q %s; use an absolute URI such as file:///path or myscheme://id", uri, why))
			continue
		}
		if j, dup := first[uri]; dup {
			out = append(out, NewFinding(CodeResourceURIDuplicate, subj, "/uri", uri,
				"resources #%d and #%d share the URI %q; list each resource once", j, i, uri))
			continue
		}
		first[uri] = i
	}
	return out
}

// uriProblem says why s is not an absolute URI, or "".
func uriProblem(s string) string {
	if s == "" {
		return "is empty"
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "contains whitespace (percent-encode it)"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "does not parse (" + strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(s)+": ") + ")"
	}
	if !u.IsAbs() {
		return "is relative (it has no scheme)"
	}
	return ""
}

// uriSchemeRE matches the scheme of an absolute URI at the start of a string.
var uriSchemeRE = lazyre.New(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// checkTemplates checks resource templates against RFC 6570 and that they
// expand to absolute URIs.
func checkTemplates(templates []ResourceTemplate) []Finding {
	var out []Finding
	for i, t := range templates {
		tmpl, has := t.URITemplate, t.URITemplate != ""
		if m := itemFields(t.Raw); m != nil {
			tmpl, has = itemString(m, "uriTemplate")
		}
		subj := subjectOf("template", tmpl, i)
		if !has || tmpl == "" {
			out = append(out, NewFinding(CodeTemplateURITemplateAbsent, subj, "/uriTemplate", "",
				"resource template #%d has no uriTemplate (or one that is not a string)", i))
			continue
		}
		if err := validateURITemplate(tmpl); err != nil {
			out = append(out, NewFinding(CodeTemplateInvalid, subj, "/uriTemplate", tmpl,
				"%q is not a valid RFC 6570 URI template: %v", tmpl, err))
			continue
		}
		// A template that starts with literal text must start with a
		// scheme; one that starts with an expression may expand to one.
		if !strings.HasPrefix(tmpl, "{") && !uriSchemeRE.MatchString(tmpl) {
			out = append(out, NewFinding(CodeTemplateNotAbsolute, subj, "/uriTemplate", tmpl,
				"%q has no scheme, so it expands to a relative reference; start it with a scheme such as file:/// or myscheme://", tmpl))
		}
	}
	return out
}
