package lang

import (
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// Under --gc-cycle=stw a script's allocation stops the world: a goroutine
// counting on the other P stands still through each pause, so the counts
// it makes while main allocates fall short of those of the same run with
// instant cycles, by the pauses' share of the time; the run is the same
// every time. Under the default (instant) the allocations change nothing:
// the run equals one that allocates 0 bytes.
func TestGCStopTheWorldScript(t *testing.T) {
	const src = `
stop = [False]
count = [0]
def counter():
    while not stop[0]:
        count[0] += 1
done = chan()
def run():
    counter()
    done.send(1)
spawn(run)
work("1ms")
before = count[0]
t0 = now()
for i in range(200):
    alloc(SIZE)
    work("5us")
counted = count[0] - before
elapsed = now() - t0
stop[0] = True
done.recv()
s = stats()["gc"]
print(s["cycles"], s["pause_total"], elapsed, counted)
`
	run := func(alloc bool, cycle runtime.GCCycle) string {
		t.Helper()
		s := strings.Replace(src, "SIZE", map[bool]string{true: `"256KiB"`, false: "0"}[alloc], 1)
		stdout, stderr, res := runSrc(t, s, Options{Procs: 2, Preempt: true, Costs: runtime.DefaultCosts(), GCCycle: cycle})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d: %s", res.ExitCode, stderr)
		}
		return stdout
	}
	stw := run(true, runtime.GCStopTheWorld)
	if again := run(true, runtime.GCStopTheWorld); again != stw {
		t.Errorf("not deterministic: %q then %q", stw, again)
	}
	instant := run(true, runtime.GCInstant)
	if none := run(false, runtime.GCInstant); strings.Join(strings.Fields(none)[2:], " ") != strings.Join(strings.Fields(instant)[2:], " ") {
		t.Errorf("instant cycles changed the run: %q, without allocation %q", instant, none)
	}
	var cyc, pause, elapsed, counted [2]int64
	for i, out := range []string{instant, stw} {
		f := strings.Fields(out)
		for j, p := range []*[2]int64{&cyc, &pause, &elapsed, &counted} {
			n, err := strconv.ParseInt(f[j], 10, 64)
			if err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			p[i] = n
		}
	}
	if cyc[0] < 5 || cyc[0] != cyc[1] || pause[0] != 0 || pause[1] < int64(cyc[1])*20_000 {
		t.Errorf("instant: %d cycles, %dns paused; stw: %d cycles, %dns paused", cyc[0], pause[0], cyc[1], pause[1])
	}
	if elapsed[1] != elapsed[0]+pause[1] {
		t.Errorf("main's loop took %dns with pauses, %dns without: want the difference to be the pauses, %dns", elapsed[1], elapsed[0], pause[1])
	}
	if counted[1] >= counted[0] {
		t.Errorf("the counter counted %d with the world stopping, %d without: want fewer", counted[1], counted[0])
	}
}

// An idle mark worker polls the network between two chunks (pollWork), so
// a request that arrives while the only P marks is picked up within a
// chunk or a fractional worker's stint, not when sysmon next polls (10ms
// after the last poll). At one P main waits in gc() while two cycles mark
// 32 MiB each (33ms at 1 GB/s); five requests come 1ms apart, and none
// waits 5ms (15.7ms without the poll).
func TestGCIdleWorkerPollsNetwork(t *testing.T) {
	const src = `
retain("32MiB")
l = listen(":7")
def handle(c):
    while True:
        req = c.read()
        if req == None:
            break
        c.write(req.id)
    c.close()
def serve():
    while True:
        spawn(handle, l.accept())
spawn(serve)
t = traffic(":7", every="1ms", n=5)
work("10us")
gc()
t.wait()
print(t.stats()["max"])
`
	stdout, stderr, res := runSrc(t, src, Options{Procs: 1, Preempt: true, Costs: runtime.DefaultCosts(), GCCycle: runtime.GCMark})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	d, err := strconv.ParseInt(strings.TrimSpace(stdout), 10, 64)
	if err != nil {
		t.Fatalf("output %q: %v", stdout, err)
	}
	if d >= 5_000_000 {
		t.Errorf("a request waited %dns; want less than 5ms (an idle worker polls between chunks)", d)
	}
}
