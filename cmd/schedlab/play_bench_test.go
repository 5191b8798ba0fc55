package main

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkPlay measures the playground's budgets side by side with the
// native command, in one run (docs/performance.md):
//
//   - load: from navigation to a page that can run (the engine compiled,
//     its worker started, the examples listed), served from localhost;
//   - hello: examples/hello.star, in the page's engine (the worker's run,
//     timed in the page) and as the schedlab command (a process);
//   - explore: 300 runs of examples/lost_update.star, in the page and as
//     `schedlab explore` on every core, as runs/s.
//
// go test ./cmd/schedlab -run '^$' -bench BenchmarkPlay -benchtime 10x
func BenchmarkPlay(b *testing.B) {
	browser := findBrowser(b)
	dir, _ := buildPlaySite(b)
	srv := httptest.NewServer(siteHandler(dir))
	defer srv.Close()
	bctx := newBrowser(b, browser)
	p := openPlay(b, bctx, srv.URL, srv.URL+"/")
	hello := exampleSrc(b, "hello.star")
	lost := exampleSrc(b, "lost_update.star")

	b.Run("load/page", func(b *testing.B) {
		var total float64
		for range b.N {
			q := openPlay(b, bctx, srv.URL, srv.URL+"/")
			total += eval[float64](b, q, `window.__play.state.readyAt`)
		}
		b.ReportMetric(total/float64(b.N), "ms-to-runnable")
	})
	runMs := func(req string) string {
		return fmt.Sprintf(`(function () { var t = performance.now(); return window.__play.engine({type: "run", req: %s}).then(function () { return performance.now() - t; }); })()`, req)
	}
	b.Run("hello/page", func(b *testing.B) {
		req := fmt.Sprintf(`{filename: "hello.star", src: %s, args: [], timeline: false}`, jsString(hello))
		await[float64](b, p, runMs(req)) // warm
		var total float64
		b.ResetTimer()
		for range b.N {
			total += await[float64](b, p, runMs(req))
		}
		b.ReportMetric(total/float64(b.N), "ms/run")
	})
	b.Run("hello/native", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			start := time.Now()
			native(b, "../../examples", "run", "hello.star")
			total += time.Since(start)
		}
		b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/run")
	})
	const runs = 300
	b.Run("explore/page", func(b *testing.B) {
		var total float64
		for range b.N {
			total += await[float64](b, p, fmt.Sprintf(`(function () { var t = performance.now(); return window.__play.engine({type: "explore", req: {filename: "lost_update.star", src: %s, args: [], runs: %d, seedStart: 1, procs: [], perturb: ""}}).then(function (r) { if (r.error || r.done !== %d) throw new Error(r.error || "done " + r.done); return performance.now() - t; }); })()`, jsString(lost), runs, runs))
		}
		b.ReportMetric(runs/(total/1e3/float64(b.N)), "runs/s")
	})
	b.Run("explore/native", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			start := time.Now()
			out, _, _ := native(b, "../../examples", "explore", fmt.Sprintf("--runs=%d", runs), "lost_update.star")
			total += time.Since(start)
			if !strings.Contains(out, "seed") {
				b.Fatalf("explore printed %q", out)
			}
		}
		b.ReportMetric(runs/(total.Seconds()/float64(b.N)), "runs/s")
	})
}
