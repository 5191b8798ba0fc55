package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/schedlab/schedlab/internal/schedfile"
	"github.com/schedlab/schedlab/runtime"
)

// choicesFlag is --choices LIST: a schedule's answers, inline.
type choicesFlag struct{ s *Settings }

func (f choicesFlag) Set(v string) error {
	c, err := schedfile.ParseChoices(v)
	if err != nil {
		return err
	}
	f.s.Choices = c
	return nil
}

func (f choicesFlag) String() string {
	if f.s == nil || f.s.Choices == nil {
		return ""
	}
	return formatChoices(f.s.Choices)
}

// scheduleFlag is --schedule FILE: a schedule file, read once the script
// and every flag are known (loadSchedule).
type scheduleFlag struct{ s *Settings }

func (f scheduleFlag) Set(v string) error {
	if v == "" {
		return errors.New("want a schedule file")
	}
	f.s.ScheduleFile = v
	return nil
}

func (f scheduleFlag) String() string {
	if f.s == nil {
		return ""
	}
	return f.s.ScheduleFile
}

// formatChoices writes choices as --choices takes them: 0,1,0.
func formatChoices(c []int) string { return schedfile.FormatChoices(c, ",") }

// ScheduleSettings returns the settings a schedule fits, as the trace
// header writes them but for the schedule itself and the host's limits
// (the wall-clock timeout and the memory limit), which change no
// schedule: what a schedule file records and a replay must match.
func (s *Settings) ScheduleSettings() string {
	var kv []string
	for _, e := range s.Header().Settings {
		switch e.Key {
		case "choices", "timeout", "max-memory":
			continue
		}
		kv = append(kv, e.Key+"="+e.Value)
	}
	return strings.Join(kv, " ")
}

// loadSchedule reads --schedule's file, if given, and checks that it is a
// schedule of the script src with these settings; its answers become
// Choices.
func (s *Settings) loadSchedule(src []byte) error {
	if s.ScheduleFile == "" {
		return nil
	}
	if s.set["choices"] {
		return errors.New("--schedule and --choices: give one")
	}
	data, err := os.ReadFile(s.ScheduleFile)
	if err != nil {
		return fmt.Errorf("--schedule: %v", err)
	}
	f, err := schedfile.Read(s.ScheduleFile, data)
	if err != nil {
		return err
	}
	if err := f.Fits(s.ScheduleFile, src, s.ScheduleSettings()); err != nil {
		return err
	}
	s.Choices = f.Choices
	return nil
}

// replay returns the Chooser that replays Choices, nil without them.
func (s *Settings) replay() runtime.Chooser {
	if s.Choices == nil {
		return nil
	}
	return runtime.NewReplay(s.Choices)
}
