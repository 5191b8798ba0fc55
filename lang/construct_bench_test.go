package lang

import "testing"

// The construction of a run, for RunFile and for the REPL's Session
// (run.go: newRun, start, newThread): what each costs end to end.

// BenchmarkRunSmall is a whole run of a small script: compiling it, the
// Machine and G1, a spawned goroutine and a channel hand-off, the end.
// One op is one RunFile.
func BenchmarkRunSmall(b *testing.B) {
	src := []byte("c = chan()\nspawn(lambda: c.send(1))\nc.recv()\n")
	b.ReportAllocs()
	for b.Loop() {
		if res := RunFile("small.star", src, benchOptions()); res.ExitCode != 0 {
			b.Fatalf("exit %d", res.ExitCode)
		}
	}
}

// BenchmarkSessionNew is the construction of a REPL world and its end:
// NewSession, G1's first wait for input, Close. One op is one world.
func BenchmarkSessionNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewSession(SessionOptions{Options: benchOptions()}).Close()
	}
}

// BenchmarkSessionExec is one REPL statement that spawns a goroutine and
// receives from it: a fresh thread for G1 (renewThread), the statement,
// the spawned goroutine's thread. One op is one Exec.
func BenchmarkSessionExec(b *testing.B) {
	s := NewSession(SessionOptions{Options: benchOptions()})
	defer s.Close()
	if res := s.Exec("<stdin>", []byte("c = chan()"), false); res.Err != nil {
		b.Fatal(res.Err)
	}
	stmt := []byte("spawn(lambda: c.send(1)); c.recv()")
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Exec("<stdin>", stmt, false); res.Err != nil || res.Stop != Reached {
			b.Fatalf("%v %v", res.Err, res.Stop)
		}
	}
}

// BenchmarkRunSmallStartup is BenchmarkRunSmall with runtime.main's
// start-up (--startup=go): the difference is what the start-up costs.
func BenchmarkRunSmallStartup(b *testing.B) {
	src := []byte("c = chan()\nspawn(lambda: c.send(1))\nc.recv()\n")
	opts := benchOptions()
	opts.RuntimeMain = true
	b.ReportAllocs()
	for b.Loop() {
		if res := RunFile("small.star", src, opts); res.ExitCode != 0 {
			b.Fatalf("exit %d", res.ExitCode)
		}
	}
}
