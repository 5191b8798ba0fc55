// Command mutate is the mutation pass over the scheduling rules of
// docs/runtime.md: it breaks each rule of proc.go, chan.go, select.go,
// sema.go and time.go on purpose, one at a time, runs the tests of the
// packages that should notice, and reports which mutants the tests kill
// and which survive. A surviving mutant is a rule no test holds.
//
// Usage, from the module root, on an idle machine:
//
//	go run ./bench/mutate             # every mutant
//	go run ./bench/mutate -run steal  # the mutants whose name matches
//	go run ./bench/mutate -list       # the mutants, without running them
//
// Each mutant replaces one piece of source text that must occur exactly
// once in its file; a mutant whose text is no longer there (the engine
// changed) is reported as "stale", not counted, and is to be rewritten.
// The file is restored after each run, also when the pass is interrupted
// (SIGINT) or a test hangs (each run has a timeout). The score is killed
// / (killed + survived). docs/reliability.md has the last figures.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"time"
)

// A mutant breaks one rule.
type mutant struct {
	name string // short, for -run
	rule string // the rule of docs/runtime.md it breaks
	file string // relative to the module root
	old  string // text to replace; must occur once
	new  string
	pkgs []string // packages whose tests should notice; default defaultPkgs
}

// equivalent are the mutants that cannot change what the engine does, each
// with the reason; they are listed and reported, not run or counted. A
// mutant goes here only with an argument from the engine's code that no
// run can tell it apart, never because no test was written yet.
var equivalent = map[string]string{
	"no-last-look": "findRunnable runs at one virtual instant from stealWork's last round " +
		"to the last look: a steal pass's cost is paid before its round, not between the round " +
		"and the release of the P, and no other action runs in between, so the last look sees " +
		"exactly the queues the last round has just found empty (in Go another thread can queue " +
		"a G in that window; here none can)",
}

// defaultPkgs are the tests run for each mutant: the engine's own, and the
// golden traces of the examples.
var defaultPkgs = []string{"./runtime/", "./golden/"}

