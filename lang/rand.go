// rand: seeded randomness for scripts.
//
// A service time drawn from a distribution, a random choice of backend:
// a script's randomness must replay with the seed like everything else, so
// the module draws from the run's one PRNG (runtime.Machine's), the one
// that also picks steal victims and select cases. A draw is therefore part
// of the schedule: adding one changes what the scheduler draws after it,
// exactly as the seed says.
//
// Durations where durations make sense: rand.expo("1ms") is an int of ns,
// ready for work() or sleep(); rand.expo(2.5) is a float.

package lang

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// randModule returns the rand module of run r.
func (r *run) randModule() *starlarkstruct.Module {
	fns := map[string]func(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error){
		"choice":  randChoice,
		"expo":    randExpo,
		"intn":    randIntn,
		"normal":  randNormal,
		"uniform": randUniform,
	}
	members := make(starlark.StringDict, len(fns))
	for name, f := range fns {
		members[name] = starlark.NewBuiltin("rand."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if r.m == nil {
				return nil, fmt.Errorf("%s: called outside a run", b.Name())
			}
			return f(r, b, args, kwargs)
		})
	}
	return &starlarkstruct.Module{Name: "rand", Members: members}
}

// A number is a rand argument: a duration (an int of ns or a string such
// as "1ms"), which makes the result a duration, or a float.
type number struct {
	v   float64
	dur bool // an int or a duration string: the result is an int (ns)
}

func (n *number) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.Float:
		n.v = float64(v)
		return nil
	case starlark.Int, starlark.String:
		var d duration
		if err := d.Unpack(v); err != nil {
			return err
		}
		n.v, n.dur = float64(d), true
		return nil
	}
	return fmt.Errorf("got %s, want a duration (int ns or \"1ms\") or a float", v.Type())
}

// result is x as the arguments' kind: an int of ns (rounded) if they were
// durations, else a float.
func result(x float64, dur bool) (starlark.Value, error) {
	if !dur {
		return starlark.Float(x), nil
	}
	if math.IsNaN(x) || x >= math.MaxInt64 || x <= math.MinInt64 {
		return nil, fmt.Errorf("draw %v out of range", x)
	}
	return starlark.MakeInt64(int64(math.Round(x))), nil
}

// rand.expo(mean): an exponentially distributed value of the given mean
// (rand.ExpFloat64() * mean): a Poisson process's gaps, a service time.
func randExpo(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var mean number
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "mean", &mean); err != nil {
		return nil, err
	}
	if mean.v < 0 {
		return nil, fmt.Errorf("%s: negative mean %v", b.Name(), mean.v)
	}
	return result(r.m.RandExp()*mean.v, mean.dur)
}

// rand.uniform(a, b): a value uniform on [a, b).
func randUniform(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi number
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "a", &lo, "b", &hi); err != nil {
		return nil, err
	}
	if hi.v < lo.v {
		return nil, fmt.Errorf("%s: b < a", b.Name())
	}
	return result(lo.v+r.m.RandFloat64()*(hi.v-lo.v), lo.dur && hi.dur)
}

// rand.normal(mean, sd): a normally distributed value (rand.NormFloat64()
// * sd + mean). A duration below 0 is 0: no service takes negative time.
func randNormal(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var mean, sd number
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "mean", &mean, "sd", &sd); err != nil {
		return nil, err
	}
	if sd.v < 0 {
		return nil, fmt.Errorf("%s: negative sd %v", b.Name(), sd.v)
	}
	x := mean.v + r.m.RandNorm()*sd.v
	dur := mean.dur && sd.dur
	if dur {
		x = max(x, 0)
	}
	return result(x, dur)
}

// rand.intn(n): an int in [0, n) (rand.Int64N).
func randIntn(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("%s: n = %d, want n > 0", b.Name(), n)
	}
	return starlark.MakeInt64(r.m.RandInt64N(n)), nil
}

// rand.choice(seq): one element of a non-empty sequence.
func randChoice(r *run, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Indexable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "seq", &seq); err != nil {
		return nil, err
	}
	if seq.Len() == 0 {
		return nil, fmt.Errorf("%s: empty sequence", b.Name())
	}
	return seq.Index(int(r.m.RandInt64N(int64(seq.Len())))), nil
}
