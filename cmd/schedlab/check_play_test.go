package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/schedlab/schedlab/internal/play"
)

// lostUpdate returns check.txtar's lost.star, which loses an update
// when inc is preempted between its read and its write: check's fifth
// schedule.
func lostUpdate(t *testing.T) []byte {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/script/check.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "lost.star" {
			return f.Data
		}
	}
	t.Fatal("check.txtar has no lost.star")
	return nil
}

// TestCheckPlaygroundLink: the playground command that check prints for
// a failing schedule makes a link whose page replays that schedule and
// opens at its last event: there the run has not ended, and one step more
// ends it with check's failure.
func TestCheckPlaygroundLink(t *testing.T) {
	script := filepath.Join(t.TempDir(), "lost.star")
	if err := os.WriteFile(script, lostUpdate(t), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := schedlab(t, "check", script)
	if code != 1 {
		t.Fatalf("check: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	var words []string
	for _, line := range strings.Split(stdout, "\n") {
		if c, ok := strings.CutPrefix(line, "playground: "); ok {
			words = strings.Fields(c)
		}
	}
	if len(words) < 6 || strings.Join(words[:3], " ") != "schedlab play --step" || words[4] != "--link" {
		t.Fatalf("no playground command, or not schedlab play --step N --link ...:\n%s", stdout)
	}
	if want := "--choices 0,0,1"; !strings.Contains(strings.Join(words, " "), want) {
		t.Errorf("%q: want the schedule without its last zeros, %q", words, want)
	}
	step, err := strconv.Atoi(words[3])
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := schedlab(t, words[1:]...)
	if code != 0 {
		t.Fatalf("%q: exit %d\n%s", words, code, errOut)
	}
	_, frag, ok := strings.Cut(strings.TrimSpace(out), "#")
	if !ok {
		t.Fatalf("%q printed no link: %q", words, out)
	}
	l, err := play.DecodeLink(frag)
	if err != nil {
		t.Fatal(err)
	}
	if l.Step != step {
		t.Errorf("the link opens at step %d, want %d", l.Step, step)
	}
	st, err := play.NewStepper(l.Name, []byte(l.Script), l.Flags)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	st = st.Goto(l.Step)
	if p := st.Picture(); p.Done || p.Step != step {
		t.Fatalf("at the link's step: step %d, done %v; want step %d, not done", p.Step, p.Done, step)
	}
	st.Forward(1)
	p := st.Picture()
	if !p.Done || p.Step != step || !strings.Contains(p.Output, "panic: lost an update: counter is 1") {
		t.Errorf("a step after the link's: step %d, done %v, output %q; want the run ended at step %d with the failure", p.Step, p.Done, p.Output, step)
	}
}

// TestCheckREPLCommand: check's REPL command carries the run flags a
// session takes, and is left out when one it does not take was given.
func TestCheckREPLCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "schedlab repl --choices 0,1 x.star"},
		{[]string{"--procs=2", "--costs=zero"}, "schedlab repl --choices 0,1 --procs=2 --costs=zero x.star"},
		{[]string{"--procs=2", "--param=n=3"}, ""},
		{[]string{"--stalls=on"}, ""},
		{[]string{"--timeout=5s"}, ""},
	} {
		if got := replCommand("x.star", tc.args, "0,1"); got != tc.want {
			t.Errorf("replCommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
