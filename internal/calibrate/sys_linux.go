package calibrate

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// supported says whether the probes can run here: they need a thread's ID
// and the list of the process's threads, which Linux gives.
const supported = true

// gettid returns the ID of the calling thread, which is also the M's ID in
// an execution trace (the runtime's m.procid).
func gettid() int64 { return int64(syscall.Gettid()) }

// threads returns the IDs of the process's threads now.
func threads() map[int64]bool {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	ids := make(map[int64]bool, len(ents))
	for _, e := range ents {
		if id, err := strconv.ParseInt(e.Name(), 10, 64); err == nil {
			ids[id] = true
		}
	}
	return ids
}

// doSyscall makes a short system call through the runtime's entersyscall
// and exitsyscall.
func doSyscall() { syscall.Syscall(syscall.SYS_GETPID, 0, 0, 0) }

// rawSyscall makes the same system call without them.
func rawSyscall() { syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0) }

// rawWrite writes b to fd with one write(2), without the runtime's
// entersyscall and exitsyscall, and returns how many bytes it wrote.
func rawWrite(fd uintptr, b []byte) int {
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0
	}
	return int(n)
}

// usleep3 sleeps as the runtime's usleep(3) does on Linux: one nanosleep
// of 3µs, raw (runqgrab calls it on the thief's g0, with no entersyscall),
// which the kernel's timer slack stretches.
func usleep3() {
	ts := syscall.Timespec{Nsec: 3000}
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// usleep20 sleeps as sysmon's usleep(20) does: one raw nanosleep of 20µs
// (sysmon runs without a P, so with no entersyscall), which the kernel's
// timer slack stretches.
func usleep20() {
	ts := syscall.Timespec{Nsec: sysmonSleepNS}
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// machine describes this machine as uname, nproc and lscpu would.
func machine(ncpu int) string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	var u syscall.Utsname
	kernel := "Linux"
	if syscall.Uname(&u) == nil {
		kernel = "Linux " + utsString(u.Release[:]) + " " + utsString(u.Machine[:])
	}
	return strconv.Itoa(ncpu) + " CPU, " + model + ", " + kernel
}

func utsString[T int8 | uint8](b []T) string {
	var s strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		s.WriteByte(byte(c))
	}
	return s.String()
}

// loadAverage returns the 1, 5 and 15 minute load averages, as uptime
// prints them.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
