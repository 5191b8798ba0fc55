package runtime

// Test helpers of package runtime for the external tests (package
// runtime_test), which are compiled into the same test binary.

// WaitNumGoroutine is waitNumGoroutine (coro_test.go).
var WaitNumGoroutine = waitNumGoroutine
