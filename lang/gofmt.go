// Printing the Go way: printf, sprintf and println.
//
// Each turns its Starlark arguments into the Go values a Go program would
// print (None is nil, an int is int, a float is float64, a list or tuple is
// []any, a dict is a map, whose keys fmt sorts) and hands them to package
// fmt, so the verbs, flags, widths and precisions, %% and the %!d(string=x)
// complaints are fmt's own. A value with no Go counterpart (a channel, a
// task, a function) prints as str() shows it, for every verb; its %T is its
// Starlark type. print stays Starlark's own.

package lang

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"go.starlark.net/starlark"
)

// printf(format, *args): fmt.Printf; no newline is added.
func printf(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	s, err := sprintfArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	gr.run.write(gr, s)
	return starlark.None, nil
}

// sprintf(format, *args) → string: fmt.Sprintf.
func sprintf(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	s, err := sprintfArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.String(s), nil
}

// println(*args): fmt.Println: the operands as %v, always separated by a
// space, and a newline.
func println_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unexpected keyword argument %s", b.Name(), kwargs[0][0])
	}
	vs := make([]any, len(args))
	for i, v := range args {
		vs[i] = toGo(v)
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	gr.run.write(gr, fmt.Sprintln(vs...))
	return starlark.None, nil
}

// sprintfArgs formats printf's and sprintf's arguments.
func sprintfArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	if len(kwargs) > 0 {
		return "", fmt.Errorf("%s: unexpected keyword argument %s", b.Name(), kwargs[0][0])
	}
	if len(args) == 0 {
		return "", fmt.Errorf("%s: missing argument for format", b.Name())
	}
	format, ok := starlark.AsString(args[0])
	if !ok {
		return "", fmt.Errorf("%s: for parameter format: got %s, want string", b.Name(), args[0].Type())
	}
	vs := make([]any, len(args)-1)
	for i, v := range args[1:] {
		vs[i] = toGo(v)
	}
	format, vs = typeNames(format, vs)
	return fmt.Sprintf(format, vs...), nil
}

// starValue is a Starlark value with no Go counterpart: it prints as str()
// shows it, whatever the verb.
type starValue struct{ v starlark.Value }

func (s starValue) Format(f fmt.State, verb rune) {
	str := s.v.String()
	if p, ok := f.Precision(); ok && p < len(str) {
		str = str[:p]
	}
	if w, ok := f.Width(); ok && w > len(str) {
		pad := strings.Repeat(" ", w-len(str))
		if f.Flag('-') {
			str += pad
		} else {
			str = pad + str
		}
	}
	fmt.Fprint(f, str)
}

// toGo returns the Go value that prints as v would in a Go program.
func toGo(v starlark.Value) any {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(v)
	case starlark.Int:
		if n, ok := v.Int64(); ok {
			return int(n)
		}
		return new(big.Int).Set(v.BigInt())
	case starlark.Float:
		return float64(v)
	case starlark.String:
		return string(v)
	case starlark.Bytes:
		return []byte(v)
	case *starlark.List:
		s := make([]any, v.Len())
		for i := range s {
			s[i] = toGo(v.Index(i))
		}
		return s
	case starlark.Tuple:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = toGo(x)
		}
		return s
	case *starlark.Set:
		s := make([]any, 0, v.Len())
		for x := range v.Elements() {
			s = append(s, toGo(x))
		}
		return s
	case *starlark.Dict:
		return toGoMap(v)
	}
	return starValue{v}
}

// toGoMap returns d as a Go map, whose keys fmt prints sorted: a map with
// string (int, float64, bool) keys when all keys are of that type, else
// map[any]any, with keys that Go could not hash shown as str() does.
func toGoMap(d *starlark.Dict) any {
	keys := d.Keys()
	var kt reflect.Type
	for i, k := range keys {
		t := reflect.TypeOf(toGo(k))
		switch {
		case t == nil || t.Kind() == reflect.Slice || t.Kind() == reflect.Ptr || t == reflect.TypeFor[starValue]():
			kt = reflect.TypeFor[any]()
		case i == 0:
			kt = t
		case t != kt:
			kt = reflect.TypeFor[any]()
		}
	}
	if kt == nil {
		kt = reflect.TypeFor[any]()
	}
	m := reflect.MakeMapWithSize(reflect.MapOf(kt, reflect.TypeFor[any]()), len(keys))
	for _, k := range keys {
		gk := reflect.Zero(kt) // None: a nil key
		if x := toGo(k); x != nil {
			switch reflect.TypeOf(x).Kind() {
			case reflect.Slice, reflect.Ptr:
				x = k.String() // not comparable in Go
			}
			gk = reflect.ValueOf(x).Convert(kt)
		}
		v, _, _ := d.Get(k)
		gv := reflect.ValueOf(toGo(v))
		if !gv.IsValid() {
			gv = reflect.Zero(reflect.TypeFor[any]())
		}
		m.SetMapIndex(gk, gv)
	}
	return m.Interface()
}

// typeNames rewrites every %T in format whose operand is a starValue as
// %s of its Starlark type's name, for fmt would print the Go type of the
// wrapper. Formats with explicit argument indexes are left alone.
func typeNames(format string, vs []any) (string, []any) {
	if !strings.Contains(format, "T") || strings.Contains(format, "[") {
		return format, vs
	}
	f := []byte(format)
	argi := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("+-# 0", f[i]) >= 0 {
			i++
		}
		for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '*' || f[i] == '.') {
			if f[i] == '*' {
				argi++
			}
			i++
		}
		if i >= len(f) || f[i] == '%' {
			continue
		}
		if f[i] == 'T' && argi < len(vs) {
			if sv, ok := vs[argi].(starValue); ok {
				f[i] = 's'
				vs[argi] = sv.v.Type()
			}
		}
		argi++
	}
	return string(f), vs
}