var mutants = []mutant{
	{"runnext-off", "a readied G goes into runnext", "runtime/proc.go",
		"\tif next {\n\t\told := pp.runnext\n\t\tpp.runnext = gp",
		"\tif false && next {\n\t\told := pp.runnext\n\t\tpp.runnext = gp", nil},
	{"runnext-kick-dropped-order", "the old runnext is kicked to the ring's tail", "runtime/proc.go",
		"\t\tpp.runnext = gp\n\t\tif old == nil {\n\t\t\treturn\n\t\t}\n\t\tgp = old",
		"\t\tif old == nil {\n\t\t\tpp.runnext = gp\n\t\t\treturn\n\t\t}", nil},
	{"runqputslow-kicked-to-head", "a full ring moves half plus the kicked G to the global queue, in order", "runtime/proc.go",
		"\tpp.runqhead += n\n\tm.globrunqput(gp)",
		"\tpp.runqhead += n\n\tm.globrunqputhead(gp)", nil},
	{"runnext-no-inherit", "a G taken from runnext inherits the time slice", "runtime/proc.go",
		"\t\tpp.runnext = nil\n\t\treturn next, true",
		"\t\tpp.runnext = nil\n\t\treturn next, false", nil},
	{"step-slice-not-shared", "when steps cost no time, Gs that hand the P on through runnext share its step-counted slice", "runtime/steps.go",
		"\tif s.schedtick != pp.schedtick {", "\tif s.schedtick != pp.schedtick || g.steps.sinceStart == 0 {", nil},
	{"global-every-62", "every 61st schedtick the global queue is checked first", "runtime/proc.go",
		"pp.schedtick%61 == 0", "pp.schedtick%62 == 0", nil},
	{"global-batch-unfair", "global batch: min(n, len/gomaxprocs+1)", "runtime/proc.go",
		"n = min(n, m.runq.size, m.runq.size/m.gomaxprocs+1)", "n = min(n, m.runq.size)", nil},
	{"gosched-local", "gosched puts the caller on the global queue", "runtime/proc.go",
		"\tm.dropg(gp)\n\tm.globrunqput(gp)\n\tif preempted {",
		"\tm.dropg(gp)\n\tm.runqput(pp, gp, false)\n\tif preempted {", nil},
	{"steal-runnext-every-round", "runnext is stolen only in the last round", "runtime/proc.go",
		"stealTimersOrRunNextG := i == stealTries-1", "stealTimersOrRunNextG := true", nil},
	{"steal-one-round", "stealing: 4 rounds", "runtime/machine.go",
		"stealTries       = 4 ", "stealTries       = 1 ", nil},
	{"steal-half-rounded-down", "stealing takes half the ring, rounded up", "runtime/proc.go",
		"\tn -= n / 2\n", "\tn /= 2\n", nil},
	{"steal-run-first", "stealing runs the last stolen G", "runtime/proc.go",
		"\tgp := batch[len(batch)-1]\n\tfor _, g1 := range batch[:len(batch)-1] {",
		"\tgp := batch[0]\n\tfor _, g1 := range batch[1:] {", nil},
	{"steal-order-fixed", "stealing visits the Ps in a seeded random order", "runtime/proc.go",
		"m.stealOrd.start(m.cheaprandn(1 << 31))", "m.stealOrd.start(0)", nil},
	{"runnext-always-stealable", "runnext is not stolen from a P about to run it", "runtime/proc.go",
		"\treturn !(p2.status == Prunning && p2.m != nil && p2.m.curg == nil)", "\treturn true", nil},
	{"wakep-many-spinning", "wakep starts a spinning M only with no spinning M", "runtime/proc.go",
		"\tif m.nmspinning != 0 || len(m.pidle) == 0 {", "\tif len(m.pidle) == 0 {", nil},
	{"spinning-unbounded", "at most half the busy Ps' worth of Ms spin", "runtime/proc.go",
		"(mp.spinning || 2*m.nmspinning < m.gomaxprocs-int32(len(m.pidle)))",
		"(mp.spinning || m.nmspinning < m.gomaxprocs)", nil},
	{"no-last-look", "a spinning M takes a last look at the queues before it parks", "runtime/proc.go",
		"\t\tif !m.runq.empty() || (m.steals() && m.anyRunq()) {", "\t\tif false {", nil},
	{"exitsyscall-no-old-p-back", "exitsyscall takes its old P back from another M's syscall", "runtime/proc.go",
		"\tif oldp != nil && oldp.status == Psyscall && oldp.m == nil {\n\t\toldp.status = Pidle", "\tif false {\n\t\toldp.status = Pidle", nil},
	{"runnext-no-usleep", "a thief sleeps before it takes a running P's runnext (runqgrab's usleep)", "runtime/proc.go",
		"\t\tif d := m.costOf(CostRunnextSleep); d > 0 {", "\t\tif d := m.costOf(CostRunnextSleep); false && d > 0 {", nil},
	{"sysmon-skips-preemptible", "sysmon skips only the passes that cannot act", "runtime/proc.go",
		"\treturn gp.workUntil > m.now || !gp.preempt", "\treturn gp == nil", nil},
	{"steal-ring-takes-runnext", "the first three steal rounds take the ring only, not runnext (stealWork's runqsteal(..., false))", "runtime/proc.go",
		"if gp := m.runqsteal(pp, p2, false, nil); gp != nil {", "if gp := m.runqsteal(pp, p2, true, nil); gp != nil {", nil},
	{"steal-no-timers", "a stealing M runs other Ps' timers in its last round", "runtime/proc.go",
		"if m.runTimers(p2, pp) {", "if false && m.runTimers(p2, pp) {", nil},
	{"exitsyscall-no-idle-p", "exitsyscall takes an idle P when its old one is gone", "runtime/proc.go",
		"\tif pp := m.pidleget(); pp != nil {\n\t\treturn pp, \"idle p\"",
		"\tif pp := m.pidleget(); false && pp != nil {\n\t\treturn pp, \"idle p\"", nil},
	{"stw-preempt-global", "a G preempted for a stop-the-world waits in its P's runnext", "runtime/proc.go",
		"\t\t\t\tm.runqput(pp, gp, true)\n\t\t\t}\n\t\t}\n\t\tif mp.nextp == pp {",
		"\t\t\t\tm.globrunqput(gp)\n\t\t\t}\n\t\t}\n\t\tif mp.nextp == pp {", nil},
	{"gfree-local-max-2", "a P keeps up to 64 dead Gs, then gives half to the global list", "runtime/machine.go",
		"gFreeLocalMax    = 64 ", "gFreeLocalMax    = 2 ", nil},
	{"gfree-batch-1", "gfget refills a P's free list with up to 32", "runtime/machine.go",
		"gFreeBatch       = 32 ", "gFreeBatch       = 1 ", nil},
	{"send-on-closed-ok", "a send on a closed channel panics", "runtime/chan.go",
		"\tif !block && !c.closed && c.full() {\n\t\treturn false, nil\n\t}\n\tif c.closed {\n\t\treturn false, ErrSendOnClosed",
		"\tif !block && !c.closed && c.full() {\n\t\treturn false, nil\n\t}\n\tif c.closed {\n\t\treturn false, nil", nil},
	{"stack-check-ignored", "with preemption off, a request is honoured at the next call's stack check", "runtime/goapi.go",
		"\tg.check()\n\tif !g.preempt {\n\t\treturn false\n\t}\n\tg.preempt = false",
		"\tg.check()\n\tif true {\n\t\treturn false\n\t}\n\tg.preempt = false", []string{"./runtime/", "./golden/", "./lang/"}},
	{"mget-fifo", "idle Ms are reused LIFO", "runtime/proc.go",
		"\tmp := m.midle[n-1]\n\tm.midle = m.midle[:n-1]",
		"\tmp := m.midle[0]\n\tm.midle = m.midle[1:]", nil},
	{"retake-syscall-never", "sysmon retakes a P in a syscall", "runtime/proc.go",
		"\t\t\tif runqempty(pp) && m.nmspinning+int32(len(m.pidle)) > 0 && now-pd.syscallwhen < syscallRetakeNS { // syscallwhen+10ms > now, without the sum",
		"\t\t\tif true {", nil},
	{"retake-syscall-always", "sysmon leaves a P in a short syscall with no work alone", "runtime/proc.go",
		"\t\t\tif runqempty(pp) && m.nmspinning+int32(len(m.pidle)) > 0 && now-pd.syscallwhen < syscallRetakeNS { // syscallwhen+10ms > now, without the sum",
		"\t\t\tif false {", nil},
	{"exitsyscall-no-fast-path", "exitsyscall keeps its old P if not retaken", "runtime/proc.go",
		"\tif oldp != nil && oldp.status == Psyscall && oldp.m == nil && oldp.syscalltick == mp.syscalltick {", "\tif false {", nil},
	{"sysmon-no-backoff", "sysmon doubles its sleep after 50 idle cycles", "runtime/proc.go",
		"\t\td *= 2\n", "\t\td *= 1\n", nil},
	{"preempt-20ms", "a G is preempted after 10ms", "runtime/machine.go",
		"forcePreemptNS   = 10 * 1000 * 1000", "forcePreemptNS   = 20 * 1000 * 1000", nil},
	{"preempted-local", "a preempted G goes to the global queue", "runtime/proc.go",
		"\tm.dropg(gp)\n\tm.globrunqput(gp)\n\tif preempted {",
		"\tm.dropg(gp)\n\tif preempted {\n\t\tm.runqput(pp, gp, false)\n\t} else {\n\t\tm.globrunqput(gp)\n\t}\n\tif preempted {", nil},
	{"gfree-no-reuse", "dead Gs are reused", "runtime/proc.go",
		"\tgp := m.gfget(pp)\n\tif gp == nil {", "\tvar gp *G\n\tif gp == nil {", nil},
	{"goid-batch-1", "goids come from per-P caches of 16", "runtime/machine.go",
		"goidCacheBatch   = 16 ", "goidCacheBatch   = 1 ", nil},
	{"chan-ready-not-runnext", "a channel hand-off readies the receiver into runnext", "runtime/chan.go",
		"\tg.m.ready(gp, g.mp.p, g, true)", "\tg.m.ready(gp, g.mp.p, g, false)", nil},
	{"chan-recv-sender-value-lost-order", "a receive from a full buffer moves the sender's value to the tail", "runtime/chan.go",
		"\t\tv = c.buf[c.recvx]\n\t\tc.buf[c.recvx] = sg.elem",
		"\t\tv = sg.elem", nil},
	{"close-wake-fifo", "close wakes the waiters from a stack (gList)", "runtime/chan.go",
		"\tfor !glist.empty() {\n\t\tg.goready(glist.pop())\n\t}",
		"\tvar order []*G\n\tfor !glist.empty() {\n\t\torder = append(order, glist.pop())\n\t}\n\tfor i := len(order) - 1; i >= 0; i-- {\n\t\tg.goready(order[i])\n\t}", nil},
	{"close-senders-first", "close wakes receivers, then senders", "runtime/chan.go",
		"\t\tsg := c.recvq.dequeue()\n\t\tif sg == nil {\n\t\t\tbreak\n\t\t}\n\t\tsg.elem = nil\n\t\tsg.success = false\n\t\tsg.g.param = sg\n\t\tglist.push(sg.g)\n\t}\n\tfor {\n\t\tsg := c.sendq.dequeue()",
		"\t\tsg := c.sendq.dequeue()\n\t\tif sg == nil {\n\t\t\tbreak\n\t\t}\n\t\tsg.elem = nil\n\t\tsg.success = false\n\t\tsg.g.param = sg\n\t\tglist.push(sg.g)\n\t}\n\tfor {\n\t\tsg := c.recvq.dequeue()", nil},
	{"select-fixed-order", "select polls its cases in a random order", "runtime/select.go",
		"\t\tj := int(m.cheaprandn(uint32(len(pollorder) + 1)))", "\t\tj := len(pollorder)", nil},
	{"timers-latest-first", "timers run in deadline order", "runtime/time.go",
		"\tif h[i].when != h[j].when {\n\t\treturn h[i].when < h[j].when", "\tif h[i].when != h[j].when {\n\t\treturn h[i].when > h[j].when", nil},
	{"sleep-ready-not-runnext", "a sleep readies its G into runnext", "runtime/time.go",
		"\t\tm.ready(t.gp, pp, nil, true)", "\t\tm.ready(t.gp, pp, nil, false)", nil},
	{"mutex-lifo", "mutex waiters are FIFO", "runtime/sema.go",
		"\t\tlifo := waitStart >= 0\n", "\t\tlifo := true\n", nil},
	{"mutex-no-starvation", "starvation mode after 1ms hands the mutex off", "runtime/sema.go",
		"\t\tif m.now-waitStart > starvationThresholdNs {\n\t\t\tmu.starving = true", "\t\tif false {\n\t\t\tmu.starving = true", nil},
	{"waitgroup-one-waiter", "the Add that reaches zero readies every waiter", "runtime/sema.go",
		"\t\tg.goready(gp)\n\t}\n}", "\t\tg.goready(gp)\n\t\treturn nil\n\t}\n}", nil},
	{"retake-counts-preemptions", "retake counts only Ps taken from syscalls, so sysmon stays at 10ms under CPU load (20ms slices)", "runtime/proc.go",
		"\t\t\t\tm.preemptone(pp) // not counted: only a P taken from a syscall wakes sysmon up",
		"\t\t\t\tif m.preemptone(pp) {\n\t\t\t\t\tn++\n\t\t\t\t}", nil},
	{"procresize-tail", "destroyed Ps give their queues to the global head", "runtime/proc.go",
		"\t\t\tpp.runq[pp.runqtail%runqSize] = nil\n\t\t\tm.globrunqputhead(gp)",
		"\t\t\tpp.runq[pp.runqtail%runqSize] = nil\n\t\t\tm.globrunqput(gp)", nil},

	// The netpoller (runtime/netpoll.go) and the CPU quota (quota.go).
	{"netpoll-no-block", "the last M with nothing to do blocks in netpoll", "runtime/netpoll.go",
		"if !np.inited || np.pollM != nil || np.waiters == 0 && m.nextTimer() < 0 {",
		"if true || !np.inited || np.pollM != nil || np.waiters == 0 && m.nextTimer() < 0 {", netPkgs},
	{"netpoll-no-findrunnable", "findRunnable polls the network before stealing", "runtime/netpoll.go",
		"if !np.inited || np.waiters == 0 || np.pollM != nil {\n\t\treturn nil",
		"if true || !np.inited || np.waiters == 0 || np.pollM != nil {\n\t\treturn nil", netPkgs},
	{"netpoll-no-sysmon", "sysmon polls when the last poll is 10ms old", "runtime/netpoll.go",
		"if !np.inited || np.pollM != nil || m.now-np.lastpoll <= sysmonNetpollNS {",
		"if true || !np.inited || np.pollM != nil || m.now-np.lastpoll <= sysmonNetpollNS {", netPkgs},
	{"netpoll-ready-not-consumed", "a notification that came first is consumed without parking", "runtime/netpoll.go",
		"\tcase pdReady:\n\t\t*gpp = nil\n\t\treturn true", "\tcase pdReady:\n\t\t*gpp = nil", netPkgs},
	{"netpoll-no-reset", "pollReset forgets a stale read notification", "runtime/netpoll.go",
		"\tif mode == 'r' {\n\t\tpd.rg = nil\n\t}\n\treturn pollNoError", "\treturn pollNoError", netPkgs},
	{"injectglist-no-idle", "injectglist sends as many Gs to the global queue as there are idle Ps", "runtime/netpoll.go",
		"for npidle := len(m.pidle); npidle > 0", "for npidle := 0; npidle > 0", netPkgs},
	{"netpoll-wake-always-light", "an M that slept 1ms or more in netpoll wakes as an idle CPU does (timer_late)", "runtime/netpoll.go",
		"\tif m.now-m.np.pollSince < netpollDeepNS {", "\tif true {", netPkgs},
	{"netpoll-wake-always-deep", "an M that slept less than 1ms in netpoll wakes as a parked M does (wakeup)", "runtime/netpoll.go",
		"\tif m.now-m.np.pollSince < netpollDeepNS {", "\tif false {", netPkgs},
	{"traffic-from-send", "open-loop latency counts from when a request was due", "runtime/traffic.go",
		"\tif tr.cfg.Think >= 0 {\n\t\tr.due = tr.m.now\n\t}", "\tr.due = tr.m.now", netPkgs},
	{"quota-no-pushback", "a throttle pushes work in progress back by the pause", "runtime/quota.go",
		"\t\tcase a.kind == actResume:\n\t\t\ta.when = addWhen(a.when, shift) // the rest of the work, after the pause\n", "", nil},
	{"quota-never-runs-out", "the process is throttled when its period's budget is spent", "runtime/quota.go",
		"\t\tif left := c.quota - usage; left < seg*n {", "\t\tif left := c.quota - usage; false && left < seg*n {", nil},
}

