//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startBin starts bin with args in dir, and returns the command and its
// stdout, read line by line.
func startBin(t *testing.T, bin, dir string, args ...string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out), &stderr
}

// waitExit waits for cmd and returns its exit status; a command still
// running after limit is killed and fails the test as a hang.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("still running %v after SIGINT", limit)
		return -1
	}
}

// TestInterruptRun: SIGINT on `schedlab run` prints the diagnosis and the
// goroutine dump with the Starlark backtrace, writes the trace files up to
// that point (complete files, renamed into place, no temporary left) and
// exits with status 130.
func TestInterruptRun(t *testing.T) {
	bin := buildSchedlab(t)
	dir := t.TempDir()
	script := "print('ready')\ndef tick():\n    while True:\n        sleep('1ms')\ntick()\n"
	if err := os.WriteFile(filepath.Join(dir, "x.star"), []byte(script), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := startBin(t, bin, dir, "run", "--timeline=t.html", "--chrome-trace=t.json", "--timeout=0", "x.star")
	line, err := stdout.ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 10*time.Second)
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	// Where G1 is depends on when the signal lands: still in print, or
	// in the loop.
	for _, want := range []string{`^schedlab: interrupted \(SIGINT\)$`, `^goroutine 1 \[(sleep|running|runnable)\]:$`, `^  x\.star:\d+:\d+: in (tick|<toplevel>)$`} {
		if !regexp.MustCompile("(?m)" + want).MatchString(stderr.String()) {
			t.Errorf("stderr does not match %s:\n%s", want, stderr)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "t.html"))
	if err != nil || !bytes.Contains(page, []byte("</html>")) {
		t.Errorf("timeline: %v, %d bytes, complete: %v", err, len(page), bytes.Contains(page, []byte("</html>")))
	}
	chrome, err := os.ReadFile(filepath.Join(dir, "t.json"))
	if err != nil || !json.Valid(chrome) {
		t.Errorf("chrome trace: %v, valid JSON: %v", err, json.Valid(chrome))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestInterruptExplore: SIGINT on `schedlab explore` prints the report of
// the runs done so far and exits with status 130.
func TestInterruptExplore(t *testing.T) {
	bin := buildSchedlab(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.star"), []byte("for i in range(2000):\n    pass\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := interruptAfterStart(t, bin, dir, "explore", "--runs=100000000", "x.star")
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr.String())
	}
	// The summary line as docs/explore.md gives it: the interruption,
	// then the runs by outcome.
	for _, want := range []string{`^explore x\.star: 100000000 runs`, `^no failure in (\d+) runs; interrupted \(SIGINT\) after (\d+) of 100000000 runs; by outcome: ok \d+$`} {
		if !regexp.MustCompile("(?m)" + want).MatchString(out.String()) {
			t.Errorf("report does not match %s:\n%s", want, out.String())
		}
	}
	if m := regexp.MustCompile(`(?m)^no failure in (\d+) runs; interrupted \(SIGINT\) after (\d+) of .*; by outcome: ok (\d+)$`).FindStringSubmatch(out.String()); m != nil && (m[1] != m[2] || m[2] != m[3] || m[1] == "100000000") {
		t.Errorf("runs done %s, interrupted after %s, ok %s: want the same number, less than all", m[1], m[2], m[3])
	}
}

// interruptAfterStart runs bin with args in dir, sends it SIGINT half a
// second after it started (explore and check print nothing before their
// report; the result does not depend on when the signal lands once the
// handler is in place), and returns its exit status, stdout and stderr.
func interruptAfterStart(t *testing.T, bin, dir string, args ...string) (int, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	return waitExit(t, cmd, 30*time.Second), &out, &stderr
}

// TestInterruptCheck: SIGINT ends a walk that would go on for a long
// time; check says how far it got, that the result is incomplete, and
// exits 130.
func TestInterruptCheck(t *testing.T) {
	bin := buildSchedlab(t)
	dir := t.TempDir()
	src := "def w(n):\n    for i in range(20):\n        now()\nfor n in range(6):\n    spawn(w, n)\n"
	if err := os.WriteFile(filepath.Join(dir, "x.star"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := interruptAfterStart(t, bin, dir, "check", "--max-schedules=0", "x.star")
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr.String())
	}
	want := `(?m)^no failure in \d+ schedules: incomplete, interrupted \(SIGINT\) before the walk was done \(it would be exhaustive\)$`
	if !regexp.MustCompile(want).MatchString(out.String()) {
		t.Errorf("report does not match %s:\n%s", want, out.String())
	}
}

// TestOutputsKeepInputs: an output refused as an input leaves the input
// byte for byte; --check-determinism writes its output files; a run
// leaves no temporary file; an output written over an old one replaces
// it whole.
func TestOutputsKeepInputs(t *testing.T) {
	bin := buildSchedlab(t)
	dir := t.TempDir()
	script := []byte("print('x')\n")
	x := filepath.Join(dir, "x.star")
	if err := os.WriteFile(x, script, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--timeline", "--chrome-trace"} {
		code, _, stderr, err := runBin(bin, dir, []string{"run", flag + "=x.star", "x.star"})
		if err != nil || code != 1 || !strings.Contains(stderr, "refusing to overwrite it") {
			t.Errorf("%s=x.star: exit %d, %v, stderr %q", flag, code, err, stderr)
		}
		if b, _ := os.ReadFile(x); !bytes.Equal(b, script) {
			t.Errorf("%s=x.star changed the script: %q", flag, b)
		}
	}

	code, stdout, stderr, err := runBin(bin, dir, []string{"run", "--check-determinism", "--timeline=t.html", "--chrome-trace=t.json", "x.star"})
	if err != nil || code != 0 || !strings.HasPrefix(stdout, "deterministic: ") || stderr != "" {
		t.Errorf("--check-determinism: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "t.html")); err != nil || !bytes.Contains(page, []byte("</html>")) {
		t.Errorf("--check-determinism wrote no timeline: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "t.json")); err != nil || !json.Valid(b) {
		t.Errorf("--check-determinism wrote no chrome trace: %v", err)
	}

	old := bytes.Repeat([]byte("old "), 100000)
	if err := os.WriteFile(filepath.Join(dir, "t.json"), old, 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr, err := runBin(bin, dir, []string{"run", "--chrome-trace=t.json", "x.star"}); err != nil || code != 0 {
		t.Fatalf("exit %d, %v, %s", code, err, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "t.json")); !json.Valid(b) {
		t.Errorf("the new trace over a longer old file is not JSON: %d bytes", len(b))
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
