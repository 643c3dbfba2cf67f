// Package hosttest helps test code that runs on a [host.Host], as
// testing/fstest helps test file systems: [New] makes a fresh host whose logs
// go to the test's output and which is shut down, checked, when the test
// ends; [TakeBaseline] records a census of the host ([host.Host.Counts]) so
// that "mount then unmount leaves nothing behind, and a re-mount reaches the
// same counts" (host §1.1, §6 item 1) is one assertion:
//
//	h := hosttest.New(t)
//	base := hosttest.TakeBaseline(h)
//	inst, _ := h.Plugin(ctx, myplugin.Plugin, nil)
//	_ = inst.Dispose(ctx)
//	base.Assert(t)
//
// It uses only the standard testing package, so any test framework can call
// it.
package hosttest
