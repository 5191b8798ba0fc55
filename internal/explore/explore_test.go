package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPlanRun(t *testing.T) {
	p := &Plan{Runs: 10, SeedStart: 100, Procs: []int{1, 2, 4}}
	for _, test := range []struct {
		i    int
		want Run
	}{
		{0, Run{0, 100, 1}},
		{1, Run{1, 101, 2}},
		{2, Run{2, 102, 4}},
		{3, Run{3, 103, 1}},
		{9, Run{9, 109, 1}},
	} {
		if got := p.Run(test.i); got != test.want {
			t.Errorf("Run(%d) = %+v, want %+v", test.i, got, test.want)
		}
	}
	if got := (&Plan{SeedStart: 5}).Run(3); got != (Run{3, 8, 1}) {
		t.Errorf("Run(3) without procs = %+v, want procs 1", got)
	}
}

// Every run of a sweep is in exactly one shard, and the shards are
// contiguous and in order.
func TestShardsCoverEveryRunOnce(t *testing.T) {
	for _, runs := range []int{0, 1, 2, 7, 100, 1000, 1001} {
		for _, n := range []int{1, 2, 3, 4, 7, 16, 1500} {
			seen := make([]int, runs)
			next := 0
			for k := range n {
				p := &Plan{Runs: runs, Shard: Shard{k, n}}
				lo, hi := p.Range()
				if lo != next || hi < lo {
					t.Fatalf("runs=%d shard %d/%d = [%d, %d), want it to start at %d", runs, k, n, lo, hi, next)
				}
				for i := lo; i < hi; i++ {
					seen[i]++
				}
				next = hi
			}
			if next != runs {
				t.Errorf("runs=%d n=%d: shards end at %d", runs, n, next)
			}
			for i, c := range seen {
				if c != 1 {
					t.Errorf("runs=%d n=%d: run %d is in %d shards", runs, n, i, c)
				}
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, test := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/1", Shard{0, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"4/4", Shard{}, "want 0 ≤ k < n, got 4/4"},
		{"-1/4", Shard{}, "want 0 ≤ k < n, got -1/4"},
		{"0/0", Shard{}, "want 0 ≤ k < n, got 0/0"},
		{"1", Shard{}, "want k/n, such as 0/4"},
		{"a/b", Shard{}, "want k/n, such as 0/4"},
	} {
		got, err := ParseShard(test.in)
		if test.err != "" {
			if err == nil || err.Error() != test.err {
				t.Errorf("ParseShard(%q) error = %v, want %s", test.in, err, test.err)
			}
			continue
		}
		if err != nil || got != test.want {
			t.Errorf("ParseShard(%q) = %v, %v, want %v", test.in, got, err, test.want)
		}
	}
	if s := (Shard{}).String(); s != "0/1" {
		t.Errorf("Shard{}.String() = %q, want 0/1", s)
	}
}

func TestParseProcs(t *testing.T) {
	if got, err := ParseProcs("1, 2,4", 1024); err != nil || !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Errorf("ParseProcs = %v, %v", got, err)
	}
	for _, in := range []string{"", "0", "1,,2", "2000", "x"} {
		if _, err := ParseProcs(in, 1024); err == nil {
			t.Errorf("ParseProcs(%q) succeeded", in)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, test := range []struct {
		exit           int
		stderr, assert string
		want           Outcome
		msg            string
	}{
		{0, "", "", OK, ""},
		{0, "schedlab: main returned with 1 goroutine still alive:\n\ngoroutine 2 [chan send]:\n  x.star:3:4: in f\n", "", Left, "main returned with 1 goroutine still alive"},
		{0, "schedlab: main returned with 2 goroutines still alive (1 leaked):\n\ngoroutine 2 [chan send (leaked)]:\n\ngoroutine 3 [sleep]:\n", "", Leak, "main returned with 2 goroutines still alive (1 leaked)"},
		{0, "schedlab: main returned with 1 goroutine still alive:\n\ngoroutine 2 [leaked]:\n", "", Leak, "main returned with 1 goroutine still alive"},
		{2, "panic: count is 1, want 2\n\ngoroutine 1 [running]:\n", "count is 1, want 2", Assert, "count is 1, want 2"},
		{2, "panic: count is 1, want 2\n\ngoroutine 1 [running]:\n", "", Panic, "count is 1, want 2"},
		{2, "panic: fail: boom\n\ngoroutine 1 [running]:\n", "other", Panic, "fail: boom"},
		{2, "panic: two\nlines\n\ngoroutine 1 [running]:\n", "two\nlines", Assert, "two"},
		{2, "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n", "", Deadlock, "all goroutines are asleep - deadlock!"},
		{2, "schedlab: warning: --param n was never read: the script has no param(\"n\", ...)\npanic: boom\n\ngoroutine 1 [running]:\n", "", Panic, "boom"},
		{0, "schedlab: warning: --param n was never read: the script has no param(\"n\", ...)\n", "", OK, ""},
		{2, "fatal error: sync: unlock of unlocked mutex\n\ngoroutine 1 [running]:\n", "", Fatal, "sync: unlock of unlocked mutex"},
		{2, "schedlab: step limit of 100 reached (--max-steps=100)\n\ngoroutine 1 [running]:\n", "", Limit, "step limit of 100 reached (--max-steps=100)"},
		{2, "schedlab: wall-clock timeout of 10s reached (--timeout=10s)\n", "", Limit, "wall-clock timeout of 10s reached (--timeout=10s)"},
		{1, "x.star:1:5: got yield, want primary expression\n", "", Error, "x.star:1:5: got yield, want primary expression"},
		{3, "schedlab: internal error: oops\n", "", Error, "schedlab: internal error: oops"},
		{3, "", "", Error, "exit status 3"},
	} {
		r := Classify(test.exit, []byte("out\n"), []byte(test.stderr), test.assert)
		if r.Outcome != test.want || r.Message != test.msg {
			t.Errorf("Classify(%d, %q, %q) = %s %q, want %s %q", test.exit, test.stderr, test.assert, r.Outcome, r.Message, test.want, test.msg)
		}
		if r.Output != OutputHash([]byte("out\n")) {
			t.Errorf("Classify(...).Output = %q", r.Output)
		}
	}
	if h := OutputHash(nil); h != "e3b0c44298fc" {
		t.Errorf("OutputHash(nil) = %s, want the start of SHA-256 of nothing", h)
	}
	if Digest(0, []byte("ab"), nil) == Digest(0, []byte("a"), []byte("b")) {
		t.Error("Digest does not keep stdout and stderr apart")
	}
	if Digest(0, nil, nil) == Digest(2, nil, nil) {
		t.Error("Digest ignores the exit status")
	}
	for _, o := range []Outcome{Assert, Panic, Fatal, Deadlock, Leak, Limit, Error, Left, OK} {
		if want := o != OK && o != Left; o.Failure() != want {
			t.Errorf("%s.Failure() = %v", o, o.Failure())
		}
	}
}

// fakeRun is a deterministic stand-in for running a script: its outcome
// depends on the run's seed and procs only. It sleeps a little at random,
// so that parallel runs finish out of order.
func fakeRun(r Run) Result {
	if r.Seed%5 == 0 {
		time.Sleep(time.Duration(r.Seed%3) * 50 * time.Microsecond)
	}
	exit, stdout, stderr := 0, fmt.Sprintf("procs %d\n", r.Procs), ""
	switch {
	case r.Seed%13 == 4:
		exit, stderr = 2, "panic: lost an update\n"
	case r.Seed%29 == 7:
		exit, stderr = 2, "fatal error: all goroutines are asleep - deadlock!\n"
	case r.Seed%31 == 11:
		exit, stderr = 2, fmt.Sprintf("panic: count is %d\n", r.Seed%3)
	case r.Seed%17 == 2:
		stderr = "schedlab: main returned with 1 goroutine still alive:\n"
	}
	assert := ""
	if strings.Contains(stderr, "lost") {
		assert = "lost an update"
	}
	return Classify(exit, []byte(stdout), []byte(stderr), assert)
}

func fakeJob() func(Run) Result { return fakeRun }

func TestSweepDoesNotDependOnJobs(t *testing.T) {
	for _, failFast := range []bool{false, true} {
		p := &Plan{Runs: 600, SeedStart: 1, Procs: []int{1, 2, 4}}
		want := Sweep(p, fakeJob, SweepOptions{Jobs: 1, FailFast: failFast})
		for _, jobs := range []int{2, 4, 16} {
			for range 3 {
				got := Sweep(p, fakeJob, SweepOptions{Jobs: jobs, FailFast: failFast})
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("failFast=%v: jobs=%d gave\n%+v\nwant (jobs=1)\n%+v", failFast, jobs, got, want)
				}
			}
		}
		if failFast {
			// Seed 4 is the first failure: run index 3.
			if want.Done != 4 || !want.Stopped || len(want.Classes) != 4 || want.Classes[0].Outcome != Assert {
				t.Errorf("fail-fast tally = %+v, want 4 runs ending in the assert", want)
			}
		} else if want.Done != 600 || want.Stopped {
			t.Errorf("tally: done %d, stopped %v", want.Done, want.Stopped)
		}
	}
}

func TestSweepTally(t *testing.T) {
	p := &Plan{Runs: 100, SeedStart: 1, Procs: []int{2}}
	var mu sync.Mutex
	var progress []int
	tl := Sweep(p, fakeJob, SweepOptions{Jobs: 3, Progress: func(n int) { mu.Lock(); progress = append(progress, n); mu.Unlock() }})
	if len(progress) != 100 {
		t.Errorf("Progress called %d times, want 100", len(progress))
	}
	total := 0
	var got []string
	for _, c := range tl.Classes {
		total += c.Count
		got = append(got, fmt.Sprintf("%s %q first=%d count=%d", c.Outcome, c.Message, c.First.Seed, c.Count))
	}
	want := []string{
		`assert "lost an update" first=4 count=8`,
		`deadlock "all goroutines are asleep - deadlock!" first=7 count=4`,
		`panic "count is 2" first=11 count=1`,
		`panic "count is 0" first=42 count=1`,
		`panic "count is 1" first=73 count=1`,
		`ok "" first=1 count=80`,
		`left "main returned with 1 goroutine still alive" first=2 count=5`,
	}
	if total != 100 || !reflect.DeepEqual(got, want) {
		t.Errorf("classes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// report runs the plan with the fake runs and returns its report.
func report(p *Plan) *Report {
	return NewReport(p, Sweep(p, fakeJob, SweepOptions{Jobs: 4}), "lost update.star", []byte("src"), "timing",
		[]string{"--preempt=off"}, []string{"--max-steps=10000000", "--timeout=10s"})
}

// roundTrip writes r as JSON and reads it back.
func roundTrip(t *testing.T, r *Report) *Report {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestMergeOfShardsIsTheWholeSweep(t *testing.T) {
	whole := report(&Plan{Runs: 1000, SeedStart: 7, Procs: []int{1, 2, 4}})
	for _, n := range []int{1, 2, 3, 8} {
		var shards []*Report
		for k := n - 1; k >= 0; k-- { // in any order
			shards = append(shards, roundTrip(t, report(&Plan{Runs: 1000, SeedStart: 7, Procs: []int{1, 2, 4}, Shard: Shard{k, n}})))
		}
		m, err := Merge(shards)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Complete() || m.Done != whole.Done || !reflect.DeepEqual(m.Classes, whole.Classes) {
			t.Errorf("merge of %d shards:\n%+v\nwant\n%+v", n, m, whole)
		}
		var a, b bytes.Buffer
		m.WriteTable(&a)
		whole.WriteTable(&b)
		if a.String() != b.String() {
			t.Errorf("merged table:\n%s\nwant\n%s", a.String(), b.String())
		}
	}
}

func TestMergeErrors(t *testing.T) {
	p := func(k, n int) *Plan { return &Plan{Runs: 100, SeedStart: 1, Procs: []int{2}, Shard: Shard{k, n}} }
	a, b := report(p(0, 2)), report(p(1, 2))
	if _, err := Merge([]*Report{a, a}); err == nil || !strings.Contains(err.Error(), "shard 0/2 appears twice") {
		t.Errorf("Merge(a, a) error = %v", err)
	}
	if _, err := Merge(nil); err == nil {
		t.Error("Merge() succeeded")
	}
	other := report(p(1, 2))
	other.Perturb = "pct"
	if _, err := Merge([]*Report{a, other}); err == nil || !strings.Contains(err.Error(), "perturb differs") {
		t.Errorf("Merge of different perturbations: error = %v", err)
	}
	other = report(p(1, 3))
	if _, err := Merge([]*Report{a, other}); err == nil || !strings.Contains(err.Error(), "shard_count differs") {
		t.Errorf("Merge of different shard counts: error = %v", err)
	}
	m, err := Merge([]*Report{b})
	if err != nil || m.Complete() {
		t.Errorf("Merge of one of two shards: complete=%v, err %v", m.Complete(), err)
	}
	if _, err := ReadJSON([]byte(`{"version": 2}`)); err == nil {
		t.Error("ReadJSON of version 2 succeeded")
	}
}

// The JSON keys come in a fixed order, and every field is there.
func TestJSONKeys(t *testing.T) {
	r := report(&Plan{Runs: 30, SeedStart: 1, Procs: []int{2}})
	var b bytes.Buffer
	r.WriteJSON(&b)
	dec := json.NewDecoder(&b)
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() && len(keys) < 20 && !strings.Contains(tok, " ") {
				keys = append(keys, tok)
			}
		}
	}
	want := "version script script_sha256 runs seed_start procs perturb run_flags limit_flags shard_count shards done stopped classes"
	var top []string
	for _, k := range keys {
		if strings.Contains(want, k) {
			top = append(top, k)
		}
	}
	if got := strings.Join(top, " "); got != want {
		t.Errorf("top-level keys: %s\nwant %s", got, want)
	}
	c, _ := json.Marshal(r.Classes[0])
	wantClass := `{"outcome":"assert","failure":true,"message":"lost an update","output":"` + OutputHash([]byte("procs 2\n")) +
		`","count":3,"first_run":3,"seed":4,"procs":2,"digest":"` + r.Classes[0].Digest +
		`","replay":"schedlab run --seed 4 --procs 2 --perturb=timing --preempt=off 'lost update.star'","output_text":"procs 2\n","replay_check":""}`
	if string(c) != wantClass {
		t.Errorf("class JSON:\n%s\nwant\n%s", c, wantClass)
	}
}

// TestWriteOutputs: when the classes printed different outputs, the table
// is followed by what each printed, the most frequent first, and where
// each other one first differs from it; one output adds nothing.
func TestWriteOutputs(t *testing.T) {
	r := &Report{Classes: []ReportClass{
		{Outcome: Assert, Count: 2, Output: "aaaaaaaaaaaa", OutputText: "x 1\ny 2\n"},
		{Outcome: OK, Count: 5, Output: "bbbbbbbbbbbb", OutputText: "x 1\ny 3\nz\nw\n"},
		{Outcome: Panic, Count: 1, Output: "cccccccccccc", OutputText: ""},
		{Outcome: Left, Count: 1, Output: "aaaaaaaaaaaa", OutputText: "x 1\ny 2\n"},
	}}
	var b bytes.Buffer
	r.writeOutputs(&b)
	want := `
OUTPUT        RUNS  PRINTED
bbbbbbbbbbbb     5  "x 1" "y 3" "z" ... (1 more lines)
aaaaaaaaaaaa     3  "x 1" "y 2"; line 2: "y 2" where bbbbbbbbbbbb has "y 3"
cccccccccccc     1  nothing; line 1: nothing where bbbbbbbbbbbb has "x 1"
`
	if b.String() != want {
		t.Errorf("outputs:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	(&Report{Classes: r.Classes[:1]}).writeOutputs(&b)
	if b.Len() != 0 {
		t.Errorf("one output: %q, want nothing", b.String())
	}
	if got := firstDiff("a\n", "a\nb\n", "m"); got != `line 2: nothing where m has "b"` {
		t.Errorf("firstDiff, shorter: %s", got)
	}
	if got := excerpt(strings.Repeat("é", 70)); got != strconv.Quote(strings.Repeat("é", 60))+"..." {
		t.Errorf("excerpt of a long line: %s", got)
	}
}

func TestReplay(t *testing.T) {
	r := report(&Plan{Runs: 30, SeedStart: 1, Procs: []int{2}})
	limit := ReportClass{Outcome: Limit, Seed: 9, Procs: 4}
	want := []string{"--seed", "9", "--procs", "4", "--perturb=timing", "--preempt=off", "--max-steps=10000000", "--timeout=10s", "lost update.star"}
	if got := r.ReplayArgs(&limit); !reflect.DeepEqual(got, want) {
		t.Errorf("ReplayArgs(limit) = %q, want %q", got, want)
	}
	for in, want := range map[string]string{
		"x.star":         "x.star",
		"dir/x-1_2.star": "dir/x-1_2.star",
		"a b.star":       "'a b.star'",
		"it's.star":      `'it'\''s.star'`,
		"":               "''",
		"$HOME/x.star":   "'$HOME/x.star'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	r := report(&Plan{Runs: 30, SeedStart: 1, Procs: []int{2}})
	r.Classes[0].ReplayCheck = "ok"
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := OutputHash([]byte("procs 2\n"))
	want := `explore lost update.star: 30 runs, seeds 1-30, procs 2, perturb timing
3 failure classes: 5 of 30 runs failed (16.7%); by outcome: assert 3, deadlock 1, panic 1, ok 23, left 2

#  OUTCOME   RUNS  SEED  PROCS  OUTPUT        MESSAGE
1  assert       3     4      2  ` + out + `  lost an update
2  deadlock     1     7      2  ` + out + `  all goroutines are asleep - deadlock!
3  panic        1    11      2  ` + out + `  count is 2
4  ok          23     1      2  ` + out + `
5  left         2     2      2  ` + out + `  main returned with 1 goroutine still alive

1  schedlab run --seed 4 --procs 2 --perturb=timing --preempt=off 'lost update.star'  # replay: ok
2  schedlab run --seed 7 --procs 2 --perturb=timing --preempt=off 'lost update.star'
3  schedlab run --seed 11 --procs 2 --perturb=timing --preempt=off 'lost update.star'
4  schedlab run --seed 1 --procs 2 --perturb=timing --preempt=off 'lost update.star'
5  schedlab run --seed 2 --procs 2 --perturb=timing --preempt=off --alive 'lost update.star'
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestPolicy: --group=outcome makes one class per outcome, each showing
// its first run's message; --accept makes those outcomes pass, and they
// sort after the failures; a merge of shards regroups the same way.
func TestPolicy(t *testing.T) {
	p := &Plan{Runs: 100, SeedStart: 1, Procs: []int{2}}
	pol := Policy{Group: GroupOutcome, Accept: []Outcome{Deadlock, Panic}}
	tl := Sweep(p, fakeJob, SweepOptions{Jobs: 3, Policy: pol})
	var got []string
	for _, c := range tl.Classes {
		got = append(got, fmt.Sprintf("%s %q first=%d count=%d failure=%v", c.Outcome, c.Example.Message, c.First.Seed, c.Count, pol.Failure(c.Outcome)))
	}
	want := []string{
		`assert "lost an update" first=4 count=8 failure=true`,
		`ok "" first=1 count=80 failure=false`,
		`left "main returned with 1 goroutine still alive" first=2 count=5 failure=false`,
		`deadlock "all goroutines are asleep - deadlock!" first=7 count=4 failure=false`,
		`panic "count is 2" first=11 count=3 failure=false`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("classes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := NewReport(p, tl, "x.star", []byte("src"), "timing", nil, nil)
	if n, runs := r.Failures(); n != 1 || runs != 8 {
		t.Errorf("failures: %d classes, %d runs; want 1, 8", n, runs)
	}
	if r.Group != GroupOutcome || !slices.Equal(r.Accept, pol.Accept) {
		t.Errorf("report group %q accept %v", r.Group, r.Accept)
	}
	// Two shards merge into the whole sweep's report.
	var shards []*Report
	for k := range 2 {
		sp := &Plan{Runs: 100, SeedStart: 1, Procs: []int{2}, Shard: Shard{Index: k, Count: 2}}
		shards = append(shards, roundTrip(t, NewReport(sp, Sweep(sp, fakeJob, SweepOptions{Jobs: 2, Policy: pol}), "x.star", []byte("src"), "timing", nil, nil)))
	}
	m, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Classes, r.Classes) {
		t.Errorf("merged classes\n%+v\nwant\n%+v", m.Classes, r.Classes)
	}
	if _, err := ParseAccept("leak,bogus"); err == nil {
		t.Error("ParseAccept took an outcome that is not a failure")
	}
	if acc, err := ParseAccept("leak, limit,leak"); err != nil || !slices.Equal(acc, []Outcome{Leak, Limit}) {
		t.Errorf("ParseAccept = %v, %v", acc, err)
	}
}
