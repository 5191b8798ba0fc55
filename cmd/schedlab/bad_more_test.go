package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// moreBadCases are the bad inputs of hardening round 2 (issue 15), one
// group per class. $SCRATCH is a directory that writeScratch fills for
// each run of TestBadInput: outputs that would destroy an input are
// aimed at copies there, never at testdata.
var moreBadCases = []badCase{
	// Output files that would destroy an input or another output: refused
	// before the run, exit 1, the input untouched (TestOutputsKeepInputs).
	{"timeline over the script", run("$SCRATCH/x.star", "--timeline=$SCRATCH/x.star"), 1, []string{`^schedlab run: -timeline .*x\.star: is the script \(.*x\.star\), an input of the run: refusing to overwrite it$`}, ""},
	{"chrome-trace over the script", run("$SCRATCH/x.star", "--chrome-trace=$SCRATCH/x.star"), 1, []string{`^schedlab run: -chrome-trace .*: is the script .*refusing to overwrite it$`}, ""},
	{"timeline over the script, with --trace", run("$SCRATCH/x.star", "--trace", "--timeline=$SCRATCH/x.star"), 1, []string{`refusing to overwrite it$`}, ""},
	{"timeline over the script, another spelling", run("$SCRATCH/x.star", "--timeline=$SCRATCH/dir/../x.star"), 1, []string{`is the script .*refusing to overwrite it$`}, ""},
	{"timeline over the script through a symlink", run("$SCRATCH/x.star", "--timeline=$SCRATCH/link.star"), 1, []string{`is the script .*refusing to overwrite it$`}, ""},
	{"timeline over the script through a hard link", run("$SCRATCH/x.star", "--timeline=$SCRATCH/hard.star"), 1, []string{`is the script .*refusing to overwrite it$`}, ""},
	{"timeline over a loaded module", run("$SCRATCH/uses_lib.star", "--timeline=$SCRATCH/lib.star"), 1, []string{`^schedlab run: -timeline .*lib\.star: is a module the script loads \(.*lib\.star\), an input of the run: refusing to overwrite it$`}, ""},
	{"two outputs, one file", run("$SCRATCH/x.star", "--timeline=$SCRATCH/out", "--chrome-trace=$SCRATCH/out"), 1, []string{`^schedlab run: -timeline .*out: is also the file of -chrome-trace: give each output a file of its own$`}, ""},
	{"two outputs, one file through a symlink", run("$SCRATCH/x.star", "--timeline=$SCRATCH/outlink", "--chrome-trace=$SCRATCH/outtarget"), 1, []string{`is also the file of -chrome-trace`}, ""},
	{"output is a directory", run("$SCRATCH/x.star", "--timeline=$SCRATCH/dir"), 1, []string{`^schedlab run: -timeline .*dir: is a directory$`}, ""},
	{"check-determinism, timeline over the script", run("$SCRATCH/x.star", "--check-determinism", "--timeline=$SCRATCH/x.star"), 1, []string{`refusing to overwrite it$`}, ""},
	{"check-determinism, two outputs, one file", run("$SCRATCH/x.star", "--check-determinism", "--timeline=$SCRATCH/o2", "--chrome-trace=$SCRATCH/o2"), 1, []string{`give each output a file of its own$`}, ""},
	{"test -update, golden file is a module", []string{"test", "-update", "$SCRATCH/golden_module.star"}, 1, nil, "*golden_module.golden: is a module .*golden_module.star loads*"},
	{"test -update, two scripts, one golden", []string{"test", "-update", "-golden", "$SCRATCH/g", "$SCRATCH/a/x.star", "$SCRATCH/b/x.star"}, 1, []string{`^schedlab test: -update \(.*b/x\.star\) .*g/x\.golden: is also the file of -update \(.*a/x\.star\): give each output a file of its own$`}, ""},
	{"test -update, golden is a directory", []string{"test", "-update", "$SCRATCH/golddir.star"}, 1, []string{`^schedlab test: -update \(.*golddir\.star\) .*golddir\.golden: is a directory$`}, ""},

	// Input that is not a regular file: refused before it is opened.
	{"script is a FIFO", run("$SCRATCH/fifo.star"), 1, []string{`^schedlab run: open .*fifo\.star: not a regular file \(a named pipe\): a script must be a file$`}, ""},
	{"load of a FIFO", run("$SCRATCH/load_fifo.star"), 1, []string{`^.*load_fifo\.star:1:6: cannot load fifo\.star: open .*fifo\.star: not a regular file \(a named pipe\)`}, ""},
	{"script is a device", run("/dev/null"), 1, []string{`^schedlab run: open /dev/null: not a regular file \(a device\): a script must be a file$`}, ""},
	{"explore of a FIFO", []string{"explore", "--runs=2", "$SCRATCH/fifo.star"}, 2, []string{`^schedlab explore: open .*fifo\.star: not a regular file \(a named pipe\)`}, ""},
	{"repl of a FIFO", []string{"repl", "$SCRATCH/fifo.star"}, 0, []string{`^schedlab: open .*fifo\.star: not a regular file \(a named pipe\)`}, ""},
	{"merge of a FIFO", []string{"explore", "merge", "$SCRATCH/fifo.star"}, 2, []string{`^schedlab explore merge: .*fifo\.star: open .*fifo\.star: not a regular file \(a named pipe\)$`}, ""},
	{"merge of a directory", []string{"explore", "merge", "$SCRATCH/dir"}, 2, []string{`^schedlab explore merge: .*dir: open .*dir: is a directory$`}, ""},
	{"script too large", run("$SCRATCH/big.star"), 1, []string{`^schedlab run: read .*big\.star: 3145728 bytes, more than the 2MiB a script may hold$`}, ""},
	{"module too large", run("$SCRATCH/uses_big.star"), 1, []string{`^.*uses_big\.star:1:6: cannot load big\.star: read .*big\.star: 3145728 bytes, more than the 2MiB a script may hold$`}, ""},

	// The wall-clock timeout holds inside one builtin call and through a
	// flood of schedtrace lines.
	{"one long builtin call, timeout", run("str_nested.star", "--timeout=300ms"), 2, []string{`^schedlab: wall-clock timeout of 300ms reached \(--timeout=300ms\)$`, `^goroutine 1 \[running\]:$`, `^  str_nested.star:6:14: in <toplevel>$`, `^schedlab: goroutine 1 is still inside one call of str, and a call cannot be stopped halfway: the process exits$`}, ""},
	{"schedtrace=1ns, timeout", run("schedtrace_flood.star", "--schedtrace=1ns", "--timeout=200ms"), 2, []string{`^SCHED 0ms: gomaxprocs=1 `, `^schedlab: wall-clock timeout of 200ms reached \(--timeout=200ms\)$`, `^goroutine 1 \[(sleep|runnable|running|chan receive)\]:$`}, ""},
	{"scheddetail, schedtrace=1ns, timeout", run("schedtrace_flood.star", "--schedtrace=1ns", "--scheddetail", "--timeout=200ms"), 2, []string{`^  P0: status=\d `, `^schedlab: wall-clock timeout of 200ms reached`}, ""},

	// The end of the virtual clock: deadlines saturate, and a run with
	// nothing left before the end stops there with a limit.
	{"sleep(maxint64)", run("sleep_maxint.star"), 2, []string{`^schedlab: virtual time limit of 2562047h47m16.854775807s reached: the end of the virtual clock`, `^goroutine 1 \[sleep\]:$`, `^  sleep_maxint.star:1:6: in <toplevel>$`}, ""},
	{"sleeps past the end, timing perturbation", run("sleep_loop.star", "--perturb=timing"), 2, []string{`^schedlab: virtual time limit of 2562047h47m16.854775807s reached`, `^  sleep_loop.star:2:10: in <toplevel>$`}, ""},
	{"sleep(1 << 62) twice", run("sleep_twice.star"), 2, []string{`^schedlab: virtual time limit of 2562047h47m16.854775807s reached`, `^  sleep_twice.star:3:6: in <toplevel>$`}, "re:^46116860184\\d{8}\n$"},
	{"sleep(1 << 62) twice in two goroutines", run("sleep_spawned.star", "--procs=2"), 2, []string{`virtual time limit of 2562047h47m16.854775807s reached`}, "re:^46116860184\\d{8}\n$"},
	{"work(1 << 62) twice, preemption off", run("work_twice.star", "--preempt=off"), 2, []string{`virtual time limit of 2562047h47m16.854775807s reached`, `^  work_twice.star:2:5: in <toplevel>$`}, ""},
	{"syscall(1 << 62) twice", run("syscall_twice.star"), 2, []string{`virtual time limit of 2562047h47m16.854775807s reached`}, ""},
	{"after(maxint64)", run("after_maxint.star"), 2, []string{`virtual time limit of 2562047h47m16.854775807s reached`, `^goroutine 1 \[chan receive\]:$`}, ""},
	{"sleep(maxint64) with --max-time", run("sleep_maxint.star", "--max-time=1h"), 2, []string{`^schedlab: virtual time limit of 1h0m0s reached$`}, ""},

	// Syntax trees too deep for the resolver and compiler: file:line:col.
	{"4 MB left-deep expression", run("$SCRATCH/deep4m.star"), 1, []string{`^schedlab run: read .*deep4m\.star: 4194310 bytes, more than the 2MiB a script may hold$`}, ""},
	{"100 KB left-deep expression", run("$SCRATCH/deep.star"), 1, []string{`^.*deep\.star:1:5: excessive nesting: the code is more than 10000 levels deep here`}, ""},
	{"attribute chain", run("$SCRATCH/attrs.star"), 1, []string{`^.*attrs\.star:1:5: excessive nesting`}, ""},
	{"call chain", run("$SCRATCH/calls.star"), 1, []string{`^.*calls\.star:2:1: excessive nesting`}, ""},
	{"subscript chain", run("$SCRATCH/index.star"), 1, []string{`^.*index\.star:1:5: excessive nesting`}, ""},
	{"elif chain", run("$SCRATCH/elif.star"), 1, []string{`^.*elif\.star:\d+:\d+: excessive nesting`}, ""},
	{"not chain", run("$SCRATCH/nots.star"), 1, []string{`^.*nots\.star:1:\d+: excessive nesting`}, ""},
	{"unary minus chain", run("$SCRATCH/minus.star"), 1, []string{`^.*minus\.star:1:\d+: excessive nesting`}, ""},
	{"deep expression in a module", run("$SCRATCH/uses_deep.star"), 1, []string{`^.*deep_lib\.star:1:5: excessive nesting`}, ""},
	{"deep expression, explore", []string{"explore", "--runs=2", "$SCRATCH/deep.star"}, 2, []string{`deep\.star:1:5: excessive nesting`}, ""},
	{"deep expression, repl", []string{"repl"}, 0, []string{`^<stdin>:1:5: excessive nesting`}, "still here\n"},
	{"wide literal is fine", run("$SCRATCH/wide.star"), 0, nil, "100000\n"},

	// Counts and ranges.
	{"explore --runs maxint64", []string{"explore", "--runs=9223372036854775807", "empty.star"}, 2, []string{`^schedlab explore: --runs 9223372036854775807: out of range, want 1 to 100000000$`}, ""},
	{"explore --runs 0", []string{"explore", "--runs=0", "empty.star"}, 2, []string{`^schedlab explore: --runs 0: out of range`}, ""},
	{"explore --runs -1", []string{"explore", "--runs=-1", "empty.star"}, 2, []string{`^schedlab explore: --runs -1: out of range`}, ""},
	{"explore --runs too many digits", []string{"explore", "--runs=99999999999999999999", "empty.star"}, 2, []string{`invalid value "99999999999999999999" for flag -runs`}, ""},
	{"explore --jobs -1", []string{"explore", "--runs=2", "--jobs=-1", "empty.star"}, 2, []string{`^schedlab explore: --jobs -1: out of range, want 0 \(one per CPU\) to 1024$`}, ""},
	{"explore --jobs huge", []string{"explore", "--runs=2", "--jobs=100000", "empty.star"}, 2, []string{`^schedlab explore: --jobs 100000: out of range`}, ""},
	{"explore --seed-start wraps", []string{"explore", "--runs=2", "--seed-start=18446744073709551615", "empty.star"}, 2, []string{`^schedlab explore: --seed-start 18446744073709551615 with --runs 2: the last run's seed would pass 18446744073709551615, the largest seed; want --seed-start at most 18446744073709551614$`}, ""},
	{"explore --seed-start wraps by much", []string{"explore", "--runs=1000", "--seed-start=18446744073709551000", "empty.star"}, 2, []string{`want --seed-start at most 18446744073709550616$`}, ""},
	{"explore --seed-start past 2^64", []string{"explore", "--seed-start=18446744073709551616", "empty.star"}, 2, []string{`invalid value "18446744073709551616" for flag -seed-start`}, ""},
	{"explore --shard too many", []string{"explore", "--runs=2", "--shard=0/200000000", "empty.star"}, 2, []string{`want n ≤ 100000000 shards`}, ""},
	{"explore --shard k past n", []string{"explore", "--runs=2", "--shard=3/3", "empty.star"}, 2, []string{`want 0 ≤ k < n, got 3/3`}, ""},
	{"explore --procs 0", []string{"explore", "--runs=2", "--procs=1,0", "empty.star"}, 2, []string{`0 is out of range, want 1 to 1024`}, ""},
	{"explore --max-goroutines negative", []string{"explore", "--runs=2", "--max-goroutines=-1", "empty.star"}, 2, []string{`invalid value "-1" for flag -max-goroutines`}, ""},
	{"merge, runs out of range", []string{"explore", "merge", "$SCRATCH/r_runs.json"}, 2, []string{`^schedlab explore merge: .*r_runs\.json: not a report schedlab explore writes: --runs -5: out of range`}, ""},
	{"merge, runs huge", []string{"explore", "merge", "$SCRATCH/r_huge.json"}, 2, []string{`--runs 9223372036854775807: out of range`}, ""},
	{"merge, seeds wrap", []string{"explore", "merge", "$SCRATCH/r_seed.json"}, 2, []string{`the last run's seed would pass`}, ""},
	{"merge, shard out of range", []string{"explore", "merge", "$SCRATCH/r_shard.json"}, 2, []string{`not a report schedlab explore writes: shard 7 of 2$`}, ""},
	{"merge, no shard count", []string{"explore", "merge", "$SCRATCH/r_count.json"}, 2, []string{`shard_count 0, want at least 1$`}, ""},
	{"merge, class larger than the sweep", []string{"explore", "merge", "$SCRATCH/r_class.json"}, 2, []string{`class ok "": 1000 runs, first run 0, of 4 runs$`}, ""},
	{"merge, procs out of range", []string{"explore", "merge", "$SCRATCH/r_procs.json"}, 2, []string{`--procs 5000: out of range, want 1 to 1024$`}, ""},
	{"merge, done past runs", []string{"explore", "merge", "$SCRATCH/r_done.json"}, 2, []string{`done 9 of 4 runs$`}, ""},
	{"repl :procs 0", []string{"repl"}, 0, []string{`^:procs: got "0", want a number of Ps from 1$`}, ""},
	{"repl :procs 5000", []string{"repl"}, 0, []string{`1024`}, ""},
	{"repl :step -3", []string{"repl"}, 0, []string{`^:step: got "-3", want a positive number of events$`}, ""},
	{"repl :step past int64", []string{"repl"}, 0, []string{`^:step: got "99999999999999999999", want a positive number of events$`}, ""},
	{"repl :seed -1", []string{"repl"}, 0, []string{`^:seed: got "-1", want a number$`}, ""},
	{"repl :seed past 2^64", []string{"repl"}, 0, []string{`^:seed: got "18446744073709551616", want a number$`}, ""},
	{"repl sleep past the end of the clock", []string{"repl"}, 0, []string{`virtual time limit of 2562047h47m16.854775807s reached`}, "*"},
	{"repl --procs 0", []string{"repl", "--procs=0"}, 2, []string{`^schedlab repl: invalid value "0" for flag -procs: out of range, want 1 to 1024$`}, ""},
	{"repl --seed past 2^64", []string{"repl", "--seed=18446744073709551616"}, 2, []string{`invalid value "18446744073709551616" for flag -seed`}, ""},
	{"repl --max-memory malformed", []string{"repl", "--max-memory=lots"}, 2, []string{`invalid value "lots" for flag -max-memory`}, ""},

	// Encodings: a byte-order mark at the start is dropped; elsewhere it is
	// a syntax error. CRLF golden files are read as LF.
	{"BOM", run("bom.star"), 0, nil, "bom\n"},
	{"BOM before a directive", run("bom_directive.star"), 0, nil, "3\n"},
	{"BOM in the middle", run("bom_middle.star"), 1, []string{`^bom_middle.star:2:1: `}, ""},
	{"BOM in a module", run("load/bom_module.star"), 0, nil, "module with a bom\n"},
	{"BOM, explore", []string{"explore", "--runs=2", "--json", "bom.star"}, 0, nil, "*"},
	{"BOM, repl", []string{"repl", "bom.star"}, 0, nil, "bom\n"},
	{"golden with CRLF that matches", []string{"test", "$SCRATCH/crlf.star"}, 0, nil, "1 passed, 0 failed\n"},
	{"with_timeout(background(), maxint64)", run("$SCRATCH/timeout_maxint.star"), 2, []string{`^schedlab: virtual time limit of 2562047h47m16.854775807s reached: the end of the virtual clock`, `^goroutine 1 \[chan receive\]:$`, `timeout_maxint.star:3:16: in <toplevel>$`}, "(9223372036854775807, True)\n"},
	{"with_deadline(background(), minint64)", run("$SCRATCH/deadline_minint.star"), 0, nil, "(-9223372036854775808, True) context deadline exceeded\n"},
	{"every cost 2^63-1, 2 Ps", run("$SCRATCH/spawn_one.star", "--procs=2", "--costs=$SCRATCH/huge.json"), 2, []string{`^schedlab: virtual time limit of 2562047h47m16.854775807s reached: the end of the virtual clock`}, ""},
	{"golden with CRLF that differs", []string{"test", "$SCRATCH/crlf_diff.star"}, 1, nil, "*line endings differ*"},

	// The network (issue 27, item 8).
	{"two listeners on one port", run("listen_twice.star"), 2, []string{`^panic: listen: listen tcp localhost:80: bind: address already in use$`, `listen_twice\.star:2:11: in <toplevel>$`}, ""},
	{"traffic with rate 0", run("traffic_rate_zero.star"), 2, []string{`^panic: traffic: rate 0: want a positive number of requests per second$`, `traffic_rate_zero\.star:1:8: in <toplevel>$`}, ""},
	{"traffic with n < 0", run("traffic_n_negative.star"), 2, []string{`^panic: traffic: n -1: want at least 0 requests$`, `traffic_n_negative\.star:1:8`}, ""},
	{"traffic with an unknown arrival", run("traffic_arrival.star"), 2, []string{`^panic: traffic: unknown arrival "burst": want one of poisson, uniform, const$`, `traffic_arrival\.star:1:8`}, ""},
	{"dial nobody: the error value, then a read on it", run("dial_refused.star"), 2, []string{`^panic: error has no \.read: the value is the error "dial tcp localhost:9: connect: connection refused", not a connection \(check is_error\(v\) first\)$`, `dial_refused\.star:3:8: in <toplevel>$`}, "dial tcp localhost:9: connect: connection refused\n"},
	{"traffic over, every goroutine in IO wait", run("net_idle.star"), 2, []string{`^schedlab: no traffic left: every goroutine is asleep, and those in IO wait would wait for ever$`, `^goroutine 1 \[IO wait\]:$`, `^goroutine 7 \[IO wait\]:$`, `net_idle\.star:5:21: in serve$`}, ""},
	{"write on a closed connection", run("write_closed.star"), 0, nil, "write tcp :80->127.0.0.1:50000: use of closed network connection\n"},
	{"negative network latency", run("write_closed.star", "--net-latency=-1ms"), 2, []string{`^schedlab run: invalid value "-1ms" for flag -net-latency: negative duration$`}, ""},
	{"gogc below -1", run("write_closed.star", "--gogc=-2"), 2, []string{`^schedlab run: invalid value "-2" for flag -gogc: percent -2 is below -1 \(off\)$`}, ""},
	{"memlimit not a size", run("write_closed.star", "--memlimit=lots"), 2, []string{`^schedlab run: invalid value "lots" for flag -memlimit: want a size such as 64MiB, or off$`}, ""},
}

