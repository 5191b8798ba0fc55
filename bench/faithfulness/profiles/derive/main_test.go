package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

const defaultProfile = "../../../../runtime/costs_default.json"

// TestDerive: -set, -copy, -dist and -rank change only the costs they name, in order,
// and the result is a profile ParseCosts reads.
func TestDerive(t *testing.T) {
	dir := t.TempDir()
	// A profile whose wakeup differs from the default's, to copy from.
	def := runtime.DefaultCosts()
	other := *def
	*other.Dist(runtime.CostWakeup) = runtime.Const(7777)
	other.MalgRank = []runtime.Dist{runtime.Const(11), runtime.Const(22)}
	otherFile := filepath.Join(dir, "other.json")
	if err := os.WriteFile(otherFile, other.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"-base", defaultProfile, "-name", "plain", "-set", "step_ps=25", "-copy", "wakeup=" + otherFile, "-copy", "malg_rank=" + otherFile, "-dist", "notewakeup=40:" + strings.Repeat("3,", 20) + "9", "-dist", "stall=9:" + strings.Repeat("3,", 20) + "900:4,5,6,7,8,9", "-rank", "sysmon_late_rank=5:" + strings.Repeat("150,", 20) + "150", "-rank", "sysmon_late_rank=5:" + strings.Repeat("90,", 20) + "90", "-notes", "why."}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got, err := runtime.ParseCosts("out", out.Bytes())
	if err != nil {
		t.Fatalf("the output is no profile: %v\n%s", err, out.String())
	}
	for _, k := range runtime.CostKinds() {
		want := *def.Dist(k)
		switch k {
		case runtime.CostStepPs:
			want = runtime.Const(25)
		case runtime.CostWakeup:
			want = runtime.Const(7777)
		case runtime.CostNotewakeup:
			want = runtime.Const(3)
			want.N, want.Quantiles[runtime.NumQuantiles-1] = 40, 9
		case runtime.CostStall:
			want = runtime.Const(3)
			want.N, want.Quantiles[runtime.NumQuantiles-1] = 9, 900
			want.HasTail, want.Tail = true, [runtime.NumTail]int64{4, 5, 6, 7, 8, 9}
		}
		if *got.Dist(k) != want {
			t.Errorf("%v: %v, want %v", k, *got.Dist(k), want)
		}
	}
	if len(got.MalgRank) != 2 || got.MalgRank[0] != runtime.Const(11) || got.MalgRank[1] != runtime.Const(22) {
		t.Errorf("malg_rank %v, want the other profile's", got.MalgRank)
	}
	if len(got.SysmonLateRank) != 2 || got.SysmonLateRank[0].Median() != 150 || got.SysmonLateRank[1].Median() != 90 {
		t.Errorf("sysmon_late_rank %v, want the two -rank entries in order", got.SysmonLateRank)
	}
	if got.Name != "plain" || !strings.Contains(got.Command, "-set step_ps=25") || !strings.Contains(got.Notes, "step_ps set to 25 at every quantile") || !strings.Contains(got.Notes, "why.") {
		t.Errorf("name %q, command %q, notes %q: want the new name, the command and what changed", got.Name, got.Command, got.Notes)
	}
}

// TestDeriveBadArgs: a bad cost, value or missing name is a usage error.
func TestDeriveBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"-base", defaultProfile, "-name", "x", "-set", "nosuch=1"},
		{"-base", defaultProfile, "-name", "x", "-set", "step_ps=-1"},
		{"-base", defaultProfile, "-name", "x", "-set", "step_ps"},
		{"-base", defaultProfile, "-set", "step_ps=1"},
		{"-base", defaultProfile, "-name", "x"},
		{"-base", defaultProfile, "-name", "x", "-dist", "notewakeup=3"},
		{"-base", defaultProfile, "-name", "x", "-rank", "step_ps=3:" + strings.Repeat("5,", 20) + "5"},
		{"-base", defaultProfile, "-name", "x", "-rank", "sysmon_late_rank=3:1,2"},
		{"-base", defaultProfile, "-name", "x", "-dist", "notewakeup=3:1,2,3"},
		{"-base", defaultProfile, "-name", "x", "-dist", "notewakeup=3:" + strings.Repeat("5,", 20) + "4"},
		{"-base", defaultProfile, "-name", "x", "-dist", "stall=3:" + strings.Repeat("5,", 20) + "9:6,7"},
		{"-base", defaultProfile, "-name", "x", "-dist", "stall=3:" + strings.Repeat("5,", 20) + "9:4,6,6,6,6,6"},
		{"-base", defaultProfile, "-name", "x", "-dist", "stall=3:" + strings.Repeat("5,", 20) + "9:6,6,6,6,6,10"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", args, code, out.String())
		}
	}
}

// TestShellQuote: the command in a profile runs again as written.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"step_ps=25":  "step_ps=25",
		"a b":         "'a b'",
		"calibrate's": `'calibrate'\''s'`,
		"":            "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