// netPkgs are the tests of the network's mutants: the engine's, and the
// language's scripts of the network and traffic.
var netPkgs = []string{"./runtime/", "./golden/", "./lang/"}

func main() {
	runRE := flag.String("run", "", "only the mutants whose name matches this `regexp`")
	list := flag.Bool("list", false, "list the mutants and exit")
	check := flag.Bool("check", false, "only check that each mutant's text occurs once in its file (stale or not), without running tests")
	timeout := flag.Duration("timeout", 10*time.Minute, "stop one mutant's tests after `D` (counted as killed: the tests hung)")
	flag.Parse()
	re := regexp.MustCompile(*runRE)

	// A SIGINT stops the pass between two mutants, after the file is
	// restored; the context ends a test run in progress.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var killed, survived, stale, equiv []string
	for _, mu := range mutants {
		if !re.MatchString(mu.name) {
			continue
		}
		if *list {
			fmt.Printf("%-36s %-18s %s\n", mu.name, mu.file, mu.rule)
			continue
		}
		if why, ok := equivalent[mu.name]; ok && !*check {
			fmt.Printf("%-9s %-36s %s\n%s\n", "equiv", mu.name, mu.rule, indent(why))
			equiv = append(equiv, mu.name)
			continue
		}
		if *check {
			if err := applies(mu); err != nil {
				fmt.Printf("stale     %-36s %v\n", mu.name, err)
				stale = append(stale, mu.name)
			}
			continue
		}
		if ctx.Err() != nil {
			break
		}
		res, out := try(ctx, mu, *timeout)
		fmt.Printf("%-9s %-36s %s\n", res, mu.name, mu.rule)
		switch res {
		case "killed", "hung":
			killed = append(killed, mu.name)
		case "SURVIVED":
			survived = append(survived, mu.name)
			fmt.Printf("%s\n", indent(out))
		default:
			stale = append(stale, mu.name)
			fmt.Printf("%s\n", indent(out))
		}
	}
	if *list {
		return
	}
	if *check {
		fmt.Printf("%d of %d mutants stale\n", len(stale), len(mutants))
		if len(stale) > 0 {
			os.Exit(1)
		}
		return
	}
	n := len(killed) + len(survived)
	if n == 0 {
		fmt.Println("no mutant ran")
		return
	}
	fmt.Printf("\nmutation score: %d of %d mutants killed (%.0f%%)", len(killed), n, 100*float64(len(killed))/float64(n))
	if len(stale) > 0 {
		fmt.Printf("; %d stale: %s", len(stale), strings.Join(stale, " "))
	}
	if len(equiv) > 0 {
		fmt.Printf("; %d equivalent, not counted: %s", len(equiv), strings.Join(equiv, " "))
	}
	fmt.Println()
	if len(survived) > 0 {
		fmt.Printf("survived: %s\n", strings.Join(survived, " "))
		os.Exit(1)
	}
}

