package explore

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// An Outcome is how a run ended, as explore tells runs apart.
type Outcome string

// Outcomes, in the order a report lists classes of equal standing.
const (
	Assert   Outcome = "assert"   // a failed assert(cond, msg): panic: msg, exit 2
	Panic    Outcome = "panic"    // any other panic: panic: msg, exit 2
	Fatal    Outcome = "fatal"    // a fatal error other than deadlock (sync: unlock of unlocked mutex)
	Deadlock Outcome = "deadlock" // fatal error: all goroutines are asleep - deadlock!
	Leak     Outcome = "leak"     // main returned, goroutines marked leaked by the leak check
	Limit    Outcome = "limit"    // a step, goroutine, time or wall-clock limit, or a wedged P
	Error    Outcome = "error"    // the script did not load (exit 1) or schedlab failed (exit 3)
	Left     Outcome = "left"     // main returned with goroutines still alive, none marked leaked
	OK       Outcome = "ok"       // main returned and nothing was left
)

// Failure reports whether the outcome is a failure: any but ok and left.
// A Go program may end with goroutines still alive, so "left" is only
// noted; a goroutine the leak check marks leaked is a failure.
func (o Outcome) Failure() bool { return o != OK && o != Left }

// A Result is the classified end of one run.
type Result struct {
	Outcome Outcome
	Message string   // the first line of the diagnosis, "" for ok
	Output  string   // OutputHash of stdout
	Digest  [32]byte // of exit status, stdout and stderr: what a replay must reproduce
	// Text is stdout itself, its first MaxOutputText bytes, so that a
	// report can show what a class printed without a replay.
	Text string
}

// MaxOutputText is how much of a run's stdout a Result keeps.
const MaxOutputText = 16 << 10

// Key returns the class of the result.
func (r *Result) Key() Key { return Key{r.Outcome, r.Message, r.Output} }

// A Key names a class of runs: the same outcome, message and output.
type Key struct {
	Outcome Outcome
	Message string
	Output  string
}

// OutputHash is the short hash of a run's stdout that names its output in
// a report: the first 12 hex digits of its SHA-256.
func OutputHash(stdout []byte) string {
	sum := sha256.Sum256(stdout)
	return hex.EncodeToString(sum[:6])
}

// Digest returns the hash of everything a run shows: its exit status,
// stdout and stderr.
func Digest(exit int, stdout, stderr []byte) [32]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(exit))
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(stdout)))
	h.Write(n[:])
	h.Write(stdout)
	h.Write(stderr)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Exit statuses of `schedlab run`, as Classify reads them.
const (
	exitOK       = 0
	exitLoad     = 1
	exitFailed   = 2
	exitInternal = 3
)

var (
	aliveLine  = regexp.MustCompile(`^schedlab: main returned with (\d+ goroutines? still alive( \(\d+ leaked\))?|\d+ leaked goroutines? \(of \d+ still alive; --alive lists them all\)):$`)
	leakedLine = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*leaked[^\]]*\]:$`)
)

// Classify returns the Result of a run that ended with exit status exit,
// having printed stdout and stderr (the bytes `schedlab run` prints).
// assertMsg is the message of the assert that failed during the run, or
// "" if none did: a panic with that message is an assertion failure.
func Classify(exit int, stdout, stderr []byte, assertMsg string) Result {
	r := Result{Output: OutputHash(stdout), Digest: Digest(exit, stdout, stderr), Text: string(stdout[:min(len(stdout), MaxOutputText)])}
	first := diagnosis(stderr)
	switch {
	case exit == exitOK && aliveLine.MatchString(first):
		r.Outcome, r.Message = Left, strings.TrimSuffix(strings.TrimPrefix(first, "schedlab: "), ":")
		if leakedLine.Match(stderr) {
			r.Outcome = Leak
		}
	case exit == exitOK:
		r.Outcome = OK
	case exit == exitFailed && strings.HasPrefix(first, "panic: "):
		r.Outcome, r.Message = Panic, strings.TrimPrefix(first, "panic: ")
		if assertMsg != "" && firstLine(assertMsg) == r.Message {
			r.Outcome = Assert
		}
	case exit == exitFailed && first == "fatal error: all goroutines are asleep - deadlock!":
		r.Outcome, r.Message = Deadlock, strings.TrimPrefix(first, "fatal error: ")
	case exit == exitFailed && strings.HasPrefix(first, "fatal error: "):
		r.Outcome, r.Message = Fatal, strings.TrimPrefix(first, "fatal error: ")
	case exit == exitFailed:
		r.Outcome, r.Message = Limit, strings.TrimPrefix(first, "schedlab: ")
	default:
		r.Outcome, r.Message = Error, first
		if r.Message == "" {
			r.Message = "exit status " + strconv.Itoa(exit)
		}
	}
	return r
}

// diagnosis returns the first line of stderr that is not a warning: a
// run's warnings (a --param the script never read) come before the
// report of how it ended.
func diagnosis(stderr []byte) string {
	rest := string(stderr)
	for {
		line, after, _ := strings.Cut(rest, "\n")
		if !strings.HasPrefix(line, "schedlab: warning: ") {
			return line
		}
		rest = after
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