// badStdin is what the repl cases read on stdin, by case name.
var badStdin = map[string]string{
	"repl :procs 0":                        ":procs 0\n",
	"repl :procs 5000":                     ":procs 5000\n",
	"repl :step -3":                        ":step -3\n",
	"repl :step past int64":                ":step 99999999999999999999\n",
	"repl :seed -1":                        ":seed -1\n",
	"repl :seed past 2^64":                 ":seed 18446744073709551616\n",
	"repl sleep past the end of the clock": "sleep(1 << 62)\nsleep(1 << 62)\nprint('after')\n",
	"deep expression, repl":                "z = " + strings.Repeat("1+", 20000) + "1\nprint('still here')\n",
}

// writeScratch fills a temporary directory with the files of the
// $SCRATCH cases and returns its path.
func writeScratch(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("x.star", "print('x')\n")
	write("timeout_maxint.star", "ctx, cancel = with_timeout(background(), 9223372036854775807)\nprint(ctx.deadline())\nctx.done().recv()\n")
	write("deadline_minint.star", "ctx, cancel = with_deadline(background(), -9223372036854775808)\nprint(ctx.deadline(), ctx.err())\n")
	write("spawn_one.star", "def f():\n    pass\n\nspawn(f)\nprint('spawned')\n")
	write("huge.json", hugeCosts())
	write("uses_lib.star", "load('lib.star', 'v')\nprint(v)\n")
	write("lib.star", "v = 1\n")
	write("a/x.star", "print('a')\n")
	write("b/x.star", "print('b')\n")
	write("golden_module.star", "load('golden_module.golden', 'v')\nprint(v)\n")
	write("golden_module.golden", "v = 'a module named like a golden file'\n")
	write("golddir.star", "print(1)\n")
	write("golddir.golden/keep", "")
	write("dir/keep", "")
	write("outtarget", "")
	write("load_fifo.star", "load('fifo.star', 'v')\n")
	write("big.star", strings.Repeat("#\n", 3<<19)) // 3 MiB
	write("uses_big.star", "load('big.star', 'x')\n")
	write("deep4m.star", "z = "+strings.Repeat("1+", 2<<20)+"1\n")
	write("deep.star", "z = "+strings.Repeat("1+", 50000)+"1\n")
	write("attrs.star", "z = x"+strings.Repeat(".a", 20000)+"\n")
	write("calls.star", "def f(): return f\n"+"f"+strings.Repeat("()", 20000)+"\n")
	write("index.star", "z = x"+strings.Repeat("[0]", 20000)+"\n")
	write("elif.star", "x = 0\nif x == 0:\n    pass\n"+strings.Repeat("elif x == 1:\n    pass\n", 11000))
	write("nots.star", "z = "+strings.Repeat("not ", 20000)+"True\n")
	write("minus.star", "z = "+strings.Repeat("-", 20000)+"1\n")
	write("uses_deep.star", "load('deep_lib.star', 'z')\n")
	write("deep_lib.star", "z = "+strings.Repeat("1+", 20000)+"1\n")
	write("wide.star", "x = ["+strings.Repeat("0,", 100000)+"]\nprint(len(x))\n")
	write("crlf.star", "print('crlf')\n")
	write("crlf_diff.star", "print('crlf')\n")
	write("crlf_diff.golden", "something\r\nelse\r\n")
	for _, l := range []struct{ link, target string }{{"link.star", "x.star"}, {"outlink", "outtarget"}} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "x.star"), filepath.Join(dir, "hard.star")); err != nil {
		t.Fatal(err)
	}
	// A FIFO, where mkfifo exists (the cases that need one skip otherwise).
	exec.Command("mkfifo", filepath.Join(dir, "fifo.star")).Run()

	// The golden of crlf.star, with CRLF line endings.
	if out, err := exec.Command(bin, "test", "-update", filepath.Join(dir, "crlf.star")).CombinedOutput(); err != nil {
		t.Fatalf("test -update crlf.star: %v\n%s", err, out)
	}
	g := filepath.Join(dir, "crlf.golden")
	b, err := os.ReadFile(g)
	if err != nil {
		t.Fatal(err)
	}
	write("crlf.golden", strings.ReplaceAll(string(b), "\n", "\r\n"))

	// Reports for merge, each broken in one field.
	out, err := exec.Command(bin, "explore", "--runs=4", "--json", filepath.Join(dir, "x.star")).Output()
	if err != nil {
		t.Fatalf("explore --json: %v", err)
	}
	for name, change := range map[string]func(r map[string]any){
		"r_runs":  func(r map[string]any) { r["runs"] = -5 },
		"r_huge":  func(r map[string]any) { r["runs"] = int64(9223372036854775807) },
		"r_seed":  func(r map[string]any) { r["seed_start"] = uint64(18446744073709551615) },
		"r_shard": func(r map[string]any) { r["shard_count"] = 2; r["shards"] = []int{7} },
		"r_count": func(r map[string]any) { r["shard_count"] = 0 },
		"r_class": func(r map[string]any) { r["classes"].([]any)[0].(map[string]any)["count"] = 1000 },
		"r_procs": func(r map[string]any) { r["procs"] = []int{5000} },
		"r_done":  func(r map[string]any) { r["done"] = 9 },
	} {
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		var r map[string]any
		if err := d.Decode(&r); err != nil {
			t.Fatal(err)
		}
		change(r)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".json", string(b))
	}
	return dir
}

// haveFIFO reports whether writeScratch could make its FIFO.
func haveFIFO(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, "fifo.star"))
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

// hugeCosts is a costs profile in which every cost is 2^63-1 ns: each
// charge runs to the end of the virtual clock at once.
func hugeCosts() string {
	q := strings.TrimSuffix(strings.Repeat("9223372036854775807,", runtime.NumQuantiles), ",")
	var b strings.Builder
	b.WriteString(`{"format": "` + runtime.CostsFormat + `", "name": "huge", "costs": {`)
	for i, k := range runtime.CostKinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + k.String() + `": {"n": 0, "quantiles": [` + q + `]}`)
	}
	b.WriteString("}}\n")
	return b.String()
}