// applies reports whether mu's text occurs exactly once in its file.
func applies(mu mutant) error {
	orig, err := os.ReadFile(mu.file)
	if err != nil {
		return err
	}
	if n := bytes.Count(orig, []byte(mu.old)); n != 1 {
		return fmt.Errorf("%s: the text to mutate occurs %d times, want 1", mu.file, n)
	}
	return nil
}

// try applies mu, runs its tests and restores the file. It returns
// "killed", "hung" (the tests ran past the timeout), "SURVIVED", or
// "stale"/"error" with a reason.
func try(ctx context.Context, mu mutant, timeout time.Duration) (string, string) {
	orig, err := os.ReadFile(mu.file)
	if err != nil {
		return "error", err.Error()
	}
	if n := bytes.Count(orig, []byte(mu.old)); n != 1 {
		return "stale", fmt.Sprintf("%s: the text to mutate occurs %d times, want 1", mu.file, n)
	}
	mutated := bytes.Replace(orig, []byte(mu.old), []byte(mu.new), 1)
	if err := os.WriteFile(mu.file, mutated, 0o666); err != nil {
		return "error", err.Error()
	}
	defer func() {
		if err := os.WriteFile(mu.file, orig, 0o666); err != nil {
			fmt.Fprintf(os.Stderr, "mutate: RESTORE %s BY HAND: %v\n", mu.file, err)
			os.Exit(2)
		}
	}()
	pkgs := mu.pkgs
	if pkgs == nil {
		pkgs = defaultPkgs
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append([]string{"test", "-short", "-count=1", "-failfast"}, pkgs...)
	cmd := exec.CommandContext(tctx, "go", args...)
	out, err := cmd.CombinedOutput()
	switch {
	case tctx.Err() == context.DeadlineExceeded:
		return "hung", ""
	case ctx.Err() != nil:
		return "error", "interrupted"
	case err == nil:
		return "SURVIVED", ""
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return "error", "the mutant does not compile:\n" + string(out)
	}
	return "killed", failingTests(out)
}

// failingTests returns the names of the tests that failed in go test's
// output.
func failingTests(out []byte) string {
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "---" && f[1] == "FAIL:" {
			names = append(names, f[2])
		}
	}
	return strings.Join(names, " ")
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
