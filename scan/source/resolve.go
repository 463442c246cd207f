package source

import (
	"strings"
)

// inputState is what resolving an input gives.
type inputState int

const (
	// stateValue: the input has a value.
	stateValue inputState = iota
	// stateAbsent: an optional input without a value; it is left out.
	stateAbsent
	// stateSecret: a secret without a value; the sandbox's canary stands in.
	stateSecret
	// stateMissing: a required input without a value.
	stateMissing
)

// resolver resolves the inputs of one plan and collects what is missing.
type resolver struct {
	// values are the user's values, by input name.
	values map[string]string
	// missing lists required inputs without a value, for StatusDetail.
	missing []string
	// invalid lists structural problems, for StatusDetail.
	invalid []string
}

func (r *resolver) lookup(names ...string) (string, bool) {
	for _, n := range names {
		if n == "" {
			continue
		}
		if v, ok := r.values[n]; ok {
			return v, true
		}
	}
	return "", false
}

// resolve gives the value of in, whose {name} references read vars. label
// names the input in messages ("env FOO"); names are the keys under which
// the user may have supplied a value.
//
// The order follows the schema: a publisher's "value" is fixed (its
// variables may come from the user or their defaults); otherwise a user
// value, then "default". A secret without a fixed value is left to the
// sandbox's canary even if it has a default, because secret defaults are
// placeholders such as "your-api-key". A required input with choices but no
// default takes the first choice.
func (r *resolver) resolve(in Input, vars map[string]Input, label string, names ...string) (string, inputState) {
	if in.Value != "" {
		return r.substitute(in, vars, label)
	}
	if v, ok := r.lookup(names...); ok {
		return v, stateValue
	}
	switch {
	case in.IsSecret:
		return "", stateSecret
	case in.Default != "":
		return in.Default, stateValue
	case in.IsRequired && len(in.Choices) > 0:
		return in.Choices[0], stateValue
	case in.IsRequired:
		r.missing = append(r.missing, label)
		return "", stateMissing
	}
	return "", stateAbsent
}

// substitute replaces {name} in in.Value by the variables' values. A name
// that is not a variable stays as it is, as the schema says.
func (r *resolver) substitute(in Input, vars map[string]Input, label string) (string, inputState) {
	state := stateValue
	out := replaceBraces(in.Value, func(name string) (string, bool) {
		v, ok := vars[name]
		if !ok {
			return "", false
		}
		val, st := r.resolveVariable(v, name, label)
		switch {
		case st == stateMissing:
			state = stateMissing
		case st == stateSecret && state != stateMissing:
			state = stateSecret
		case st == stateAbsent && state == stateValue:
			state = stateAbsent
		}
		return val, true
	})
	if state == stateAbsent && in.IsRequired {
		r.missing = append(r.missing, label)
		state = stateMissing
	}
	if state != stateValue {
		return "", state
	}
	return out, stateValue
}

// resolveVariable resolves a template variable, which is a plain input.
func (r *resolver) resolveVariable(v Input, name, label string) (string, inputState) {
	vlabel := "variable {" + name + "} of " + label
	if v.Value != "" {
		return v.Value, stateValue
	}
	return r.resolve(v, nil, vlabel, name)
}

// replaceBraces calls fn for each {name} in s and replaces it with the
// result when fn reports true. Names hold no braces or whitespace.
func replaceBraces(s string, fn func(name string) (string, bool)) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexAny(s[i+1:], "{} \t\r\n")
		if j < 0 || s[i+1+j] != '}' {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		name := s[i+1 : i+1+j]
		b.WriteString(s[:i])
		if v, ok := fnIfNamed(fn, name); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+j+2])
		}
		s = s[i+j+2:]
	}
}

func fnIfNamed(fn func(string) (string, bool), name string) (string, bool) {
	if name == "" {
		return "", false
	}
	return fn(name)
}

// braceNames lists the {name} references left in s.
func braceNames(s string) []string {
	var names []string
	replaceBraces(s, func(name string) (string, bool) {
		names = append(names, name)
		return "", false
	})
	return names
}
