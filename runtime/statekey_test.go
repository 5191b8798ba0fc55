package runtime

import "testing"

// TestAppendStateKey: equal states have equal keys, and a change that a
// waiter, a lock or a ticket makes is seen; a channel holding a value has
// no key.
func TestAppendStateKey(t *testing.T) {
	key := func(obj any) string {
		b, ok := AppendStateKey(nil, obj)
		if !ok {
			return "none"
		}
		return string(b)
	}
	g5 := &G{goid: 5}
	mu := &Mutex{}
	unlocked := key(mu)
	mu.locked = true
	if key(mu) == unlocked {
		t.Error("a locked mutex has the key of an unlocked one")
	}
	mu.sema.gs = []*G{g5}
	locked := key(mu)
	mu.sema.gs = nil
	if key(mu) == locked {
		t.Error("a waiter on a mutex is not in its key")
	}
	mu.locked = false
	if key(mu) != unlocked {
		t.Errorf("a mutex locked and unlocked: key %q, was %q", key(mu), unlocked)
	}
	c := &Cond{}
	empty := key(c)
	c.wait, c.notify = 1, 1
	if key(c) == empty {
		t.Error("a cond's tickets are not in its key")
	}
	ch := &Chan{dataqsiz: 1, buf: make([]any, 1)}
	open := key(ch)
	ch.closed = true
	if key(ch) == open {
		t.Error("a closed channel has the key of an open one")
	}
	ch.qcount = 1
	if key(ch) != "none" {
		t.Error("a channel holding a value has a key")
	}
	if key(GKey(1)) != "none" {
		t.Error("a GKey has a state key")
	}
}
