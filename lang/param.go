// param(name, default): a value the command line sets.
//
// An experiment is a script run over a grid of values: GOMAXPROCS, the
// load, a service time. The script names each such value once with
// param(name, default), and `schedlab run --param name=value` (or the
// latency lab's --sweep) sets it; unset, it is the default. The text
// of the command line is converted to the default's type, so that
// traffic(rate=param("rate", 800)) gets a number either way.

package lang

import (
	"fmt"
	"slices"
	"strconv"

	"go.starlark.net/starlark"
)

// param(name, default) → the parameter's value, or default.
func param(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var def starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default", &def); err != nil {
		return nil, err
	}
	if r.paramsRead == nil {
		r.paramsRead = map[string]bool{}
	}
	r.paramsRead[name] = true
	text, ok := r.opts.Params[name]
	if !ok {
		return def, nil
	}
	v, err := convertParam(text, def)
	if err != nil {
		return nil, fmt.Errorf("%s: --param %s=%s: %v", b.Name(), name, text, err)
	}
	return v, nil
}

// convertParam reads text as a value of def's type.
func convertParam(text string, def starlark.Value) (starlark.Value, error) {
	switch def.(type) {
	case starlark.Int:
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an int, as the default is")
		}
		return starlark.MakeInt64(i), nil
	case starlark.Float:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, as the default is a float")
		}
		return starlark.Float(f), nil
	case starlark.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("want true or false, as the default is a bool")
		}
		return starlark.Bool(b), nil
	}
	return starlark.String(text), nil
}

// UnreadParams returns the names of the parameters the options set that
// the run never read with param(), sorted: a sweep over one of them
// changes nothing.
func (r *run) unreadParams() []string {
	var names []string
	for name := range r.opts.Params {
		if !r.paramsRead[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
