package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/runtime"
)

// Values of --costs that name no file.
const (
	CostsDefault = "default" // the profile embedded in the engine (runtime.DefaultCosts)
	CostsZero    = "zero"    // the textbook model: every cost 0 (runtime.ZeroCosts)
)

// costsFlag is --costs: default, zero, or the path of a profile file. A
// directive's relative path is relative to the script's directory (dir),
// the command line's to the working directory. The file is read and
// checked when the flag is set, so that a bad profile is a flag error.
type costsFlag struct {
	s *Settings
}

func (f costsFlag) Set(v string) error {
	c, err := LoadCosts(v, f.s.dir)
	if err != nil {
		return err
	}
	f.s.Costs, f.s.costs = v, c
	return nil
}

func (f costsFlag) String() string {
	if f.s == nil {
		return CostsDefault
	}
	return f.s.Costs
}

// LoadCosts returns the costs profile that --costs=v names: the embedded
// default for "default", every cost 0 for "zero", otherwise the profile in
// the file v (relative to dir unless absolute or dir is ""). A file that
// cannot be read or is not a valid profile is an error naming the file
// and what is wrong.
func LoadCosts(v, dir string) (*runtime.Costs, error) {
	switch v {
	case CostsDefault:
		return runtime.DefaultCosts(), nil
	case CostsZero:
		return runtime.ZeroCosts(), nil
	case "":
		return nil, fmt.Errorf("want %s, %s or a profile file", CostsDefault, CostsZero)
	}
	path := v
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("want %s, %s or a profile file: %v", CostsDefault, CostsZero, err)
	}
	return runtime.ParseCosts(v, data)
}

// CostsProfile returns the costs profile s.Costs names (--costs), the
// embedded default unless the flag was set.
func (s *Settings) CostsProfile() *runtime.Costs {
	if s.costs == nil {
		s.costs = runtime.DefaultCosts()
	}
	return s.costs
}
