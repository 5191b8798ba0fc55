package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// params is --param: the script's parameters, NAME=VALUE, repeatable.
type params struct {
	m map[string]string
}

// paramName is what a parameter may be called: a Starlark identifier.
var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p *params) String() string {
	var parts []string
	for _, kv := range p.sorted() {
		parts = append(parts, kv[0]+"="+kv[1])
	}
	return strings.Join(parts, ",")
}

// Set adds one NAME=VALUE.
func (p *params) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("%q: want NAME=VALUE, such as rate=800", s)
	}
	if !paramName.MatchString(name) {
		return fmt.Errorf("%q: a parameter's name is a Starlark identifier (letters, digits, _)", name)
	}
	if p.m == nil {
		p.m = map[string]string{}
	}
	if old, dup := p.m[name]; dup && old != value {
		return fmt.Errorf("%s is set twice (%s and %s)", name, old, value)
	}
	p.m[name] = value
	return nil
}

// sorted returns the parameters as name, value pairs, by name.
func (p *params) sorted() [][2]string {
	names := make([]string, 0, len(p.m))
	for n := range p.m {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([][2]string, len(names))
	for i, n := range names {
		out[i] = [2]string{n, p.m[n]}
	}
	return out
}
