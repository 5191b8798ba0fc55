package cli

import (
	"os"
	"os/signal"
)

// ExitInterrupted is the exit status of `schedlab run` and `schedlab
// explore` ended by SIGINT (Ctrl-C): 128+2, what a shell reports for a
// command that SIGINT killed, so that scripts and make see an interrupt.
const ExitInterrupted = 130

// CatchInterrupt makes the first SIGINT close the returned channel instead
// of killing the process; a second one kills it as usual (the handler is
// removed at the first). stop removes the handler. The command gives the
// channel to the run (lang's Options.Cancel), which ends with the
// diagnosis and the goroutine dump, and writes its trace files.
func CatchInterrupt() (cancel <-chan struct{}, stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	c := make(chan struct{})
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			close(c)
		case <-done:
		}
	}()
	return c, func() {
		signal.Stop(sig)
		close(done)
	}
}
