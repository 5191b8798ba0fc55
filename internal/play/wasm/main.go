//go:build js && wasm

// Command wasm is the playground's engine: schedlab's interpreter and
// scheduler compiled with GOOS=js GOARCH=wasm, run in the page's Web
// Worker (site/worker.js) by Go's own wasm_exec.js. It sets a global
// object schedlab whose functions take and return JSON text:
//
//	info()                   the version, the examples, the note (play.Info)
//	run(req, emit)           one run's views (play.Run); emit(kind, text) streams stdout and stderr
//	stepNew(req)             a stepper for a run (play.NewStepper), at step 0
//	goto(k)                  the stepper's picture after event k (play.Stepper.Goto)
//	explore(req, progress)   a sweep (play.Explore); progress(done) after each run
//
// and then calls schedlabReady(). Each call runs to its end before it
// returns: the worker, not the engine, is what the page stops.
package main

import (
	"encoding/json"
	"syscall/js"
	"time"

	"github.com/schedlab/schedlab/internal/play"
)

// version is set by the site's build (-ldflags -X main.version=...).
var version = "devel"

func main() {
	play.SetVersion(version)
	var st *play.Stepper
	api := js.Global().Get("Object").New()
	api.Set("info", js.FuncOf(func(js.Value, []js.Value) any { return toJSON(play.Info()) }))
	api.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var req play.RunRequest
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return errJSON(err)
		}
		out, errw := newStream(args[1], "stdout"), newStream(args[1], "stderr")
		res := play.Run(req, out, errw)
		out.flush()
		errw.flush()
		return toJSON(res)
	}))
	api.Set("stepNew", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var req play.RunRequest
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return errJSON(err)
		}
		if st != nil {
			st.Close()
			st = nil
		}
		s, err := play.NewStepper(req.Filename, []byte(req.Src), req.Args)
		if err != nil {
			return errJSON(err)
		}
		st = s
		return toJSON(st.Picture())
	}))
	api.Set("goto", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if st == nil {
			return errJSON(errNoStepper)
		}
		st = st.Goto(args[0].Int())
		return toJSON(st.Picture())
	}))
	api.Set("explore", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var req play.ExploreRequest
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return errJSON(err)
		}
		progress := args[1]
		last := time.Now()
		res := play.Explore(req, func(done int) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond || done == req.Runs {
				last = now
				progress.Invoke(done)
			}
		})
		return toJSON(res)
	}))
	js.Global().Set("schedlab", api)
	js.Global().Call("schedlabReady")
	select {} // serve calls until the worker is terminated
}

type jsError string

func (e jsError) Error() string { return string(e) }

const errNoStepper = jsError("no run to step: stepNew first")

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return errJSON(err)
	}
	return string(b)
}

func errJSON(err error) string {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return string(b)
}

// A stream sends what is written to it to the page, as emit(kind, text),
// at most every 100ms and at flush: output reaches the page while the run
// goes on, so that a run the page stops keeps what it printed.
type stream struct {
	emit js.Value
	kind string
	buf  []byte
	last time.Time
}

func newStream(emit js.Value, kind string) *stream {
	return &stream{emit: emit, kind: kind, last: time.Now()}
}

func (s *stream) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	if now := time.Now(); now.Sub(s.last) > 100*time.Millisecond || len(s.buf) > 1<<20 {
		s.last = now
		s.flush()
	}
	return len(p), nil
}

func (s *stream) flush() {
	if len(s.buf) > 0 {
		s.emit.Invoke(s.kind, string(s.buf))
		s.buf = s.buf[:0]
	}
}
